//! Between hook events, an agent CLI's own session log says what it does
//! (issue 18): every [`POLL_EVERY`], each live shell-pane session with a
//! session id gets its log found once (under the CLI's log root in the
//! user's home, the newest file naming the id) and followed from its end;
//! each classified line moves the row (`wta_agent::session_logs`). Hooks
//! stay authoritative: a log only updates a row the hooks created.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wta_agent::session_logs::{SessionLog, log_roots, session_files};
use wta_protocol::agent_sessions::{AgentSessionRow, HookCli};

use crate::registry::now_ms;
use crate::state::Master;

/// How often the logs are read.
pub const POLL_EVERY: Duration = Duration::from_secs(2);

/// The log file of `row`'s session: the newest one under its CLI's root
/// whose path names the session id.
fn find_log(home: &Path, row: &AgentSessionRow) -> Option<(HookCli, PathBuf)> {
    let cli = HookCli::parse(&row.agent)?;
    let id = row.session_id.as_deref()?;
    let root = log_roots(home)
        .into_iter()
        .find(|(c, _)| *c == cli)
        .map(|(_, root)| root)?;
    session_files(&root, cli)
        .into_iter()
        .find(|path| path.to_string_lossy().contains(id))
        .map(|path| (cli, path))
}

/// Follows the logs until the master ends (a task of its own).
pub async fn run(master: Arc<Master>, home: PathBuf) {
    let mut followed: HashMap<String, SessionLog> = HashMap::new();
    let mut interval = tokio::time::interval(POLL_EVERY);
    loop {
        interval.tick().await;
        let rows = master.registry.shell_rows();
        followed.retain(|key, _| rows.iter().any(|r| &r.key == key));
        for row in rows {
            if !followed.contains_key(&row.key)
                && let Some((cli, path)) = find_log(&home, &row)
            {
                followed.insert(row.key.clone(), SessionLog::at_end(cli, path));
            }
            let Some(log) = followed.get_mut(&row.key) else {
                continue;
            };
            match log.poll() {
                Ok(signals) => {
                    for signal in signals {
                        master.registry.log_signal(&row.key, &signal, now_ms());
                    }
                }
                Err(err) => tracing::debug!(key = %row.key, "reading its session log: {err}"),
            }
        }
    }
}
