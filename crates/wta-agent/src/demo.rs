//! The built-in offline demo agent (`wta --demo-agent`, agent id `demo`).
//!
//! It says plainly that it is a demo. Deterministic replies: a markdown echo,
//! a plan (`plan`), a permission request (`permission`), and help otherwise.
//! Built on the ACP crate's Agent side; serves one client on the given streams.

use std::sync::atomic::{AtomicU64, Ordering};

use agent_client_protocol::v1::{ConnectionTo, Dispatch, Responder};
use agent_client_protocol::{Agent, ByteStreams, Client, Error, UntypedMessage};
use serde_json::{Value, json};

const INTRO: &str = "**This is the WTA demo agent.** It runs offline and does not use a model: \
it only shows what an agent pane can do.\n\n";

/// What the demo does for one prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoReply {
    Plan,
    Permission,
    Echo(String),
}

/// Pure choice of the reply from the prompt text.
pub fn choose(text: &str) -> DemoReply {
    let lower = text.trim().to_lowercase();
    if lower.starts_with("plan") {
        DemoReply::Plan
    } else if lower.starts_with("permission") || lower.starts_with("run") {
        DemoReply::Permission
    } else {
        DemoReply::Echo(text.trim().to_owned())
    }
}

/// Serves the demo agent until the client hangs up.
pub async fn serve<W, R>(outgoing: W, incoming: R) -> Result<(), Error>
where
    W: futures::AsyncWrite + Send + 'static,
    R: futures::AsyncRead + Send + 'static,
{
    static NEXT: AtomicU64 = AtomicU64::new(1);
    Agent
        .v1()
        .name("wta-demo-agent")
        .on_receive_dispatch(
            async move |dispatch: Dispatch, cx: ConnectionTo<Client>| match dispatch {
                Dispatch::Request(msg, responder) => match msg.method.as_str() {
                    "initialize" => responder.respond(json!({
                        "protocolVersion": 1,
                        "agentCapabilities": {"loadSession": false},
                        "authMethods": [],
                        "agentInfo": {"name": "wta-demo", "title": "WTA demo agent (offline)", "version": env!("CARGO_PKG_VERSION")}
                    })),
                    "session/new" => responder.respond(json!({
                        "sessionId": format!("demo-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
                    })),
                    "session/prompt" => {
                        let session = msg.params.get("sessionId").cloned().unwrap_or(Value::Null);
                        let text = prompt_text(&msg.params);
                        cx.spawn({
                            let cx = cx.clone();
                            async move {
                                turn(&cx, session, choose(&text), responder).await;
                                Ok(())
                            }
                        })
                    }
                    other => responder.respond_with_error(Error::method_not_found().data(json!(other))),
                },
                Dispatch::Notification(_) => Ok(()),
                Dispatch::Response(result, router) => router.route_with_result(result),
            },
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_to(ByteStreams::new(outgoing, incoming))
        .await
}

fn prompt_text(params: &Value) -> String {
    params
        .get("prompt")
        .and_then(Value::as_array)
        .map(|b| {
            b.iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        // Only the user's request: drop the context a WTA pane appends
        // (wta_helper::context::CONTEXT_SEPARATOR).
        .map(|text| match text.split_once("\n\n---\n<!-- WTA context") {
            Some((request, _)) => request.to_owned(),
            None => text,
        })
        .unwrap_or_default()
}

fn chunk(cx: &ConnectionTo<Client>, session: &Value, text: &str) -> Result<(), Error> {
    update(
        cx,
        session,
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
    )
}

fn update(cx: &ConnectionTo<Client>, session: &Value, update: Value) -> Result<(), Error> {
    cx.send_notification(UntypedMessage::new(
        "session/update",
        json!({"sessionId": session, "update": update}),
    )?)
}

async fn turn(
    cx: &ConnectionTo<Client>,
    session: Value,
    reply: DemoReply,
    responder: Responder<Value>,
) {
    let result = async {
        chunk(cx, &session, INTRO)?;
        match reply {
            DemoReply::Echo(text) => {
                let body = if text.is_empty() { "(empty prompt)".to_owned() } else { text };
                chunk(cx, &session, &format!("You said:\n\n> {body}\n\nTry `plan` or `permission`.\n"))?;
            }
            DemoReply::Plan => {
                update(cx, &session, json!({"sessionUpdate": "plan", "entries": [
                    {"content": "Read the failing test output", "priority": "high", "status": "completed"},
                    {"content": "Propose a fix", "priority": "medium", "status": "in_progress"},
                    {"content": "Re-run the tests", "priority": "low", "status": "pending"}]}))?;
                chunk(cx, &session, "Here is a **plan** (a demo; nothing is run).\n")?;
            }
            DemoReply::Permission => {
                let answer = cx
                    .send_request(UntypedMessage::new("session/request_permission", json!({
                        "sessionId": session,
                        "toolCall": {"toolCallId": "demo-1", "title": "echo hello from the demo", "kind": "execute"},
                        "options": [
                            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                            {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}))?)
                    .block_task()
                    .await?;
                let text = match answer.pointer("/outcome/optionId").and_then(Value::as_str) {
                    Some("allow") => "You allowed it. (The demo does not run anything.)\n",
                    Some(_) => "You rejected it.\n",
                    None => "The request was cancelled.\n",
                };
                chunk(cx, &session, text)?;
            }
        }
        Ok::<_, Error>(())
    }
    .await;
    let _ = match result {
        Ok(()) => responder.respond(json!({"stopReason": "end_turn"})),
        Err(err) => responder.respond_with_error(err),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chooses_reply_from_prompt() {
        assert_eq!(choose("plan please"), DemoReply::Plan);
        assert_eq!(choose("Permission"), DemoReply::Permission);
        assert_eq!(choose(" hi "), DemoReply::Echo("hi".into()));
    }
}
