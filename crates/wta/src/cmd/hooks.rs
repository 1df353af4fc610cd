//! `wta hooks install | status | uninstall [--cli NAME]`: puts WTA's hook
//! bundles (data in [`wta_agent::hooks`]) on disk and registers them through
//! each agent CLI's own command; never edits a CLI's config file. OpenCode
//! has no such command: its plugin file is copied, and only WTA's file of
//! that name is ever touched (a user's file there is moved aside first and
//! put back on uninstall).
//!
//! Every CLI command runs with stdin closed, in its own process group, for at
//! most [`CLI_TIMEOUT`] (then the group is killed); its stderr is reported
//! when it fails. Reports are stable snake_case JSON with `--json`.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};
use serde::Serialize;
use wta_agent::hooks::registration::{self, Registration, Tri};
use wta_agent::hooks::{self as data, OPENCODE_MARKER, OPENCODE_PLUGIN_FILE, bundle};
use wta_protocol::agent_sessions::HookCli;

use super::Ctx;
use crate::output::{self, Said, Table};

/// The longest any CLI command may run.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(5);
/// The `schema_version` of every `--json` report.
pub const SCHEMA_VERSION: u32 = 1;

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

// ---- running a CLI's command -------------------------------------------

/// What one CLI command did.
struct Ran {
    ok: bool,
    /// Its stdout and stderr together (for lenient reading).
    output: String,
    /// Why it failed, for people (exit status or timeout, and its stderr).
    failure: Said,
}

fn run_cli(program: &Path, args: &[String]) -> Ran {
    let shown = display_argv(program, args);
    let fail = |failure: Said| Ran {
        ok: false,
        output: String::new(),
        failure,
    };
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            let e = e.to_string();
            return fail(Said::new(
                "cli.hooks.could_not_start",
                &[("command", &shown), ("error", &e)],
            ));
        }
    };
    let pgid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let done = match rx.recv_timeout(CLI_TIMEOUT) {
        Ok(done) => done,
        Err(_) => {
            // Only the group we started, by its id.
            if let Ok(pgid) = i32::try_from(pgid) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pgid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let secs = CLI_TIMEOUT.as_secs().to_string();
            return fail(Said::new(
                "cli.hooks.timed_out",
                &[("command", &shown), ("secs", &secs)],
            ));
        }
    };
    match done {
        Err(e) => {
            let e = e.to_string();
            fail(Said::new(
                "cli.hooks.failed",
                &[("command", &shown), ("error", &e)],
            ))
        }
        Ok(out) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let output = format!("{stdout}\n{stderr}");
            let failure = {
                let said = stderr.trim();
                let said = if said.is_empty() { stdout.trim() } else { said };
                let status = out.status.to_string();
                Said::new(
                    "cli.hooks.failed_status",
                    &[("command", &shown), ("status", &status), ("output", said)],
                )
            };
            Ran {
                ok: out.status.success(),
                output,
                failure,
            }
        }
    }
}

fn display_argv(program: &Path, args: &[String]) -> String {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    std::iter::once(name)
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

// ---- status --------------------------------------------------------------

#[derive(Debug, Serialize)]
struct StatusReport {
    schema_version: u32,
    bundle_version: &'static str,
    clis: Vec<CliStatus>,
}

#[derive(Debug, Serialize)]
struct CliStatus {
    cli: HookCli,
    found: bool,
    program: Option<PathBuf>,
    bundle_dir: PathBuf,
    bundle_present: bool,
    bundle_version: Option<String>,
    /// The bundle on disk is exactly this wta's (and, for opencode, the copy too).
    up_to_date: bool,
    /// What the CLI's own list command says (opencode: WTA's file in its plugins dir).
    registered: Tri,
    installed: Tri,
    detail: Option<Said>,
}

/// Whether every file of the bundle exists, and whether each is this wta's.
fn bundle_state(t: &Target) -> (bool, bool, Option<String>) {
    let files = bundle::files(t.cli);
    let present = files.iter().all(|f| t.dir.join(&f.path).is_file());
    let same = files
        .iter()
        .all(|f| fs::read_to_string(t.dir.join(&f.path)).is_ok_and(|c| c == f.contents));
    let version = fs::read_to_string(t.dir.join(bundle::VERSION_FILE))
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty());
    (present, same, version)
}

