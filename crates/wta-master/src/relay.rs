//! The agent → helper fast path: `session/update` lines are copied, not re-encoded.
//!
//! The master reads each agent's stdout itself ([`transport`]). A line that is
//! a `session/update` notification (a JSON-RPC 2.0 object of exactly `jsonrpc`,
//! `method` and `params`, no `id`) whose `params.sessionId` is routed to a
//! helper goes into that helper's queue as the agent wrote it
//! ([`crate::outbound::Outbound::relay`]): parsed only as far as routing needs
//! (the rest is checked to be JSON and skipped, never built into a value),
//! never serialized again. Every other line goes to the agent's ACP connection
//! unchanged (the crate's `Lines` transport reads them from the stream
//! [`transport`] returns) and is handled there as before: requests, responses,
//! other notifications, updates for no session we know, and anything
//! malformed, which gets the crate's own errors. A line that is not UTF-8 ends
//! the connection, as the crate's reader did.
//!
//! Order: the ACP connection handles a line some time after the relay read it.
//! So after handing it lines, before the next relayed one, the relay sends it a
//! fence and waits until its dispatch reaches the fence
//! ([`AgentRelay::acknowledge`], called by the router): every earlier line has
//! then been handled, its session bound, its messages to helpers sent (each
//! behind a helper-side fence, see [`crate::outbound`]). While only updates
//! flow, no fence is needed. A fence carries this relay's nonce, so a line an
//! agent makes up with the same method acknowledges nothing.
//!
//! The relay is a thread of its own per agent (waiting on the pipe through a
//! small runtime of its own), so that it may block, which the master's
//! runtime must never do. The lines of one read are handed to their helpers
//! in one batch per helper (one `write` each), before anything else goes to
//! the ACP connection. Lines go out as soon as they are read; only while
//! they keep coming in small reads at over a thousand a second (an agent
//! writing one line per `write`), the relay sleeps [`BATCH_PAUSE`] between
//! reads so that the next read, and each helper's next write, carries
//! several lines: one wake-up and two system calls per batch instead of per
//! line, for the master and for each helper. A fast agent fills big reads
//! and is never paused for. A fence is waited for on this thread too.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use agent_client_protocol::Lines;
use futures::SinkExt;
use serde_json::Value;
use tokio::net::unix::pipe;
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;
use tokio_util::codec::{FramedWrite, LinesCodec, LinesCodecError};

use crate::outbound::{FENCE_METHOD, FENCE_TIMEOUT, Outbound, Relayed, notification_line};
use crate::stats::{LineTimes, RelayStats, SAMPLE_EVERY};

mod peek;

pub(crate) use peek::{Peek, peek};

/// Bytes asked of the agent's pipe per `read`.
const READ_CHUNK: usize = 64 * 1024;
/// A read this small, the last of [`STREAMING_READS`] reads in a row of
/// nothing but updates, each within [`STREAMING_GAP`] of the one before,
/// means an agent streaming line by line at over a thousand lines a second:
/// pause before the next read. A request or an answer from the agent breaks
/// the run, so an exchange (a prompt, its update, its answer, the next
/// prompt) is never held up, however fast it goes.
const SMALL_READ: usize = 16 * 1024;
const STREAMING_GAP: Duration = Duration::from_millis(1);
const STREAMING_READS: u32 = 4;
/// How long lines may gather in the pipe while they stream in small writes
/// (what it adds to a streamed update's latency at most; DESIGN §7 allows
/// 1 ms for an update).
pub const BATCH_PAUSE: Duration = Duration::from_micros(500);
/// A line buffer grown past this is given back once empty.
const KEEP_PARTIAL_BYTES: usize = 1024 * 1024;

/// Where a routed update goes: the outbound queue of the helper owning
/// (instance, session), looked up for every line the relay copies (one
/// map lookup, no allocation). The master's table answers it.
pub(crate) trait SessionRoutes: Send + Sync + std::fmt::Debug {
    fn outbound_of(&self, instance: u64, session: &str) -> Option<Arc<Outbound>>;
}

/// What the relay of every agent writes to: the routes, and the counters.
#[derive(Debug, Clone)]
pub(crate) struct Sink {
    pub routes: Arc<dyn SessionRoutes>,
    pub stats: Option<Arc<RelayStats>>,
}

/// True for the fence method, in either spelling (ACP may strip the `_`).
pub(crate) fn is_fence(method: &str) -> bool {
    method.strip_prefix('_').unwrap_or(method) == &FENCE_METHOD[1..]
}

