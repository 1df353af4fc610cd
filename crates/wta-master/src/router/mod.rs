//! Message routing in both directions.
//!
//! Helper → agent: each line is decoded once ([`crate::inbound`]) and
//! dispatched on its type: `initialize` starts or reuses the helper's agent
//! and answers from its cached result (`session.rs`); `session/new|load`
//! bind the session (`session.rs`); `session/prompt`, `session/close` and
//! whatever the master only relays go to that session's agent after an
//! ownership check (`forward.rs`); `_wta/*` are served here (`wta.rs`). The
//! helper never supplies a command: only an agent id, resolved by the
//! registry.
//!
//! Agent → helper: `session/update` and other session notifications, and
//! the agent's requests (`session/request_permission`, `fs/*`,
//! `terminal/*`) go to the helper owning that (instance, sessionId) only;
//! anything else is refused. Most updates never get here: the relay copies
//! them ([`crate::relay`]); everything else reaches `agents.rs` as the
//! pool's events ([`serve_agents`]).
//! Everything sent to a helper goes through [`HelperHandle::ordered`] /
//! [`HelperHandle::respond`], in order with relayed updates.

mod agents;
mod failure;
mod forward;
mod session;
mod wta;

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Dispatch, Responder};
use agent_client_protocol::{Client, Error};
use serde_json::Value;

pub(crate) use agents::serve_agents;

use crate::inbound::{HelperNotification, HelperRequest};
use crate::state::Master;
use crate::table::HelperHandle;

/// Everything a helper sends us.
pub(crate) fn from_helper(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    dispatch: Dispatch,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let _ = helper.cx.set(cx.clone());
    match dispatch {
        Dispatch::Request(msg, responder) => match HelperRequest::decode(msg) {
            Ok(request) => helper_request(master, helper, request, responder, &cx),
            Err(err) => helper.respond(responder, Err(err)),
        },
        Dispatch::Notification(msg) => {
            match HelperNotification::decode(msg) {
                Ok(note) => forward::notification(master, helper, note),
                Err(err) => {
                    tracing::debug!(
                        helper = helper.id,
                        "helper notification refused: {}",
                        err.message
                    );
                }
            }
            Ok(())
        }
        Dispatch::Response(result, router) => router.route_with_result(result),
    }
}

/// One decoded helper request, to the step that serves it.
fn helper_request(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    request: HelperRequest,
    responder: Responder<Value>,
    cx: &ConnectionTo<Client>,
) -> Result<(), Error> {
    match request {
        HelperRequest::Initialize(init) => {
            let (master, helper) = (master.clone(), helper.clone());
            cx.spawn(async move {
                let result = session::initialize(&master, &helper, &init).await;
                let _ = helper.respond(responder, result);
                Ok(())
            })
        }
        HelperRequest::Open(opening) => session::open(master, helper, opening, responder, cx),
        HelperRequest::Prompt(prompt) => forward::prompt(master, helper, prompt, responder),
        HelperRequest::Close(close) => forward::close(master, helper, close, responder),
        HelperRequest::Forward(message) => forward::request(master, helper, message, responder),
        HelperRequest::Wta(request) => wta::serve(master, helper, request, responder, cx),
    }
}
