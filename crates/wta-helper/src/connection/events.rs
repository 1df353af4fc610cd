//! What the master sends a helper unprompted, as typed events: ACP schema
//! types for `session/update`, `session/request_permission` and `fs/*`, the
//! `_wta/*` types of `wta_protocol::helper_master`, and a responder with
//! every request so it is answered exactly once.

use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, KillTerminalRequest, PromptResponse, ReadTextFileRequest,
    ReleaseTerminalRequest, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionId, SessionNotification,
    TerminalOutputRequest, WaitForTerminalExitRequest, WriteTextFileRequest,
};
use agent_client_protocol::v1::{Dispatch, Responder};
use agent_client_protocol::{JsonRpcRequest, JsonRpcResponse};
use serde_json::Value;
use tokio::sync::mpsc;
use wta_protocol::helper_master::{self, AgentExitedNotification, LaggedNotification};
use wta_protocol::session_tools::{
    self, ProposalResultParams, SessionToolParams, UserInputGoneParams, UserInputParams,
};

use super::ConnectionError;

/// One thing the master told this helper.
#[derive(Debug)]
pub enum HelperEvent {
    /// `session/update` for one of this helper's sessions.
    SessionUpdate(Box<SessionNotification>),
    /// `session/request_permission`: answer with [`PermissionRequest::select`]
    /// or [`PermissionRequest::cancel`].
    Permission(Box<PermissionRequest>),
    /// `fs/read_text_file`.
    ReadFile(Box<Pending<ReadTextFileRequest>>),
    /// `fs/write_text_file`.
    WriteFile(Box<Pending<WriteTextFileRequest>>),
    /// `terminal/*`.
    Terminal(Box<TerminalRequest>),
    /// Another agent → client request (`terminal/*`, …) this helper does not
    /// serve yet: refuse it with [`Unserved::refuse`].
    Unserved(Unserved),
    /// A turn started with `MasterConnection::start_prompt` ended.
    PromptFinished {
        session_id: SessionId,
        result: Result<PromptResponse, ConnectionError>,
    },
    /// `_wta/session_tool`: a tool of the session MCP endpoint.
    SessionTool(Box<ExtRequest<SessionToolParams>>),
    /// `_wta/proposal_result`: what became of a proposal a tool left pending.
    ProposalResult(Box<ExtRequest<ProposalResultParams>>),
    /// `_wta/user_input`: a question for the user.
    UserInput(Box<ExtRequest<UserInputParams>>),
    /// `_wta/user_input_gone`: the caller of that question went away.
    UserInputGone(UserInputGoneParams),
    /// The master dropped `dropped` notifications because this helper read too slowly.
    Lagged(LaggedNotification),
    /// An agent serving some of this helper's sessions died; they are gone.
    AgentExited(AgentExitedNotification),
    /// The master connection ended.
    MasterClosed,
}

/// A typed request and the one way to answer it.
#[derive(Debug)]
pub struct Pending<R: JsonRpcRequest> {
    pub request: R,
    responder: Responder<R::Response>,
}

impl<R: JsonRpcRequest> Pending<R>
where
    R::Response: JsonRpcResponse,
{
    pub(crate) fn new(request: R, responder: Responder<R::Response>) -> Self {
        Self { request, responder }
    }

    /// Answers with `response`.
    pub fn respond(self, response: R::Response) -> Result<(), ConnectionError> {
        self.responder
            .respond(response)
            .map_err(|_| ConnectionError::MasterClosed)
    }

    /// Answers with a JSON-RPC error.
    pub fn fail(self, code: i32, message: &str) -> Result<(), ConnectionError> {
        self.responder
            .respond_with_error(agent_client_protocol::Error::new(code, message))
            .map_err(|_| ConnectionError::MasterClosed)
    }
}

/// One `terminal/*` request.
#[derive(Debug)]
pub enum TerminalRequest {
    Create(Pending<CreateTerminalRequest>),
    Output(Pending<TerminalOutputRequest>),
    WaitForExit(Pending<WaitForTerminalExitRequest>),
    Kill(Pending<KillTerminalRequest>),
    Release(Pending<ReleaseTerminalRequest>),
}

impl TerminalRequest {
    /// The ACP method name.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Create(_) => "terminal/create",
            Self::Output(_) => "terminal/output",
            Self::WaitForExit(_) => "terminal/wait_for_exit",
            Self::Kill(_) => "terminal/kill",
            Self::Release(_) => "terminal/release",
        }
    }
}

/// A pending permission request. Dropping it unanswered makes the crate answer
/// with an error; prefer [`PermissionRequest::cancel`].
pub type PermissionRequest = Pending<RequestPermissionRequest>;

