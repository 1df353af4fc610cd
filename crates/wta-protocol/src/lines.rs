//! The JSON lines on a proposal socket: one request from the CLI, then the
//! helper's validation, final and execution lines, and, once a confirmed
//! proposal's exchange is complete, a `next` line (a fresh channel for the
//! same turn) or an `end` line (no more proposals this turn, and why).
//!
//! Every line is compact JSON ending in `\n`; its length limit counts the
//! JSON only ([`crate::limits::MAX_REQUEST_LINE_BYTES`],
//! [`crate::limits::MAX_RESPONSE_LINE_BYTES`]). [`encode_line`] refuses to
//! produce a line its reader would refuse, so both sides agree by
//! construction.

use serde::{Deserialize, Serialize};

use crate::channel::Channel;
use crate::error::ProtocolError;
use crate::hexid::{ExecutionId, ProposalId};
use crate::limits::{MAX_REQUEST_LINE_BYTES, MAX_RESPONSE_LINE_BYTES, PROTOCOL_VERSION};
use crate::payload::{check_payload_size, describe_serde_error};
use crate::status::{ExecutionStatus, FinalStatus, ValidationStatus};

/// `{"version":1,"channel":"…","payload":"<compact json>"}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposalRequest {
    pub version: u64,
    pub channel: Channel,
    /// The payload bytes exactly as the agent wrote them (they are what the
    /// permission preflight digested), carried as a JSON string.
    pub payload: String,
}

impl ProposalRequest {
    pub fn new(channel: Channel, payload: impl Into<String>) -> Self {
        Self {
            version: PROTOCOL_VERSION,
            channel,
            payload: payload.into(),
        }
    }

    /// Encodes the request as one line (with `\n`).
    pub fn to_line(&self) -> Result<Vec<u8>, ProtocolError> {
        check_payload_size(self.payload.as_bytes())?;
        encode_line(self, MAX_REQUEST_LINE_BYTES)
    }

    /// Decodes one frame from [`crate::frame::FrameReader`] (newline already
    /// removed). Checks the version and the payload size; the payload's
    /// schema is checked later, after channel and digest validation.
    pub fn from_frame(frame: &[u8]) -> Result<Self, ProtocolError> {
        if frame.len() > MAX_REQUEST_LINE_BYTES {
            return Err(ProtocolError::LineTooLong {
                max: MAX_REQUEST_LINE_BYTES,
            });
        }
        let request: Self =
            serde_json::from_slice(frame).map_err(|err| ProtocolError::RequestMalformed {
                detail: describe_serde_error(&err),
            })?;
        if request.version != PROTOCOL_VERSION {
            return Err(ProtocolError::UnsupportedRequestVersion {
                found: request.version,
            });
        }
        check_payload_size(request.payload.as_bytes())?;
        Ok(request)
    }
}

/// Any line the helper sends back, tagged by `"phase"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum ResponseLine {
    Validation(ValidationLine),
    Final(FinalLine),
    Execution(ExecutionLine),
    Next(NextLine),
    End(EndLine),
}

/// `{"phase":"next","channel":"v1.…","invocation":"…","remaining":n}`: the
/// exchange is complete; the turn may propose again, once, on `channel`
/// (every rule of the first channel holds). `invocation` is the canonical
/// command with the payload placeholder
/// ([`crate::invocation::PAYLOAD_PLACEHOLDER`]); `remaining` counts the
/// proposals the turn has left, this one included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextLine {
    pub channel: Channel,
    pub invocation: String,
    pub remaining: u32,
}

/// `{"phase":"end","reason":"…"}`: the exchange is complete and this turn
/// proposes no more (its budget is spent); `reason` says so for the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndLine {
    pub reason: String,
}

impl ResponseLine {
    pub fn to_line(&self) -> Result<Vec<u8>, ProtocolError> {
        encode_line(self, MAX_RESPONSE_LINE_BYTES)
    }

    pub fn from_frame(frame: &[u8]) -> Result<Self, ProtocolError> {
        if frame.len() > MAX_RESPONSE_LINE_BYTES {
            return Err(ProtocolError::LineTooLong {
                max: MAX_RESPONSE_LINE_BYTES,
            });
        }
        serde_json::from_slice(frame).map_err(|err| ProtocolError::ResponseMalformed {
            detail: describe_serde_error(&err),
        })
    }
}

