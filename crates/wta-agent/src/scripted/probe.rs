//! An in-memory ACP client for tests of scripted agents (test code only).
//!
//! It serves an agent over a duplex pipe with the ACP crate's Client side,
//! records every message the agent sends in arrival order, answers the
//! agent's requests with a rule, and hands the test a connection to drive.
//! Log entries: `{"notify": method, "params": …}`, `{"request": method,
//! "params": …}`.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

use std::future::Future;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::{ConnectionTo, Dispatch};
use agent_client_protocol::{Agent, ByteStreams, Client, Error, UntypedMessage};
use serde_json::{Value, json};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// The shared log of what the agent sent.
pub(crate) type Log = Arc<Mutex<Vec<Value>>>;

/// How the client answers a request from the agent: `(method, params, cx)`.
/// The rule may send notifications first (e.g. a `session/cancel`).
pub(crate) type Rule =
    dyn Fn(&str, &Value, &ConnectionTo<Agent>) -> Result<Value, Error> + Send + Sync;

/// Serves an agent (`serve(outgoing, incoming)`) and runs `drive` as its
/// client; returns what `drive` returned and the log.
pub(crate) async fn probe<S, F, D, T>(serve: S, rule: Arc<Rule>, drive: D) -> (T, Vec<Value>)
where
    S: FnOnce(
        tokio_util::compat::Compat<tokio::io::WriteHalf<tokio::io::DuplexStream>>,
        tokio_util::compat::Compat<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    ) -> F,
    F: Future<Output = Result<(), Error>>,
    D: AsyncFnOnce(ConnectionTo<Agent>) -> Result<T, Error>,
{
    let (agent_end, client_end) = tokio::io::duplex(1 << 16);
    let (agent_read, agent_write) = tokio::io::split(agent_end);
    let (client_read, client_write) = tokio::io::split(client_end);
    let log: Log = Arc::default();
    let recorded = log.clone();
    let agent = serve(agent_write.compat_write(), agent_read.compat());
    let client = Client
        .v1()
        .name("probe")
        .on_receive_dispatch(
            async move |dispatch: Dispatch, cx: ConnectionTo<Agent>| match dispatch {
                Dispatch::Request(msg, responder) => {
                    recorded
                        .lock()
                        .unwrap()
                        .push(json!({"request": msg.method, "params": msg.params}));
                    match rule(&msg.method, &msg.params, &cx) {
                        Ok(answer) => responder.respond(answer),
                        Err(err) => responder.respond_with_error(err),
                    }
                }
                Dispatch::Notification(msg) => {
                    recorded
                        .lock()
                        .unwrap()
                        .push(json!({"notify": msg.method, "params": msg.params}));
                    Ok(())
                }
                Dispatch::Response(result, router) => router.route_with_result(result),
            },
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_with(
            ByteStreams::new(client_write.compat_write(), client_read.compat()),
            drive,
        );
    let (_served, driven) = tokio::join!(agent, client);
    let driven = driven.expect("the client's script");
    let log = log.lock().unwrap().clone();
    (driven, log)
}

/// A request to the agent, answered with its result or its error as JSON
/// (`{"error": {"code", "message", "data"}}`).
pub(crate) async fn ask(cx: &ConnectionTo<Agent>, method: &str, params: Value) -> Value {
    let sent = cx.send_request(UntypedMessage::new(method, params).unwrap());
    match sent.block_task().await {
        Ok(value) => value,
        Err(err) => {
            json!({"error": {"code": i32::from(err.code), "message": err.message, "data": err.data}})
        }
    }
}

/// `initialize` then `session/new`; the new session's id.
pub(crate) async fn open(cx: &ConnectionTo<Agent>) -> String {
    ask(
        cx,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    )
    .await;
    let opened = ask(cx, "session/new", json!({"cwd": "/", "mcpServers": []})).await;
    opened["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned()
}

/// A `session/prompt` with one text block; its answer.
pub(crate) async fn prompt(cx: &ConnectionTo<Agent>, session: &str, text: &str) -> Value {
    ask(
        cx,
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
    )
    .await
}

/// The rule that answers every permission request with `option` (or
/// cancelled for `None`) and fails any other request.
pub(crate) fn choosing(option: Option<&'static str>) -> Arc<Rule> {
    Arc::new(move |method, _params, _cx| match (method, option) {
        ("session/request_permission", Some(id)) => {
            Ok(json!({"outcome": {"outcome": "selected", "optionId": id}}))
        }
        ("session/request_permission", None) => Ok(json!({"outcome": {"outcome": "cancelled"}})),
        (other, _) => Err(Error::method_not_found().data(json!(other))),
    })
}
