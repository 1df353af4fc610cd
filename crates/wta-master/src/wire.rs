//! What the master says in ACP, built from the `agent-client-protocol`
//! schema's types: the one encoder of every message the master makes up
//! itself, and what it reads of an agent's typed `initialize` result.
//!
//! - To agents: `initialize` ([`initialize_request`]), `session/cancel`,
//!   `session/close`, `session/list`.
//! - To helpers: its own `initialize` answer to a CLI client, an agent's
//!   `initialize` result replayed with `_meta.wta.agentId`
//!   ([`helper_initialize_response`]), the answer to a `session/close` the
//!   agent cannot do, `_meta.wta` on a `session/new|load` answer
//!   ([`stamp_wta_meta`]), `_wta/agent_exited`, and the empty answers of
//!   `_wta/*` requests; and its own errors ([`failure`]).
//!
//! What the master only relays (an agent's `session/update`, its requests
//! to a helper, answers it forwards) is never decoded and encoded again
//! here: agents may speak a newer schema than this one, and what they add
//! must reach the helper as they wrote it. Golden JSON of each message is
//! in `wire_tests.rs`.

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ClientCapabilities, CloseSessionRequest,
    CloseSessionResponse, FileSystemCapabilities, Implementation, InitializeRequest,
    InitializeResponse, ListSessionsRequest, Meta, SessionId,
};
use agent_client_protocol::{Error, UntypedMessage};
use serde::Serialize;
use serde_json::Value;
use wta_agent::AgentId;
use wta_protocol::helper_master::{
    self, AgentExitedNotification, FailureKind, MasterFailure, WtaMeta,
};

/// The `_meta` key WTA's own fields live under.
const WTA_META_KEY: &str = "wta";

/// The `initialize` the master sends every agent it starts: it offers what
/// its helpers serve (`fs/*`, `terminal/*`; a request goes to the helper of
/// its session).
pub(crate) fn initialize_request() -> InitializeRequest {
    InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(
            ClientCapabilities::new()
                .fs(FileSystemCapabilities::new()
                    .read_text_file(true)
                    .write_text_file(true))
                .terminal(true),
        )
        .client_info(Implementation::new("wta", env!("CARGO_PKG_VERSION")))
}

/// The master's answer to a CLI client's `initialize` (no agent is started).
pub(crate) fn cli_initialize_response() -> InitializeResponse {
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(AgentCapabilities::new())
        .agent_info(Implementation::new("wta-master", env!("CARGO_PKG_VERSION")))
}

/// An agent's `initialize` result as a helper gets it: `_meta.wta` names
/// the agent the master resolved (whatever the agent put there goes).
pub(crate) fn helper_initialize_response(
    init: &InitializeResponse,
    agent_id: &str,
) -> InitializeResponse {
    let wta = WtaMeta {
        agent_id: Some(agent_id.to_owned()),
        ..WtaMeta::default()
    };
    let mut meta = init.meta.clone().unwrap_or_default();
    meta.extend(wta.to_meta());
    init.clone().meta(meta)
}

/// `session/cancel` of `session`.
pub(crate) fn cancel(session: SessionId) -> CancelNotification {
    CancelNotification::new(session)
}

/// `session/close` of `session`.
pub(crate) fn close(session: SessionId) -> CloseSessionRequest {
    CloseSessionRequest::new(session)
}

/// The master's answer to a `session/close` that the agent cannot do.
pub(crate) fn closed_locally() -> CloseSessionResponse {
    CloseSessionResponse::new()
}

/// `session/list` with no filter (the agent's whole history).
pub(crate) fn list_sessions() -> ListSessionsRequest {
    ListSessionsRequest::new()
}

/// `_wta/agent_exited` for `session_ids` of one helper.
pub(crate) fn agent_exited(
    agent_id: &str,
    session_ids: Vec<String>,
    reason: &str,
) -> Result<UntypedMessage, Error> {
    let note = AgentExitedNotification {
        agent_id: agent_id.to_owned(),
        session_ids,
        reason: reason.to_owned(),
    };
    UntypedMessage::new(helper_master::METHOD_AGENT_EXITED, note)
}

/// An error a helper gets from the master itself: `kind`'s code, the
/// message in English, `data.wta` saying what failed (and for which agent).
pub(crate) fn failure(
    kind: FailureKind,
    agent: Option<&AgentId>,
    message: impl Into<String>,
) -> Error {
    Error::new(kind.code(), message).data(MasterFailure::data(kind, agent.map(AgentId::as_str)))
}

/// The answer of a `_wta/*` request that has nothing to say but "done".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Done {}

/// `value` (any `Serialize`) as an answer's JSON.
pub(crate) fn to_result(value: impl Serialize) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(Error::into_internal_error)
}

/// Sets `_meta.wta` of a relayed answer (a `session/new|load` result) to
/// what the master says, `None` removing it: an agent cannot speak for the
/// master there (a `mcpServer` it made up would pass its own MCP server
/// off as the session's own to the helper's permission preflight).
pub(crate) fn stamp_wta_meta(reply: &mut Value, wta: Option<&WtaMeta>) {
    let Some(fields) = reply.as_object_mut() else {
        return;
    };
    match wta {
        Some(wta) => {
            let meta = fields
                .entry("_meta")
                .or_insert_with(|| Value::Object(Meta::new()));
            match meta.as_object_mut() {
                Some(meta) => meta.extend(wta.to_meta()),
                None => *meta = Value::Object(wta.to_meta()),
            }
        }
        None => {
            let emptied = match fields.get_mut("_meta").and_then(Value::as_object_mut) {
                Some(meta) => meta.remove(WTA_META_KEY).is_some() && meta.is_empty(),
                None => false,
            };
            if emptied {
                fields.remove("_meta");
            }
        }
    }
}

/// Removes `_meta.wta` from a request's meta (agents never see it); `None`
/// once nothing else is left.
pub(crate) fn strip_wta_meta(meta: Option<Meta>) -> Option<Meta> {
    let mut meta = meta?;
    meta.remove(WTA_META_KEY);
    (!meta.is_empty()).then_some(meta)
}

/// What the master reads of an agent's capabilities.
pub(crate) trait Capabilities {
    /// It advertised `session/close`.
    fn closes_sessions(&self) -> bool;
    /// It advertised `session/list`.
    fn lists_sessions(&self) -> bool;
    /// It advertised `session/load` (an ended session can be resumed).
    fn loads_sessions(&self) -> bool;
    /// It takes HTTP MCP servers in `session/new|load`.
    fn takes_http_mcp(&self) -> bool;
}

impl Capabilities for InitializeResponse {
    fn closes_sessions(&self) -> bool {
        self.agent_capabilities.session_capabilities.close.is_some()
    }

    fn lists_sessions(&self) -> bool {
        self.agent_capabilities.session_capabilities.list.is_some()
    }

    fn loads_sessions(&self) -> bool {
        self.agent_capabilities.load_session
    }

    fn takes_http_mcp(&self) -> bool {
        self.agent_capabilities.mcp_capabilities.http
    }
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
