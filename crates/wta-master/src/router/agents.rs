//! What agents send for helpers: the pool's [`PoolEvent`]s, one at a time
//! in the order each agent wrote them (an agent's connection waits for
//! each to be handled before it reads on, see `pool/start.rs`).
//!
//! A notification or request goes to the helper owning (instance,
//! sessionId) only, through [`HelperHandle::ordered`]; anything else is
//! dropped (notifications) or refused (requests). An instance's end fails
//! its sessions and tells their helpers.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;
use wta_protocol::helper_master::FailureKind;

use crate::inbound;
use crate::pool::{FromAgent, PoolEvent};
use crate::state::Master;
use crate::table::HelperHandle;
use crate::wire;

/// Handles the pool's events until the pool is gone.
pub(crate) async fn serve_agents(
    master: Arc<Master>,
    mut events: mpsc::UnboundedReceiver<PoolEvent>,
) {
    while let Some(event) = events.recv().await {
        match event {
            PoolEvent::FromAgent {
                instance,
                message,
                handled,
            } => {
                from_agent(&master, instance, message);
                let _ = handled.send(());
            }
            PoolEvent::Exited { instance, reason } => master.agent_gone(instance, &reason),
        }
    }
}

/// The helper owning the session `params` name on `instance`.
fn helper_of(master: &Master, instance: u64, params: &Value) -> Option<Arc<HelperHandle>> {
    let session = inbound::session_of(params)?;
    master.table.session_helper(instance, &session.0)
}

fn from_agent(master: &Master, instance: u64, message: FromAgent) {
    match message {
        FromAgent::Notification(msg) => match helper_of(master, instance, &msg.params) {
            Some(helper) => helper.notify_admitted(msg),
            None => {
                tracing::debug!(instance, method = %msg.method, "agent notification for no known session dropped");
            }
        },
        FromAgent::Request(msg, responder) => {
            let helper = helper_of(master, instance, &msg.params);
            let sent = match helper.as_ref().and_then(|h| Some((h, h.cx.get()?))) {
                Some((helper, cx)) => {
                    helper.ordered(|| cx.send_request(msg).forward_response_to(*responder))
                }
                None => responder.respond_with_error(wire::failure(
                    FailureKind::UnknownSession,
                    None,
                    format!("`{}` names no session of this agent", msg.method),
                )),
            };
            if let Err(err) = sent {
                tracing::debug!(
                    instance,
                    "an agent request could not be passed on: {}",
                    err.message
                );
            }
        }
    }
}
