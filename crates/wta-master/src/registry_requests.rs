//! The registry's requests: `_wta/hook_event` from `wta hook` (an agent
//! CLI in a shell pane), and `_wta/agent_sessions` (the view, `wta
//! sessions`), which adds the agents' own history: `session/list` on each
//! running agent that advertises it, all at once and bounded in time, its sessions as
//! `historical` rows unless they are listed already.

use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::ListSessionsResponse;
use serde_json::Value;
use wta_protocol::agent_sessions::{
    AgentSessionRow, AgentSessionsResponse, AgentStatus, ForgetSessionParams,
    ForgetSessionResponse, HookEvent, SessionSource,
};

use crate::pool::AgentInstance;
use crate::registry::now_ms;
use crate::state::Master;
use crate::wire::{self, Capabilities};

/// How long the agents may take to list their sessions (asked together),
/// well inside the CLI's wait for the whole answer (`wta sessions all`:
/// 1.2 s), so a slow agent costs its history only.
const LIST_WITHIN: Duration = Duration::from_millis(800);
/// Historical rows taken from one agent.
const MAX_LISTED: usize = 100;

/// `_wta/hook_event`.
pub(crate) fn hook_event(master: &Master, event: &HookEvent) -> Result<Value, Error> {
    master.registry.hook(event, now_ms());
    wire::to_result(wire::Done {})
}

/// `_wta/forget_session`.
pub(crate) fn forget_session(
    master: &Master,
    params: &ForgetSessionParams,
) -> Result<Value, Error> {
    let forgotten = master.registry.forget(&params.key);
    wire::to_result(ForgetSessionResponse { forgotten })
}

/// Shell-pane sessions whose pane is gone ended (the CLI's end hook may
/// never have run: the pane was closed under it); the server's panes.
async fn end_closed_panes(master: &Arc<Master>) -> Vec<wta_host::PaneInfo> {
    let Some(socket) = master.tmux_socket.clone() else {
        return Vec::new();
    };
    let listed = tokio::task::spawn_blocking(move || {
        use wta_host::TerminalHost;
        let host = wta_host::TmuxHost::new(wta_host::ServerLocation::Socket(socket), None);
        host.list_panes()
    })
    .await;
    let Ok(Ok(panes)) = listed else {
        return Vec::new();
    };
    for row in master.registry.shell_rows() {
        let gone = row
            .pane
            .as_ref()
            .is_some_and(|pane| panes.iter().all(|p| &p.id != pane || p.dead));
        if gone {
            master.registry.pane_gone(&row.key);
        }
    }
    panes
}

/// `_wta/agent_sessions`.
pub(crate) async fn agent_sessions(master: &Arc<Master>) -> Result<Value, Error> {
    let panes = end_closed_panes(master).await;
    let mut rows = master.registry.rows(&master.sessions());
    for row in rows
        .iter_mut()
        .filter(|r| r.tab.is_none() && r.status.is_live())
    {
        row.tab = panes
            .iter()
            .find(|p| Some(&p.id) == row.pane.as_ref())
            .map(|p| p.window.clone());
    }
    let listing: Vec<_> = master
        .pool
        .all()
        .into_iter()
        .filter(|i| i.is_alive() && i.init.lists_sessions())
        .collect();
    // All at once: the answer takes the slowest agent's time, at most
    // LIST_WITHIN, whatever the number of agents.
    let histories = futures::future::join_all(listing.iter().map(|i| history(i))).await;
    for listed in histories {
        for row in listed {
            let known = rows
                .iter()
                .any(|r| r.session_id.is_some() && r.session_id == row.session_id);
            if !known {
                rows.push(row);
            }
        }
    }
    wire::to_result(AgentSessionsResponse { sessions: rows })
}

/// One agent's `session/list`, as historical rows (nothing when it does
/// not answer in time).
async fn history(instance: &AgentInstance) -> Vec<AgentSessionRow> {
    let answer = instance.cx.send_request(wire::list_sessions()).block_task();
    let listed = match tokio::time::timeout(LIST_WITHIN, answer).await {
        Ok(Ok(listed)) => listed,
        Ok(Err(err)) => {
            tracing::debug!(agent = %instance.agent_id(), "session/list failed: {}", err.message);
            return Vec::new();
        }
        Err(_) => {
            tracing::debug!(agent = %instance.agent_id(), "session/list did not answer in time");
            return Vec::new();
        }
    };
    history_rows(
        listed,
        instance.agent_id().as_str(),
        instance.init.loads_sessions(),
    )
}

/// An agent's `session/list` answer as historical rows of `agent`
/// (resumable when it `loads` sessions).
fn history_rows(listed: ListSessionsResponse, agent: &str, loads: bool) -> Vec<AgentSessionRow> {
    listed
        .sessions
        .into_iter()
        .take(MAX_LISTED)
        .map(|s| AgentSessionRow {
            key: format!("history:{agent}:{}", s.session_id),
            source: SessionSource::AgentPane,
            agent: agent.to_owned(),
            session_id: Some(s.session_id.to_string()),
            pane: None,
            tab: None,
            cwd: Some(s.cwd.to_string_lossy().into_owned()),
            title: s.title,
            status: AgentStatus::Historical,
            last_activity_ms: s.updated_at.as_deref().and_then(rfc3339_ms),
            current_tool: None,
            resumable: loads,
        })
        .collect()
}

/// `2026-12-01T12:00:00Z`-style times in ms since the epoch (the date and
/// time of day only; a fraction or an offset other than `Z` is ignored).
fn rfc3339_ms(text: &str) -> Option<u64> {
    let (date, time) = text.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let time = time.trim_end_matches('Z');
    let time = time.split(['.', '+']).next()?;
    let mut t = time.split(':').map(|p| p.parse::<i64>().ok());
    let (h, min, s) = (t.next()??, t.next()??, t.next().flatten().unwrap_or(0));
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + min * 60 + s;
    u64::try_from(secs).ok().map(|s| s * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_sessions_become_historical_rows() {
        let listed: ListSessionsResponse = serde_json::from_value(serde_json::json!({
            "sessions": [
                {"sessionId": "s1", "cwd": "/w", "title": "fix it", "updatedAt": "1970-01-01T00:00:01Z"},
                {"sessionId": "s2", "cwd": "/v"},
                // Not a session (no cwd): skipped, the others kept.
                {"sessionId": "s3"},
            ]
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let rows = history_rows(listed, "copilot", true);
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["history:copilot:s1", "history:copilot:s2"]);
        assert_eq!(rows[0].title.as_deref(), Some("fix it"));
        assert_eq!(rows[0].cwd.as_deref(), Some("/w"));
        assert_eq!(rows[0].last_activity_ms, Some(1000));
        assert!(
            rows.iter()
                .all(|r| r.resumable && r.status == AgentStatus::Historical)
        );
    }

    #[test]
    fn listed_times_are_read() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_ms("2026-12-01T12:00:00.123Z"),
            Some(1_796_126_400_000)
        );
        assert_eq!(rfc3339_ms("garbage"), None);
    }
}
