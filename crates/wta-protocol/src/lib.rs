//! WTA wire types: serde only, no async runtime, no I/O.
//!
//! Every type that crosses a process boundary lives here so that each side
//! (CLI, helper, master) agrees on one definition, and golden tests pin it.

pub mod acp_options;
pub mod agent_sessions;
pub mod agent_start;
pub mod channel;
pub mod digest;
pub mod envelope;
pub mod error;
pub mod frame;
pub mod helper_master;
pub mod hexid;
pub mod ids;
pub mod invocation;
pub mod limits;
pub mod lines;
pub mod mcp_forms;
pub mod payload;
mod payload_rules;
pub mod prompt;
pub mod session_tools;
pub mod status;

pub use ids::{IdError, PaneId, TmuxSessionId, WindowId};

pub use channel::Channel;
pub use digest::{ArmCheck, Armed, ChannelDigest, PayloadDigest};
pub use envelope::{Extracted, extract_command};
pub use error::ProtocolError;
pub use frame::FrameReader;
pub use hexid::{ExecutionId, HelperId, ProposalId, TurnNonce};
pub use invocation::{
    CanonicalInvocation, Invocation, NonCanonical, build_invocation, classify_invocation,
};
pub use lines::{
    EndLine, ExecutionLine, FinalLine, NextLine, ProposalRequest, ResponseLine, ValidationLine,
};
pub use mcp_forms::McpTerminalAction;
pub use payload::{
    Action, Choice, Direction, OpenTarget, Origin, ProposalPayload, check_payload_size,
    parse_payload,
};
pub use status::{ExecutionStatus, FinalStatus, ValidationStatus};
