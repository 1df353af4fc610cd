//! What the agent pane has the CLI (this binary) do, so the pane and the
//! command line act the one same way (the launchers live with the CLI):
//! `?TASK` runs `wta delegate` for the pane's target; a row picked in
//! `/sessions` runs `wta sessions focus|resume KEY`. Blocking; the answer is
//! what the pane shows.

use serde::Deserialize;
use wta_protocol::PaneId;
use wta_state::DomainEvent;

/// What `wta delegate --json` prints (the fields the pane shows).
#[derive(Debug, Deserialize)]
struct Delegated {
    pane: String,
    tab: String,
    agent: String,
    #[serde(default)]
    session_id: Option<String>,
    installed: bool,
}

/// Starts the delegate for `task` from `source`; the line for the pane.
pub fn run(task: &str, source: &PaneId) -> DomainEvent {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => {
            return DomainEvent::Error(wta_i18n::tr!("helper.delegate.no_binary", err = err));
        }
    };
    let out = std::process::Command::new(exe)
        .args(["--language", &wta_i18n::language(), "--json", "delegate"])
        .args(["-t", source.as_str(), "--", task])
        .stdin(std::process::Stdio::null())
        .output();
    let out = match out {
        Ok(out) => out,
        Err(err) => {
            return DomainEvent::Error(wta_i18n::tr!("helper.delegate.cannot_run", err = err));
        }
    };
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim().trim_start_matches("wta: ");
        return DomainEvent::Error(wta_i18n::tr!("helper.delegate.failed", why = why));
    }
    match serde_json::from_slice::<Delegated>(&out.stdout) {
        Ok(d) if d.installed => {
            let pinned = d
                .session_id
                .map(|id| wta_i18n::tr!("helper.delegate.pinned", id = id))
                .unwrap_or_default();
            DomainEvent::Notice(wta_i18n::tr!(
                "helper.delegate.done",
                agent = d.agent,
                window = d.tab,
                pane = d.pane,
                pinned = pinned
            ))
        }
        Ok(d) => DomainEvent::Error(wta_i18n::tr!(
            "helper.delegate.not_installed",
            agent = d.agent,
            window = d.tab
        )),
        Err(err) => DomainEvent::Error(wta_i18n::tr!("helper.delegate.unreadable", err = err)),
    }
}

/// `wta sessions focus | resume | close KEY`, asking this pane's master
/// (`socket`), wherever it listens, in this pane's language.
pub fn session_action(
    key: &str,
    verb: wta_state::SessionVerb,
    socket: &std::path::Path,
) -> DomainEvent {
    let action = verb.as_str();
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => {
            return DomainEvent::Error(wta_i18n::tr!("helper.sessions.no_binary", err = err));
        }
    };
    let out = std::process::Command::new(exe)
        .args(["--language", &wta_i18n::language()])
        .args(["sessions", action, "--master-socket"])
        .arg(socket)
        .args(["--", key])
        .stdin(std::process::Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => {
            DomainEvent::Notice(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr);
            DomainEvent::Error(why.trim().trim_start_matches("wta: ").to_owned())
        }
        Err(err) => DomainEvent::Error(wta_i18n::tr!(
            "helper.sessions.cannot_run",
            action = action,
            err = err
        )),
    }
}
