//! Proposal payload schema v1: the JSON an agent sends through
//! `propose-terminal-actions --payload-json`.
//!
//! Every level denies unknown fields. The payload can never name a session,
//! helper, window, tab or pane: the trusted target comes from the turn.
//! [`parse_payload`] checks the raw size first, then the shape (serde), then
//! the rules in `payload_rules` (counts, lengths, forbidden characters,
//! autofix shape), and returns the first problem as a readable error.

use serde::{Deserialize, Serialize};

use crate::error::ProtocolError;
use crate::limits::MAX_PAYLOAD_BYTES;

/// A validated-shape proposal (run [`ProposalPayload::validate`] or build it
/// through [`parse_payload`] before trusting the rules).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposalPayload {
    /// Always 1; kept as a number so other versions get a specific error.
    pub schema_version: u64,
    pub origin: Origin,
    pub recommended_choice: u64,
    pub choices: Vec<Choice>,
}

/// Who the proposal says it comes from. The helper checks it against the
/// turn's own (trusted) origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    TerminalAgent,
    Autofix,
}

impl Origin {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::TerminalAgent => "terminal_agent",
            Self::Autofix => "autofix",
        }
    }
}

/// One button on the card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// 1, 2 or 3, unique within the proposal.
    pub choice: u64,
    pub title: String,
    #[serde(default)]
    pub rationale: String,
    pub actions: Vec<Action>,
}

/// What a confirmed choice does, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Type `input` into the turn's trusted target pane (Run adds Enter,
    /// Insert does not).
    Send { input: String },
    /// Open a new tab (tmux window) or panel (split of the target pane).
    Open {
        target: OpenTarget,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        direction: Option<Direction>,
    },
    /// Open a tab or panel, wait for its shell, then type `input` and Enter.
    /// `delegate: true` runs the configured delegate agent with `input` as
    /// its task instead.
    OpenAndSend {
        target: OpenTarget,
        input: String,
        delegate: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
}

impl Action {
    /// The wire name of the action type.
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Send { .. } => "send",
            Self::Open { .. } => "open",
            Self::OpenAndSend { .. } => "open_and_send",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenTarget {
    Tab,
    Panel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Right,
    Left,
    Up,
    Down,
    Auto,
}

/// Parses and validates raw payload bytes (the exact bytes the agent wrote).
/// The size limit is checked on the bytes before any parsing.
pub fn parse_payload(raw: &[u8]) -> Result<ProposalPayload, ProtocolError> {
    check_payload_size(raw)?;
    let payload: ProposalPayload =
        serde_json::from_slice(raw).map_err(|err| ProtocolError::PayloadMalformed {
            detail: describe_serde_error(&err),
        })?;
    payload.validate()?;
    Ok(payload)
}

/// Fails when `raw` is over [`MAX_PAYLOAD_BYTES`].
pub fn check_payload_size(raw: &[u8]) -> Result<(), ProtocolError> {
    if raw.len() > MAX_PAYLOAD_BYTES {
        return Err(ProtocolError::PayloadTooLarge {
            len: raw.len(),
            max: MAX_PAYLOAD_BYTES,
        });
    }
    Ok(())
}

/// serde_json's message without the "at line 1 column N" noise when the
/// payload is one line, which agents' payloads always are.
pub(crate) fn describe_serde_error(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rsplit_once(" at line 1 column ") {
        Some((head, column)) => format!("{head} (at column {column})"),
        None => text,
    }
}

impl ProposalPayload {
    /// The payload as compact JSON (field order of this crate's types).
    pub fn to_json(&self) -> Result<String, ProtocolError> {
        serde_json::to_string(self).map_err(|err| ProtocolError::Encode {
            detail: err.to_string(),
        })
    }

    /// The choice the agent recommends (validated to exist).
    pub fn recommended(&self) -> Option<&Choice> {
        self.choices
            .iter()
            .find(|c| c.choice == self.recommended_choice)
    }

    /// Checks that the payload's claimed origin is the turn's own origin.
    /// This is turn policy, so a mismatch is `rejected`, not retryable.
    pub fn check_origin(&self, turn: Origin) -> Result<(), ProtocolError> {
        if self.origin == turn {
            Ok(())
        } else {
            Err(ProtocolError::OriginMismatch {
                expected: turn.as_str(),
                found: self.origin.as_str(),
            })
        }
    }
}
