//! Counters of the agent → helper relay, for the routing benchmark's
//! breakdown of where a notification's time goes.
//!
//! Off unless [`crate::MasterConfig::stats`] is set: then the relay counts every
//! line and times its stages on one line in [`SAMPLE_EVERY`] (a clock read costs
//! about as much as a stage, so timing every line would measure the timer), and
//! times every `read` on agent pipes and every `write` of the helper writer
//! tasks. Stage times are wall-clock: a `write` that wakes a reader can be
//! preempted inside it. Counters only: nothing here decides anything.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// One agent line in this many has its relay stages timed.
pub const SAMPLE_EVERY: u64 = 64;

/// Live counters, shared by every relay and helper writer of one master.
#[derive(Debug, Default)]
pub struct RelayStats {
    relayed: AtomicU64,
    via_crate: AtomicU64,
    fences: AtomicU64,
    held: AtomicU64,
    dropped: AtomicU64,
    sampled: AtomicU64,
    frame_ns: AtomicU64,
    parse_ns: AtomicU64,
    route_ns: AtomicU64,
    queue_ns: AtomicU64,
    reads: AtomicU64,
    read_ns: AtomicU64,
    read_bytes: AtomicU64,
    pauses: AtomicU64,
    writes: AtomicU64,
    write_ns: AtomicU64,
    written_lines: AtomicU64,
    written_through: AtomicU64,
    flushes: AtomicU64,
    flush_ns: AtomicU64,
}

/// A copy of the counters (what the benchmark prints).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayStatsSnapshot {
    /// `session/update` lines copied straight to their helper.
    pub relayed: u64,
    /// Agent lines handed to the ACP connection (everything else).
    pub via_crate: u64,
    /// Times the relay waited for the ACP connection to catch up (ordering).
    pub fences: u64,
    /// Relayed batches that waited behind a message still in the ACP connection.
    pub held: u64,
    /// Relayed lines dropped for a helper over its queue cap.
    pub dropped: u64,
    /// Lines whose stages were timed, and the time of each stage over them.
    pub sampled: u64,
    pub frame_ns: u64,
    pub parse_ns: u64,
    pub route_ns: u64,
    pub queue_ns: u64,
    /// `read` calls on agent pipes that took data, their total time and bytes.
    pub reads: u64,
    pub read_ns: u64,
    pub read_bytes: u64,
    /// Pauses the relay made to let a line-by-line stream gather.
    pub pauses: u64,
    /// The writer tasks' `write` calls on helper sockets, their total time
    /// and the lines they carried.
    pub writes: u64,
    pub write_ns: u64,
    pub written_lines: u64,
    /// Relayed lines the relay wrote itself, the queue being idle (their
    /// `write` is timed in `flush_ns`).
    pub written_through: u64,
    /// Batches the relay handed to a helper's queue (one per helper per
    /// read), and their total time (admission, and the `write` when idle).
    pub flushes: u64,
    pub flush_ns: u64,
}

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

fn nanos_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// The stages of one sampled line, as instants taken between them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineTimes {
    pub start: Instant,
    pub framed: Instant,
    pub parsed: Instant,
    pub routed: Instant,
}

impl RelayStats {
    pub fn snapshot(&self) -> RelayStatsSnapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        RelayStatsSnapshot {
            relayed: get(&self.relayed),
            via_crate: get(&self.via_crate),
            fences: get(&self.fences),
            held: get(&self.held),
            dropped: get(&self.dropped),
            sampled: get(&self.sampled),
            frame_ns: get(&self.frame_ns),
            parse_ns: get(&self.parse_ns),
            route_ns: get(&self.route_ns),
            queue_ns: get(&self.queue_ns),
            reads: get(&self.reads),
            read_ns: get(&self.read_ns),
            read_bytes: get(&self.read_bytes),
            pauses: get(&self.pauses),
            writes: get(&self.writes),
            write_ns: get(&self.write_ns),
            written_lines: get(&self.written_lines),
            written_through: get(&self.written_through),
            flushes: get(&self.flushes),
            flush_ns: get(&self.flush_ns),
        }
    }

    pub(crate) fn relayed(&self) {
        add(&self.relayed, 1);
    }

    pub(crate) fn via_crate(&self) {
        add(&self.via_crate, 1);
    }

    pub(crate) fn fence(&self) {
        add(&self.fences, 1);
    }

    pub(crate) fn held(&self) {
        add(&self.held, 1);
    }

    pub(crate) fn dropped(&self, lines: usize) {
        add(&self.dropped, lines as u64);
    }

    /// A sampled line is queued: `times` are its stage boundaries.
    pub(crate) fn sample(&self, times: LineTimes) {
        let queued = Instant::now();
        let span = |a: Instant, b: Instant| u64::try_from((b - a).as_nanos()).unwrap_or(u64::MAX);
        add(&self.sampled, 1);
        add(&self.frame_ns, span(times.start, times.framed));
        add(&self.parse_ns, span(times.framed, times.parsed));
        add(&self.route_ns, span(times.parsed, times.routed));
        add(&self.queue_ns, span(times.routed, queued));
    }

    /// One `read` of `bytes` that took data (it does not block).
    pub(crate) fn read(&self, start: Instant, bytes: usize) {
        add(&self.reads, 1);
        add(&self.read_bytes, bytes as u64);
        add(&self.read_ns, nanos_since(start));
    }

    /// The relay paused to let lines gather.
    pub(crate) fn pause(&self) {
        add(&self.pauses, 1);
    }

    /// One `write` call on a helper socket that took bytes.
    pub(crate) fn write(&self, start: Instant) {
        add(&self.writes, 1);
        add(&self.write_ns, nanos_since(start));
    }

    /// The relay wrote `lines` itself.
    pub(crate) fn written_through(&self, lines: usize) {
        add(&self.written_through, lines as u64);
    }

    /// The relay handed one batch to a helper's queue.
    pub(crate) fn flushed(&self, start: Instant) {
        add(&self.flushes, 1);
        add(&self.flush_ns, nanos_since(start));
    }

    /// A batch of `lines` is written.
    pub(crate) fn write_lines(&self, lines: usize) {
        add(&self.written_lines, lines as u64);
    }
}