/// `{"phase":"validation","status":…,"proposal_id"?,"reason"?,"retryable":bool}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawValidation")]
pub struct ValidationLine {
    pub status: ValidationStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal_id: Option<ProposalId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub retryable: bool,
}

impl ValidationLine {
    /// The card is up; `proposal_id` names it in the final and execution lines.
    pub fn accepted(proposal_id: ProposalId) -> Self {
        Self {
            status: ValidationStatus::Accepted,
            proposal_id: Some(proposal_id),
            reason: None,
            retryable: false,
        }
    }

    /// A refusal, retryable when the status allows it and `budget_left`.
    pub fn refused(status: ValidationStatus, reason: impl Into<String>, budget_left: bool) -> Self {
        Self {
            status,
            proposal_id: None,
            reason: Some(reason.into()),
            retryable: status.can_retry() && budget_left,
        }
    }

    /// The answer to a payload or request error (see
    /// [`ProtocolError::validation_answer`]).
    pub fn from_error(err: &ProtocolError, budget_left: bool) -> Self {
        let (status, retryable) = err.validation_answer();
        Self {
            status,
            proposal_id: None,
            reason: Some(err.to_string()),
            retryable: retryable && budget_left,
        }
    }
}

/// Invariants checked when a validation line is read: `accepted` carries a
/// proposal id and is never retryable; a refusal is retryable only if its
/// status can be.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawValidation {
    status: ValidationStatus,
    #[serde(default)]
    proposal_id: Option<ProposalId>,
    #[serde(default)]
    reason: Option<String>,
    retryable: bool,
}

impl TryFrom<RawValidation> for ValidationLine {
    type Error = String;
    fn try_from(raw: RawValidation) -> Result<Self, String> {
        let accepted = raw.status == ValidationStatus::Accepted;
        if accepted && (raw.proposal_id.is_none() || raw.retryable) {
            return Err("an accepted line needs a proposal_id and retryable:false".into());
        }
        if !accepted && raw.proposal_id.is_some() {
            return Err("only an accepted line carries a proposal_id".into());
        }
        if raw.retryable && !raw.status.can_retry() {
            return Err(format!("status {} is never retryable", raw.status.as_str()));
        }
        Ok(Self {
            status: raw.status,
            proposal_id: raw.proposal_id,
            reason: raw.reason,
            retryable: raw.retryable,
        })
    }
}

/// `{"phase":"final","status":…,"proposal_id":…,"choice"?,"reason"?}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinalLine {
    pub status: FinalStatus,
    pub proposal_id: ProposalId,
    /// The choice the user confirmed (only with `confirmed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One dispatched action's outcome (DESIGN §4.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutionLine {
    pub status: ExecutionStatus,
    pub proposal_id: ProposalId,
    pub execution_id: ExecutionId,
    /// 1-based index of the action within the confirmed choice.
    pub action: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Rendered output between the run's C and D marks, capped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub still_running: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ExecutionLine {
    /// A line with only the required fields; set the optional ones directly.
    pub fn new(
        status: ExecutionStatus,
        proposal_id: ProposalId,
        execution_id: ExecutionId,
        action: u64,
    ) -> Self {
        Self {
            status,
            proposal_id,
            execution_id,
            action,
            exit_code: None,
            output: None,
            truncated: None,
            duration_ms: None,
            cwd: None,
            still_running: None,
            interactive: None,
            interrupted: None,
            reason: None,
        }
    }
}

/// Compact JSON plus `\n`, refused when the JSON is over `max` bytes.
pub fn encode_line<T: Serialize>(value: &T, max: usize) -> Result<Vec<u8>, ProtocolError> {
    let mut bytes = serde_json::to_vec(value).map_err(|err| ProtocolError::Encode {
        detail: err.to_string(),
    })?;
    if bytes.len() > max {
        return Err(ProtocolError::LineTooLong { max });
    }
    bytes.push(b'\n');
    Ok(bytes)
}
