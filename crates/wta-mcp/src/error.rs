//! The crate's one error enum. Messages are written for the user or the
//! agent that reads them in a tool result; none ever carries a bearer.

/// What can go wrong in the session MCP endpoint or behind it.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("the operating system's random number generator failed: {detail}")]
    Random { detail: String },

    #[error("this agent session has no agent pane any more")]
    SessionGone,

    #[error("the agent pane did not answer in time")]
    NoAnswer,

    #[error("the agent pane cannot take this now: {reason}")]
    Unavailable { reason: String },
}