/// What the relay of one agent instance shares with that agent's dispatch.
#[derive(Debug)]
pub(crate) struct AgentRelay {
    nonce: u64,
    /// Set once the agent answered `initialize`: the connection then
    /// dispatches notifications (fences included), and sessions can be bound.
    ready: AtomicBool,
    /// The highest fence the dispatch reached.
    acked: Mutex<u64>,
    reached: Condvar,
}

impl AgentRelay {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            // Random per process and per relay: nothing an agent can guess.
            nonce: std::collections::hash_map::RandomState::new().hash_one(0u8),
            ready: AtomicBool::new(false),
            acked: Mutex::new(0),
            reached: Condvar::new(),
        })
    }

    pub(crate) fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    /// The dispatch reached a fence notification with these params.
    pub(crate) fn acknowledge(&self, params: &Value) {
        let nonce = params.get("nonce").and_then(Value::as_u64);
        let Some(seq) = params.get("seq").and_then(Value::as_u64) else {
            return;
        };
        if nonce != Some(self.nonce) {
            tracing::debug!("an agent sent a fence notification that is not ours; ignored");
            return;
        }
        let mut acked = self.acked.lock().unwrap_or_else(|p| p.into_inner());
        if seq > *acked {
            *acked = seq;
            self.reached.notify_all();
        }
    }

    /// Blocks until the dispatch reached fence `seq`; false after [`FENCE_TIMEOUT`].
    fn wait_for(&self, seq: u64) -> bool {
        let acked = self.acked.lock().unwrap_or_else(|p| p.into_inner());
        let waited = self
            .reached
            .wait_timeout_while(acked, FENCE_TIMEOUT, |acked| *acked < seq)
            .map_or_else(|p| p.into_inner().1, |(_, waited)| waited);
        !waited.timed_out()
    }

    fn fence_line(&self, seq: u64) -> String {
        #[derive(serde::Serialize)]
        struct FenceParams {
            seq: u64,
            nonce: u64,
        }
        let params = FenceParams {
            seq,
            nonce: self.nonce,
        };
        notification_line(FENCE_METHOD, params)
    }
}

type LineTx = mpsc::UnboundedSender<std::io::Result<String>>;

/// The agent's stdio as the ACP crate's `Lines` transport, with the relay
/// reading stdout in front of it (on a thread of its own).
pub(crate) fn transport(
    sink: Sink,
    instance: u64,
    relay: Arc<AgentRelay>,
    stdin: ChildStdin,
    stdout: ChildStdout,
) -> std::io::Result<
    Lines<
        impl futures::Sink<String, Error = std::io::Error> + Send + Unpin + 'static,
        impl futures::Stream<Item = std::io::Result<String>> + Send + Unpin + 'static,
    >,
> {
    // A thread of its own, with a runtime of its own to wait on the pipe:
    // the relay may block it (pauses, fences) without holding up the master.
    let fd = stdout.into_owned_fd()?;
    let (to_crate, mut from_relay) = mpsc::unbounded_channel::<std::io::Result<String>>();
    std::thread::Builder::new()
        .name(format!("wta-relay-{instance}"))
        .spawn(move || {
            let waiter = match tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
            {
                Ok(waiter) => waiter,
                Err(err) => return drop(to_crate.send(Err(err))),
            };
            let pipe = match waiter.block_on(async { pipe::Receiver::from_owned_fd(fd) }) {
                Ok(pipe) => pipe,
                Err(err) => return drop(to_crate.send(Err(err))),
            };
            Reader {
                sink,
                instance,
                relay,
                waiter,
                pipe,
                to_crate,
                dirty: false,
                fences: 0,
                lines: 0,
                passed_on: 0,
                staged: Vec::new(),
                spare: Vec::new(),
            }
            .run();
        })?;
    let incoming = futures::stream::poll_fn(move |cx| from_relay.poll_recv(cx));
    let outgoing =
        SinkExt::<String>::sink_map_err(FramedWrite::new(stdin, LinesCodec::new()), |e| match e {
            LinesCodecError::Io(e) => e,
            other => std::io::Error::other(other),
        });
    Ok(Lines::new(outgoing, incoming))
}

/// Why the reader stops.
#[derive(Debug)]
struct Stop;

