//! What socket peers can make a daemon hold, and giving it back: the master
//! socket and the proposal socket both serve local peers they cannot trust
//! to be well-behaved (DESIGN §7: a flood never grows a process past 2× its
//! idle RSS for good).
//!
//! - [`ConnectionSlots`]: a bound on concurrent connections. A connection
//!   beyond it is accepted and closed at once; refusals are logged once per
//!   burst ([`RefusalLog`], at most one line per [`REFUSAL_LOG_INTERVAL`]),
//!   never one line per connection.
//! - [`map_big_allocations`] (once, at daemon start) and
//!   [`release_free_memory`] (after a connection that buffered megabytes):
//!   bounded buffers alone do not bring RSS back down under glibc. Its mmap
//!   threshold grows to the largest block freed so far (up to 32 MiB), after
//!   which big buffers come from the per-thread arenas, and each arena then
//!   keeps up to twice that threshold free at its top, where `malloc_trim`
//!   cannot reach. Measured on the master after eight 4 MiB lines: 17 MiB
//!   kept for good without the pinned threshold, 3 MiB without the trim,
//!   about 1 MiB with both.
//!
//! This module holds the workspace's only `unsafe` calls (`mallopt`,
//! `malloc_trim`), behind `cfg(all(target_os = "linux", target_env = "gnu"))`;
//! elsewhere both functions do nothing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Refusals of one socket get at most one log line per this interval; the
/// line counts the refusals since the previous one.
pub const REFUSAL_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Allocations of at least this many bytes get a mapping of their own, which
/// goes back to the OS as soon as they are freed (glibc's initial default,
/// pinned so it no longer grows).
pub const BIG_ALLOCATION_BYTES: usize = 128 * 1024;

/// Pins glibc's mmap threshold at [`BIG_ALLOCATION_BYTES`] for the whole
/// process, so line buffers of megabytes never settle in an arena. Call once
/// at the start of a daemon that serves sockets; small allocations (every
/// normal message) are unaffected. A no-op where the allocator is not glibc's.
pub fn map_big_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::pin_mmap_threshold(BIG_ALLOCATION_BYTES);
}

/// Returns the allocator's free memory to the OS. Cheap enough to call once
/// after a connection that buffered megabytes ended; do not call it per
/// message. A no-op where the allocator is not glibc's.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::trim();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod glibc {
    use std::ffi::c_int;

    /// `M_MMAP_THRESHOLD` of glibc's malloc.h.
    const M_MMAP_THRESHOLD: c_int = -3;

    unsafe extern "C" {
        /// glibc `int malloc_trim(size_t pad)` (malloc.h).
        fn malloc_trim(pad: usize) -> c_int;
        /// glibc `int mallopt(int param, int value)` (malloc.h).
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }

    pub(super) fn pin_mmap_threshold(bytes: usize) {
        let value = c_int::try_from(bytes).unwrap_or(c_int::MAX);
        // SAFETY: `mallopt` takes two plain integers and only changes the
        // allocator's tuning under its own lock (glibc allows it at any time,
        // from any thread); a new threshold applies to later allocations and
        // never moves or frees live ones. The signature matches glibc's.
        let _accepted = unsafe { mallopt(M_MMAP_THRESHOLD, value) };
    }

    pub(super) fn trim() {
        // SAFETY: `malloc_trim` takes a plain integer, touches only the
        // allocator's own free lists (under the allocator's locks, so it is
        // thread-safe) and never frees memory that is still allocated. The
        // signature matches glibc's declaration; size_t is usize on every
        // target this cfg admits.
        let _released = unsafe { malloc_trim(0) };
    }
}

/// When refusals of one socket get a log line: the first refusal of a burst
/// does, later ones within [`REFUSAL_LOG_INTERVAL`] of that line are only
/// counted. Time is an input, so the rule is testable without a clock.
#[derive(Debug, Default)]
pub struct RefusalLog {
    last_line: Option<Instant>,
    unlogged: u64,
}