fn opencode_target() -> PathBuf {
    data::opencode_plugins_dir().join(OPENCODE_PLUGIN_FILE)
}

fn is_wta_file(path: &Path) -> bool {
    fs::read_to_string(path).is_ok_and(|t| t.starts_with(OPENCODE_MARKER))
}

fn status_of(t: &Target) -> CliStatus {
    let (bundle_present, mut up_to_date, bundle_version) = bundle_state(t);
    let (registered, detail) = match (registration::list(t.cli), &t.program) {
        (None, _) => {
            let copy = opencode_target();
            up_to_date &= fs::read_to_string(&copy).is_ok_and(|c| c == bundle::opencode_plugin());
            if is_wta_file(&copy) {
                (Tri::Yes, None)
            } else if copy.exists() {
                let path = copy.display().to_string();
                (
                    Tri::No,
                    Some(Said::new("cli.hooks.not_wtas", &[("path", &path)])),
                )
            } else {
                (Tri::No, None)
            }
        }
        (Some(_), None) => (
            Tri::Unknown,
            Some(Said::new(
                "cli.hooks.not_on_path",
                &[("cli", t.cli.as_str())],
            )),
        ),
        (Some(args), Some(program)) => {
            let ran = run_cli(program, &args);
            if ran.ok {
                let yes = registration::lists_plugin(&ran.output);
                (if yes { Tri::Yes } else { Tri::No }, None)
            } else {
                (Tri::Unknown, Some(ran.failure))
            }
        }
    };
    let installed = registration::installed(bundle_present, registered);
    CliStatus {
        cli: t.cli,
        found: t.program.is_some(),
        program: t.program.clone(),
        bundle_dir: t.dir.clone(),
        bundle_present,
        bundle_version,
        up_to_date,
        registered,
        installed,
        detail,
    }
}

fn status(ctx: &Ctx, arg: &CliArg) -> anyhow::Result<ExitCode> {
    let targets = targets(arg);
    // The CLIs answer slowly (node start-up): ask them all at once.
    let clis: Vec<CliStatus> = std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .iter()
            .map(|t| s.spawn(move || status_of(t)))
            .collect();
        handles
            .into_iter()
            .zip(&targets)
            .map(|(h, t)| h.join().unwrap_or_else(|_| status_of(t)))
            .collect()
    });
    let report = StatusReport {
        schema_version: SCHEMA_VERSION,
        bundle_version: data::BUNDLE_VERSION,
        clis,
    };
    if ctx.json {
        output::json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::localized(&[
        "cli.col.cli",
        "cli.col.found",
        "cli.col.installed",
        "cli.col.up_to_date",
        "cli.col.bundle",
        "cli.col.detail",
    ]);
    for c in &report.clis {
        table.row(vec![
            c.cli.as_str().to_owned(),
            output::yes(c.found),
            c.installed.as_str().to_owned(),
            output::yes(c.up_to_date),
            c.bundle_version.clone().unwrap_or_else(|| "-".into()),
            c.detail
                .as_ref()
                .map(|d| d.shown().to_owned())
                .unwrap_or_default(),
        ]);
    }
    table.print()?;
    Ok(ExitCode::SUCCESS)
}

// ---- install / uninstall ---------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Action {
    Install,
    Uninstall,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Installed,
    Uninstalled,
    NotFound,
    Failed,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Installed => "installed",
            Self::Uninstalled => "uninstalled",
            Self::NotFound => "not_found",
            Self::Failed => "failed",
        }
    }
}

#[derive(Debug, Serialize)]
struct ActionReport {
    schema_version: u32,
    action: Action,
    clis: Vec<CliResult>,
}

#[derive(Debug, Serialize)]
struct CliResult {
    cli: HookCli,
    outcome: Outcome,
    program: Option<PathBuf>,
    bundle_dir: PathBuf,
    /// Each CLI command run, in order.
    commands: Vec<CommandView>,
    /// What was done to files, and steps that were already done.
    notes: Vec<Said>,
    error: Option<Said>,
}

