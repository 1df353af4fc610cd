//! The errors a helper gets when its request cannot reach an agent.

use agent_client_protocol::Error;
use wta_agent::{AgentError, AgentId};
use wta_protocol::helper_master::FailureKind;

use crate::pool::AgentInstance;
use crate::wire::failure;

/// An agent the registry cannot give (not allowed, unknown, cannot start).
pub(super) fn agent_error(err: &AgentError, agent: Option<&AgentId>) -> Error {
    let kind = match err {
        AgentError::NotAllowed { .. } => FailureKind::AgentNotAllowed,
        AgentError::InvalidId { .. } => FailureKind::BadMeta,
        AgentError::Spawn { .. } | AgentError::CurrentExe(_) => FailureKind::AgentStartFailed,
        _ => FailureKind::AgentUnavailable,
    };
    failure(kind, agent, err.to_string())
}

/// Maps an error from a forwarded request: a dead agent becomes `agent_exited`.
pub(super) fn forwarded_error(err: Error, instance: &AgentInstance) -> Error {
    if !instance.is_alive()
        || agent_client_protocol::is_connection_terminated(&err)
        || agent_client_protocol::is_incoming_transport_closed(&err)
    {
        agent_exited(instance)
    } else {
        err
    }
}

/// `agent_exited`: the instance is gone, and its sessions with it.
pub(super) fn agent_exited(instance: &AgentInstance) -> Error {
    failure(
        FailureKind::AgentExited,
        Some(instance.agent_id()),
        format!(
            "agent `{}` exited and this session went with it; a new session starts the agent again",
            instance.agent_id()
        ),
    )
}

/// The session a request names is not this helper's.
pub(super) fn unknown_session(session: &str) -> Error {
    failure(
        FailureKind::UnknownSession,
        None,
        format!("no session `{session}` belongs to this pane"),
    )
}

/// The connection never selected an agent.
pub(super) fn no_agent() -> Error {
    failure(
        FailureKind::NoAgent,
        None,
        "this connection has no agent (it did not initialize as a helper)",
    )
}
