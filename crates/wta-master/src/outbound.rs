//! Bounded outbound lines toward one helper, in the order they were sent.
//!
//! Two producers feed one helper socket: the helper's ACP connection
//! (responses, forwarded agent requests, other notifications) through
//! [`CrateSink`], the line sink of the crate's `Lines` transport; and the relay
//! ([`crate::relay`]), which copies an agent's `session/update` line unchanged.
//! Both append to one byte buffer under one mutex; one writer task per helper
//! writes it out with as few `write` calls as the socket takes. A relayed
//! batch (one helper's lines of one agent read) that finds the queue idle is
//! written at once by the relay itself, in one `write` (under the mutex, so
//! nothing can come between): no copy, no task to wake; only what the socket
//! did not take is queued, cut between lines. The socket is registered with
//! the runtime only while the writer waits for it to drain ([`register`]):
//! registered for writing for good, every read of the helper would wake a
//! runtime thread for nothing.
//!
//! Bound: `pending` counts lines queued and not yet written. Before a
//! *notification* is admitted, [`Queue::admit`] decides: over the cap it is
//! dropped (one log line per stall). The stall ends as soon as the queue is
//! down to half, whichever notices first: the writer after a write, even when
//! nothing else follows, or the next admission. Either way the helper is told
//! exactly once, with one `_wta/lagged` carrying the number dropped, queued
//! where the dropped lines would have been. Responses and requests are never
//! dropped: an agent waiting on an answer must get one.
//!
//! Order: a relayed line must not overtake a message the master handed to the
//! ACP connection before it (the answer to `session/new` before that session's
//! first update). Such a message is sent after [`Outbound::open_fence`] and
//! followed by [`fence_message`]; the connection keeps its order, so once
//! [`CrateSink`] has seen every fence up to `n` (it swallows them: a fence never
//! reaches the socket), every message sent before them is queued. The relay
//! asks [`Outbound::relay`], which answers [`Relayed::Wait`] while a fence is
//! open; the relay then waits ([`Outbound::wait_fences`], on its own thread) and retries, so the
//! line is queued behind the message. The mutex is a leaf: nothing else is
//! locked while it is held.

use std::collections::BTreeSet;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use agent_client_protocol::UntypedMessage;
use serde::{Deserialize, Serialize};
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::sync::Notify;

use crate::stats::RelayStats;

/// The master-internal notification that marks a point in a helper
/// connection's order. It never leaves the master.
pub(crate) const FENCE_METHOD: &str = "_wta/relay_fence";
/// A fence that does not come back within this long is given up (logged): it
/// can only be lost if the connection is going away.
pub(crate) const FENCE_TIMEOUT: Duration = Duration::from_secs(2);
/// A write buffer grown past this is given back after use.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;

/// What the router should do with one notification for this helper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Send it.
    Send,
    /// The helper lagged and has caught up: send `_wta/lagged{dropped}` first, then it.
    SendAfterLagged { dropped: u64 },
    /// Drop it (the helper is stalled).
    Drop { first_of_stall: bool },
}

/// What [`Outbound::relay`] did with a batch of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relayed {
    /// Written or queued, but for this many dropped over the cap.
    Done { dropped: usize },
    /// A message sent through the ACP connection is not queued yet: wait
    /// until fence `n` is closed, then ask again.
    Wait(u64),
}

/// The queue state; every change is a method here, under the one mutex.
#[derive(Debug, Default)]
struct Queue {
    /// Lines ready for the socket, each ending in `\n`.
    ready: Vec<u8>,
    ready_lines: usize,
    /// Lines queued and not yet written (`ready` and the batch being written).
    pending: usize,
    /// The writer is writing a batch (taken out of `ready`).
    writing: bool,
    /// The socket, for the writer and for write-through (`None` once closed).
    socket: Option<Arc<UnixStream>>,
    /// `Some(dropped so far)` during a stall.
    stall: Option<u64>,
    /// Fences handed out, and the highest `n` such that fences `1..=n` all came back.
    opened: u64,
    closed_up_to: u64,
    /// Fences that came back ahead of an earlier one.
    early: BTreeSet<u64>,
    /// No more lines: the connection ended or the socket failed.
    closed: bool,
    failed: bool,
}

impl Queue {
    /// Decides for one notification. A stall ends once the queue is down to half.
    fn admit(&mut self, cap: usize) -> Admission {
        match self.stall.as_mut() {
            Some(_) if self.pending <= cap / 2 => Admission::SendAfterLagged {
                dropped: self.stall.take().unwrap_or(0),
            },
            Some(dropped) => {
                *dropped += 1;
                Admission::Drop {
                    first_of_stall: false,
                }
            }
            None if self.pending >= cap => {
                self.stall = Some(1);
                Admission::Drop {
                    first_of_stall: true,
                }
            }
            None => Admission::Send,
        }
    }

