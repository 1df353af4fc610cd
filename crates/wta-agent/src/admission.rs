//! Connections that have not proven themselves yet (DESIGN §7): a peer that
//! connects and says nothing must not take the place of the rightful client.
//!
//! Every accepted connection is *unproven* until it completes what its
//! socket calls the first request (the proposal socket's request line, a
//! helper's first JSON-RPC line, HTTP headers with a valid bearer). Unproven
//! connections live in a bounded pool, [`Unproven`]:
//!
//! - when the pool is full a new connection is not refused: it evicts the
//!   oldest unproven connection, preferring one that has not sent a byte
//!   ([`Queue::victim`]), and the evicted one is closed;
//! - a connection whose first request is not complete within the socket's
//!   timeout is closed;
//! - a connection that completes it leaves the pool ([`Pending::prove`]) and
//!   from then on counts against the socket's own cap of served connections
//!   ([`crate::heap::ConnectionSlots`], or the MCP endpoint's pools).
//!
//! So a flood of idle connections holds at most the pool, each place for at
//! most the timeout, and a client that connects and speaks at once is served
//! while the flood is held: it takes a silent connection's place and leaves
//! the pool as soon as its request is read. Evictions and timeouts are each
//! logged once per burst ([`RefusalLog`]), never once per connection.
//!
//! [`Queue`] is the pure part (order and the choice of the victim); the
//! rest adds the runtime: an eviction signal and a deadline per connection.
//! The pool's lock is held only for a queue operation, never across an
//! `await`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::heap::{REFUSAL_LOG_INTERVAL, RefusalLog};

/// Unproven connections in admission order, at most `max` of them. Pure:
/// ids are given, nothing is closed here.
#[derive(Debug)]
struct Queue<T> {
    max: usize,
    entries: VecDeque<Entry<T>>,
}

#[derive(Debug)]
struct Entry<T> {
    id: u64,
    /// The peer sent at least one byte.
    spoke: bool,
    value: T,
}

impl<T> Queue<T> {
    /// A queue of at most `max` entries (at least one).
    fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            entries: VecDeque::new(),
        }
    }

    /// Adds `id` as the newest entry. When the queue was full, the victim
    /// leaves it first and is returned, to be closed.
    fn admit(&mut self, id: u64, value: T) -> Option<(u64, T)> {
        let evicted = if self.entries.len() >= self.max {
            self.victim()
                .and_then(|at| self.entries.remove(at))
                .map(|entry| (entry.id, entry.value))
        } else {
            None
        };
        self.entries.push_back(Entry {
            id,
            spoke: false,
            value,
        });
        evicted
    }

    /// Who makes room: the oldest entry that has not spoken, else the oldest.
    fn victim(&self) -> Option<usize> {
        self.entries
            .iter()
            .position(|entry| !entry.spoke)
            .or_else(|| (!self.entries.is_empty()).then_some(0))
    }

    fn spoke(&mut self, id: u64) {
        if let Some(entry) = self.entries.iter_mut().find(|entry| entry.id == id) {
            entry.spoke = true;
        }
    }

    fn remove(&mut self, id: u64) -> Option<T> {
        let at = self.entries.iter().position(|entry| entry.id == id)?;
        self.entries.remove(at).map(|entry| entry.value)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// The unproven pool of one socket. Cloning shares it.
#[derive(Debug, Clone)]
pub struct Unproven {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    socket: &'static str,
    max: usize,
    timeout: Duration,
    queue: Mutex<Queue<CancellationToken>>,
    next_id: AtomicU64,
    evictions: Mutex<RefusalLog>,
    timeouts: Mutex<RefusalLog>,
}

/// Why an unproven connection must be closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lost {
    /// A newer connection took its place in a full pool.
    Evicted,
    /// Its first request was not complete within the timeout.
    TimedOut,
}

/// One connection's place in the pool: it leaves the pool when proven or
/// dropped.
#[derive(Debug)]
pub struct Pending {
    watch: Watch,
}

/// Watches one connection's place; held by whoever must close the
/// connection when it is lost. Cloning shares it.
#[derive(Debug, Clone)]
pub struct Watch {
    entry: Arc<Place>,
}

