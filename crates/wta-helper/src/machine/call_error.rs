//! [`ConnectionError`]: why a call on the master link failed, typed so the
//! machine can tell each case apart (a dead agent offers `/restart`, a gone
//! master ends the link) and the pane can say each one. Data: the connection
//! (`crate::connection`) makes them, the machine reads them.

use std::path::PathBuf;

use wta_protocol::agent_start::{StartFailure, StartOutcome};
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
    /// The agent did not get through `initialize`: what it did, the
    /// command, its last stderr lines (several lines).
    #[error("{}", start_text(.agent, .start, english))]
    StartFailed { agent: String, start: StartFailure },
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
            Some(f) if f.kind == FailureKind::AgentStartFailed => {
                match StartFailure::from_data(err.data.as_ref()) {
                    Some(start) => Self::StartFailed {
                        agent: f.agent_id.unwrap_or_else(|| "unknown".into()),
                        start,
                    },
                    None => Self::Master {
                        kind: f.kind,
                        agent: f.agent_id,
                        message: f.message,
                    },
                }
            }
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
        match self.localized_parts() {
            (summary, Some(details)) => format!("{summary}\n{details}"),
            (summary, None) => summary,
        }
    }

    /// [`Self::localized`] as its first sentence and, for an error that
    /// has more to show (a failed start), the lines that follow it.
    pub fn localized_parts(&self) -> (String, Option<String>) {
        match self {
            Self::StartFailed { agent, start } => {
                let (summary, details) = start_parts(agent, start, wta_i18n::tr);
                (summary, Some(details))
            }
            other => (other.localized_line(), None),
        }
    }

    fn localized_line(&self) -> String {
        use wta_i18n::tr;
        match self {
            Self::StartFailed { agent, start } => start_text(agent, start, wta_i18n::tr),
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
            Self::StartFailed { .. } => Some(FailureKind::AgentStartFailed),
            Self::Master { kind, .. } => Some(*kind),
            _ => None,
        }
    }
}

/// `key`'s English text with `args` filled in (what `Display` says).
fn english(key: &str, args: &[(&str, &str)]) -> String {
    let mut text = wta_i18n::tr_in("en", key);
    for (name, value) in args {
        text = text.replace(&format!("%{{{name}}}"), value);
    }
    text
}

/// What a failed start says: a first line (what the agent did) and the
/// lines after it (the command, the agent's last stderr lines), looked up
/// with `text`.
fn start_parts(
    agent: &str,
    start: &StartFailure,
    text: impl Fn(&str, &[(&str, &str)]) -> String,
) -> (String, String) {
    let summary = match &start.outcome {
        StartOutcome::Exited { code } => text(
            "helper.conn.start_exited",
            &[("agent", agent), ("code", &code.to_string())],
        ),
        StartOutcome::Killed { signal } => text(
            "helper.conn.start_killed",
            &[("agent", agent), ("signal", signal)],
        ),
        StartOutcome::OutputClosed => text("helper.conn.start_output_closed", &[("agent", agent)]),
        StartOutcome::TimedOut { secs } => text(
            "helper.conn.start_timed_out",
            &[("agent", agent), ("secs", &secs.to_string())],
        ),
        StartOutcome::Refused { message } => text(
            "helper.conn.start_refused",
            &[("agent", agent), ("message", message)],
        ),
    };
    let mut details = text(
        "helper.conn.start_command",
        &[("command", &start.command_line())],
    );
    details.push('\n');
    if start.stderr.is_empty() {
        details.push_str(&text("helper.conn.start_no_stderr", &[]));
    } else {
        details.push_str(&text("helper.conn.start_stderr", &[]));
        for line in &start.stderr {
            details.push_str("\n  ");
            details.push_str(line);
        }
    }
    (summary, details)
}

fn start_text(
    agent: &str,
    start: &StartFailure,
    text: impl Fn(&str, &[(&str, &str)]) -> String,
) -> String {
    let (summary, details) = start_parts(agent, start, text);
    format!("{summary}\n{details}")
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
            start_failed(StartOutcome::Exited { code: 3 }, &["boom"]),
            start_failed(StartOutcome::TimedOut { secs: 60 }, &[]),
        ] {
            assert_eq!(err.localized(), err.to_string());
        }
    }

    fn start_failed(outcome: StartOutcome, stderr: &[&str]) -> ConnectionError {
        ConnectionError::StartFailed {
            agent: "custom:boom".into(),
            start: StartFailure {
                argv: vec!["sh".into(), "-c".into(), "echo boom >&2; exit 3".into()],
                outcome,
                stderr: stderr.iter().map(|l| (*l).to_owned()).collect(),
            },
        }
    }

    /// A failed start says what the agent did, the command and what it said
    /// last, line by line.
    #[test]
    fn a_failed_start_names_the_outcome_the_command_and_the_stderr() {
        let cases = [
            (StartOutcome::Exited { code: 3 }, "exited with status 3"),
            (
                StartOutcome::Killed {
                    signal: "SIGSEGV".into(),
                },
                "killed by SIGSEGV",
            ),
            (StartOutcome::OutputClosed, "closed its output"),
            (
                StartOutcome::TimedOut { secs: 2 },
                "did not answer within 2 s",
            ),
            (
                StartOutcome::Refused {
                    message: "no such protocol".into(),
                },
                "refused to start: no such protocol",
            ),
        ];
        for (outcome, says) in cases {
            let err = start_failed(outcome, &["boom: missing API key", "bye"]);
            let (summary, details) = err.localized_parts();
            assert!(
                summary.contains("custom:boom") && summary.contains(says),
                "{summary}"
            );
            assert_eq!(
                details.as_deref(),
                Some(
                    "command: sh -c 'echo boom >&2; exit 3'\nits last lines on stderr:\n  \
                     boom: missing API key\n  bye"
                )
            );
            assert_eq!(err.failure_kind(), Some(FailureKind::AgentStartFailed));
        }
        let (_, quiet) = start_failed(StartOutcome::OutputClosed, &[]).localized_parts();
        assert!(quiet.unwrap().ends_with("it wrote nothing on stderr"));
    }

    /// The master's error becomes a failed start when its data says how;
    /// without that it stays the master's message.
    #[test]
    fn the_masters_start_error_is_read_from_its_data() {
        let start = StartFailure {
            argv: vec!["/bin/agent".into()],
            outcome: StartOutcome::Exited { code: 3 },
            stderr: vec!["boom".into()],
        };
        let mut data = MasterFailure::data(FailureKind::AgentStartFailed, Some("custom:boom"));
        start.attach(&mut data);
        let err = agent_client_protocol::Error::new(-32094, "cannot start").data(data);
        match ConnectionError::from_acp(err) {
            ConnectionError::StartFailed { agent, start: got } => {
                assert_eq!((agent.as_str(), got), ("custom:boom", start));
            }
            other => panic!("{other:?}"),
        }
        let plain = agent_client_protocol::Error::new(-32094, "cannot start").data(
            MasterFailure::data(FailureKind::AgentStartFailed, Some("custom:boom")),
        );
        assert!(matches!(
            ConnectionError::from_acp(plain),
            ConnectionError::Master { kind: FailureKind::AgentStartFailed, message, .. }
                if message == "cannot start"
        ));
    }
}