struct Reader {
    sink: Sink,
    instance: u64,
    relay: Arc<AgentRelay>,
    /// Drives nothing but the waits for the pipe to become readable.
    waiter: tokio::runtime::Runtime,
    pipe: pipe::Receiver,
    to_crate: LineTx,
    /// Lines went to the ACP connection since its last fence.
    dirty: bool,
    fences: u64,
    lines: u64,
    /// Lines handed to the ACP connection so far.
    passed_on: u64,
    /// Updates read and routed, not yet handed to their helpers: one batch
    /// per helper, in the agent's order, flushed before anything goes to
    /// the ACP connection and at the end of each read.
    staged: Vec<Staged>,
    /// Emptied batch buffers, kept for the next read.
    spare: Vec<Vec<u8>>,
}

/// The lines of one read for one helper.
struct Staged {
    out: Arc<Outbound>,
    lines: Vec<u8>,
}

/// Whether an agent is streaming line by line: reads in a row of nothing
/// but updates, each within [`STREAMING_GAP`] of the one before.
#[derive(Debug, Default)]
struct Streak {
    last_read: Option<Instant>,
    reads: u32,
}

impl Streak {
    /// After a read of `n` bytes that `started` then: true when the relay
    /// should pause ([`BATCH_PAUSE`]) before the next.
    fn pause_after(&mut self, started: Instant, only_updates: bool, n: usize) -> bool {
        if !only_updates {
            self.reads = 0;
        } else if self.last_read.is_some_and(|t| started - t < STREAMING_GAP) {
            self.reads = self.reads.saturating_add(1);
        } else {
            self.reads = 1;
        }
        self.last_read = Some(started);
        self.reads >= STREAMING_READS && n < SMALL_READ
    }
}

impl Reader {
    fn run(mut self) {
        let stats = self.sink.stats.clone();
        let stats = stats.as_deref();
        let mut chunk = vec![0u8; READ_CHUNK];
        // An unfinished line carried over to the next read.
        let mut partial: Vec<u8> = Vec::new();
        let mut streak = Streak::default();
        loop {
            let Some((started, n)) = self.read(&mut chunk) else {
                return;
            };
            if let Some(stats) = stats {
                stats.read(started, n);
            }
            if self.to_crate.is_closed() {
                return;
            }
            if n == 0 {
                // Like the crate's reader: a last line without a newline still counts.
                if !partial.is_empty() {
                    partial.push(b'\n');
                    if self.line(stats, &partial).is_ok() {
                        self.flush(stats);
                    }
                }
                return;
            }
            let passed_before = self.passed_on;
            if self.lines_read(stats, &chunk[..n], &mut partial).is_err() {
                return;
            }
            if streak.pause_after(started, self.passed_on == passed_before, n) {
                if let Some(stats) = stats {
                    stats.pause();
                }
                std::thread::sleep(BATCH_PAUSE);
            }
        }
    }

    /// One read into `chunk`: when the read that got bytes began (the wait
    /// for an empty pipe is not counted) and its length (0 at EOF); `None`
    /// once the connection is gone or the pipe failed (the error handed to
    /// the connection).
    fn read(&mut self, chunk: &mut [u8]) -> Option<(Instant, usize)> {
        loop {
            let started = Instant::now();
            match self.pipe.try_read(chunk) {
                Ok(n) => return Some((started, n)),
                Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                    let closed = self.waiter.block_on(async {
                        tokio::select! {
                            ready = self.pipe.readable() => ready.is_err(),
                            () = self.to_crate.closed() => true,
                        }
                    });
                    if closed {
                        return None;
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) => {
                    let _ = self.to_crate.send(Err(err));
                    return None;
                }
            }
        }
    }

    /// Handles the lines completed by `read`, then hands their batches to
    /// their helpers. Lines are handled where they were read; only a line
    /// cut by the read's end is copied into `partial`, to be completed by
    /// the next.
    fn lines_read(
        &mut self,
        stats: Option<&RelayStats>,
        read: &[u8],
        partial: &mut Vec<u8>,
    ) -> Result<(), Stop> {
        let (data, from) = if partial.is_empty() {
            (read, 0)
        } else {
            let old = partial.len();
            partial.extend_from_slice(read);
            (&partial[..], old)
        };
        let consumed = self.lines_in(stats, data, from)?;
        self.flush(stats);
        if partial.is_empty() {
            partial.extend_from_slice(&read[consumed..]);
        } else {
            partial.drain(..consumed);
            if partial.is_empty() && partial.capacity() > KEEP_PARTIAL_BYTES {
                // A huge line is done: do not keep its buffer.
                *partial = Vec::new();
            }
        }
        Ok(())
    }

