//! Errors of the helper's master connection, typed so the UI can show each one
//! (and offer `/restart` for a dead agent).

use std::path::PathBuf;

use wta_protocol::helper_master::{FailureKind, MasterFailure};

#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    #[error("cannot reach the wta master at {socket}: {source}")]
    Unreachable {
        socket: PathBuf,
        source: std::io::Error,
    },
    #[error("the wta master closed the connection; this pane's agent session has ended")]
    MasterClosed,
    #[error(
        "agent `{agent}` exited; its session is gone (the next prompt starts it again in a new session)"
    )]
    AgentExited { agent: String },
    #[error("{message}")]
    Master {
        kind: FailureKind,
        agent: Option<String>,
        message: String,
    },
    #[error("the agent refused: {message} (code {code})")]
    Agent {
        code: i32,
        message: String,
        data: Option<serde_json::Value>,
    },
    #[error("the master sent a reply this helper cannot read: {0}")]
    BadReply(String),
    #[error("`{0}` is not one of the options the agent offered")]
    UnknownOption(String),
}

impl ConnectionError {
    /// Classifies an error answer: master failures by code, the rest as the agent's.
    pub fn from_acp(err: agent_client_protocol::Error) -> Self {
        let code = err.code.value();
        match MasterFailure::classify(code, &err.message, err.data.as_ref()) {
            Some(f) if f.kind == FailureKind::AgentExited => Self::AgentExited {
                agent: f.agent_id.unwrap_or_else(|| "unknown".into()),
            },
            Some(f) => Self::Master {
                kind: f.kind,
                agent: f.agent_id,
                message: f.message,
            },
            None => Self::Agent {
                code,
                message: err.message,
                data: err.data,
            },
        }
    }

    /// The typed master failure kind, if this came from the master.
    pub fn failure_kind(&self) -> Option<FailureKind> {
        match self {
            Self::AgentExited { .. } => Some(FailureKind::AgentExited),
            Self::Master { kind, .. } => Some(*kind),
            _ => None,
        }
    }
}
