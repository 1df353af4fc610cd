//! `wta doctor [--json]`: is everything WTA needs here, and if not, what
//! fixes it. Each check (`doctor_checks.rs`: tmux, its server, the master,
//! the config file, the language; `doctor_shell.rs`: this pane's shell
//! integration; `doctor_agents.rs`: the default agent and each agent CLI)
//! is one [`Check`] with a status and, when it fails, the command that
//! fixes it. This file holds the check type, the order, the output and the
//! exit status (1 when a check failed). It never changes anything, and
//! never prints a secret: the shell's nonce and agents' credentials are
//! only said to be there.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use super::Ctx;
use super::{doctor_agents, doctor_checks, doctor_shell};
use crate::output;

const AFTER_HELP: &str = "\
Checks, in this order:
  tmux         the tmux program: installed, version 3.2 or newer
  tmux server  the server wta would use (-L/--socket, else $TMUX, else the default
               one): its socket, whether it runs, its version
  shell        inside tmux, the shell of your pane: its WTA integration is loaded,
               announces a nonce (so printed marks cannot be forged; the nonce is
               never shown) and takes confirmed commands through its inbox
  master       the WTA master of that server: running, its socket, pid and version
  config       ~/.config/wta/config.toml: every unknown key, wrong type and
               out-of-range value with its line (the defaults apply instead)
  language     the language wta speaks and where it came from (--language, the
               config's `language`, LC_ALL / LC_MESSAGES / LANG)
  agent        the agent `wta up` starts, then every agent CLI: installed, its
               `--version`, whether a sign-in is found (environment variables and
               credential files are named, never shown; no network is used)

Statuses: ok, info (nothing to do), warn (works, but read it), fail (with the
command that fixes it). Exit status: 1 when a check failed, else 0.

Examples:
  wta doctor
  wta doctor --json | jq '.checks[] | select(.status == \"fail\")'";

#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct DoctorArgs {
    /// Seconds each agent CLI may take to print its `--version` (then it is stopped).
    #[arg(long, value_name = "S", default_value = "3", value_parser = parse_timeout)]
    pub version_timeout: Duration,
}

/// More than zero and at most a minute.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0 && *s <= 60.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{text:?}: give a number of seconds above 0, at most 60"))
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    /// Nothing to do (not running yet, not installed, not inside tmux).
    Info,
    /// Works, but something is off.
    Warn,
    /// Does not work; `fix` says what to run.
    Fail,
}

/// One check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// `tmux`, `tmux_server`, `shell`, `master`, `config`, `language`,
    /// `default_agent`, `agent:<id>`.
    pub id: String,
    /// What people read in the first column (not in the JSON).
    #[serde(skip)]
    pub label: String,
    pub status: Status,
    /// One line.
    pub summary: String,
    /// More lines (the config's problems, where a sign-in was found).
    pub details: Vec<String>,
    /// A command that fixes it (on a failure; a warning may have one).
    pub fix: Option<String>,
    /// The facts behind it, for scripts.
    pub data: serde_json::Value,
}

impl Check {
    pub fn new(id: impl Into<String>, label: String, status: Status, summary: String) -> Self {
        Self {
            id: id.into(),
            label,
            status,
            summary,
            details: Vec::new(),
            fix: None,
            data: serde_json::json!({}),
        }
    }

    pub fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    pub fn details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    pub fn data(mut self, data: serde_json::Value) -> Self {
        self.data = data;
        self
    }
}

/// `wta doctor --json`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// No check failed.
    ok: bool,
    checks: &'a [Check],
}

pub fn run(ctx: &Ctx, args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    // Which language and why, before --json makes every text English.
    let config = ctx.config();
    let language = doctor_checks::language(config);
    if ctx.json {
        wta_i18n::set_language("en");
    }
    let tmux = doctor_checks::tmux(ctx);
    let mut checks = vec![tmux.program.clone(), tmux.server.clone()];
    checks.push(doctor_shell::shell(&tmux));
    checks.push(doctor_checks::master(ctx, &tmux));
    checks.push(doctor_checks::config(config));
    checks.push(language.check());
    checks.extend(doctor_agents::agents(config, args.version_timeout));
    let ok = checks.iter().all(|c| c.status != Status::Fail);
    if ctx.json {
        output::json(&Report {
            ok,
            checks: &checks,
        })?;
    } else {
        output::line(render(&checks).trim_end())?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn mark(status: Status) -> &'static str {
    match status {
        Status::Ok => "✓",
        Status::Info => "·",
        Status::Warn => "!",
        Status::Fail => "✗",
    }
}

/// The text for people: a mark, the label, the summary; details and the
/// fix indented below; then how many failed.
fn render(checks: &[Check]) -> String {
    let width = checks.iter().map(|c| c.label.width()).max().unwrap_or(0);
    let indent = " ".repeat(width + 4);
    let mut out = String::new();
    for c in checks {
        out.push_str(&format!(
            "{} {}  {}\n",
            mark(c.status),
            crate::output::pad(&c.label, width),
            c.summary
        ));
        for line in &c.details {
            out.push_str(&format!("{indent}{line}\n"));
        }
        if let Some(fix) = &c.fix {
            let fix = wta_i18n::tr!("doctor.fix", command = fix);
            out.push_str(&format!("{indent}{fix}\n"));
        }
    }
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    out.push('\n');
    out.push_str(&if failed == 0 {
        wta_i18n::tr!("doctor.all_passed")
    } else {
        wta_i18n::tr!("doctor.failed", count = failed, total = checks.len())
    });
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_text_aligns_labels_and_puts_the_fix_under_a_failure() {
        let checks = [
            Check::new("tmux", "tmux".into(), Status::Ok, "3.4".into()),
            Check::new("config", "config".into(), Status::Fail, "2 problems".into())
                .details(vec!["/c.toml:3: x".into()])
                .fix("vi +3 /c.toml"),
        ];
        let text = render(&checks);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "✓ tmux    3.4");
        assert_eq!(lines[1], "✗ config  2 problems");
        assert_eq!(lines[2], "          /c.toml:3: x");
        assert_eq!(lines[3], "          fix: vi +3 /c.toml");
        assert_eq!(lines[5], "1 of 2 checks failed.");
        let json = serde_json::to_value(&checks[1]).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"id": "config", "status": "fail", "summary": "2 problems",
                "details": ["/c.toml:3: x"], "fix": "vi +3 /c.toml", "data": {}})
        );
    }

    #[test]
    fn the_version_timeout_is_a_positive_number_of_seconds() {
        assert_eq!(parse_timeout("0.5"), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "61", "x", "inf"] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
    }
}
