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

    /// The message in the user's language (`Display` stays English, for
    /// logs and the agent). The master's and the agent's own words pass
    /// through as they came.
    pub fn localized(&self) -> String {
        use wta_i18n::tr;
        match self {
            Self::Unreachable { socket, source } => tr(
                "helper.conn.unreachable",
                &[
                    ("socket", &socket.display().to_string()),
                    ("err", &source.to_string()),
                ],
            ),
            Self::MasterClosed => tr("helper.conn.master_closed", &[]),
            Self::AgentExited { agent } => tr("helper.conn.agent_exited", &[("agent", agent)]),
            Self::Master { message, .. } => message.clone(),
            Self::Agent { code, message, .. } => tr(
                "helper.conn.agent_refused",
                &[("message", message), ("code", &code.to_string())],
            ),
            Self::BadReply(what) => tr("helper.conn.bad_reply", &[("what", what)]),
            Self::UnknownOption(option) => tr("helper.conn.unknown_option", &[("option", option)]),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// In English the localized text is the `Display` text, for every variant.
    #[test]
    fn english_localized_is_display() {
        for err in [
            ConnectionError::Unreachable {
                socket: "/run/m.sock".into(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
            },
            ConnectionError::MasterClosed,
            ConnectionError::AgentExited {
                agent: "claude".into(),
            },
            ConnectionError::Master {
                kind: FailureKind::BadMeta,
                agent: None,
                message: "bad meta".into(),
            },
            ConnectionError::Agent {
                code: -32000,
                message: "no".into(),
                data: None,
            },
            ConnectionError::BadReply("x".into()),
            ConnectionError::UnknownOption("mode".into()),
        ] {
            assert_eq!(err.localized(), err.to_string());
        }
    }
}
