//! The flat one-action form of the MCP `request_terminal_actions` tool, and
//! its conversion into a one-choice schema-v1 proposal.
//!
//! Field rules (first-implementation §3.5): `send` forbids target, delegate
//! and cwd, direction; `open` forbids input and delegate; `target` is
//! required for open and open_and_send. `direction` only exists on `open` in
//! schema v1, so it is refused on `open_and_send`. The original's `profile`
//! has no tmux meaning and is not part of this form.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::ProtocolError;
use crate::limits::{
    MAX_CWD_CHARS, MAX_INPUT_CHARS, MAX_RATIONALE_CHARS, MAX_TITLE_CHARS, SCHEMA_VERSION,
};
use crate::payload::{
    Action, Choice, Direction, OpenTarget, Origin, ProposalPayload, describe_serde_error,
};

/// The tool's arguments as the agent sends them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpTerminalAction {
    #[serde(rename = "type")]
    pub kind: McpActionKind,
    pub title: String,
    #[serde(default)]
    pub rationale: Option<String>,
    #[serde(default)]
    pub input: Option<String>,
    #[serde(default)]
    pub target: Option<OpenTarget>,
    #[serde(default)]
    pub delegate: Option<bool>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub direction: Option<Direction>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpActionKind {
    Send,
    Open,
    OpenAndSend,
}

impl McpActionKind {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Send => "send",
            Self::Open => "open",
            Self::OpenAndSend => "open_and_send",
        }
    }
}

impl McpTerminalAction {
    /// Reads the tool-call `arguments` object.
    pub fn from_value(arguments: &Value) -> Result<Self, ProtocolError> {
        Self::deserialize(arguments).map_err(|err| ProtocolError::PayloadMalformed {
            detail: describe_serde_error(&err),
        })
    }

    /// A one-choice proposal (choice 1, recommended) carrying this action.
    /// `origin` is the turn's trusted origin, never taken from the agent.
    /// The result has passed [`ProposalPayload::validate`].
    pub fn into_proposal(self, origin: Origin) -> Result<ProposalPayload, ProtocolError> {
        let kind = self.kind.as_str();
        let forbid = |present: bool, field| {
            if present {
                Err(ProtocolError::McpFieldNotAllowed { kind, field })
            } else {
                Ok(())
            }
        };
        let action = match self.kind {
            McpActionKind::Send => {
                forbid(self.target.is_some(), "target")?;
                forbid(self.delegate.is_some(), "delegate")?;
                forbid(self.cwd.is_some(), "cwd")?;
                forbid(self.direction.is_some(), "direction")?;
                Action::Send {
                    input: require(kind, self.input, "input")?,
                }
            }
            McpActionKind::Open => {
                forbid(self.input.is_some(), "input")?;
                forbid(self.delegate.is_some(), "delegate")?;
                Action::Open {
                    target: require(kind, self.target, "target")?,
                    cwd: self.cwd,
                    title: None,
                    direction: self.direction,
                }
            }
            McpActionKind::OpenAndSend => {
                forbid(self.direction.is_some(), "direction")?;
                Action::OpenAndSend {
                    target: require(kind, self.target, "target")?,
                    input: require(kind, self.input, "input")?,
                    delegate: self.delegate.unwrap_or(false),
                    cwd: self.cwd,
                }
            }
        };
        let payload = ProposalPayload {
            schema_version: SCHEMA_VERSION,
            origin,
            recommended_choice: 1,
            choices: vec![Choice {
                choice: 1,
                title: self.title,
                rationale: self.rationale.unwrap_or_default(),
                actions: vec![action],
            }],
        };
        payload.validate()?;
        Ok(payload)
    }
}

fn require<T>(
    kind: &'static str,
    value: Option<T>,
    field: &'static str,
) -> Result<T, ProtocolError> {
    value.ok_or(ProtocolError::McpFieldMissing { kind, field })
}

/// The `inputSchema` advertised in `tools/list`.
pub fn input_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["type", "title"],
        "properties": {
            "type": {"type": "string", "enum": ["send", "open", "open_and_send"]},
            "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE_CHARS},
            "rationale": {"type": "string", "maxLength": MAX_RATIONALE_CHARS},
            "input": {"type": "string", "minLength": 1, "maxLength": MAX_INPUT_CHARS},
            "target": {"type": "string", "enum": ["tab", "panel"]},
            "delegate": {"type": "boolean"},
            "cwd": {"type": "string", "minLength": 1, "maxLength": MAX_CWD_CHARS},
            "direction": {"type": "string", "enum": ["right", "left", "up", "down", "auto"]}
        }
    })
}
