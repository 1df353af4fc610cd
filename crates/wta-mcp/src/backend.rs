//! The seam between the endpoint and whoever runs the tools (the master,
//! which forwards each call to the session's helper).
//!
//! The endpoint only authenticates, parses and shapes results; every
//! decision about proposals and questions is the backend's.

use std::time::Duration;

use futures::future::BoxFuture;
use wta_protocol::ProposalId;
use wta_protocol::session_tools::{ProposalReport, SessionTool, UserInputArgs, UserInputOutcome};

use crate::error::McpError;
use crate::grants::McpSessionId;

/// Runs the session tools for the authenticated session.
///
/// Each future is `'static`: the endpoint may drop it at any time (the
/// caller went away, or a time limit ran out), and the backend must then
/// clean up whatever the call left (for a question: remove it).
pub trait Backend: Send + Sync + 'static {
    /// A terminal tool: make the proposal and report on it, at the latest
    /// after `call.wait()` (then with state `pending`).
    fn session_tool(
        &self,
        session: McpSessionId,
        call: SessionTool,
    ) -> BoxFuture<'static, Result<ProposalReport, McpError>>;

    /// `get_proposal_result`: what became of a proposal this session made,
    /// at the latest after `wait`.
    fn proposal_result(
        &self,
        session: McpSessionId,
        id: ProposalId,
        wait: Duration,
    ) -> BoxFuture<'static, Result<ProposalReport, McpError>>;

    /// `request_user_input` (arguments already validated): ask the user and
    /// wait for the answer. Dropping the future means the caller went away
    /// or the question timed out.
    fn user_input(
        &self,
        session: McpSessionId,
        args: UserInputArgs,
    ) -> BoxFuture<'static, UserInputOutcome>;
}
