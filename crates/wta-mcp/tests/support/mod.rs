//! Test support: a recording [`Backend`] whose answers the test sets or
//! gives by hand, and two HTTP clients (hyper for well-formed requests, a
//! raw socket for malformed and abandoned ones).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use wta_mcp::{
    Backend, Endpoint, GrantGroup, Grants, Limits, McpError, McpSessionId, PendingGrant,
};
use wta_protocol::session_tools::{
    ProposalReport, ReportState, SessionTool, UserInputArgs, UserInputOutcome,
};
use wta_protocol::{ProposalId, ValidationLine};

/// A question the endpoint asked the backend: answer it, or watch it go.
pub struct Question {
    pub session: McpSessionId,
    pub args: UserInputArgs,
    pub answer: oneshot::Sender<UserInputOutcome>,
    /// Fires when the endpoint dropped the backend's future.
    pub dropped: oneshot::Receiver<()>,
}

/// What reached the backend, in order.
pub enum Call {
    Tool(McpSessionId, SessionTool),
    Result(McpSessionId, ProposalId, Duration),
    Input(Question),
}

pub struct TestBackend {
    calls: mpsc::UnboundedSender<Call>,
    report: Mutex<Result<ProposalReport, String>>,
    /// Answer every question at once with this, instead of by hand.
    auto_answer: Mutex<Option<UserInputOutcome>>,
}

/// Sends `()` when dropped: proves a future was dropped.
struct DropSignal(Option<oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

pub fn proposal_id() -> ProposalId {
    ProposalId::from_bytes([0x5a; 16])
}

pub fn pending_report() -> ProposalReport {
    ProposalReport {
        state: ReportState::Pending,
        validation: ValidationLine::accepted(proposal_id()),
        final_line: None,
        executions: Vec::new(),
        remaining: None,
        ended: None,
    }
}

impl TestBackend {
    pub fn new() -> (Arc<Self>, mpsc::UnboundedReceiver<Call>) {
        let (calls, rx) = mpsc::unbounded_channel();
        let backend = Arc::new(Self {
            calls,
            report: Mutex::new(Ok(pending_report())),
            auto_answer: Mutex::new(None),
        });
        (backend, rx)
    }

    pub fn answer_with(&self, report: ProposalReport) {
        *self.report.lock().unwrap() = Ok(report);
    }

    pub fn fail_with(&self, reason: &str) {
        *self.report.lock().unwrap() = Err(reason.to_owned());
    }

    pub fn auto_answer(&self, outcome: UserInputOutcome) {
        *self.auto_answer.lock().unwrap() = Some(outcome);
    }

    fn report(&self) -> Result<ProposalReport, McpError> {
        self.report
            .lock()
            .unwrap()
            .clone()
            .map_err(|reason| McpError::Unavailable { reason })
    }
}

impl Backend for TestBackend {
    fn session_tool(
        &self,
        session: McpSessionId,
        call: SessionTool,
    ) -> BoxFuture<'static, Result<ProposalReport, McpError>> {
        self.calls.send(Call::Tool(session, call)).unwrap();
        let report = self.report();
        Box::pin(async move { report })
    }

    fn proposal_result(
        &self,
        session: McpSessionId,
        id: ProposalId,
        wait: Duration,
    ) -> BoxFuture<'static, Result<ProposalReport, McpError>> {
        self.calls.send(Call::Result(session, id, wait)).unwrap();
        let report = self.report();
        Box::pin(async move { report })
    }

    fn user_input(
        &self,
        session: McpSessionId,
        args: UserInputArgs,
    ) -> BoxFuture<'static, UserInputOutcome> {
        if let Some(outcome) = self.auto_answer.lock().unwrap().clone() {
            self.calls
                .send(Call::Input(Question {
                    session,
                    args,
                    answer: oneshot::channel().0,
                    dropped: oneshot::channel().1,
                }))
                .unwrap();
            return Box::pin(async move { outcome });
        }
        let (answer, answered) = oneshot::channel();
        let (drop_tx, dropped) = oneshot::channel();
        self.calls
            .send(Call::Input(Question {
                session,
                args,
                answer,
                dropped,
            }))
            .unwrap();
        let signal = DropSignal(Some(drop_tx));
        Box::pin(async move {
            let _signal = signal;
            answered.await.unwrap_or(UserInputOutcome::Cancelled)
        })
    }
}

/// A bound endpoint with one grant per session name.
pub struct Fixture {
    pub endpoint: Endpoint,
    pub grants: Grants,
    pub backend: Arc<TestBackend>,
    pub calls: mpsc::UnboundedReceiver<Call>,
}

impl Fixture {
    pub async fn start(limits: Limits) -> Self {
        let (backend, calls) = TestBackend::new();
        let grants = Grants::new();
        let endpoint = Endpoint::bind(backend.clone(), grants.clone(), limits)
            .await
            .unwrap();
        Self {
            endpoint,
            grants,
            backend,
            calls,
        }
    }

    /// A grant bound to `session` in agent instance `group`; returns its bearer.
    pub fn grant(&self, session: &str, group: &str) -> (PendingGrant, String) {
        let grant = self.grants.prepare().unwrap();
        self.grants
            .bind(&grant, McpSessionId::new(session), GrantGroup::new(group));
        let token = grant.bearer().expose().to_owned();
        (grant, token)
    }

    pub fn addr(&self) -> SocketAddr {
        self.endpoint.addr()
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.addr().port())
    }

    /// The next call that reached the backend.
    pub async fn next_call(&mut self) -> Call {
        self.calls.recv().await.unwrap()
    }

    /// Nothing reached the backend (every call is recorded before the
    /// endpoint answers, so after an answer this is final).
    pub fn no_calls(&mut self) -> bool {
        self.calls.try_recv().is_err()
    }

    /// A JSON-RPC POST with the headers a real agent sends.
    pub async fn rpc(&self, token: &str, body: Value) -> Reply {
        send(
            self.addr(),
            "POST",
            "/mcp",
            &[
                ("host", self.host()),
                ("authorization", format!("Bearer {token}")),
                ("content-type", "application/json".into()),
                ("accept", "application/json, text/event-stream".into()),
            ],
            body.to_string(),
        )
        .await
    }

    /// `tools/call` of `tool` with `arguments`; returns the JSON-RPC result.
    pub async fn call_tool(&self, token: &str, tool: &str, arguments: Value) -> Value {
        let reply = self
            .rpc(token, json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        let message = reply.json();
        assert_eq!(message["id"], 7);
        message["result"].clone()
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One request over a fresh connection with hyper's client.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, String)],
    body: String,
) -> Reply {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut request = Request::builder().method(method).uri(target);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request.body(Full::new(Bytes::from(body))).unwrap();
    let response = sender.send_request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

/// Writes `bytes` as they are and reads the status line of the answer
/// (`None` when the server closed without answering).
pub async fn raw(addr: SocketAddr, bytes: &[u8]) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    read_status(&mut stream).await
}

pub async fn read_status(stream: &mut TcpStream) -> Option<u16> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !seen.windows(2).any(|w| w == b"\r\n") {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        seen.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&seen);
    line.split(' ').nth(1)?.parse().ok()
}

/// A complete raw POST /mcp request with these extra header lines.
pub fn raw_post(host: &str, extra: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{extra}content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}
