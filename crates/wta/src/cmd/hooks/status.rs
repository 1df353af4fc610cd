//! `wta hooks status`: per CLI, whether it is on PATH, whether WTA's hooks
//! are registered with it, and whether its bundle on disk is current.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use wta_agent::hooks::registration::{self, Tri};
use wta_agent::hooks::{self as data, OPENCODE_MARKER, OPENCODE_PLUGIN_FILE, bundle};
use wta_protocol::agent_sessions::HookCli;

use super::run_cli::run_cli;
use super::{CliArg, Target, targets};
use crate::cmd::Ctx;
use crate::output::{self, Said, Table};

#[derive(Debug, Serialize)]
struct StatusReport {
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
pub(super) fn bundle_state(t: &Target) -> (bool, bool, Option<String>) {
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

pub(super) fn opencode_target() -> PathBuf {
    data::opencode_plugins_dir().join(OPENCODE_PLUGIN_FILE)
}

pub(super) fn is_wta_file(path: &Path) -> bool {
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

/// Yes, no or unknown for people, in their language.
fn tri(t: Tri) -> String {
    match t {
        Tri::Yes => output::yes(true),
        Tri::No => output::yes(false),
        Tri::Unknown => wta_i18n::tr!("cli.hooks.unknown"),
    }
}

pub(super) fn status(ctx: &Ctx, arg: &CliArg) -> anyhow::Result<ExitCode> {
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
            tri(c.installed),
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
