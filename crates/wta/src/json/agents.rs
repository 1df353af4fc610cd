//! The JSON of agents and their sessions: `sessions list` and `sessions all`
//! (one set of keys for both), what `sessions focus|resume|close|pick`, `pane
//! open|toggle|close|prewarm` and `delegate` did. Views take their source
//! type whole (no `..`), so a field added there must be named here too.

use serde::Serialize;
use wta_protocol::agent_sessions::{AgentSessionRow, SessionSource};
use wta_protocol::helper_master::{SessionState, SessionsListResponse, WtaSessionInfo, YoloReport};
use wta_protocol::{PaneId, WindowId};

use crate::launch::agent_pane::Outcome;
use crate::launch::delegate::Delegated;
use crate::launch::prewarm::Prewarmed;

/// `sessions list`: the master's live ACP sessions.
#[derive(Debug, Serialize)]
pub struct LiveSessions<'a> {
    pub sessions: Vec<LiveSession<'a>>,
}

#[derive(Debug, Serialize)]
pub struct LiveSession<'a> {
    pub session_id: &'a str,
    pub agent: &'a str,
    /// The master's number for the helper connection.
    pub helper: u64,
    pub helper_pid: Option<i32>,
    /// The tab whose agent pane owns it.
    pub tab: Option<&'a WindowId>,
    /// The pane it works on.
    pub pane: Option<&'a PaneId>,
    pub state: SessionState,
    pub yolo: Option<Yolo>,
}

/// A session's yolo.
#[derive(Debug, Serialize)]
pub struct Yolo {
    pub on: bool,
    pub blocked_by_policy: bool,
}

impl<'a> LiveSessions<'a> {
    pub fn new(list: &'a SessionsListResponse) -> Self {
        Self {
            sessions: list.sessions.iter().map(LiveSession::new).collect(),
        }
    }
}

impl<'a> LiveSession<'a> {
    fn new(info: &'a WtaSessionInfo) -> Self {
        let WtaSessionInfo {
            session_id,
            agent_id,
            helper,
            helper_pid,
            owner_tab,
            target_pane,
            state,
            yolo,
        } = info;
        Self {
            session_id,
            agent: agent_id,
            helper: *helper,
            helper_pid: *helper_pid,
            tab: owner_tab.as_ref(),
            pane: target_pane.as_ref(),
            state: *state,
            yolo: yolo.map(
                |YoloReport {
                     on,
                     blocked_by_policy,
                 }| Yolo {
                    on,
                    blocked_by_policy,
                },
            ),
        }
    }
}

/// `sessions all`: the rows, and the parts that could not be listed
/// (empty when the master answered).
#[derive(Debug, Serialize)]
pub struct AllSessions<'a> {
    pub sessions: Vec<SessionRow<'a>>,
    pub missing: Vec<Missing>,
}

/// A part of the listing that is not there, and why.
#[derive(Debug, Serialize)]
pub struct Missing {
    /// `master`: everything the master keeps (live states, agent CLIs in
    /// shell panes, ended sessions, the agents' history).
    pub part: &'static str,
    pub reason: String,
}

/// One row of `sessions all`.
#[derive(Debug, Serialize)]
pub struct SessionRow<'a> {
    pub key: &'a str,
    /// `agent_pane` or `shell_pane`.
    pub source: &'static str,
    pub agent: &'a str,
    pub state: &'a str,
    pub session_id: Option<&'a str>,
    /// The pane it works on (an agent pane's target, or the CLI's shell pane).
    pub pane: Option<&'a PaneId>,
    pub tab: Option<&'a WindowId>,
    pub cwd: Option<&'a str>,
    pub title: Option<&'a str>,
    pub current_tool: Option<&'a str>,
    pub last_activity_ms: Option<u64>,
    pub resumable: bool,
}

impl<'a> SessionRow<'a> {
    /// `row`, with `state` standing in for its own (`unknown` when the
    /// master did not vouch for it).
    pub fn new(row: &'a AgentSessionRow, state: Option<&'static str>) -> Self {
        let AgentSessionRow {
            key,
            source,
            agent,
            session_id,
            pane,
            tab,
            cwd,
            title,
            status,
            last_activity_ms,
            current_tool,
            resumable,
        } = row;
        Self {
            key,
            source: match source {
                SessionSource::AgentPane => "agent_pane",
                SessionSource::ShellPane => "shell_pane",
            },
            agent,
            state: state.unwrap_or(status.as_str()),
            session_id: session_id.as_deref(),
            pane: pane.as_ref(),
            tab: tab.as_ref(),
            cwd: cwd.as_deref(),
            title: title.as_deref(),
            current_tool: current_tool.as_deref(),
            last_activity_ms: *last_activity_ms,
            resumable: *resumable,
        }
    }
}

/// What `sessions focus|resume|close` (and a pick) did to the session `key`:
/// `action` is `focused`, `resumed`, `closed` or `forgot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionAction {
    pub key: String,
    pub action: &'static str,
    /// The pane gone to, resumed in or closed (`null` for `forgot`).
    pub pane: Option<PaneId>,
    pub tab: Option<WindowId>,
    /// The agent's session id (`resumed`).
    pub session_id: Option<String>,
}

