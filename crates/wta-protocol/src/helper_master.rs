//! Helper↔master contract additions on top of standard ACP (DESIGN §4.1).
//!
//! - `_meta.wta` on `initialize` / `session/new` / `session/load`: [`WtaMeta`].
//! - Extension methods with the `_wta/` prefix. Some ACP versions strip the leading
//!   `_` on receive, so [`ext_method`] matches both spellings.
//! - Error codes the master answers with, and [`MasterFailure`] to classify them.
//!
//! `WtaMeta` denies unknown fields: a helper cannot smuggle an argv or a command
//! string in; such a request is refused with a clear error.

use crate::{PaneId, WindowId};
use serde::{Deserialize, Serialize};

/// `_wta/sessions`: ask the master for its live sessions.
pub const METHOD_SESSIONS: &str = "_wta/sessions";
/// `_wta/lagged` (master → helper): notifications were dropped for this helper.
pub const METHOD_LAGGED: &str = "_wta/lagged";
/// `_wta/agent_exited` (master → helper): an agent process this helper used died.
pub const METHOD_AGENT_EXITED: &str = "_wta/agent_exited";
/// `_wta/session_state` (helper → master): per-session state only the helper
/// knows (yolo), so `wta sessions list` can show it.
pub const METHOD_SESSION_STATE: &str = "_wta/session_state";

/// [`WtaMeta::proposal_mcp`]: the session MCP endpoint's tools, over HTTP.
pub const PROPOSAL_MCP_V1: &str = "http-v1";

/// The tmux `wait-for` channel a master signals once it listens (one master
/// per tmux server): hidden agent panes whose master went away wait on it to
/// link again on their own.
pub const MASTER_UP_CHANNEL: &str = "wta-master-up";
/// Tab (tmux window) option a helper sets on its owner tab while a card
/// waits in its agent pane and nobody sees the pane (`proposal`,
/// `permission` or `question`); `wta tmux-config`'s status line shows it.
/// The master unsets it when the helper is gone.
pub const CARD_WAITING_OPTION: &str = "@wta_card_waiting";

/// Which `_wta/*` method `method` is, accepting the spelling without the leading `_`.
pub fn ext_method(method: &str) -> Option<&'static str> {
    let bare = method.strip_prefix('_').unwrap_or(method);
    [
        METHOD_SESSIONS,
        METHOD_LAGGED,
        METHOD_AGENT_EXITED,
        METHOD_SESSION_STATE,
        crate::session_tools::METHOD_SESSION_TOOL,
        crate::session_tools::METHOD_PROPOSAL_RESULT,
        crate::session_tools::METHOD_USER_INPUT,
        crate::session_tools::METHOD_USER_INPUT_GONE,
        crate::agent_sessions::METHOD_HOOK_EVENT,
        crate::agent_sessions::METHOD_AGENT_SESSIONS,
        crate::agent_sessions::METHOD_FORGET_SESSION,
    ]
    .into_iter()
    .find(|m| &m[1..] == bare)
}

/// Who is connecting to the master.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientKind {
    /// A helper pane: `initialize` starts (or reuses) its agent.
    #[default]
    Helper,
    /// A one-shot CLI (`wta sessions list`): no agent is started.
    Cli,
}

/// `_meta.wta` as sent by a helper. Only ids and tmux ids; never a command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WtaMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_tab: Option<WindowId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_pane: Option<PaneId>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub client: ClientKind,
    /// `"http-v1"` asks for a session MCP endpoint (DESIGN §4.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal_mcp: Option<String>,
    /// On `session/new`: `/restart` asks for a fresh private agent process for
    /// this helper instead of the one shared per `AgentKey` (which may hang);
    /// the helper's sessions on its previous instance are closed.
    #[serde(default, skip_serializing_if = "is_default")]
    pub fresh_agent: bool,
    /// On the master's `session/new|load` reply: the name of the session
    /// MCP server it gave this session (`wta_<20 hex>`), so the helper can
    /// tell that server's tool calls by name (DESIGN §4.7a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<String>,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl WtaMeta {
    /// Reads `params._meta.wta`; `Ok(None)` when absent.
    pub fn from_params(params: &serde_json::Value) -> Result<Option<Self>, serde_json::Error> {
        match params.get("_meta").and_then(|m| m.get("wta")) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(value) => Self::deserialize(value).map(Some),
        }
    }

    /// Reads `wta` of a `_meta` map; `None` when absent or unreadable.
    pub fn from_meta(meta: &serde_json::Map<String, serde_json::Value>) -> Option<Self> {
        meta.get("wta").and_then(|v| Self::deserialize(v).ok())
    }

    /// Removes `_meta.wta` from `params` (agents never see it); drops an empty `_meta`.
    pub fn strip_from(params: &mut serde_json::Value) {
        if let Some(meta) = params.get_mut("_meta").and_then(|m| m.as_object_mut()) {
            meta.remove("wta");
            if meta.is_empty()
                && let Some(obj) = params.as_object_mut()
            {
                obj.remove("_meta");
            }
        }
    }

    /// `{"wta": self}` for a `_meta` field.
    pub fn to_meta(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut map = serde_json::Map::new();
        map.insert(
            "wta".to_owned(),
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null),
        );
        map
    }
}