    /// Nothing is queued or being written: a line may go straight to the
    /// socket (no stall: one only ends by queueing its `_wta/lagged`).
    fn idle(&self) -> bool {
        !self.writing && self.ready.is_empty() && self.stall.is_none()
    }

    /// Appends one line (without its newline); true when the writer must be woken.
    fn push(&mut self, line: &[u8]) -> bool {
        let wake = self.ready.is_empty();
        self.ready.extend_from_slice(line);
        self.ready.push(b'\n');
        self.ready_lines += 1;
        self.pending += 1;
        wake
    }

    /// Appends bytes that end one line (with its newline); true when the
    /// writer must be woken.
    fn push_end(&mut self, bytes: &[u8]) -> bool {
        let wake = self.ready.is_empty();
        self.ready.extend_from_slice(bytes);
        self.ready_lines += 1;
        self.pending += 1;
        wake
    }

    /// `n` lines were written: ends a stall once the queue is down to half and
    /// returns how many notifications it dropped.
    fn written(&mut self, n: usize, cap: usize) -> Option<u64> {
        self.pending = self.pending.saturating_sub(n);
        if self.stall.is_some() && self.pending <= cap / 2 {
            self.stall.take()
        } else {
            None
        }
    }

    fn open_fence(&mut self) -> u64 {
        self.opened += 1;
        self.opened
    }

    /// Fence `n` came back; returns the new closed-up-to mark.
    fn fence_seen(&mut self, n: u64) -> u64 {
        if n == self.closed_up_to + 1 {
            self.closed_up_to = n;
            while self.early.remove(&(self.closed_up_to + 1)) {
                self.closed_up_to += 1;
            }
        } else if n > self.closed_up_to {
            self.early.insert(n);
        }
        self.closed_up_to
    }

    /// Fences up to `n` are given up (timed out).
    fn give_up_fences(&mut self, n: u64) -> u64 {
        self.closed_up_to = self.closed_up_to.max(n);
        self.early.retain(|&f| f > n);
        self.closed_up_to
    }
}

/// The outgoing side of one helper connection.
#[derive(Debug)]
pub(crate) struct Outbound {
    helper: u64,
    cap: usize,
    queue: Mutex<Queue>,
    /// Wakes the writer when `ready` gets its first line.
    wake: Notify,
    /// Signalled when fences come back or the queue closes (the relay waits on it).
    fenced: Condvar,
    stats: Option<Arc<RelayStats>>,
}

