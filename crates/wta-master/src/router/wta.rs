//! The `_wta/*` requests the master serves itself (types in
//! `wta_protocol::helper_master` and `wta_protocol::agent_sessions`).

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use serde_json::Value;
use wta_protocol::helper_master::SessionsListResponse;

use super::failure::unknown_session;
use crate::inbound::WtaRequest;
use crate::registry_requests;
use crate::state::Master;
use crate::table::HelperHandle;
use crate::wire;

pub(super) fn serve(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    request: WtaRequest,
    responder: Responder<Value>,
    cx: &ConnectionTo<Client>,
) -> Result<(), Error> {
    let answer = match request {
        WtaRequest::Sessions => wire::to_result(SessionsListResponse {
            sessions: master.sessions(),
        }),
        WtaRequest::SessionState(state) => {
            if master.set_session_yolo(helper.id, &state.session_id, state.yolo) {
                wire::to_result(wire::Done {})
            } else {
                Err(unknown_session(&state.session_id))
            }
        }
        WtaRequest::HookEvent(event) => registry_requests::hook_event(master, &event),
        WtaRequest::ForgetSession(params) => registry_requests::forget_session(master, &params),
        WtaRequest::AgentSessions => {
            // It asks every agent for its history: on a task of its own.
            let (master, helper) = (master.clone(), helper.clone());
            return cx.spawn(async move {
                let rows = registry_requests::agent_sessions(&master).await;
                let _ = helper.respond(responder, rows);
                Ok(())
            });
        }
    };
    helper.respond(responder, answer)
}
