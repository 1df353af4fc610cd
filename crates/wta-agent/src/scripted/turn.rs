//! Plays one turn: runs its steps in order against the client and answers
//! the `session/prompt` with the stop reason, or with the error that ended
//! it (a failed send, a [`Step::Fail`]). The steps a waiting step's `Then`
//! returns run next, before the rest.

use std::collections::VecDeque;
use std::sync::Arc;

use agent_client_protocol::Error;
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::StopReason;
use futures::FutureExt;
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::command;
use super::peer::Peer;
use super::step::{Step, Update};

/// Plays `steps` for `session` and answers `responder`.
pub(crate) async fn play(
    peer: Peer,
    session: String,
    cancel: Arc<Notify>,
    steps: Vec<Step>,
    responder: Responder<Value>,
) {
    let _ = match perform(&peer, &session, &cancel, steps).await {
        Ok(stop) => responder.respond(json!({"stopReason": stop})),
        Err(err) => responder.respond_with_error(err),
    };
}

async fn perform(
    peer: &Peer,
    session: &str,
    cancel: &Notify,
    steps: Vec<Step>,
) -> Result<StopReason, Error> {
    let mut queue = VecDeque::from(steps);
    while let Some(step) = queue.pop_front() {
        let next = match step {
            Step::Say(text) => notify(peer, session, Update::AgentText(text))?,
            Step::Plan(entries) => notify(peer, session, Update::Plan(entries))?,
            Step::ToolCall(call) => notify(peer, session, Update::ToolCall(call))?,
            Step::ToolUpdate(update) => notify(peer, session, Update::ToolUpdate(update))?,
            Step::AskPermission(permission, then) => then(peer.ask(session, &permission).await),
            Step::Request {
                method,
                mut params,
                then,
            } => {
                params.insert("sessionId".into(), json!(session));
                then(peer.request(&method, Value::Object(params)).await)
            }
            Step::Run(cmd, then) => {
                let say =
                    |line: &str| peer.notify(session, &Update::AgentText(format!("{line}\n")));
                then(command::run(&cmd, say).await?)
            }
            Step::UnlessCancelled(then) => {
                if cancel.notified().now_or_never().is_some() {
                    return Ok(StopReason::Cancelled);
                }
                then(())
            }
            Step::AwaitCancel => {
                cancel.notified().await;
                return Ok(StopReason::Cancelled);
            }
            Step::Fail(err) => return Err(err),
        };
        for step in next.into_iter().rev() {
            queue.push_front(step);
        }
    }
    Ok(StopReason::EndTurn)
}

fn notify(peer: &Peer, session: &str, update: Update) -> Result<Vec<Step>, Error> {
    peer.notify(session, &update)?;
    Ok(Vec::new())
}
