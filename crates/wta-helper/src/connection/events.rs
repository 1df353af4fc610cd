//! What the master sends a helper unprompted, as typed events for the app.

use agent_client_protocol::v1::schema::{
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionNotification,
};
use agent_client_protocol::v1::{Dispatch, Responder};
use serde_json::Value;
use tokio::sync::mpsc;
use wta_protocol::helper_master::{self, AgentExitedNotification};

/// One thing the master told this helper.
#[derive(Debug)]
pub enum HelperEvent {
    /// `session/update` for one of this helper's sessions.
    SessionUpdate(Box<SessionNotification>),
    /// `session/request_permission`: answer with [`PermissionRequest::respond`].
    Permission(Box<PermissionRequest>),
    /// `fs/*`, `terminal/*` or another agent → client request, untyped.
    ClientRequest(ClientRequest),
    /// A turn started with `MasterConnection::start_prompt` ended.
    PromptFinished {
        session_id: String,
        result: Result<agent_client_protocol::v1::schema::PromptResponse, super::ConnectionError>,
    },
    /// The master dropped `dropped` notifications because this helper read too slowly.
    Lagged { dropped: u64 },
    /// An agent serving some of this helper's sessions died; they are gone.
    AgentExited(AgentExitedNotification),
    /// The master connection ended; the helper should exit.
    MasterClosed,
}

/// A pending permission request. Dropping it unanswered makes the crate answer
/// with an error; prefer [`PermissionRequest::cancel`].
#[derive(Debug)]
pub struct PermissionRequest {
    pub request: RequestPermissionRequest,
    responder: Responder<RequestPermissionResponse>,
}

impl PermissionRequest {
    pub(crate) fn new(
        request: RequestPermissionRequest,
        responder: Responder<RequestPermissionResponse>,
    ) -> Self {
        Self { request, responder }
    }

    /// Answers with the option `option_id` (must be one the agent offered).
    pub fn select(self, option_id: &str) -> Result<(), super::ConnectionError> {
        let known = self
            .request
            .options
            .iter()
            .any(|o| o.option_id.to_string() == option_id);
        if !known {
            return Err(super::ConnectionError::UnknownOption(option_id.to_owned()));
        }
        self.respond(RequestPermissionOutcome::Selected(
            SelectedPermissionOutcome::new(option_id.to_owned()),
        ))
    }

    /// Answers `cancelled` (the turn was cancelled or the card dismissed).
    pub fn cancel(self) -> Result<(), super::ConnectionError> {
        self.respond(RequestPermissionOutcome::Cancelled)
    }

    /// Answers with any outcome.
    pub fn respond(self, outcome: RequestPermissionOutcome) -> Result<(), super::ConnectionError> {
        self.responder
            .respond(RequestPermissionResponse::new(outcome))
            .map_err(|_| super::ConnectionError::MasterClosed)
    }
}

/// An agent → client request other than permission (`fs/*`, `terminal/*`).
#[derive(Debug)]
pub struct ClientRequest {
    pub method: String,
    pub params: Value,
    responder: Responder<Value>,
}

impl ClientRequest {
    pub fn respond(self, result: Value) -> Result<(), super::ConnectionError> {
        self.responder
            .respond(result)
            .map_err(|_| super::ConnectionError::MasterClosed)
    }

    pub fn fail(self, code: i32, message: &str) -> Result<(), super::ConnectionError> {
        self.responder
            .respond_with_error(agent_client_protocol::Error::new(code, message))
            .map_err(|_| super::ConnectionError::MasterClosed)
    }
}

/// Maps every message the typed handlers did not claim.
pub(crate) fn other(events: &mpsc::UnboundedSender<HelperEvent>, dispatch: Dispatch) {
    match dispatch {
        Dispatch::Notification(msg) => {
            let event = match helper_master::ext_method(&msg.method) {
                Some(helper_master::METHOD_LAGGED) => super::parse_lagged(&msg.params)
                    .map(|l| HelperEvent::Lagged { dropped: l.dropped }),
                Some(helper_master::METHOD_AGENT_EXITED) => {
                    super::parse_agent_exited(&msg.params).map(HelperEvent::AgentExited)
                }
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
            let _ = events.send(HelperEvent::ClientRequest(ClientRequest {
                method: msg.method,
                params: msg.params,
                responder,
            }));
        }
        Dispatch::Response(result, router) => {
            let _ = router.route_with_result(result);
        }
    }
}
