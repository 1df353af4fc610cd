//! The shell check of `wta doctor`: inside tmux, the WTA integration of
//! the caller's pane, its announcement, its nonce (read to see that it is
//! one, never shown) and its inbox for confirmed commands. It changes
//! nothing.

use serde_json::json;
use wta_host::{PaneInfo, TerminalHost, TmuxHost};
use wta_i18n::tr;
use wta_protocol::PaneId;
use wta_shell::Shell;

use super::doctor::{Check, Status};
use super::doctor_checks::{Tmux, label};

/// A nonce as the scripts draw it: 32 hex digits.
fn is_nonce(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The shell integration of the caller's pane.
pub(super) fn shell(tmux: &Tmux) -> Check {
    let outside = || {
        Check::new(
            "shell",
            label("shell"),
            Status::Info,
            tr!("doctor.shell.outside"),
        )
    };
    let Some(host) = &tmux.host else {
        return outside();
    };
    let Some(pane) = host.caller_pane() else {
        return outside();
    };
    match host.pane(&pane) {
        Ok(info) => pane_shell(host, &pane, &info),
        Err(e) => Check::new("shell", label("shell"), Status::Fail, e.localized()),
    }
}

/// What was found about the shell of a pane, for [`verdict`].
struct Found {
    /// The shell's name (else the pane's command).
    name: String,
    /// The command that loads the integration.
    install: String,
    pid: u32,
    /// The integration's state (`present`, `stale`, …).
    state: &'static str,
    nonce: bool,
    /// `ready`, `taken`, or none.
    inbox: Option<&'static str>,
    pane: String,
}

/// The check of `pane`'s shell: which one, its integration and what it
/// left in the pane's options.
fn pane_shell(host: &TmuxHost, pane: &PaneId, info: &PaneInfo) -> Check {
    let integration = &info.integration;
    let kind = integration
        .shell
        .as_deref()
        .and_then(Shell::from_program)
        .or_else(|| Shell::from_program(&info.command))
        .or_else(|| {
            std::env::var("SHELL")
                .ok()
                .as_deref()
                .and_then(Shell::from_program)
        });
    let pid = integration.pid.unwrap_or(info.pid);
    let (nonce, inbox) = if integration.state == "present" {
        (
            host.option(pane, &wta_shell::nonce_option(pid))
                .unwrap_or_default(),
            host.option(pane, &wta_shell::handoff::inbox_option(pid))
                .unwrap_or_default(),
        )
    } else {
        (String::new(), String::new())
    };
    let found = Found {
        name: kind.map_or_else(|| info.command.clone(), |s| s.name().to_owned()),
        install: kind.map_or_else(
            || "wta shell-integration --help".to_owned(),
            |s| format!("echo '{}' >> {}", s.rc_line("wta"), s.rc_file()),
        ),
        pid,
        state: integration.state,
        nonce: is_nonce(&nonce),
        inbox: match inbox.as_str() {
            "" => None,
            "taken" => Some("taken"),
            _ => Some("ready"),
        },
        pane: pane.to_string(),
    };
    let data = json!({
        "pane": pane.as_str(),
        "shell": found.name,
        "pid": integration.pid,
        "state": integration.state,
        "nonce": found.nonce,
        "inbox": found.inbox,
    });
    verdict(&found).data(data)
}

/// The status, the words and the fix for what was found.
fn verdict(f: &Found) -> Check {
    let check = |status, summary: String| Check::new("shell", label("shell"), status, summary);
    let (name, pid, pane) = (&f.name, f.pid, &f.pane);
    match f.state {
        "present" if !f.nonce => check(
            Status::Fail,
            tr!(
                "doctor.shell.no_nonce",
                shell = name,
                pid = pid,
                pane = pane
            ),
        )
        .fix(format!("exec {name}")),
        "present" if f.inbox == Some("taken") => check(
            Status::Warn,
            tr!(
                "doctor.shell.key_taken",
                shell = name,
                pid = pid,
                pane = pane
            ),
        ),
        "present" if f.inbox.is_none() => check(
            Status::Warn,
            tr!(
                "doctor.shell.no_inbox",
                shell = name,
                pid = pid,
                pane = pane
            ),
        )
        .fix(format!("exec {name}")),
        "present" => check(
            Status::Ok,
            tr!("doctor.shell.ok", shell = name, pid = pid, pane = pane),
        ),
        "stale" => check(
            Status::Warn,
            tr!("doctor.shell.stale", shell = name, pid = pid, pane = pane),
        )
        .fix(f.install.clone()),
        _ => check(
            Status::Fail,
            tr!("doctor.shell.missing", shell = name, pane = pane),
        )
        .fix(f.install.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nonce_is_32_hex_digits_and_nothing_else() {
        assert!(is_nonce("0123456789abcdef0123456789abcdef"));
        for bad in [
            "",
            "0123",
            "0123456789abcdef0123456789abcdeg",
            "x".repeat(32).as_str(),
        ] {
            assert!(!is_nonce(bad), "{bad}");
        }
    }

    /// Each state of a pane's integration, with its status and fix.
    #[test]
    fn each_state_has_its_status_and_fix() {
        let found = |state, nonce, inbox| Found {
            name: "bash".into(),
            install: "echo rc >> ~/.bashrc".into(),
            pid: 42,
            state,
            nonce,
            inbox,
            pane: "%3".into(),
        };
        let rows = [
            (found("present", true, Some("ready")), Status::Ok, None),
            (
                found("present", false, Some("ready")),
                Status::Fail,
                Some("exec bash"),
            ),
            (found("present", true, Some("taken")), Status::Warn, None),
            (
                found("present", true, None),
                Status::Warn,
                Some("exec bash"),
            ),
            (
                found("stale", false, None),
                Status::Warn,
                Some("echo rc >> ~/.bashrc"),
            ),
            (
                found("absent", false, None),
                Status::Fail,
                Some("echo rc >> ~/.bashrc"),
            ),
            (
                found("unknown", false, None),
                Status::Fail,
                Some("echo rc >> ~/.bashrc"),
            ),
        ];
        for (f, status, fix) in rows {
            let c = verdict(&f);
            assert_eq!((c.status, c.fix.as_deref()), (status, fix), "{}", f.state);
        }
    }
}
