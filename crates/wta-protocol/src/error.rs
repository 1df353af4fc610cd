//! The crate's one error enum, with messages written for the agent or user
//! who sent the bad input.
//!
//! Messages never echo a channel or nonce: the channel is a bearer
//! capability and must not end up in logs or in another agent's context.

use crate::status::ValidationStatus;

/// Everything that can be wrong with proposal wire data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("malformed {kind}: {reason}")]
    MalformedId {
        kind: &'static str,
        reason: &'static str,
    },

    #[error("malformed proposal channel: {reason}")]
    MalformedChannel { reason: &'static str },

    #[error("payload is {len} bytes; the limit is {max} bytes of JSON")]
    PayloadTooLarge { len: usize, max: usize },

    #[error("payload is not a valid proposal: {detail}")]
    PayloadMalformed { detail: String },

    #[error("schema_version {found} is not supported; use 1")]
    UnsupportedSchemaVersion { found: u64 },

    #[error("a proposal needs 1 to 3 choices; it has {count}")]
    ChoiceCount { count: usize },

    #[error("choice {choice} needs 1 to 3 actions; it has {count}")]
    ActionCount { choice: u64, count: usize },

    #[error("choice numbers must be 1, 2 or 3; found {choice}")]
    ChoiceNumberOutOfRange { choice: u64 },

    #[error("choice number {choice} is used twice")]
    DuplicateChoice { choice: u64 },

    #[error("recommended_choice {recommended} is not one of the choices")]
    RecommendedChoiceMissing { recommended: u64 },

    #[error("{field} must not be empty")]
    EmptyText { field: String },

    #[error("{field} is {len} characters; the limit is {max}")]
    TextTooLong {
        field: String,
        len: usize,
        max: usize,
    },

    /// A character the card cannot show as what it types (`position` is
    /// 1-based, in characters).
    #[error(
        "{field} contains U+{code:04X} ({name}) at character {position}; {fix}: \
         the card must show every character that will be typed"
    )]
    ControlCharacter {
        field: String,
        code: u32,
        name: &'static str,
        position: usize,
        fix: &'static str,
    },

    #[error("an autofix proposal must have exactly one choice with exactly one send action")]
    AutofixShape,

    #[error("origin is {found} but this turn is {expected}")]
    OriginMismatch {
        expected: &'static str,
        found: &'static str,
    },

    #[error("`{field}` is not allowed on a {kind} action")]
    McpFieldNotAllowed {
        kind: &'static str,
        field: &'static str,
    },

    #[error("`{field}` is required on a {kind} action")]
    McpFieldMissing {
        kind: &'static str,
        field: &'static str,
    },

    #[error("request line is not valid: {detail}")]
    RequestMalformed { detail: String },

    #[error("request version {found} is not supported; this helper speaks version 1")]
    UnsupportedRequestVersion { found: u64 },

    #[error("response line is not valid: {detail}")]
    ResponseMalformed { detail: String },

    #[error("line is longer than {max} bytes")]
    LineTooLong { max: usize },

    #[error("connection closed in the middle of a line ({len} bytes without a newline)")]
    UnterminatedLine { len: usize },

    #[error("could not encode a line: {detail}")]
    Encode { detail: String },
}

impl ProtocolError {
    /// The validation answer a helper gives for this error, and whether the
    /// agent may usefully try again on the same channel.
    ///
    /// Everything the agent can fix by sending a different payload is
    /// `invalid_schema` and retryable, **including an oversize payload** (the
    /// original answered that one with `retryable:false`, which stopped the
    /// agent from sending a smaller proposal). A turn-policy violation is
    /// `rejected` and final. A broken request envelope means a broken or
    /// foreign client, so retrying the same bytes cannot help.
    pub fn validation_answer(&self) -> (ValidationStatus, bool) {
        use ProtocolError as E;
        match self {
            E::PayloadTooLarge { .. }
            | E::PayloadMalformed { .. }
            | E::UnsupportedSchemaVersion { .. }
            | E::ChoiceCount { .. }
            | E::ActionCount { .. }
            | E::ChoiceNumberOutOfRange { .. }
            | E::DuplicateChoice { .. }
            | E::RecommendedChoiceMissing { .. }
            | E::EmptyText { .. }
            | E::TextTooLong { .. }
            | E::ControlCharacter { .. }
            | E::AutofixShape
            | E::McpFieldNotAllowed { .. }
            | E::McpFieldMissing { .. } => (ValidationStatus::InvalidSchema, true),
            E::OriginMismatch { .. } => (ValidationStatus::Rejected, false),
            E::MalformedId { .. } | E::MalformedChannel { .. } => {
                (ValidationStatus::UnknownChannel, false)
            }
            E::RequestMalformed { .. }
            | E::UnsupportedRequestVersion { .. }
            | E::ResponseMalformed { .. }
            | E::LineTooLong { .. }
            | E::UnterminatedLine { .. }
            | E::Encode { .. } => (ValidationStatus::InvalidSchema, false),
        }
    }
}