impl Pending<RequestPermissionRequest> {
    /// Answers with the option `option_id` (must be one the agent offered).
    pub fn select(self, option_id: &str) -> Result<(), ConnectionError> {
        let known = self
            .request
            .options
            .iter()
            .any(|o| &*o.option_id.0 == option_id);
        if !known {
            return Err(ConnectionError::UnknownOption(option_id.to_owned()));
        }
        self.respond_outcome(RequestPermissionOutcome::Selected(
            SelectedPermissionOutcome::new(option_id.to_owned()),
        ))
    }

    /// Answers `cancelled` (the turn was cancelled or the card dismissed).
    pub fn cancel(self) -> Result<(), ConnectionError> {
        self.respond_outcome(RequestPermissionOutcome::Cancelled)
    }

    fn respond_outcome(self, outcome: RequestPermissionOutcome) -> Result<(), ConnectionError> {
        self.respond(RequestPermissionResponse::new(outcome))
    }
}

/// A `_wta/*` request from the master with its typed params, answered once
/// with a JSON value.
#[derive(Debug)]
pub struct ExtRequest<P> {
    pub params: P,
    responder: Responder<Value>,
}

impl<P> ExtRequest<P> {
    /// Answers with `answer`.
    pub fn respond<T: serde::Serialize>(self, answer: &T) -> Result<(), ConnectionError> {
        let value =
            serde_json::to_value(answer).map_err(|e| ConnectionError::BadReply(e.to_string()))?;
        self.responder
            .respond(value)
            .map_err(|_| ConnectionError::MasterClosed)
    }

    /// Answers with a JSON-RPC error.
    pub fn fail(self, code: i32, message: &str) -> Result<(), ConnectionError> {
        self.responder
            .respond_with_error(agent_client_protocol::Error::new(code, message))
            .map_err(|_| ConnectionError::MasterClosed)
    }
}

/// `params` of a `_wta/*` request as `P`, or the request answered with
/// "invalid params".
fn typed<P: serde::de::DeserializeOwned>(
    method: &str,
    params: Value,
    responder: Responder<Value>,
) -> Option<Box<ExtRequest<P>>> {
    match serde_json::from_value(params) {
        Ok(params) => Some(Box::new(ExtRequest { params, responder })),
        Err(err) => {
            let message = format!("{method}: invalid params: {err}");
            let _ =
                responder.respond_with_error(agent_client_protocol::Error::new(-32602, &message));
            None
        }
    }
}

/// A request this helper has no handler for: its method, for the refusal.
#[derive(Debug)]
pub struct Unserved {
    pub method: String,
    responder: Responder<Value>,
}

impl Unserved {
    /// Answers "method not found" with `message`.
    pub fn refuse(self, message: &str) -> Result<(), ConnectionError> {
        self.responder
            .respond_with_error(agent_client_protocol::Error::new(-32601, message))
            .map_err(|_| ConnectionError::MasterClosed)
    }
}

/// Maps every message the typed handlers did not claim.
pub(crate) fn other(events: &mpsc::UnboundedSender<HelperEvent>, dispatch: Dispatch) {
    match dispatch {
        Dispatch::Notification(msg) => {
            let event = match helper_master::ext_method(&msg.method) {
                Some(helper_master::METHOD_LAGGED) => serde_json::from_value(msg.params)
                    .ok()
                    .map(HelperEvent::Lagged),
                Some(helper_master::METHOD_AGENT_EXITED) => serde_json::from_value(msg.params)
                    .ok()
                    .map(HelperEvent::AgentExited),
                Some(session_tools::METHOD_USER_INPUT_GONE) => serde_json::from_value(msg.params)
                    .ok()
                    .map(HelperEvent::UserInputGone),
                _ => None,
            };
            match event {
                Some(event) => {
                    let _ = events.send(event);
                }
                None => tracing::debug!(method = %msg.method, "ignored notification from master"),
            }
        }
        Dispatch::Request(msg, responder) => {
            let method = msg.method;
            let event = match helper_master::ext_method(&method) {
                Some(session_tools::METHOD_SESSION_TOOL) => {
                    typed(&method, msg.params, responder).map(HelperEvent::SessionTool)
                }
                Some(session_tools::METHOD_PROPOSAL_RESULT) => {
                    typed(&method, msg.params, responder).map(HelperEvent::ProposalResult)
                }
                Some(session_tools::METHOD_USER_INPUT) => {
                    typed(&method, msg.params, responder).map(HelperEvent::UserInput)
                }
                _ => Some(HelperEvent::Unserved(Unserved { method, responder })),
            };
            if let Some(event) = event {
                let _ = events.send(event);
            }
        }
        Dispatch::Response(result, router) => {
            let _ = router.route_with_result(result);
        }
    }
}