impl Outbound {
    pub(crate) fn new(helper: u64, cap: usize, stats: Option<Arc<RelayStats>>) -> Arc<Self> {
        Arc::new(Self {
            helper,
            cap: cap.max(2),
            queue: Mutex::default(),
            wake: Notify::new(),
            fenced: Condvar::new(),
            stats,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Agent notification lines for this helper, each ending with its
    /// newline, in order. When the queue is idle (the usual case) they are
    /// written at once, in one `write`, and whatever the socket did not take
    /// is queued; otherwise each is admitted against the cap and queued.
    pub(crate) fn relay(&self, lines: &[u8]) -> Relayed {
        let mut q = self.lock();
        if q.closed {
            return Relayed::Done { dropped: 0 };
        }
        if q.closed_up_to < q.opened {
            return Relayed::Wait(q.opened);
        }
        let mut rest = lines;
        let mut wake = false;
        if let Some(socket) = q.socket.as_ref().filter(|_| q.idle()) {
            // Full, or failing (0): the writer waits, or finds out and closes.
            let written = (&**socket).write(lines).unwrap_or_default();
            if let Some(stats) = &self.stats {
                stats.written_through(memchr::memchr_iter(b'\n', &lines[..written]).count());
            }
            rest = &lines[written..];
            if written > 0 && !rest.is_empty() {
                // The rest of a line already begun: it must follow, whatever the cap.
                let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
                wake |= q.push_end(&rest[..end]);
                rest = &rest[end..];
            }
        }
        let mut dropped = 0;
        let mut lagged = None;
        for line in rest.split_inclusive(|&b| b == b'\n') {
            match q.admit(self.cap) {
                Admission::Send => wake |= q.push_end(line),
                Admission::SendAfterLagged { dropped: n } => {
                    lagged = Some(n);
                    wake |= q.push(lagged_line(n).as_bytes()) | q.push_end(line);
                }
                Admission::Drop { first_of_stall } => {
                    dropped += 1;
                    if first_of_stall {
                        self.log_admission(Admission::Drop { first_of_stall });
                    }
                }
            }
        }
        drop(q);
        if let Some(dropped) = lagged {
            self.log_admission(Admission::SendAfterLagged { dropped });
        }
        if wake {
            self.wake.notify_one();
        }
        if let Some(stats) = self.stats.as_ref().filter(|_| dropped > 0) {
            stats.dropped(dropped);
        }
        Relayed::Done { dropped }
    }

    /// May one more notification go to this helper through the ACP connection?
    /// A stall that ends here queues its `_wta/lagged` first.
    pub(crate) fn admit_notification(&self) -> bool {
        let mut q = self.lock();
        let admission = q.admit(self.cap);
        let wake = match admission {
            Admission::SendAfterLagged { dropped } => q.push(lagged_line(dropped).as_bytes()),
            _ => false,
        };
        drop(q);
        self.log_admission(admission);
        if wake {
            self.wake.notify_one();
        }
        !matches!(admission, Admission::Drop { .. })
    }

    fn log_admission(&self, admission: Admission) {
        match admission {
            Admission::SendAfterLagged { dropped } => {
                tracing::warn!(
                    helper = self.helper,
                    dropped,
                    "helper caught up after a stall"
                );
            }
            Admission::Drop {
                first_of_stall: true,
            } => tracing::warn!(
                helper = self.helper,
                "helper is not reading; dropping its notifications until it catches up"
            ),
            _ => {}
        }
    }

    /// Opens fence `n`: the caller sends its message, then [`fence_message`]`(n)`.
    pub(crate) fn open_fence(&self) -> u64 {
        self.lock().open_fence()
    }

    /// Blocks until every fence up to `n` came back (or the connection
    /// closed); gives them up after [`FENCE_TIMEOUT`]. Only the relay's
    /// thread calls this, never a runtime thread.
    pub(crate) fn wait_fences(&self, n: u64) {
        let q = self.lock();
        let (mut q, waited) = self
            .fenced
            .wait_timeout_while(q, FENCE_TIMEOUT, |q| q.closed_up_to < n && !q.closed)
            .unwrap_or_else(|p| p.into_inner());
        if waited.timed_out() {
            q.give_up_fences(n);
            drop(q);
            tracing::warn!(
                helper = self.helper,
                fence = n,
                "a helper connection did not pass a fence in time; relaying without it"
            );
        }
    }

    /// A line from the helper's ACP connection (requests, responses, notifications).
    fn crate_line(&self, line: &str) {
        if let Some(n) = parse_fence(line) {
            let mut q = self.lock();
            let before = q.closed_up_to;
            if q.fence_seen(n) > before {
                self.fenced.notify_all();
            }
            return;
        }
        let mut q = self.lock();
        if q.closed {
            return;
        }
        let wake = q.push(line.as_bytes());
        drop(q);
        if wake {
            self.wake.notify_one();
        }
    }

    /// No more lines: the writer writes what is queued and ends.
    fn close(&self, failed: bool) {
        {
            let mut q = self.lock();
            q.closed = true;
            q.failed |= failed;
        }
        self.fenced.notify_all();
        self.wake.notify_one();
    }

    fn failed(&self) -> bool {
        self.lock().failed
    }

    /// Starts the task writing to `socket` (non-blocking, not registered with
    /// the runtime: see [`Outbound::write_all`]); returns the sink for the ACP
    /// `Lines` transport.
    pub(crate) fn attach(self: &Arc<Self>, socket: UnixStream) -> CrateSink {
        let socket = Arc::new(socket);
        self.lock().socket = Some(socket.clone());
        tokio::spawn(self.clone().write_loop(socket));
        CrateSink { out: self.clone() }
    }

    /// Writes what is queued, batch by batch, until closed; then shuts the
    /// socket's write side down (the helper reads its end).
    async fn write_loop(self: Arc<Self>, socket: Arc<UnixStream>) {
        self.write_batches(&socket).await;
        let _ = socket.shutdown(std::net::Shutdown::Write);
    }

    async fn write_batches(&self, socket: &Arc<UnixStream>) {
        let mut batch = Vec::new();
        loop {
            let lines = {
                let mut q = self.lock();
                q.writing = false;
                if q.ready.is_empty() {
                    if q.closed {
                        q.socket = None;
                        break;
                    }
                    None
                } else {
                    q.writing = true;
                    std::mem::swap(&mut batch, &mut q.ready);
                    Some(std::mem::take(&mut q.ready_lines))
                }
            };
            let Some(lines) = lines else {
                self.wake.notified().await;
                continue;
            };
            if let Err(err) = self.write_all(socket, &batch).await {
                tracing::debug!(helper = self.helper, "helper socket write failed: {err}");
                self.close(true);
                self.lock().socket = None;
                break;
            }
            if let Some(stats) = &self.stats {
                stats.write_lines(lines);
            }
            batch.clear();
            if batch.capacity() > KEEP_BUFFER_BYTES {
                batch = Vec::new();
            }
            let mut q = self.lock();
            q.writing = false;
            if let Some(dropped) = q.written(lines, self.cap) {
                // The helper caught up: tell it now, even if nothing follows.
                q.push(lagged_line(dropped).as_bytes());
                drop(q);
                tracing::warn!(
                    helper = self.helper,
                    dropped,
                    "helper caught up after a stall"
                );
            }
        }
    }

    /// Writes `buf` whole: `write` as long as the socket takes bytes, else
    /// wait until it is writable. Only then is the socket registered with the
    /// runtime (and deregistered once written to): registered for good, every
    /// read of the helper would wake a runtime thread.
    async fn write_all(&self, socket: &Arc<UnixStream>, mut buf: &[u8]) -> std::io::Result<()> {
        let mut waiting: Option<AsyncFd<Arc<UnixStream>>> = None;
        while !buf.is_empty() {
            let start = Instant::now();
            match (&**socket).write(buf) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    if let Some(stats) = &self.stats {
                        stats.write(start);
                    }
                    buf = &buf[n..];
                }
                Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                    let fd = match waiting.take() {
                        Some(fd) => fd,
                        None => register(socket.clone(), Interest::WRITABLE)?,
                    };
                    // Edge-triggered: a fresh registration reports a socket
                    // that is writable already; a kept one was just found full.
                    fd.writable().await?.clear_ready();
                    waiting = Some(fd);
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }
}

/// Registers `socket` with the runtime for `interest` only (tokio's own
/// `UnixStream` always asks for both). Must run on a runtime thread.
#[allow(unsafe_code)]
pub(crate) fn register(
    socket: Arc<UnixStream>,
    interest: Interest,
) -> std::io::Result<AsyncFd<Arc<UnixStream>>> {
    // SAFETY: the `AsyncFd` owns a reference to the socket, so its descriptor
    // stays open, and the same, for as long as it is registered.
    unsafe { AsyncFd::register_with_interest(socket, interest) }.map_err(std::io::Error::from)
}

/// The params of a fence through a helper's ACP connection.
#[derive(Debug, Serialize)]
struct FenceSeq {
    seq: u64,
}

/// The fence notification `n`, sent through a helper's ACP connection.
pub(crate) fn fence_message(n: u64) -> Result<UntypedMessage, agent_client_protocol::Error> {
    UntypedMessage::new(FENCE_METHOD, FenceSeq { seq: n })
}

/// A JSON-RPC notification line the master writes itself (no newline):
/// one that goes around an ACP connection (`_wta/lagged` into a helper's
/// queue, a relay fence into an agent connection's input).
pub(crate) fn notification_line(method: &str, params: impl Serialize) -> String {
    #[derive(Serialize)]
    struct Line<'a, P> {
        jsonrpc: &'static str,
        method: &'a str,
        params: P,
    }
    let line = Line {
        jsonrpc: "2.0",
        method,
        params,
    };
    serde_json::to_string(&line).unwrap_or_default()
}

/// `Some(n)` when `line` is fence `n` (only the master writes these into a
/// helper connection; a forwarded request of that name has an `id` and is not one).
fn parse_fence(line: &str) -> Option<u64> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Fence<'a> {
        #[allow(dead_code)]
        jsonrpc: &'a str,
        method: &'a str,
        params: FenceParams,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct FenceParams {
        seq: u64,
    }
    if line.len() > 128 || !line.contains(&FENCE_METHOD[1..]) {
        return None;
    }
    let fence: Fence<'_> = serde_json::from_str(line).ok()?;
    let bare = fence.method.strip_prefix('_').unwrap_or(fence.method);
    (bare == &FENCE_METHOD[1..]).then_some(fence.params.seq)
}

/// The `_wta/lagged` line for `dropped` notifications.
pub(crate) fn lagged_line(dropped: u64) -> String {
    notification_line(
        wta_protocol::helper_master::METHOD_LAGGED,
        wta_protocol::helper_master::LaggedNotification { dropped },
    )
}

/// The line sink of a helper's ACP connection: every line joins the helper's
/// queue (never dropped, never waiting); fences are taken out here.
#[derive(Debug)]
pub(crate) struct CrateSink {
    out: Arc<Outbound>,
}

impl futures::Sink<String> for CrateSink {
    type Error = std::io::Error;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.out.failed() {
            Poll::Ready(Err(std::io::Error::other("helper socket writer stopped")))
        } else {
            Poll::Ready(Ok(()))
        }
    }

    fn start_send(self: Pin<&mut Self>, line: String) -> std::io::Result<()> {
        self.out.crate_line(&line);
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.out.close(false);
        Poll::Ready(Ok(()))
    }
}

impl Drop for CrateSink {
    fn drop(&mut self) {
        self.out.close(false);
    }
}

#[cfg(test)]
#[path = "outbound_tests.rs"]
mod tests;
