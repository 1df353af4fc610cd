//! `wta hooks install | status | uninstall [--cli NAME]`: puts WTA's hook
//! bundles (data in [`wta_agent::hooks`]) on disk and registers them through
//! each agent CLI's own command; never edits a CLI's config file. OpenCode
//! has no such command: its plugin file is copied, and only WTA's file of
//! that name is ever touched (a user's file there is moved aside first and
//! put back on uninstall).
//!
//! Every CLI command runs with stdin closed, in its own process group, for at
//! most [`CLI_TIMEOUT`] (then the group is killed); its stderr is reported
//! when it fails. Reports are stable snake_case JSON with `--json`
//! (`schema_version` first, as every command's: [`crate::json`]).
//!
//! `run_cli.rs` runs one CLI command, `status.rs` reports what is installed,
//! `install.rs` installs and uninstalls.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use wta_agent::hooks as data;
use wta_protocol::agent_sessions::HookCli;

mod install;
mod run_cli;
mod status;

use install::{Action, act};
use status::status;

use super::Ctx;

/// The longest any CLI command may run.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Args)]
#[command(after_long_help = data::HELP)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub command: HooksCommand,
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Write the bundles and register them with each CLI found on PATH.
    Install(CliArg),
    /// Per CLI: on PATH, installed, bundle up to date.
    Status(CliArg),
    /// Unregister the bundles and remove them.
    Uninstall(CliArg),
}

#[derive(Debug, Args)]
pub struct CliArg {
    /// Only this CLI (default: all five).
    #[arg(long, value_name = "NAME",
          value_parser = ["claude", "copilot", "codex", "gemini", "opencode"])]
    pub cli: Option<String>,
}

/// One CLI to act on.
struct Target {
    cli: HookCli,
    program: Option<PathBuf>,
    /// Its bundle directory.
    dir: PathBuf,
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

fn targets(arg: &CliArg) -> Vec<Target> {
    let root = data::bundles_dir();
    HookCli::ALL
        .into_iter()
        .filter(|c| arg.cli.as_deref().is_none_or(|n| n == c.as_str()))
        .map(|cli| Target {
            cli,
            program: find_on_path(cli.as_str()),
            dir: root.join(cli.as_str()),
        })
        .collect()
}

pub fn run(ctx: &Ctx, args: &HooksArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        HooksCommand::Status(arg) => status(ctx, arg),
        HooksCommand::Install(arg) => act(ctx, arg, Action::Install),
        HooksCommand::Uninstall(arg) => act(ctx, arg, Action::Uninstall),
    }
}