impl RefusalLog {
    /// One refusal at `now`. `Some(n)`: log a line reporting `n` refusals
    /// (this one and every one not logged since the previous line).
    pub fn refuse(&mut self, now: Instant) -> Option<u64> {
        self.unlogged += 1;
        match self.last_line {
            Some(at) if now.saturating_duration_since(at) < REFUSAL_LOG_INTERVAL => None,
            _ => {
                self.last_line = Some(now);
                Some(std::mem::take(&mut self.unlogged))
            }
        }
    }
}

/// At most `max` connections of one socket at a time.
#[derive(Debug)]
pub struct ConnectionSlots {
    socket: &'static str,
    max: usize,
    open: Arc<AtomicUsize>,
    refusals: Mutex<RefusalLog>,
}

/// One connection's place; dropping it frees the place.
#[derive(Debug)]
pub struct Slot {
    open: Arc<AtomicUsize>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }
}

impl ConnectionSlots {
    /// `socket` names the socket in log lines ("master socket").
    pub fn new(socket: &'static str, max: usize) -> Self {
        Self {
            socket,
            max,
            open: Arc::new(AtomicUsize::new(0)),
            refusals: Mutex::new(RefusalLog::default()),
        }
    }

    /// A place for one more connection, or `None` when `max` are open: the
    /// caller closes that connection at once. Refusals are logged per burst.
    pub fn try_take(&self) -> Option<Slot> {
        self.try_take_at(Instant::now())
    }

    fn try_take_at(&self, now: Instant) -> Option<Slot> {
        let took = self
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max).then_some(n + 1)
            })
            .is_ok();
        if took {
            return Some(Slot {
                open: self.open.clone(),
            });
        }
        let report = self
            .refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .refuse(now);
        if let Some(refused) = report {
            tracing::warn!(
                socket = self.socket,
                limit = self.max,
                refused,
                "{}: refusing connections, {} are open already (at most one such line per {} s; `refused` counts the refusals it covers)",
                self.socket,
                self.max,
                REFUSAL_LOG_INTERVAL.as_secs()
            );
        }
        None
    }

    /// Connections holding a place now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn refusals_get_one_line_per_burst_counting_the_silent_ones() {
        let t0 = Instant::now();
        let s = |secs: u64| t0 + Duration::from_secs(secs);
        let mut log = RefusalLog::default();
        // (time, expected answer)
        let table = [
            (t0, Some(1)),
            (t0, None),
            (s(1), None),
            (s(9), None),
            (s(10), Some(4)),
            (s(11), None),
            (s(60), Some(2)),
            // A clock that seems to go back never panics and stays quiet.
            (t0, None),
        ];
        for (i, (now, want)) in table.into_iter().enumerate() {
            assert_eq!(log.refuse(now), want, "row {i}");
        }
    }

    #[test]
    fn slots_refuse_beyond_the_limit_and_free_on_drop() {
        let slots = ConnectionSlots::new("test socket", 2);
        let a = slots.try_take().unwrap();
        let b = slots.try_take().unwrap();
        assert_eq!(slots.open(), 2);
        assert!(slots.try_take().is_none());
        assert!(slots.try_take().is_none());
        drop(a);
        assert_eq!(slots.open(), 1);
        let c = slots.try_take().unwrap();
        assert!(slots.try_take().is_none());
        drop((b, c));
        assert_eq!(slots.open(), 0);
    }

    #[test]
    fn slots_hold_under_contention() {
        let slots = Arc::new(ConnectionSlots::new("test socket", 5));
        let barrier = Arc::new(std::sync::Barrier::new(8));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (slots, barrier) = (slots.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    (0..100)
                        .filter_map(|_| slots.try_take())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let held: Vec<Slot> = threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        assert_eq!(held.len(), 5);
        assert_eq!(slots.open(), 5);
        drop(held);
        assert_eq!(slots.open(), 0);
    }
}
