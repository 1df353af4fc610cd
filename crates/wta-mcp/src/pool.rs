//! Connection slots, in three pools:
//!
//! - *unproven*: every connection from its accept until a request of it
//!   passes the checks with a valid bearer ([`wta_agent::admission`]): at
//!   most `max_unproven`, a new connection evicting the oldest (one that
//!   sent nothing, when there is one), each closed when it has not
//!   authenticated within the deadline. Idle connections can hold only this
//!   pool, so they never starve an agent that connects and sends at once;
//! - *ordinary*: at most `max_connections` authenticated connections;
//! - *questions*: a separate `max_question_connections` for connections
//!   whose request is blocked in `request_user_input` (which may wait ten
//!   minutes and must not starve the ordinary pool).
//!
//! Each connection holds exactly one place for its whole life: an unproven
//! one from its accept, swapped for an ordinary permit when it
//! authenticates ([`ConnSlot::prove`]; when the ordinary pool is full the
//! request is answered 503 and the connection closed), for a question permit
//! while a question waits, and back after the answer when there is room.
//! When there is none, the connection is closed after that response, so
//! the pools together never hold more than their caps.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use wta_agent::admission::{Pending, Unproven, Watch};
use wta_agent::heap::{REFUSAL_LOG_INTERVAL, RefusalLog};

/// The name of this socket in log lines.
const SOCKET: &str = "session MCP endpoint";

#[derive(Clone)]
pub(crate) struct Pools {
    unproven: Unproven,
    ordinary: Arc<Semaphore>,
    max_ordinary: usize,
    questions: Arc<Semaphore>,
    refusals: Arc<Mutex<RefusalLog>>,
}

/// The place a connection holds (kept only to be dropped with it).
enum Held {
    Unproven { _pending: Pending },
    Ordinary { _permit: OwnedSemaphorePermit },
    Question { _permit: OwnedSemaphorePermit },
}

/// One connection's place.
pub(crate) struct ConnSlot {
    pools: Pools,
    held: Mutex<Held>,
    watch: Watch,
}

/// The caps of [`Pools`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caps {
    pub unproven: usize,
    pub auth_timeout: Duration,
    pub ordinary: usize,
    pub questions: usize,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change is one assignment: a poisoned lock is consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pools {
    pub(crate) fn new(caps: Caps) -> Self {
        Self {
            unproven: Unproven::new(SOCKET, caps.unproven, caps.auth_timeout),
            ordinary: Arc::new(Semaphore::new(caps.ordinary)),
            max_ordinary: caps.ordinary,
            questions: Arc::new(Semaphore::new(caps.questions)),
            refusals: Arc::new(Mutex::new(RefusalLog::default())),
        }
    }

    /// A place for a connection just accepted: always given, in the
    /// unproven pool (a full one closes its oldest connection instead).
    /// Within a tokio runtime.
    pub(crate) fn admit(&self) -> Arc<ConnSlot> {
        let pending = self.unproven.admit();
        Arc::new(ConnSlot {
            pools: self.clone(),
            watch: pending.watch(),
            held: Mutex::new(Held::Unproven { _pending: pending }),
        })
    }

    fn refused(&self) {
        let report = lock(&self.refusals).refuse(Instant::now());
        if let Some(refused) = report {
            tracing::warn!(
                socket = SOCKET,
                limit = self.max_ordinary,
                refused,
                "{SOCKET}: refusing authenticated connections, {} are open already (at most one such line per {} s; `refused` counts the refusals it covers)",
                self.max_ordinary,
                REFUSAL_LOG_INTERVAL.as_secs()
            );
        }
    }
}