#[derive(Debug)]
struct Place {
    shared: Arc<Shared>,
    id: u64,
    evicted: CancellationToken,
    deadline: tokio::time::Instant,
    spoke: AtomicBool,
    /// Proven or dropped: out of the pool for good.
    left: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change is one queue operation or one counter: a poisoned lock
    // is consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Unproven {
    /// `socket` names the socket in log lines ("master socket"); at most
    /// `max` connections wait for their first request, each for at most
    /// `timeout`.
    pub fn new(socket: &'static str, max: usize, timeout: Duration) -> Self {
        Self {
            shared: Arc::new(Shared {
                socket,
                max: max.max(1),
                timeout,
                queue: Mutex::new(Queue::new(max)),
                next_id: AtomicU64::new(0),
                evictions: Mutex::new(RefusalLog::default()),
                timeouts: Mutex::new(RefusalLog::default()),
            }),
        }
    }

    /// A place for a connection just accepted; when the pool is full, the
    /// victim's [`Watch::lost`] returns [`Lost::Evicted`] at once. Call
    /// within a tokio runtime: the deadline runs on tokio's clock.
    pub fn admit(&self) -> Pending {
        let shared = &self.shared;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let evicted = CancellationToken::new();
        let victim = lock(&shared.queue).admit(id, evicted.clone());
        if let Some((_, victim)) = victim {
            victim.cancel();
            let report = lock(&shared.evictions).refuse(Instant::now());
            if let Some(evicted) = report {
                tracing::warn!(
                    socket = shared.socket,
                    limit = shared.max,
                    evicted,
                    "{}: {} connections have not sent their first request; closing the oldest to make room for new ones (at most one such line per {} s; `evicted` counts the connections it covers)",
                    shared.socket,
                    shared.max,
                    REFUSAL_LOG_INTERVAL.as_secs()
                );
            }
        }
        Pending {
            watch: Watch {
                entry: Arc::new(Place {
                    shared: shared.clone(),
                    id,
                    evicted,
                    deadline: tokio::time::Instant::now() + shared.timeout,
                    spoke: AtomicBool::new(false),
                    left: AtomicBool::new(false),
                }),
            },
        }
    }

    /// Connections waiting for their first request now.
    pub fn len(&self) -> usize {
        lock(&self.shared.queue).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn timeout(&self) -> Duration {
        self.shared.timeout
    }
}

impl Pending {
    /// The peer sent bytes: from now on it is evicted only after every
    /// connection that has sent none.
    pub fn saw_bytes(&self) {
        self.watch.saw_bytes();
    }

    pub fn watch(&self) -> Watch {
        self.watch.clone()
    }

    /// See [`Watch::lost`].
    pub async fn lost(&self) -> Lost {
        self.watch.lost().await
    }

    /// The first request is complete: the connection leaves the pool, and
    /// its [`Watch`] never fires. A connection evicted a moment before
    /// (its request completing as the eviction happened) is served too: it
    /// no longer needs the place it lost.
    pub fn prove(self) {}
}

impl Drop for Pending {
    fn drop(&mut self) {
        let place = &self.watch.entry;
        let mut queue = lock(&place.shared.queue);
        place.left.store(true, Ordering::Release);
        queue.remove(place.id);
    }
}

impl Watch {
    /// As [`Pending::saw_bytes`]; cheap after the first call.
    pub fn saw_bytes(&self) {
        let place = &self.entry;
        if place.spoke.swap(true, Ordering::AcqRel) {
            return;
        }
        lock(&place.shared.queue).spoke(place.id);
    }

    /// Returns when the connection must be closed: it was evicted, or its
    /// deadline passed while it was still unproven. Never returns for a
    /// connection that was proven first. Cancel-safe.
    pub async fn lost(&self) -> Lost {
        let place = &self.entry;
        tokio::select! {
            () = place.evicted.cancelled() => Lost::Evicted,
            () = tokio::time::sleep_until(place.deadline) => {
                if place.left.load(Ordering::Acquire) {
                    // Proven: its deadline no longer applies (and nothing
                    // evicts a connection out of the pool).
                    std::future::pending::<()>().await;
                }
                let shared = &place.shared;
                let report = lock(&shared.timeouts).refuse(Instant::now());
                if let Some(closed) = report {
                    tracing::info!(
                        socket = shared.socket,
                        closed,
                        "{}: closing connections that sent no complete first request within {} ms (at most one such line per {} s; `closed` counts the connections it covers)",
                        shared.socket,
                        shared.timeout.as_millis(),
                        REFUSAL_LOG_INTERVAL.as_secs()
                    );
                }
                Lost::TimedOut
            }
        }
    }
}

#[cfg(test)]
#[path = "admission_tests.rs"]
mod tests;
