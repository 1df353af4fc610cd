//! The per-helper proposal socket `proposal-<helper-id>.sock`: one request
//! line per connection, the validation line at once, then (after
//! `accepted`) the final line and any execution lines, in that order.
//!
//! The socket lives in the private runtime dir (0700, checked with `lstat`),
//! is made 0600, and every peer's uid must be ours (`SO_PEERCRED`, checked
//! at accept, so another user's connections never take a place).
//!
//! After `accepted` the connection's read side is watched: a CLI that hangs
//! up (the agent killed it, e.g. its tool call timed out) while its card
//! still waits makes the card stale ([`ProposalService::client_gone`]), so
//! a Run pressed later cannot dispatch a command nobody would hear about.
//!
//! Caps (DESIGN §7, floods never grow the helper for good, and idle
//! connections never starve a real proposal): a connection that has not
//! sent its request line is *unproven* ([`wta_agent::admission`]): at most
//! [`MAX_UNPROVEN_CONNECTIONS`] of them, a new one evicting the oldest
//! (silent ones first), each closed unanswered unless its line is complete
//! within [`REQUEST_TIMEOUT`]. Once its line is read a connection is
//! served, at most [`MAX_CONNECTIONS`] at once (one more is closed
//! unanswered); evictions, timeouts and refusals are each logged once per
//! burst. A request line is at most [`MAX_REQUEST_LINE_BYTES`] (a longer
//! one ends its connection with its reason and one log line), and a
//! connection that has not sent its line yet holds no read buffer: bytes are
//! read only once they are there, and the line grows only as they arrive.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use wta_agent::admission::{Pending, Unproven};
use wta_agent::heap::ConnectionSlots;
use wta_env::private_dir;
use wta_protocol::limits::{MAX_REQUEST_LINE_BYTES, PROTOCOL_VERSION};
use wta_protocol::{FrameReader, ProposalRequest, ProtocolError, ResponseLine, ValidationLine};

use super::service::ProposalService;

/// How long a client may take to send its request line, counted from its
/// accept. The CLI writes the line as soon as it is connected (a few
/// milliseconds); 3 s leaves a loaded machine room and bounds how long an
/// idle connection holds a place.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// Connections served at once, past their request line. One turn has one
/// live channel, so a real helper sees one CLI waiting on its card plus a
/// few late or retrying ones (answered at once); 32 leaves room for an agent
/// that runs several tool calls in parallel.
pub const MAX_CONNECTIONS: usize = 32;

/// Connections that have not sent their request line yet. A full pool takes
/// a new connection anyway, closing the oldest waiting one (one that sent
/// nothing, when there is one), so the CLI, which writes at once, is served
/// whatever the number of idle connections.
pub const MAX_UNPROVEN_CONNECTIONS: usize = 64;

/// Bytes read per `read` call; the buffer exists only while reading.
const READ_CHUNK: usize = 16 * 1024;

/// Why the proposal socket could not be served.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot use {path} for the proposal socket: {reason}")]
    UnsafeDir { path: PathBuf, reason: String },
    #[error("cannot {what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A bound proposal socket; dropping it stops accepting and removes the file.