impl ConnSlot {
    fn held(&self) -> MutexGuard<'_, Held> {
        lock(&self.held)
    }

    /// Watches the connection's unproven place: the server closes the
    /// connection when it is lost (evicted, or not authenticated in time).
    pub(crate) fn watch(&self) -> &Watch {
        &self.watch
    }

    /// A request of this connection authenticated: it leaves the unproven
    /// pool for an ordinary place (a no-op once it has one). `false` when
    /// the ordinary pool is full (logged once per burst): the caller
    /// answers 503 and closes the connection, which stays unproven.
    pub(crate) fn prove(&self) -> bool {
        let mut held = self.held();
        if !matches!(*held, Held::Unproven { .. }) {
            return true;
        }
        match self.pools.ordinary.clone().try_acquire_owned() {
            Ok(permit) => {
                *held = Held::Ordinary { _permit: permit };
                true
            }
            Err(_) => {
                drop(held);
                self.pools.refused();
                false
            }
        }
    }

    /// Moves the connection to the question pool while a question waits,
    /// freeing its ordinary slot. `false` when the question pool is full
    /// (the connection keeps its ordinary slot), or, which the server never
    /// lets happen, when the connection has not authenticated.
    pub(crate) fn enter_question(&self) -> bool {
        let mut held = self.held();
        match *held {
            Held::Question { .. } => return true,
            Held::Unproven { .. } => return false,
            Held::Ordinary { .. } => {}
        }
        match self.pools.questions.clone().try_acquire_owned() {
            Ok(permit) => {
                *held = Held::Question { _permit: permit };
                true
            }
            Err(_) => false,
        }
    }

    /// After a response: back to the ordinary pool when it has room.
    /// `false` when it has none; the caller then closes the connection.
    pub(crate) fn settle(&self) -> bool {
        let mut held = self.held();
        if !matches!(*held, Held::Question { .. }) {
            return true;
        }
        match self.pools.ordinary.clone().try_acquire_owned() {
            Ok(permit) => {
                *held = Held::Ordinary { _permit: permit };
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pools(unproven: usize, ordinary: usize, questions: usize) -> Pools {
        Pools::new(Caps {
            unproven,
            auth_timeout: Duration::from_secs(600),
            ordinary,
            questions,
        })
    }

    #[tokio::test]
    async fn the_ordinary_pool_caps_authenticated_connections() {
        let pools = pools(8, 2, 1);
        let a = pools.admit();
        let b = pools.admit();
        let c = pools.admit();
        assert!(a.prove());
        assert!(a.prove(), "proving twice takes one place");
        assert!(b.prove());
        assert!(!c.prove());
        drop(a);
        assert!(c.prove());
    }

    #[tokio::test]
    async fn a_full_unproven_pool_evicts_its_oldest_connection_not_a_proven_one() {
        let pools = pools(2, 4, 1);
        let proven = pools.admit();
        assert!(proven.prove());
        let first = pools.admit();
        let second = pools.admit();
        let third = pools.admit();
        assert_eq!(
            first.watch().lost().await,
            wta_agent::admission::Lost::Evicted
        );
        assert!(second.prove() && third.prove());
        // `proven` was never in the pool's way: its watch never fires,
        // while a newer unproven one is evicted.
        let fourth = pools.admit();
        let fifth = pools.admit();
        let _sixth = pools.admit();
        tokio::select! {
            biased;
            lost = proven.watch().lost() => panic!("a proven connection was lost: {lost:?}"),
            lost = fourth.watch().lost() => assert_eq!(lost, wta_agent::admission::Lost::Evicted),
        }
        assert!(fifth.prove());
    }

    #[tokio::test]
    async fn a_waiting_question_frees_its_ordinary_slot_and_takes_a_question_slot() {
        let pools = pools(8, 1, 1);
        let a = pools.admit();
        assert!(
            !a.enter_question(),
            "an unauthenticated connection asks nothing"
        );
        assert!(a.prove());
        let b = pools.admit();
        assert!(!b.prove());
        assert!(a.enter_question());
        // The ordinary slot is free for another connection now.
        assert!(b.prove());
        // The question pool is full: a second question cannot wait.
        assert!(!b.enter_question());
        // After its answer, `a` finds no ordinary room and must close.
        assert!(!a.settle());
        drop(b);
        assert!(a.settle());
        let c = pools.admit();
        assert!(!c.prove());
        drop(a);
        assert!(c.prove());
    }
}