#[derive(Debug, Serialize)]
struct CommandView {
    argv: Vec<String>,
    ok: bool,
}

impl CliResult {
    fn new(t: &Target) -> Self {
        Self {
            cli: t.cli,
            outcome: Outcome::Failed,
            program: t.program.clone(),
            bundle_dir: t.dir.clone(),
            commands: Vec::new(),
            notes: Vec::new(),
            error: None,
        }
    }

    /// Runs `steps`; a failure that `tolerated` accepts is noted (the text
    /// of `why`, a key taking `%{command}`), any other ends them.
    fn run_steps(
        &mut self,
        program: &Path,
        steps: &[Vec<String>],
        tolerated: fn(&str) -> bool,
        why: &str,
    ) -> Result<(), Said> {
        for args in steps {
            let ran = run_cli(program, args);
            self.commands.push(CommandView {
                argv: std::iter::once(self.cli.as_str().to_owned())
                    .chain(args.iter().cloned())
                    .collect(),
                ok: ran.ok,
            });
            if !ran.ok {
                if tolerated(&ran.output) {
                    let command = display_argv(program, args);
                    self.notes.push(Said::new(why, &[("command", &command)]));
                } else {
                    return Err(ran.failure);
                }
            }
        }
        Ok(())
    }
}

/// A file operation's error chain, the same for `--json` and for people
/// (the OS's words, with the path).
fn verbatim(err: &anyhow::Error) -> Said {
    Said::verbatim(format!("{err:#}"))
}

fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
}

/// Writes `contents` to `path` with `mode`, through a temp file and a rename.
fn write_file(path: &Path, contents: &str, mode: u32) -> std::io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".wta-tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&tmp)?;
    file.write_all(contents.as_bytes())?;
    file.set_permissions(fs::Permissions::from_mode(mode))?;
    drop(file);
    fs::rename(&tmp, path)
}

