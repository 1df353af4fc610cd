//! Commands that open panes: new-tab and split-pane. Both print the new
//! pane's id (or its JSON), run `-c` through `/bin/sh -c` in the `-d`
//! directory, and keep the pane after its command exits so `pane-status`
//! and `wait-for` can report the exit status. Without `-c` the pane runs the
//! user's shell with WTA shell integration, behind a readiness gate: the
//! command follows the new pane until its first prompt (recording the
//! integration verdict on it), so that prompt is never missed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use wta_host::{HostError, NewTab, PaneCommand, PaneInfo, Split, SplitDirection, TerminalHost};
use wta_protocol::PaneId;

use super::Ctx;
use crate::launch::shell::{self, GatedShell};
use crate::output;

/// How long a new pane's shell may take to show its first prompt before the
/// command returns anyway (the shell keeps starting).
const READY_TIMEOUT: Duration = Duration::from_secs(5);

/// The pane command and environment (`-c` as given, else the integrated
/// shell), and the gate that shell waits on, if any.
fn command_for(command: Option<&String>) -> anyhow::Result<(Option<PaneCommand>, GatedShell)> {
    match command {
        Some(line) => Ok((
            Some(PaneCommand::Shell(line.clone())),
            GatedShell {
                argv: Vec::new(),
                env: Vec::new(),
                gate: None,
            },
        )),
        None => {
            let shell = shell::gated_user_shell()?;
            Ok((Some(PaneCommand::Argv(shell.argv.clone())), shell))
        }
    }
}

/// Releases a gate whose pane may exist even though tmux reported an error.
fn release(host: &wta_host::TmuxHost, gate: Option<&str>) {
    if let Some(gate) = gate {
        let _ = host.signal(gate);
    }
}

/// Follows a gated pane to its first prompt; a failure is reported but
/// does not fail the command (the pane exists and its shell runs).
fn settle(host: &wta_host::TmuxHost, pane: &PaneInfo, gate: Option<String>) {
    let Some(gate) = gate else { return };
    // Seen, no integration (recorded on the pane) or not yet (a slow rc
    // file): either way the pane is ready to hand back.
    if let Err(e) = shell::first_prompt(host, &pane.id, &gate, READY_TIMEOUT) {
        eprintln!(
            "wta: {}",
            wta_i18n::tr!(
                "cli.open.first_prompt_untracked",
                pane = pane.id,
                error = format!("{e:#}")
            )
        );
    }
}

#[derive(Debug, Args)]
pub struct NewTabArgs {
    /// Command to run in the new tab (via /bin/sh -c). Default: your shell, with WTA shell integration (the command returns once its first prompt shows, at most 5 s).
    #[arg(short = 'c', long = "command", value_name = "CMD")]
    pub command: Option<String>,
    /// Working directory of the new tab.
    #[arg(short = 'd', long = "cwd", value_name = "CWD")]
    pub cwd: Option<PathBuf>,
    /// Tab title.
    #[arg(short = 'n', long = "title", value_name = "TITLE")]
    pub title: Option<String>,
    /// Window (tmux session) to open the tab in: `$N` or its name, as for
    /// `list-tabs -w`. Default: the caller's; outside tmux, the one attached last.
    #[arg(short = 'w', long = "window", value_name = "SESSION",
          add = clap_complete::ArgValueCandidates::new(super::completions::windows))]
    pub session: Option<String>,
    /// Switch to the new tab.
    #[arg(long)]
    pub focus: bool,
}

#[derive(Debug, Args)]
pub struct SplitPaneArgs {
    /// Side by side: the new pane to the right (`-H -b`: to the left).
    #[arg(short = 'H', long = "horizontal", conflicts_with = "vertical")]
    pub horizontal: bool,
    /// Stacked: the new pane below (`-V -b`: above).
    #[arg(short = 'V', long = "vertical")]
    pub vertical: bool,
    /// Put the new pane before (left of / above) the target.
    #[arg(short = 'b', long = "before")]
    pub before: bool,
    /// Pane to split. Default: the caller's pane.
    #[arg(short = 't', long = "target", value_name = "PANE", add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub target: Option<PaneId>,
    /// Command to run in the new pane (via /bin/sh -c). Default: your shell, with WTA shell integration (the command returns once its first prompt shows, at most 5 s).
    #[arg(short = 'c', long = "command", value_name = "CMD")]
    pub command: Option<String>,
    /// Working directory of the new pane.
    #[arg(short = 'd', long = "cwd", value_name = "CWD")]
    pub cwd: Option<PathBuf>,
    /// Size of the new pane, percent of the split pane (1–99).
    #[arg(short = 'p', long = "percent", value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(1..=99))]
    pub percent: Option<u8>,
    /// Move the focus to the new pane.
    #[arg(long)]
    pub focus: bool,
}

fn print_opened(ctx: &Ctx, pane: PaneInfo) -> anyhow::Result<ExitCode> {
    if ctx.json {
        output::json(&crate::json::tmux::Opened::new(&pane))?;
    } else {
        output::line(pane.id.as_str())?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn new_tab(ctx: &Ctx, args: &NewTabArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let session = match (&args.session, host.caller_pane()) {
        (Some(given), _) => Some(super::list::resolve_session(&host, given)?),
        (None, Some(_)) => None,
        // Outside tmux: the session attached last, said on stderr.
        (None, None) => Some(super::target::outside_tmux(
            &host,
            super::target::NameIt::WindowFlag,
        )?),
    };
    let (command, GatedShell { env, gate, .. }) = command_for(args.command.as_ref())?;
    let spec = NewTab {
        after: None,
        session,
        command,
        cwd: args.cwd.clone(),
        title: args.title.clone(),
        env,
        focus: args.focus,
    };
    let pane = host
        .new_tab(&spec)
        .inspect_err(|_| release(&host, gate.as_deref()))?;
    settle(&host, &pane, gate);
    print_opened(ctx, pane)
}

/// Side by side when neither flag is given and the pane is wide
/// (cells are about twice as tall as wide), else stacked.
fn direction(args: &SplitPaneArgs, target: &PaneInfo) -> SplitDirection {
    let side_by_side = if args.horizontal || args.vertical {
        args.horizontal
    } else {
        u32::from(target.size.cols) >= 2 * u32::from(target.size.rows)
    };
    match (side_by_side, args.before) {
        (true, false) => SplitDirection::Right,
        (true, true) => SplitDirection::Left,
        (false, false) => SplitDirection::Down,
        (false, true) => SplitDirection::Up,
    }
}

pub fn split_pane(ctx: &Ctx, args: &SplitPaneArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let target = match &args.target {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    let info = host.pane(&target)?;
    let (command, GatedShell { env, gate, .. }) = command_for(args.command.as_ref())?;
    let spec = Split {
        direction: direction(args, &info),
        target,
        percent: args.percent,
        command,
        cwd: args.cwd.clone(),
        env,
        full: false,
        focus: args.focus,
    };
    let pane = host
        .split(&spec)
        .inspect_err(|_| release(&host, gate.as_deref()))?;
    settle(&host, &pane, gate);
    print_opened(ctx, pane)
}
