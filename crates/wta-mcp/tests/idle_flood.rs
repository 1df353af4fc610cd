//! Idle connections against a bound endpoint (issue 23: 70 of them left
//! authenticated calls unanswered):
//!
//! - while [`IDLE_FLOOD`] idle connections are held, an authenticated call
//!   on a new connection is answered: the newest idle ones are still open
//!   after it (held, not yet timed out), the oldest were closed without a
//!   word to make room;
//! - an idle connection is closed once the auth timeout has passed since it
//!   connected, not before, and an authenticated one is still served after
//!   its own deadline;
//! - a connection that sent part of its headers is closed at the auth
//!   deadline, long before the read timeout.
//!
//! Multi-threaded runtimes: the endpoint runs on the workers while the test
//! blocks on plain sockets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{ErrorKind, Read};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use support::{Call, Fixture};
use wta_mcp::{Limits, McpSessionId};
use wta_protocol::session_tools::TOOL_RUN_COMMAND;

/// Idle connections held open at once (over three times the unproven pool).
const IDLE_FLOOD: usize = 200;
const T: Duration = Duration::from_secs(10);

/// The defaults, with a read timeout far beyond the auth timeout: hyper's
/// own timer for the next request's headers must not be what closes the
/// authenticated connection kept for the end of the test.
fn limits() -> Limits {
    Limits {
        read_timeout: Duration::from_secs(60),
        ..Limits::default()
    }
}

/// Connects, with the moment just before: the endpoint accepted it later,
/// so its deadline is at least the auth timeout after that moment.
fn connect(addr: SocketAddr) -> (TcpStream, Instant) {
    let before = Instant::now();
    (TcpStream::connect(addr).unwrap(), before)
}

/// Whether the endpoint still holds `stream` open right now: nothing to
/// read and no end.
fn still_open(stream: &mut TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let open = matches!(stream.read(&mut [0u8; 1]), Err(e) if e.kind() == ErrorKind::WouldBlock);
    stream.set_nonblocking(false).unwrap();
    open
}

/// Closed by the endpoint without a word, within [`T`].
fn closed_silently(stream: &mut TcpStream, what: &str) {
    stream.set_read_timeout(Some(T)).unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("{what} stayed open: {e}"),
        }
    }
    assert!(
        seen.is_empty(),
        "{what} was answered: {}",
        String::from_utf8_lossy(&seen)
    );
}

/// An HTTP/1.1 client connection kept open across requests.
async fn client(addr: SocketAddr) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    sender
}

/// A `tools/call` of the terminal tool on `sender`'s connection.
async fn run_command(
    sender: &mut SendRequest<Full<Bytes>>,
    fx: &Fixture,
    token: &str,
    id: u64,
) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": TOOL_RUN_COMMAND, "arguments": {"command": "ls"}}});
    let request = Request::post("/mcp")
        .header("host", fx.host())
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = tokio::time::timeout(T, sender.send_request(request))
        .await
        .expect("an answer in time")
        .expect("an answer on this connection");
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let message: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(message["id"], id, "{message}");
    assert!(message.get("result").is_some(), "{message}");
    message
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authenticated_call_is_answered_while_idle_connections_are_held() {
    let limits = limits();
    let mut fx = Fixture::start(limits).await;
    let (_grant, token) = fx.grant("A", "agent-1");

    // 1. An idle flood is held, and an authenticated call is answered.
    let started = Instant::now();
    let mut flood: Vec<(TcpStream, Instant)> =
        (0..IDLE_FLOOD).map(|_| connect(fx.addr())).collect();
    let mut agent = client(fx.addr()).await;
    run_command(&mut agent, &fx, &token, 7).await;
    let answered_in = started.elapsed();
    let Call::Tool(session, _) = fx.next_call().await else {
        panic!("expected a terminal tool call")
    };
    assert_eq!(session, McpSessionId::new("A"));
    // Accepted in connect order, the agent last: it took the place of the
    // oldest of the pool, and the newest max_unproven - 1 are still there.
    // They stay open only until the auth timeout (3 s) after their connect,
    // and this step takes milliseconds: still open now means the call was
    // answered while they were held.
    let evicted = IDLE_FLOOD - (limits.max_unproven_connections - 1);
    for (i, (stream, _)) in flood.iter_mut().enumerate().skip(evicted) {
        assert!(
            still_open(stream),
            "idle connection {i} was closed before the call was answered ({answered_in:?} after the flood began)"
        );
    }
    // The oldest made room, closed before their deadline: evicted.
    for (i, (stream, connected)) in flood.iter_mut().enumerate().take(evicted) {
        closed_silently(stream, &format!("evicted connection {i}"));
        assert!(
            connected.elapsed() < limits.auth_timeout,
            "connection {i} was not evicted but timed out"
        );
    }

    // 2. The rest time out: not before the auth timeout after their connect.
    for (i, (stream, connected)) in flood.iter_mut().enumerate().skip(evicted) {
        closed_silently(stream, &format!("idle connection {i}"));
        assert!(
            connected.elapsed() >= limits.auth_timeout,
            "idle connection {i} was closed after {:?}",
            connected.elapsed()
        );
    }
    // A connection that came after the agent's times out later than the
    // agent's own deadline would have: the agent's connection still serves.
    let (mut witness, connected) = connect(fx.addr());
    closed_silently(&mut witness, "the idle witness");
    assert!(connected.elapsed() >= limits.auth_timeout);
    run_command(&mut agent, &fx, &token, 8).await;
    assert!(matches!(fx.next_call().await, Call::Tool(..)));
    assert!(fx.no_calls());
    eprintln!("the call was answered {answered_in:?} after the idle flood began");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_without_a_bearer_in_time_close_the_connection_at_the_auth_deadline() {
    let limits = Limits {
        auth_timeout: Duration::from_millis(300),
        ..limits()
    };
    let mut fx = Fixture::start(limits).await;
    let (mut partial, connected) = connect(fx.addr());
    std::io::Write::write_all(
        &mut partial,
        format!("POST /mcp HTTP/1.1\r\nhost: {}\r\n", fx.host()).as_bytes(),
    )
    .unwrap();
    // Within T (10 s): hyper's own header timeout (60 s here) is not what
    // closes it.
    closed_silently(&mut partial, "a connection with half its headers");
    let after = connected.elapsed();
    assert!(after >= limits.auth_timeout, "closed after {after:?}");
    assert!(fx.no_calls());
}