fn write_bundle(t: &Target) -> anyhow::Result<()> {
    let root = t.dir.parent().unwrap_or(&t.dir);
    if let Some(parent) = root.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    make_private_dir(root).with_context(|| format!("cannot create {}", root.display()))?;
    for f in bundle::files(t.cli) {
        let path = t.dir.join(&f.path);
        let dir = path.parent().unwrap_or(&t.dir);
        make_private_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write_file(&path, &f.contents, f.mode)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn copy_opencode_plugin(r: &mut CliResult) -> anyhow::Result<()> {
    let target = opencode_target();
    let dir = target.parent().unwrap_or(&target);
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if target.exists() && !is_wta_file(&target) {
        let backup = data::free_backup_path(&target, |p| p.exists());
        fs::rename(&target, &backup)
            .with_context(|| format!("cannot move {} aside", target.display()))?;
        let (from, to) = (target.display().to_string(), backup.display().to_string());
        r.notes.push(Said::new(
            "cli.hooks.moved_aside",
            &[("path", &from), ("backup", &to)],
        ));
    }
    write_file(&target, &bundle::opencode_plugin(), 0o644)
        .with_context(|| format!("cannot write {}", target.display()))?;
    let (path, dir) = (target.display().to_string(), dir.display().to_string());
    r.notes.push(Said::new(
        "cli.hooks.wrote_plugin",
        &[("path", &path), ("dir", &dir)],
    ));
    Ok(())
}

fn remove_opencode_plugin(r: &mut CliResult) -> anyhow::Result<()> {
    let target = opencode_target();
    if is_wta_file(&target) {
        fs::remove_file(&target).with_context(|| format!("cannot remove {}", target.display()))?;
        let path = target.display().to_string();
        r.notes
            .push(Said::new("cli.hooks.removed", &[("path", &path)]));
    } else if target.exists() {
        let path = target.display().to_string();
        r.notes
            .push(Said::new("cli.hooks.left_alone", &[("path", &path)]));
    }
    let backup = data::opencode_backup_path(&target);
    if backup.exists() && !target.exists() {
        fs::rename(&backup, &target)
            .with_context(|| format!("cannot put {} back", backup.display()))?;
        let path = target.display().to_string();
        r.notes
            .push(Said::new("cli.hooks.put_back", &[("path", &path)]));
    }
    Ok(())
}

fn install_one(t: &Target) -> CliResult {
    let mut r = CliResult::new(t);
    let Some(program) = &t.program else {
        r.outcome = Outcome::NotFound;
        r.error = Some(Said::new(
            "cli.hooks.install_not_on_path",
            &[("cli", t.cli.as_str())],
        ));
        return r;
    };
    let (present, same, _) = bundle_state(t);
    let done = write_bundle(t).map_err(|e| verbatim(&e)).and_then(|()| {
        match registration::install(t.cli, &bundle::registration_path(t.cli, &t.dir)) {
            Registration::CopyFile => copy_opencode_plugin(&mut r).map_err(|e| verbatim(&e)),
            Registration::Commands(steps) => {
                if present && !same {
                    // The CLI keeps its own copy: a changed bundle is registered afresh.
                    if let Registration::Commands(undo) = registration::uninstall(t.cli) {
                        let _ =
                            r.run_steps(program, &undo, |_| true, "cli.hooks.step_re_registering");
                    }
                }
                r.run_steps(
                    program,
                    &steps,
                    registration::already_done,
                    "cli.hooks.step_already_done",
                )
            }
        }
    });
    match done {
        Ok(()) => r.outcome = Outcome::Installed,
        Err(e) => r.error = Some(e),
    }
    r
}

fn uninstall_one(t: &Target) -> CliResult {
    let mut r = CliResult::new(t);
    let done = match (registration::uninstall(t.cli), &t.program) {
        (Registration::CopyFile, _) => remove_opencode_plugin(&mut r).map_err(|e| verbatim(&e)),
        (Registration::Commands(_), None) => {
            r.outcome = Outcome::NotFound;
            r.error = Some(Said::new(
                "cli.hooks.uninstall_not_on_path",
                &[("cli", t.cli.as_str())],
            ));
            return r;
        }
        (Registration::Commands(steps), Some(program)) => r.run_steps(
            program,
            &steps,
            registration::already_gone,
            "cli.hooks.step_already_gone",
        ),
    };
    let done = done.and_then(|()| {
        if t.dir.exists() {
            let path = t.dir.display().to_string();
            fs::remove_dir_all(&t.dir).map_err(|e| {
                let e = e.to_string();
                Said::new("cli.hooks.cannot_remove", &[("path", &path), ("error", &e)])
            })?;
            r.notes
                .push(Said::new("cli.hooks.removed", &[("path", &path)]));
        }
        Ok(())
    });
    match done {
        Ok(()) => r.outcome = Outcome::Uninstalled,
        Err(e) => r.error = Some(e),
    }
    r
}

fn act(ctx: &Ctx, arg: &CliArg, action: Action) -> anyhow::Result<ExitCode> {
    let clis: Vec<CliResult> = targets(arg)
        .iter()
        .map(|t| match action {
            Action::Install => install_one(t),
            Action::Uninstall => uninstall_one(t),
        })
        .collect();
    // A CLI missing fails only when it was asked for by name.
    let failed = clis.iter().any(|c| {
        c.outcome == Outcome::Failed || (c.outcome == Outcome::NotFound && arg.cli.is_some())
    });
    let report = ActionReport {
        schema_version: SCHEMA_VERSION,
        action,
        clis,
    };
    if ctx.json {
        output::json(&report)?;
    } else {
        let mut table = Table::localized(&["cli.col.cli", "cli.col.outcome", "cli.col.detail"]);
        for c in &report.clis {
            table.row(vec![
                c.cli.as_str().to_owned(),
                c.outcome.as_str().to_owned(),
                c.error
                    .as_ref()
                    .or_else(|| c.notes.first())
                    .map(|s| s.shown().to_owned())
                    .unwrap_or_default(),
            ]);
        }
        table.print()?;
        for c in &report.clis {
            for note in c.notes.iter().skip(usize::from(c.error.is_none())) {
                output::line(&format!("{}: {}", c.cli.as_str(), note.shown()))?;
            }
        }
    }
    if failed {
        for c in &report.clis {
            if let Some(e) = &c.error
                && (c.outcome == Outcome::Failed || arg.cli.is_some())
            {
                eprintln!("wta: {}: {}", c.cli.as_str(), e.shown());
            }
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
