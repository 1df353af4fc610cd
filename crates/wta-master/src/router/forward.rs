//! Helper requests the master passes to an agent: `session/prompt` (the
//! registry sees the session working until it is answered),
//! `session/close` (the session is unbound whatever the agent answers, and
//! answered here when the agent cannot close), everything it only relays,
//! and notifications (`session/cancel`, relayed ones).
//!
//! Each goes to its session's agent once the session is checked to be this
//! helper's, or to the helper's current agent when it names none. The
//! answer is handled under the agent dispatch's ordering barrier (the
//! request is prepared, its callback registered before it goes out), so
//! the relay copies an update the agent wrote after it only once the answer
//! is queued for the helper.

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{CloseSessionRequest, PromptRequest, SessionId};
use agent_client_protocol::{Error, JsonRpcMessage, UntypedMessage};
use serde_json::Value;
use wta_protocol::agent_sessions::AgentStatus;

use super::failure::{agent_exited, forwarded_error, no_agent, unknown_session};
use crate::inbound::{Forward, HelperNotification};
use crate::pool::AgentInstance;
use crate::state::Master;
use crate::table::HelperHandle;
use crate::wire;

/// The agent a helper's message goes to: its session's (only this
/// helper's sessions), or the helper's current agent when it names none.
fn target(
    master: &Master,
    helper: &HelperHandle,
    session: Option<&SessionId>,
) -> Result<Arc<AgentInstance>, Error> {
    match session {
        Some(session) => master
            .session_agent(helper.id, session)
            .ok_or_else(|| unknown_session(&session.0)),
        None => master.current_agent(helper.id).ok_or_else(no_agent),
    }
}

/// [`target`], which must still run.
fn live_target(
    master: &Master,
    helper: &HelperHandle,
    session: Option<&SessionId>,
) -> Result<Arc<AgentInstance>, Error> {
    let instance = target(master, helper, session)?;
    if instance.is_alive() {
        Ok(instance)
    } else {
        Err(agent_exited(&instance))
    }
}

/// What settles when the agent answers.
#[derive(Debug)]
enum Settles {
    Nothing,
    /// The session's prompt: it is idle (or failed) once answered.
    Prompt(SessionId),
    /// A helper that closes a session no longer owns it, whatever the
    /// agent answers: unbind it so it leaves `sessions list`, and let an
    /// agent left without sessions or helpers be reaped.
    Close(SessionId),
}

/// `session/prompt`: the session is working until it is answered.
pub(super) fn prompt(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    prompt: PromptRequest,
    responder: Responder<Value>,
) -> Result<(), Error> {
    let instance = match live_target(master, helper, Some(&prompt.session_id)) {
        Ok(instance) => instance,
        Err(err) => return helper.respond(responder, Err(err)),
    };
    master
        .registry
        .activity(helper.id, &prompt.session_id.0, AgentStatus::Working);
    let session = prompt.session_id.clone();
    send(
        master,
        helper,
        instance,
        &prompt,
        Settles::Prompt(session),
        responder,
    )
}

/// `session/close`; an agent that cannot close (the demo, some CLIs) is
/// told to stop the session's turn, and the pane's close succeeds here.
pub(super) fn close(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    close: CloseSessionRequest,
    responder: Responder<Value>,
) -> Result<(), Error> {
    let instance = match live_target(master, helper, Some(&close.session_id)) {
        Ok(instance) => instance,
        Err(err) => return helper.respond(responder, Err(err)),
    };
    if !instance.can_close_sessions() {
        if let Some(closed) = master.unbind(helper.id, &close.session_id) {
            closed.cancel(&close.session_id);
            master.schedule_reap(closed.id);
        }
        return helper.respond(responder, wire::to_result(wire::closed_locally()));
    }
    let session = close.session_id.clone();
    send(
        master,
        helper,
        instance,
        &close,
        Settles::Close(session),
        responder,
    )
}

/// A request the master only relays.
pub(super) fn request(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    forward: Forward,
    responder: Responder<Value>,
) -> Result<(), Error> {
    match live_target(master, helper, forward.session.as_ref()) {
        Ok(instance) => send_untyped(
            master,
            helper,
            instance,
            forward.message,
            Settles::Nothing,
            responder,
        ),
        Err(err) => helper.respond(responder, Err(err)),
    }
}

/// A helper's notification, to its session's agent (dropped when it names
/// no live session of this helper).
pub(super) fn notification(master: &Master, helper: &HelperHandle, note: HelperNotification) {
    let (session, message) = match note {
        HelperNotification::Cancel(cancel) => {
            let message = cancel.to_untyped_message();
            (Some(cancel.session_id), message)
        }
        HelperNotification::Forward(forward) => (forward.session, Ok(forward.message)),
    };
    let instance = target(master, helper, session.as_ref()).ok();
    match (instance, message) {
        (Some(instance), Ok(message)) if instance.is_alive() => {
            let _ = instance.cx.send_notification(message);
        }
        _ => tracing::debug!(
            helper = helper.id,
            "helper notification for no live session dropped"
        ),
    }
}

fn send(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    instance: Arc<AgentInstance>,
    request: &impl JsonRpcMessage,
    settles: Settles,
    responder: Responder<Value>,
) -> Result<(), Error> {
    match request.to_untyped_message() {
        Ok(message) => send_untyped(master, helper, instance, message, settles, responder),
        Err(err) => helper.respond(responder, Err(err)),
    }
}

fn send_untyped(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    instance: Arc<AgentInstance>,
    message: UntypedMessage,
    settles: Settles,
    responder: Responder<Value>,
) -> Result<(), Error> {
    let answer = Forwarded {
        master: master.clone(),
        helper: helper.clone(),
        instance: instance.clone(),
        settles,
        responder: Some(responder),
    };
    // Prepared: the agent's answer is handled under its dispatch's
    // ordering barrier, so the relay copies an update the agent wrote
    // after it only once the answer is queued for the helper.
    instance
        .cx
        .prepare_request(message)
        .on_receiving_result(async move |result| {
            answer.finish(result);
            Ok(())
        })
}

/// The pending answer to one helper request forwarded to an agent.
/// Dropped unanswered (the agent's connection ended before it answered, so
/// the crate never calls back), it answers that the agent exited.
struct Forwarded {
    master: Arc<Master>,
    helper: Arc<HelperHandle>,
    instance: Arc<AgentInstance>,
    settles: Settles,
    responder: Option<Responder<Value>>,
}

impl Forwarded {
    fn finish(mut self, result: Result<Value, Error>) {
        self.answer(result.map_err(|e| forwarded_error(e, &self.instance)));
    }

    fn answer(&mut self, result: Result<Value, Error>) {
        let Some(responder) = self.responder.take() else {
            return;
        };
        match std::mem::replace(&mut self.settles, Settles::Nothing) {
            Settles::Nothing => {}
            Settles::Prompt(session) => {
                let status = if result.is_ok() {
                    AgentStatus::Idle
                } else {
                    AgentStatus::Error
                };
                self.master
                    .registry
                    .activity(self.helper.id, &session.0, status);
            }
            Settles::Close(session) => {
                if let Some(closed) = self.master.unbind(self.helper.id, &session)
                    && tokio::runtime::Handle::try_current().is_ok()
                {
                    self.master.schedule_reap(closed.id);
                }
            }
        }
        let _ = self.helper.respond(responder, result);
    }
}

impl Drop for Forwarded {
    fn drop(&mut self) {
        let exited = agent_exited(&self.instance);
        self.answer(Err(exited));
    }
}