/// `pane open|toggle|close`: `action` is `opened`, `focused`, `restored`,
/// `stashed`, `closed` or `nothing_to_close` (then `pane` is `null`).
#[derive(Debug, Serialize)]
pub struct PaneAction<'a> {
    pub action: &'static str,
    pub pane: Option<&'a PaneId>,
}

impl<'a> PaneAction<'a> {
    pub fn new(outcome: &'a Outcome) -> Self {
        let (action, pane) = match outcome {
            Outcome::Opened(p) => ("opened", Some(p)),
            Outcome::Focused(p) => ("focused", Some(p)),
            Outcome::Restored(p) => ("restored", Some(p)),
            Outcome::Stashed(p) => ("stashed", Some(p)),
            Outcome::Closed(p) => ("closed", Some(p)),
            Outcome::NothingToClose => ("nothing_to_close", None),
        };
        Self { action, pane }
    }
}

/// `pane prewarm`: per tab, `started` (a hidden agent pane now runs there)
/// or `present` (it had one).
#[derive(Debug, Serialize)]
pub struct Prewarms<'a> {
    pub tabs: Vec<Prewarm<'a>>,
}

#[derive(Debug, Serialize)]
pub struct Prewarm<'a> {
    pub action: &'static str,
    pub tab: &'a WindowId,
    pub pane: &'a PaneId,
}

impl<'a> Prewarms<'a> {
    pub fn new(done: &'a [Prewarmed]) -> Self {
        let row = |p: &'a Prewarmed| match p {
            Prewarmed::Started { window, pane } => Prewarm {
                action: "started",
                tab: window,
                pane,
            },
            Prewarmed::Present { window, pane } => Prewarm {
                action: "present",
                tab: window,
                pane,
            },
        };
        Self {
            tabs: done.iter().map(row).collect(),
        }
    }
}

/// `delegate`: where the delegate runs.
#[derive(Debug, Serialize)]
pub struct Delegate<'a> {
    /// The pane the delegate runs in (the agent pane, with `--acp`).
    pub pane: &'a PaneId,
    pub tab: &'a WindowId,
    pub agent: &'a str,
    /// The session id the delegate CLI was pinned to, when it takes one.
    pub session_id: Option<&'a str>,
    /// `false`: the CLI is missing; the tab says how to install it.
    pub installed: bool,
    /// With `--acp`: the new tab's shell, the delegate's target.
    pub shell_pane: Option<&'a PaneId>,
}

impl<'a> Delegate<'a> {
    pub fn new(done: &'a Delegated) -> Self {
        let Delegated {
            pane,
            window,
            agent,
            session_id,
            installed,
            shell,
        } = done;
        Self {
            pane,
            tab: window,
            agent,
            session_id: session_id.as_deref(),
            installed: *installed,
            shell_pane: shell.as_ref(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wta_protocol::agent_sessions::AgentStatus;

    use super::*;

    #[test]
    fn a_live_session_has_every_wire_field_under_its_vocabulary_name() {
        let list = SessionsListResponse {
            sessions: vec![WtaSessionInfo {
                session_id: "s1".into(),
                agent_id: "copilot".into(),
                helper: 2,
                helper_pid: Some(42),
                owner_tab: Some(WindowId::parse("@1").unwrap()),
                target_pane: Some(PaneId::parse("%2").unwrap()),
                state: SessionState::Active,
                yolo: Some(YoloReport {
                    on: true,
                    blocked_by_policy: false,
                }),
            }],
        };
        let view = serde_json::to_value(LiveSessions::new(&list)).unwrap();
        assert_eq!(
            view,
            json!({"sessions": [{"session_id": "s1", "agent": "copilot", "helper": 2,
                "helper_pid": 42, "tab": "@1", "pane": "%2", "state": "active",
                "yolo": {"on": true, "blocked_by_policy": false}}]})
        );
        // As many fields as the wire has: none left out.
        let wire = serde_json::to_value(&list.sessions[0]).unwrap();
        assert_eq!(
            wire.as_object().unwrap().len(),
            view["sessions"][0].as_object().unwrap().len()
        );
    }

    #[test]
    fn a_registry_row_says_state_as_sessions_list_does() {
        let row = AgentSessionRow {
            key: "pane:1:s1".into(),
            source: SessionSource::AgentPane,
            agent: "claude".into(),
            session_id: Some("s1".into()),
            pane: Some(PaneId::parse("%3").unwrap()),
            tab: Some(WindowId::parse("@2").unwrap()),
            cwd: None,
            title: None,
            status: AgentStatus::Working,
            last_activity_ms: None,
            current_tool: None,
            resumable: false,
        };
        let v = serde_json::to_value(SessionRow::new(&row, None)).unwrap();
        assert_eq!(v["state"], "working");
        assert!(v.get("status").is_none(), "{v}");
        assert_eq!((&v["pane"], &v["tab"]), (&json!("%3"), &json!("@2")));
        let unvouched = serde_json::to_value(SessionRow::new(&row, Some("unknown"))).unwrap();
        assert_eq!(unvouched["state"], "unknown");
    }
}