    /// Handles the complete lines of `data` (none starts before `from`'s line
    /// did: `data[..from]` has no newline); returns where the last one ended.
    fn lines_in(
        &mut self,
        stats: Option<&RelayStats>,
        data: &[u8],
        from: usize,
    ) -> Result<usize, Stop> {
        let (mut start, mut scan) = (0, from);
        while let Some(newline) = memchr::memchr(b'\n', &data[scan..]) {
            let end = scan + newline + 1;
            self.line(stats, &data[start..end])?;
            start = end;
            scan = end;
        }
        Ok(start)
    }

    /// One line, `\n` included.
    fn line(&mut self, stats: Option<&RelayStats>, framed: &[u8]) -> Result<(), Stop> {
        self.lines += 1;
        let start = (stats.is_some() && self.lines.is_multiple_of(SAMPLE_EVERY)).then(Instant::now);
        let content = framed.strip_suffix(b"\n").unwrap_or(framed);
        let line = content.strip_suffix(b"\r").unwrap_or(content);
        let Ok(text) = std::str::from_utf8(line) else {
            tracing::warn!(
                instance = self.instance,
                "an agent wrote a line that is not UTF-8; closing its connection"
            );
            let _ = self.to_crate.send(Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )));
            return Err(Stop);
        };
        let framed_at = start.map(|_| Instant::now());
        let Peek::Update(session) = peek(text) else {
            return self.pass_on(text, stats);
        };
        let parsed_at = start.map(|_| Instant::now());
        if self.dirty {
            if !self.relay.ready.load(Ordering::Acquire) {
                // No session can be bound before `initialize` is answered.
                return self.pass_on(text, stats);
            }
            self.fence(stats)?;
        }
        let Some(out) = self.sink.routes.outbound_of(self.instance, &session) else {
            return self.pass_on(text, stats);
        };
        let routed_at = start.map(|_| Instant::now());
        // What the helper gets: the line and a bare `\n`.
        self.stage(out, line);
        tracing::trace!(%session, "relayed session/update");
        if let Some(stats) = stats {
            stats.relayed();
            if let (Some(start), Some(framed), Some(parsed), Some(routed)) =
                (start, framed_at, parsed_at, routed_at)
            {
                stats.sample(LineTimes {
                    start,
                    framed,
                    parsed,
                    routed,
                });
            }
        }
        Ok(())
    }

    /// Adds `line` (without its line end) to its helper's batch.
    fn stage(&mut self, out: Arc<Outbound>, line: &[u8]) {
        let at = match self.staged.iter().position(|s| Arc::ptr_eq(&s.out, &out)) {
            Some(at) => at,
            None => {
                let lines = self.spare.pop().unwrap_or_default();
                self.staged.push(Staged { out, lines });
                self.staged.len() - 1
            }
        };
        let lines = &mut self.staged[at].lines;
        lines.extend_from_slice(line);
        lines.push(b'\n');
    }

    /// Hands every staged batch to its helper's queue (in one `write` each
    /// when the queue is idle), each behind whatever that helper's ACP
    /// connection was given before.
    fn flush(&mut self, stats: Option<&RelayStats>) {
        for Staged { out, mut lines } in self.staged.drain(..) {
            let start = stats.map(|_| Instant::now());
            while let Relayed::Wait(fence) = out.relay(&lines) {
                if let Some(stats) = stats {
                    stats.held();
                }
                out.wait_fences(fence);
            }
            if let (Some(stats), Some(start)) = (stats, start) {
                stats.flushed(start);
            }
            lines.clear();
            if lines.capacity() <= KEEP_PARTIAL_BYTES {
                self.spare.push(lines);
            }
        }
    }

    fn pass_on(&mut self, text: &str, stats: Option<&RelayStats>) -> Result<(), Stop> {
        if let Some(stats) = stats {
            stats.via_crate();
        }
        // What was read before this line is queued before it is handled.
        self.flush(stats);
        self.passed_on += 1;
        self.dirty = true;
        self.to_crate.send(Ok(text.to_owned())).map_err(|_| Stop)
    }

    /// Sends the ACP connection a fence and waits until its dispatch got there.
    fn fence(&mut self, stats: Option<&RelayStats>) -> Result<(), Stop> {
        self.fences += 1;
        let seq = self.fences;
        if let Some(stats) = stats {
            stats.fence();
        }
        self.to_crate
            .send(Ok(self.relay.fence_line(seq)))
            .map_err(|_| Stop)?;
        if !self.relay.wait_for(seq) {
            if self.to_crate.is_closed() {
                return Err(Stop);
            }
            tracing::warn!(
                instance = self.instance,
                "an agent connection did not reach a fence in time; relaying without it"
            );
        }
        self.dirty = false;
        Ok(())
    }
}

#[cfg(test)]
#[path = "relay_tests.rs"]
mod tests;