#[derive(Debug)]
pub struct ProposalServer {
    path: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl ProposalServer {
    /// Binds `dir/proposal-<helper>.sock` and serves it on the current
    /// tokio runtime. `dir` is created 0700 when missing and must be a
    /// private directory of ours.
    pub fn bind(service: ProposalService, dir: &Path) -> Result<Self, ServerError> {
        ensure_private_dir(dir)?;
        let path = dir.join(wta_protocol::channel::socket_file_name(service.helper()));
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(io("remove the old", &path, source)),
        }
        let listener = UnixListener::bind(&path).map_err(|e| io("bind", &path, e))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| io("restrict", &path, e))?;
        tracing::info!(socket = %path.display(), "proposal socket ready");
        let task = tokio::spawn(accept_loop(service, listener));
        Ok(Self { path, task })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ProposalServer {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

fn io(what: &'static str, path: &Path, source: std::io::Error) -> ServerError {
    ServerError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// `$XDG_RUNTIME_DIR/wta` or `/tmp/wta-<uid>`: the one runtime dir every
/// side shares ([`wta_env::private_dir::runtime_dir`]).
pub fn runtime_dir() -> PathBuf {
    private_dir::runtime_dir()
}

fn ensure_private_dir(dir: &Path) -> Result<(), ServerError> {
    private_dir::ensure_private_dir(dir).map_err(|e| ServerError::UnsafeDir {
        path: e.path,
        reason: e.reason,
    })
}

async fn accept_loop(service: ProposalService, listener: UnixListener) {
    let unproven = Unproven::new("proposal socket", MAX_UNPROVEN_CONNECTIONS, REQUEST_TIMEOUT);
    let slots = Arc::new(ConnectionSlots::new("proposal socket", MAX_CONNECTIONS));
    let ours = nix::unistd::getuid().as_raw();
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                // Another user's stream is dropped here: closed at once.
                if peer_is(&stream, ours) {
                    let pending = unproven.admit();
                    tokio::spawn(serve_admitted(
                        service.clone(),
                        stream,
                        pending,
                        slots.clone(),
                    ));
                }
            }
            Err(err) => {
                tracing::warn!("proposal socket accept failed: {err}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

fn peer_is(stream: &UnixStream, ours: u32) -> bool {
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == ours => true,
        Ok(cred) => {
            tracing::warn!(
                uid = cred.uid(),
                "proposal socket: peer of another user refused"
            );
            false
        }
        Err(err) => {
            tracing::warn!("proposal socket: no peer credentials: {err}");
            false
        }
    }
}

/// Serves one connection from its accept: its request line while it holds
/// `pending`, then the exchange in one of `slots`. Every place is freed
/// *before* the stream is closed, so a client that has seen its connection
/// end can count on its place being free again.
async fn serve_admitted(
    service: ProposalService,
    mut stream: UnixStream,
    pending: Pending,
    slots: Arc<ConnectionSlots>,
) {
    let read = tokio::select! {
        read = read_request(&mut stream, &pending) => read,
        // Evicted or late: closed without a word (the place is another's).
        _lost = pending.lost() => return,
    };
    let request = match read {
        Ok(request) => request,
        Err(Some(err)) => {
            if matches!(err, ProtocolError::LineTooLong { .. }) {
                tracing::warn!(
                    "proposal socket: a request line over {MAX_REQUEST_LINE_BYTES} bytes; closing that connection"
                );
            }
            // A short line into an empty socket buffer: it does not block.
            let line = ValidationLine::from_error(&err, false);
            let _ = write(&mut stream, &ResponseLine::Validation(line)).await;
            return;
        }
        Err(None) => return,
    };
    // Over the cap the request goes unanswered (logged once per burst).
    let Some(slot) = slots.try_take() else {
        return;
    };
    pending.prove();
    serve(service, &mut stream, request).await;
    drop(slot);
    drop(stream);
}

/// The exchange after the request line: validation, then the final and
/// execution lines.
async fn serve(service: ProposalService, stream: &mut UnixStream, request: ProposalRequest) {
    let (line, rest) = match service.validate(request, Instant::now()) {
        Ok(answer) => answer,
        Err(err) => {
            tracing::warn!("proposal socket: cannot draw a proposal id: {err}");
            return;
        }
    };
    tracing::debug!(status = line.status.as_str(), "proposal validated");
    let id = line.proposal_id;
    if write(stream, &ResponseLine::Validation(line))
        .await
        .is_err()
    {
        if let Some(id) = id.filter(|_| rest.is_some()) {
            service.client_gone(id);
        }
        return;
    }
    let (Some(mut rest), Some(id)) = (rest, id) else {
        return;
    };
    let (mut reader, mut writer) = stream.split();
    loop {
        tokio::select! {
            next = rest.recv() => match next {
                Some(line) => {
                    if write(&mut writer, &line).await.is_err() {
                        service.client_gone(id);
                        return;
                    }
                    if matches!(line, ResponseLine::Execution(_)) {
                        // A stage mark for the execution-latency bench.
                        tracing::trace!(target: "wta::latency", "socket: execution line written");
                    }
                }
                None => break,
            },
            () = hung_up(&mut reader) => {
                tracing::info!("proposal socket: the CLI hung up before its proposal ended");
                service.client_gone(id);
                return;
            }
        }
    }
    let _ = stream.shutdown().await;
}

/// Returns once the peer closed its side (EOF or a read error); anything it
/// sends after its request line is ignored. Cancel-safe.
async fn hung_up(reader: &mut (impl AsyncReadExt + Unpin)) {
    let mut buf = [0u8; 256];
    while let Ok(n) = reader.read(&mut buf).await {
        if n == 0 {
            return;
        }
    }
}

/// Reads the one request line, telling `pending` once bytes came. `Err(None)`:
/// the peer hung up or failed to read, nothing worth answering. While the
/// peer sends nothing, nothing is buffered: the read buffer lives only
/// between readiness and `try_read`. Not cancel-safe (bytes read are lost):
/// cancel it only to close the connection.
async fn read_request(
    stream: &mut UnixStream,
    pending: &Pending,
) -> Result<ProposalRequest, Option<ProtocolError>> {
    let mut reader = FrameReader::new(MAX_REQUEST_LINE_BYTES);
    loop {
        stream.readable().await.map_err(|_| None)?;
        let mut buf = [0u8; READ_CHUNK];
        let n = match stream.try_read(&mut buf) {
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) => return Err(None),
        };
        if n == 0 {
            reader.finish().map_err(Some)?;
            return Err(None);
        }
        pending.saw_bytes();
        if let Some(frame) = reader.push(&buf[..n]).map_err(Some)?.into_iter().next() {
            return decode(&frame).map_err(Some);
        }
    }
}

/// The request envelope. The payload's size is *not* checked here: it is a
/// schema problem the state machine answers (`invalid_schema`, retryable,
/// counted against the retry budget).
fn decode(frame: &[u8]) -> Result<ProposalRequest, ProtocolError> {
    let request: ProposalRequest =
        serde_json::from_slice(frame).map_err(|err| ProtocolError::RequestMalformed {
            detail: err.to_string(),
        })?;
    if request.version != PROTOCOL_VERSION {
        return Err(ProtocolError::UnsupportedRequestVersion {
            found: request.version,
        });
    }
    Ok(request)
}

async fn write(
    stream: &mut (impl AsyncWriteExt + Unpin),
    line: &ResponseLine,
) -> std::io::Result<()> {
    let bytes = line
        .to_line()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    stream.write_all(&bytes).await?;
    stream.flush().await
}
