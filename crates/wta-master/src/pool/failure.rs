//! Why an agent did not start, as data ([`StartFailure`]: the command, how
//! it ended, its last stderr lines), for the helper to show and the log.

use wta_agent::AgentId;
use wta_protocol::agent_start::{StartFailure, StartOutcome};
use wta_protocol::helper_master::{FailureKind, MasterFailure};

/// Why no instance could be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StartError {
    /// In English, for the log and for clients that read only the message.
    pub message: String,
    /// What the agent did, when it was started at all.
    pub start: Option<StartFailure>,
}

impl StartError {
    pub(super) fn plain(message: String) -> Self {
        Self {
            message,
            start: None,
        }
    }

    pub(super) fn failed(start: StartFailure) -> Self {
        let mut message = format!(
            "{} (command: {})",
            outcome_text(&start.outcome),
            start.command_line()
        );
        if let Some(last) = start.stderr.last() {
            message.push_str(&format!("; its stderr ended with: {last}"));
        }
        Self {
            message,
            start: Some(start),
        }
    }

    /// The `agent_start_failed` error a helper gets, the failure in its data.
    pub fn to_acp(&self, agent: &AgentId) -> agent_client_protocol::Error {
        let kind = FailureKind::AgentStartFailed;
        let mut data = MasterFailure::data(kind, Some(agent.as_str()));
        if let Some(start) = &self.start {
            start.attach(&mut data);
        }
        agent_client_protocol::Error::new(
            kind.code(),
            format!("cannot start agent `{agent}`: {}", self.message),
        )
        .data(data)
    }
}

/// How a start ended, in English (the log, [`StartError::message`]).
pub(super) fn outcome_text(outcome: &StartOutcome) -> String {
    match outcome {
        StartOutcome::Exited { code } => {
            format!("it exited with status {code} before answering initialize")
        }
        StartOutcome::Killed { signal } => {
            format!("it was killed by {signal} before answering initialize")
        }
        StartOutcome::OutputClosed => {
            "it closed its output before answering initialize and was stopped".to_owned()
        }
        StartOutcome::TimedOut { secs } => {
            format!("it did not answer initialize within {secs} s and was stopped")
        }
        StartOutcome::Refused { message } => format!("its initialize failed: {message}"),
    }
}

/// How a process that closed its connection ended (`None`: still running).
pub(super) fn exit_outcome(status: Option<std::process::ExitStatus>) -> StartOutcome {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => StartOutcome::Exited { code },
            (None, Some(signal)) => StartOutcome::Killed {
                signal: nix::sys::signal::Signal::try_from(signal)
                    .map_or_else(|_| signal.to_string(), |s| s.as_str().to_owned()),
            },
            (None, None) => StartOutcome::OutputClosed,
        },
        None => StartOutcome::OutputClosed,
    }
}
