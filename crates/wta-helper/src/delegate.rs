//! What the agent pane has the CLI (this binary) do, so the pane and the
//! command line act the one same way (the launchers live with the CLI):
//! `?TASK` runs `wta delegate` for the pane's target; a row picked in
//! `/sessions` runs `wta sessions focus|resume KEY`. Blocking; the answer is
//! typed (the machine words it: `machine/news.rs`).

use serde::Deserialize;
use wta_protocol::PaneId;

use crate::machine::{CliFailure, Delegated};

/// What `wta delegate --json` prints (the fields the pane shows).
#[derive(Debug, Deserialize)]
struct Json {
    pane: String,
    tab: String,
    agent: String,
    #[serde(default)]
    session_id: Option<String>,
    installed: bool,
}

/// Starts the delegate for `task` from `source`: what it did, for the
/// machine to say.
pub fn run(task: &str, source: &PaneId) -> Result<Delegated, CliFailure> {
    let exe = std::env::current_exe().map_err(|err| CliFailure::NoBinary(err.to_string()))?;
    let out = std::process::Command::new(exe)
        .args(["--language", &wta_i18n::language(), "--json", "delegate"])
        .args(["-t", source.as_str(), "--", task])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| CliFailure::CannotRun(err.to_string()))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim().trim_start_matches("wta: ");
        return Err(CliFailure::Failed(why.to_owned()));
    }
    match serde_json::from_slice::<Json>(&out.stdout) {
        Ok(d) if d.installed => Ok(Delegated::Started {
            agent: d.agent,
            window: d.tab,
            pane: d.pane,
            session: d.session_id,
        }),
        Ok(d) => Ok(Delegated::NotInstalled {
            agent: d.agent,
            window: d.tab,
        }),
        Err(err) => Err(CliFailure::Unreadable(err.to_string())),
    }
}

/// `wta sessions focus | resume | close KEY`, asking this pane's master
/// (`socket`), wherever it listens, in this pane's language: the line it
/// printed.
pub fn session_action(
    key: &str,
    verb: wta_state::SessionVerb,
    socket: &std::path::Path,
) -> Result<String, CliFailure> {
    let exe = std::env::current_exe().map_err(|err| CliFailure::NoBinary(err.to_string()))?;
    let out = std::process::Command::new(exe)
        .args(["--language", &wta_i18n::language()])
        .args(["sessions", verb.as_str(), "--master-socket"])
        .arg(socket)
        .args(["--", key])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| CliFailure::CannotRun(err.to_string()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        let why = String::from_utf8_lossy(&out.stderr);
        Err(CliFailure::Failed(
            why.trim().trim_start_matches("wta: ").to_owned(),
        ))
    }
}
