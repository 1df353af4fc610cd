//! An in-memory ACP client for tests of scripted agents (the demo's and the
//! test agent's wire tests): it serves an agent over a duplex pipe with the
//! ACP crate's Client side, records every message the agent sends in arrival
//! order, answers the agent's requests with a [`Rule`], and hands the test a
//! connection to drive.
//!
//! Log entries: `{"notify": method, "params": …}` and `{"request": method,
//! "params": …}`. It decides nothing for the agent and is never used outside
//! tests.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use agent_client_protocol::v1::{ConnectionTo, Dispatch};
use agent_client_protocol::{Agent, ByteStreams, Client, Error, UntypedMessage};
use serde_json::{Value, json};
use tokio::io::{DuplexStream, ReadHalf, WriteHalf};
use tokio_util::compat::{Compat, TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// How the client answers a request from the agent: `(method, params, cx)`.
/// A rule may send notifications first (a `session/cancel`, say).
pub type Rule = dyn Fn(&str, &Value, &ConnectionTo<Agent>) -> Result<Value, Error> + Send + Sync;

/// The agent's end of the pipe: what its `serve(outgoing, incoming)` takes.
pub type Outgoing = Compat<WriteHalf<DuplexStream>>;
/// See [`Outgoing`].
pub type Incoming = Compat<ReadHalf<DuplexStream>>;

/// Serves an agent with `serve` and runs `drive` as its client; returns what
/// `drive` returned and the log of what the agent sent.
pub async fn probe<S, F, D, T>(
    serve: S,
    rule: Arc<Rule>,
    drive: D,
) -> Result<(T, Vec<Value>), Error>
where
    S: FnOnce(Outgoing, Incoming) -> F,
    F: Future<Output = Result<(), Error>>,
    D: AsyncFnOnce(ConnectionTo<Agent>) -> Result<T, Error>,
{
    let (agent_end, client_end) = tokio::io::duplex(1 << 16);
    let (agent_read, agent_write) = tokio::io::split(agent_end);
    let (client_read, client_write) = tokio::io::split(client_end);
    let log: Arc<Mutex<Vec<Value>>> = Arc::default();
    let recorded = log.clone();
    let record = move |entry: Value| {
        recorded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entry);
    };
    let agent = serve(agent_write.compat_write(), agent_read.compat());
    let client = Client
        .v1()
        .name("probe")
        .on_receive_dispatch(
            async move |dispatch: Dispatch, cx: ConnectionTo<Agent>| match dispatch {
                Dispatch::Request(msg, responder) => {
                    record(json!({"request": msg.method, "params": msg.params}));
                    match rule(&msg.method, &msg.params, &cx) {
                        Ok(answer) => responder.respond(answer),
                        Err(err) => responder.respond_with_error(err),
                    }
                }
                Dispatch::Notification(msg) => {
                    record(json!({"notify": msg.method, "params": msg.params}));
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
    // The client's end closes when `drive` returns, which ends the agent.
    let (_served, driven) = tokio::join!(agent, client);
    let log = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
    Ok((driven?, log))
}

/// A request to the agent: its result, or its error as
/// `{"error": {"code", "message", "data"}}`.
pub async fn ask(cx: &ConnectionTo<Agent>, method: &str, params: Value) -> Value {
    let answer = match UntypedMessage::new(method, params) {
        Ok(msg) => cx.send_request(msg).block_task().await,
        Err(err) => Err(err),
    };
    answer.unwrap_or_else(|err| {
        json!({"error": {"code": i32::from(err.code), "message": err.message, "data": err.data}})
    })
}

/// A notification to the agent.
pub fn tell(cx: &ConnectionTo<Agent>, method: &str, params: Value) -> Result<(), Error> {
    cx.send_notification(UntypedMessage::new(method, params)?)
}

/// `initialize` then `session/new`: the new session's id.
pub async fn open(cx: &ConnectionTo<Agent>) -> Result<String, Error> {
    ask(
        cx,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    )
    .await;
    let opened = ask(cx, "session/new", json!({"cwd": "/", "mcpServers": []})).await;
    opened["sessionId"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::internal_error().data(json!(format!("no session id in {opened}"))))
}

/// A `session/prompt` with one text block: its answer.
pub async fn prompt(cx: &ConnectionTo<Agent>, session: &str, text: &str) -> Value {
    ask(
        cx,
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
    )
    .await
}

/// A rule answering every permission request with `option` (cancelled for
/// `None`) and failing any other request as not found.
pub fn choosing(option: Option<&'static str>) -> Arc<Rule> {
    Arc::new(move |method, _params, _cx| match (method, option) {
        ("session/request_permission", Some(id)) => {
            Ok(json!({"outcome": {"outcome": "selected", "optionId": id}}))
        }
        ("session/request_permission", None) => Ok(json!({"outcome": {"outcome": "cancelled"}})),
        (other, _) => Err(Error::method_not_found().data(json!(other))),
    })
}

/// A session update as the log records it.
pub fn update(session: &str, update: Value) -> Value {
    json!({"notify": "session/update", "params": {"sessionId": session, "update": update}})
}

/// An `agent_message_chunk` with `text`, as the log records it.
pub fn said(session: &str, text: &str) -> Value {
    update(
        session,
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
    )
}
