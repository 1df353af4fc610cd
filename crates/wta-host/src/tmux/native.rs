//! One tmux command over the server's socket, without starting the `tmux`
//! binary: connect, send [`wire::request`], follow [`wire::Reply`] to the
//! exit status. Blocking (the CLI) and on tokio (watchers, the executor).
//!
//! This saves the `tmux` client's own start-up (a process, its libraries,
//! its parsing) on every host operation. What it cannot do, the caller does
//! with the binary: start a server, or talk to a tmux of another protocol
//! version ([`NativeError::Mismatch`]; after one, this process stops trying).

use std::io::{Read, Write};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use super::wire::{self, Decoder, Identity, Outcome, Reply, Step};

/// Why a command did not run natively.
#[derive(Debug)]
pub(crate) enum NativeError {
    /// Nothing accepts connections on the socket (no server).
    Unreachable(std::io::Error),
    /// The server speaks another protocol version.
    Mismatch { server: u32 },
    /// The command does not fit in one message (the `tmux` binary refuses it too).
    TooLong,
    /// The connection failed or the server sent something unexpected.
    Lost(String),
}

/// Set to `binary` to always run the `tmux` binary (an escape hatch).
pub(crate) const CLIENT_ENV: &str = "WTA_TMUX_CLIENT";

static DISABLED: AtomicBool = AtomicBool::new(false);

/// Whether commands are sent natively in this process.
pub(crate) fn enabled() -> bool {
    static CHOSEN: OnceLock<bool> = OnceLock::new();
    let chosen = *CHOSEN.get_or_init(|| std::env::var(CLIENT_ENV).as_deref() != Ok("binary"));
    chosen && !DISABLED.load(Ordering::Relaxed)
}

/// After a version mismatch: the binary from now on.
pub(crate) fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

fn identity() -> &'static Identity {
    static IDENTITY: OnceLock<Identity> = OnceLock::new();
    IDENTITY.get_or_init(Identity::current)
}

fn unreachable(e: std::io::Error) -> NativeError {
    NativeError::Unreachable(e)
}

fn lost(e: impl std::fmt::Display) -> NativeError {
    NativeError::Lost(e.to_string())
}

/// What one step asks for: bytes to send, or the end.
fn advance(
    reply: &mut Reply,
    decoder: &mut Decoder,
    bytes: &[u8],
) -> Result<(Vec<u8>, Option<Outcome>), NativeError> {
    let mut send = Vec::new();
    for msg in decoder.push(bytes).map_err(|g| lost(g.0))? {
        match reply.step(&msg) {
            Step::Send(b) => send.extend_from_slice(&b),
            Step::Done(outcome) => return Ok((send, Some(outcome))),
            Step::VersionMismatch { server } => return Err(NativeError::Mismatch { server }),
            Step::Refused(why) => return Err(lost(format!("the server sent {why}"))),
        }
    }
    Ok((send, None))
}

/// Runs `argv` on the server at `socket`, blocking.
pub(crate) fn run_blocking(socket: &Path, argv: &[&str]) -> Result<Outcome, NativeError> {
    let request = wire::request(identity(), argv).map_err(|_| NativeError::TooLong)?;
    let mut stream = std::os::unix::net::UnixStream::connect(socket).map_err(unreachable)?;
    stream.write_all(&request).map_err(lost)?;
    let (mut reply, mut decoder) = (Reply::default(), Decoder::default());
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut buf).map_err(lost)?;
        if n == 0 {
            return Err(lost(
                "the server closed the connection before the command ended",
            ));
        }
        let (send, done) = advance(&mut reply, &mut decoder, &buf[..n])?;
        if let Some(outcome) = done {
            return Ok(outcome);
        }
        if !send.is_empty() {
            stream.write_all(&send).map_err(lost)?;
        }
    }
}

/// [`run_blocking`] on the tokio runtime.
pub(crate) async fn run_async(socket: &Path, argv: &[&str]) -> Result<Outcome, NativeError> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let request = wire::request(identity(), argv).map_err(|_| NativeError::TooLong)?;
    let mut stream = tokio::net::UnixStream::connect(socket)
        .await
        .map_err(unreachable)?;
    stream.write_all(&request).await.map_err(lost)?;
    let (mut reply, mut decoder) = (Reply::default(), Decoder::default());
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut buf).await.map_err(lost)?;
        if n == 0 {
            return Err(lost(
                "the server closed the connection before the command ended",
            ));
        }
        let (send, done) = advance(&mut reply, &mut decoder, &buf[..n])?;
        if let Some(outcome) = done {
            return Ok(outcome);
        }
        if !send.is_empty() {
            stream.write_all(&send).await.map_err(lost)?;
        }
    }
}
