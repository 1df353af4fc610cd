//! `wta hooks install` and `uninstall`: the bundle files written or removed
//! (OpenCode's plugin copied, a user's file of that name moved aside and put
//! back), and each CLI's registration command run.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use wta_agent::hooks::registration::{self, Registration};
use wta_agent::hooks::{self as data, bundle};
use wta_protocol::agent_sessions::HookCli;

use super::run_cli::{display_argv, run_cli};
use super::status::{bundle_state, is_wta_file, opencode_target};
use super::{CliArg, Target, targets};
use crate::cmd::Ctx;
use crate::output::{self, Said, Table};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Action {
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
    /// The outcome for people, in their language.
    fn shown(self) -> String {
        wta_i18n::tr(
            match self {
                Self::Installed => "cli.hooks.outcome.installed",
                Self::Uninstalled => "cli.hooks.outcome.uninstalled",
                Self::NotFound => "cli.hooks.outcome.not_found",
                Self::Failed => "cli.hooks.outcome.failed",
            },
            &[],
        )
    }
}

#[derive(Debug, Serialize)]
struct ActionReport {
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

/// A file operation that failed: what WTA was doing (`cli.hooks.file.<what>`,
/// in the user's words for people, English in `--json`), the path, and the
/// OS's own words.
fn failed<'a>(what: &str, path: &'a Path) -> impl FnOnce(std::io::Error) -> Said + use<'a> {
    let key = format!("cli.hooks.file.{what}");
    move |err| {
        let (path, error) = (path.display().to_string(), err.to_string());
        Said::new(&key, &[("path", &path), ("error", &error)])
    }
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

fn write_bundle(t: &Target) -> Result<(), Said> {
    let root = t.dir.parent().unwrap_or(&t.dir);
    if let Some(parent) = root.parent() {
        fs::create_dir_all(parent).map_err(failed("create", parent))?;
    }
    make_private_dir(root).map_err(failed("create", root))?;
    for f in bundle::files(t.cli) {
        let path = t.dir.join(&f.path);
        let dir = path.parent().unwrap_or(&t.dir);
        make_private_dir(dir).map_err(failed("create", dir))?;
        write_file(&path, &f.contents, f.mode).map_err(failed("write", &path))?;
    }
    Ok(())
}

fn copy_opencode_plugin(r: &mut CliResult) -> Result<(), Said> {
    let target = opencode_target();
    let dir = target.parent().unwrap_or(&target);
    fs::create_dir_all(dir).map_err(failed("create", dir))?;
    if target.exists() && !is_wta_file(&target) {
        let backup = data::free_backup_path(&target, |p| p.exists());
        fs::rename(&target, &backup).map_err(failed("move_aside", &target))?;
        let (from, to) = (target.display().to_string(), backup.display().to_string());
        r.notes.push(Said::new(
            "cli.hooks.moved_aside",
            &[("path", &from), ("backup", &to)],
        ));
    }
    write_file(&target, &bundle::opencode_plugin(), 0o644).map_err(failed("write", &target))?;
    let (path, dir) = (target.display().to_string(), dir.display().to_string());
    r.notes.push(Said::new(
        "cli.hooks.wrote_plugin",
        &[("path", &path), ("dir", &dir)],
    ));
    Ok(())
}

fn remove_opencode_plugin(r: &mut CliResult) -> Result<(), Said> {
    let target = opencode_target();
    if is_wta_file(&target) {
        fs::remove_file(&target).map_err(failed("remove", &target))?;
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
        fs::rename(&backup, &target).map_err(failed("put_back", &backup))?;
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
    let done = write_bundle(t).and_then(|()| {
        match registration::install(t.cli, &bundle::registration_path(t.cli, &t.dir)) {
            Registration::CopyFile => copy_opencode_plugin(&mut r),
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
        (Registration::CopyFile, _) => remove_opencode_plugin(&mut r),
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

pub(super) fn act(ctx: &Ctx, arg: &CliArg, action: Action) -> anyhow::Result<ExitCode> {
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
    let report = ActionReport { action, clis };
    if ctx.json {
        output::json(&report)?;
    } else {
        let mut table = Table::localized(&["cli.col.cli", "cli.col.outcome", "cli.col.detail"]);
        for c in &report.clis {
            table.row(vec![
                c.cli.as_str().to_owned(),
                c.outcome.shown(),
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