/// The state of a session as the master sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// Bound to a live helper and a live agent.
    Active,
    /// Its agent process died; requests on it fail with `agent_exited` (the
    /// helper opens a new session, which starts the agent again).
    AgentExited,
}

impl SessionState {
    /// The wire spelling (`active`, `agent_exited`), also shown in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::AgentExited => "agent_exited",
        }
    }
}

/// One row of `_wta/sessions`. On the wire it is camelCase like every ACP and
/// `_wta/` message; `wta sessions list --json` prints the same facts in the
/// CLI's JSON vocabulary (`agent`, `tab`, `pane`: its own view type, which
/// lists each field by name, so a field added here must be added there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WtaSessionInfo {
    pub session_id: String,
    pub agent_id: String,
    /// The master's number for the helper connection.
    pub helper: u64,
    /// The helper's process id (from `SO_PEERCRED`).
    pub helper_pid: Option<i32>,
    pub owner_tab: Option<WindowId>,
    pub target_pane: Option<PaneId>,
    pub state: SessionState,
    /// Yolo as the owning helper last reported it (`null` before its first report).
    #[serde(default)]
    pub yolo: Option<YoloReport>,
}

/// Yolo of one session, as its helper applies it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct YoloReport {
    pub on: bool,
    pub blocked_by_policy: bool,
}

/// Params of `_wta/session_state`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionStateParams {
    pub session_id: String,
    pub yolo: YoloReport,
}

/// Result of `_wta/sessions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionsListResponse {
    pub sessions: Vec<WtaSessionInfo>,
}

/// Params of `_wta/lagged`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LaggedNotification {
    /// Notifications dropped during the stall that just ended.
    pub dropped: u64,
}

/// Params of `_wta/agent_exited`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AgentExitedNotification {
    pub agent_id: String,
    pub session_ids: Vec<String>,
    pub reason: String,
}

/// JSON-RPC error codes the master uses (server-error range, away from ACP's own).
pub mod codes {
    /// The agent process serving this session died.
    pub const AGENT_EXITED: i32 = -32090;
    /// The session is not known to the master or belongs to another helper.
    pub const UNKNOWN_SESSION: i32 = -32091;
    /// The agent id is not in the allowlist.
    pub const AGENT_NOT_ALLOWED: i32 = -32092;
    /// The agent is not installed (or its config entry is missing or broken).
    pub const AGENT_UNAVAILABLE: i32 = -32093;
    /// The agent could not be started or failed its `initialize`.
    pub const AGENT_START_FAILED: i32 = -32094;
    /// The `_meta.wta` of a request was malformed.
    pub const BAD_META: i32 = -32095;
    /// A request needs an agent but the connection declared none (CLI clients).
    pub const NO_AGENT: i32 = -32096;
}

/// `error.data.wta` of a master error: what kind, and which agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureData {
    pub kind: FailureKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

/// The typed failures a helper can show (and offer `/restart` for).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    AgentExited,
    UnknownSession,
    AgentNotAllowed,
    AgentUnavailable,
    AgentStartFailed,
    BadMeta,
    NoAgent,
}

impl FailureKind {
    pub fn code(self) -> i32 {
        match self {
            Self::AgentExited => codes::AGENT_EXITED,
            Self::UnknownSession => codes::UNKNOWN_SESSION,
            Self::AgentNotAllowed => codes::AGENT_NOT_ALLOWED,
            Self::AgentUnavailable => codes::AGENT_UNAVAILABLE,
            Self::AgentStartFailed => codes::AGENT_START_FAILED,
            Self::BadMeta => codes::BAD_META,
            Self::NoAgent => codes::NO_AGENT,
        }
    }

    pub fn from_code(code: i32) -> Option<Self> {
        [
            Self::AgentExited,
            Self::UnknownSession,
            Self::AgentNotAllowed,
            Self::AgentUnavailable,
            Self::AgentStartFailed,
            Self::BadMeta,
            Self::NoAgent,
        ]
        .into_iter()
        .find(|k| k.code() == code)
    }
}

/// A master-side failure as the helper receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MasterFailure {
    pub kind: FailureKind,
    pub agent_id: Option<String>,
    pub message: String,
}

impl MasterFailure {
    /// Classifies a JSON-RPC error by its code; `None` for errors that did not come
    /// from the master itself (e.g. the agent's own errors, passed through).
    pub fn classify(code: i32, message: &str, data: Option<&serde_json::Value>) -> Option<Self> {
        let kind = FailureKind::from_code(code)?;
        let agent_id = data
            .and_then(|d| d.get("wta"))
            .and_then(|w| FailureData::deserialize(w).ok())
            .and_then(|d| d.agent_id);
        Some(Self {
            kind,
            agent_id,
            message: message.to_owned(),
        })
    }

    /// The `data` value the master attaches to such an error.
    pub fn data(kind: FailureKind, agent_id: Option<&str>) -> serde_json::Value {
        serde_json::json!({ "wta": FailureData { kind, agent_id: agent_id.map(str::to_owned) } })
    }
}

#[cfg(test)]
#[path = "helper_master_tests.rs"]
mod tests;
