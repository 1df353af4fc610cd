//! The endpoint: a hyper HTTP/1.1 server on 127.0.0.1:<ephemeral> that
//! checks each request (`guard.rs`), reads its body within the caps, and
//! hands it to rmcp's stateless Streamable HTTP service (JSON responses,
//! no MCP sessions) with the authenticated caller in its extensions.
//!
//! Limits (`pool.rs` has the pools): a connection is unproven until a
//! request of it passes the checks with a valid bearer; it is closed
//! unanswered when that has not happened within the auth timeout, or when
//! newer connections evict it from a full unproven pool, so idle
//! connections never starve an agent's calls. An authenticated connection
//! beyond the cap gets 503 and is closed. Headers must also arrive within
//! the read timeout (hyper closes the connection otherwise) and the body
//! within the read timeout after them (408). The bearer is removed from the
//! request before rmcp sees it, so no rmcp log line can carry it.

use std::convert::Infallible;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::Request;
use http::header::{AUTHORIZATION, CONNECTION, HeaderValue};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use wta_agent::admission::Watch;
use wta_protocol::session_tools::USER_INPUT_TIMEOUT;

use crate::backend::Backend;
use crate::grants::{Grants, PendingGrant};
use crate::guard::{self, HttpResponse, MCP_PATH, Policy, Rejection};
use crate::pool::{Caps, ConnSlot, Pools};
use crate::tools::{Caller, SessionTools, ToolTimes};

/// The endpoint's caps (first-implementation §2.12). `Default` gives the
/// documented values; tests shorten the times.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Authenticated connections.
    pub max_connections: usize,
    /// Connections whose call waits in `request_user_input`, on top of
    /// `max_connections`.
    pub max_question_connections: usize,
    /// Connections that have not authenticated yet, on top of the others;
    /// a new one evicts the oldest (one that sent nothing, when there is one).
    pub max_unproven_connections: usize,
    /// How long after its accept a connection may take to send headers
    /// with a valid bearer before it is closed unanswered.
    pub auth_timeout: Duration,
    /// Header names and values, each counted with its `: ` and CRLF.
    pub max_header_bytes: usize,
    pub max_body_bytes: usize,
    /// For the headers, and again for the body after them.
    pub read_timeout: Duration,
    pub user_input_timeout: Duration,
    /// How much longer than its own `wait_secs` a terminal call may take
    /// before the endpoint answers `unavailable` itself.
    pub backend_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_connections: 32,
            max_question_connections: 32,
            max_unproven_connections: 64,
            // Agents send a request as soon as they are connected
            // (milliseconds); 3 s leaves a loaded machine room and bounds
            // how long an idle connection holds a place.
            auth_timeout: Duration::from_secs(3),
            max_header_bytes: 32 * 1024,
            max_body_bytes: 1024 * 1024,
            read_timeout: Duration::from_secs(5),
            user_input_timeout: USER_INPUT_TIMEOUT,
            backend_grace: Duration::from_secs(30),
        }
    }
}

/// Room for the request line on top of the headers in hyper's own cap.
const REQUEST_LINE_ROOM: usize = 1024;

type Rmcp = StreamableHttpService<SessionTools, NeverSessionManager>;

struct Shared {
    rmcp: Rmcp,
    grants: Grants,
    policy: Policy,
    limits: Limits,
}

/// A running endpoint. Dropping it (or [`Endpoint::shutdown`]) stops
/// accepting and ends every open connection.
pub struct Endpoint {
    addr: SocketAddr,
    stop: CancellationToken,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("addr", &self.addr)
            .finish()
    }
}

impl Endpoint {
    /// Listens on 127.0.0.1 with an ephemeral port and serves until
    /// dropped. Must be called inside a tokio runtime.
    pub async fn bind(
        backend: Arc<dyn Backend>,
        grants: Grants,
        limits: Limits,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let stop = CancellationToken::new();
        let port = addr.port();
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .with_sse_retry(None)
            .with_cancellation_token(stop.child_token())
            .with_allowed_hosts([format!("127.0.0.1:{port}"), format!("localhost:{port}")])
            .with_allowed_origins(["http://127.0.0.1:*", "http://localhost:*"])
            .with_max_request_body_bytes(limits.max_body_bytes);
        let tools = SessionTools::new(
            backend,
            ToolTimes {
                user_input: limits.user_input_timeout,
                backend_grace: limits.backend_grace,
            },
        );
        let rmcp = StreamableHttpService::new(
            move || Ok(tools.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        let shared = Arc::new(Shared {
            rmcp,
            grants,
            policy: Policy {
                port,
                max_header_bytes: limits.max_header_bytes,
                max_body_bytes: limits.max_body_bytes,
            },
            limits,
        });
        let pools = Pools::new(Caps {
            unproven: limits.max_unproven_connections,
            auth_timeout: limits.auth_timeout,
            ordinary: limits.max_connections,
            questions: limits.max_question_connections,
        });
        let accept = tokio::spawn(accept_loop(listener, shared, pools, stop.clone()));
        tracing::info!(%addr, "session MCP endpoint listening");
        Ok(Self {
            addr,
            stop,
            accept: Some(accept),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>/mcp`
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// The ACP `McpServer::Http` entry for `session/new|load` (`mcpServers`)
    /// that gives an agent this grant. It holds the bearer: never log it.
    pub fn mcp_server(&self, grant: &PendingGrant) -> serde_json::Value {
        json!({
            "type": "http",
            "name": grant.server_name(),
            "url": self.url(),
            "headers": [
                {"name": "Authorization", "value": format!("Bearer {}", grant.bearer().expose())}
            ],
        })
    }

    /// Stops accepting, ends open connections and waits for the listener
    /// to close.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(accept) = self.accept.take() {
            // A panicked accept loop has nothing left to close.
            let _ = accept.await;
        }
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    pools: Pools,
    stop: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(err) => {
                // Out of descriptors and the like: let the peers' own
                // connections finish before trying again.
                tracing::warn!(%err, "session MCP endpoint: accept failed");
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(Duration::from_millis(50)) => continue,
                }
            }
        };
        let slot = pools.admit();
        tokio::spawn(serve_connection(stream, slot, shared.clone(), stop.clone()));
    }
}

async fn serve_connection(
    stream: TcpStream,
    slot: Arc<ConnSlot>,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let limits = shared.limits;
    let watch = slot.watch().clone();
    let io = FirstBytes {
        stream,
        watch: Some(watch.clone()),
    };
    let service = service_fn(move |request| {
        let shared = shared.clone();
        let slot = slot.clone();
        async move { Ok::<_, Infallible>(handle(&shared, &slot, request).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.read_timeout)
        .max_header_size(limits.max_header_bytes + REQUEST_LINE_ROOM)
        .max_buf_size((limits.max_header_bytes + REQUEST_LINE_ROOM).max(8192) * 2);
    let connection = builder.serve_connection(TokioIo::new(io), service);
    tokio::select! {
        result = connection => {
            if let Err(err) = result {
                tracing::debug!(%err, "session MCP connection ended");
            }
        }
        // Never fires once the connection authenticated.
        lost = watch.lost() => {
            tracing::debug!(?lost, "session MCP connection closed before it authenticated");
        }
        () = stop.cancelled() => {}
    }
}

/// The connection's socket, telling its unproven place when the first
/// bytes arrive (a connection that speaks is evicted after silent ones).
struct FirstBytes {
    stream: TcpStream,
    watch: Option<Watch>,
}

impl AsyncRead for FirstBytes {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before
            && let Some(watch) = this.watch.take()
        {
            watch.saw_bytes();
        }
        poll
    }
}

impl AsyncWrite for FirstBytes {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

async fn handle(shared: &Shared, slot: &Arc<ConnSlot>, request: Request<Incoming>) -> HttpResponse {
    let (mut parts, body) = request.into_parts();
    let admitted = guard::admit(
        &parts.method,
        &parts.uri,
        &parts.headers,
        &shared.policy,
        |token| shared.grants.authenticate(token),
    );
    let session = match admitted {
        Ok(session) => session,
        Err(rejection) => {
            // Never the headers: they may hold a bearer.
            tracing::debug!(method = %parts.method, path = parts.uri.path(), ?rejection, "session MCP request refused");
            return rejection.response();
        }
    };
    if !slot.prove() {
        return Rejection::Busy.response();
    }
    let body = match read_body(body, &shared.limits).await {
        Ok(body) => body,
        Err(rejection) => return rejection.response(),
    };
    if serde_json::from_slice::<serde::de::IgnoredAny>(&body).is_err() {
        return Rejection::BadRequest("the request body is not JSON").response();
    }
    parts.headers.remove(AUTHORIZATION);
    parts.extensions.insert(Caller {
        session,
        slot: slot.clone(),
    });
    let mut response = shared
        .rmcp
        .handle(Request::from_parts(parts, Full::new(body)))
        .await;
    if !slot.settle() {
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

async fn read_body(body: Incoming, limits: &Limits) -> Result<Bytes, Rejection> {
    let collecting = Limited::new(body, limits.max_body_bytes).collect();
    match tokio::time::timeout(limits.read_timeout, collecting).await {
        Err(_elapsed) => Err(Rejection::Timeout),
        Ok(Err(err)) if err.downcast_ref::<LengthLimitError>().is_some() => {
            Err(Rejection::PayloadTooLarge)
        }
        Ok(Err(_)) => Err(Rejection::BadRequest("the request body could not be read")),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}
