//! Connection slots: at most `max_connections` ordinary connections, plus
//! a separate `max_question_connections` for connections whose request is
//! blocked in `request_user_input` (which may wait ten minutes and must
//! not starve the ordinary pool).
//!
//! Each connection holds exactly one permit for its whole life: an
//! ordinary one from admission, swapped for a question permit while a
//! question waits, and swapped back after the answer when there is room.
//! When there is none, the connection is closed after that response, so
//! the two pools together never hold more than their two caps.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

#[derive(Clone)]
pub(crate) struct Pools {
    ordinary: Arc<Semaphore>,
    questions: Arc<Semaphore>,
}

/// The permit a connection holds (kept only to be dropped with it).
enum Held {
    Ordinary { _permit: OwnedSemaphorePermit },
    Question { _permit: OwnedSemaphorePermit },
}

/// One connection's permit.
pub(crate) struct ConnSlot {
    pools: Pools,
    held: Mutex<Held>,
}

impl Pools {
    pub(crate) fn new(ordinary: usize, questions: usize) -> Self {
        Self {
            ordinary: Arc::new(Semaphore::new(ordinary)),
            questions: Arc::new(Semaphore::new(questions)),
        }
    }

    /// A slot for a new connection, or `None` when the ordinary pool is full.
    pub(crate) fn admit(&self) -> Option<Arc<ConnSlot>> {
        let permit = self.ordinary.clone().try_acquire_owned().ok()?;
        Some(Arc::new(ConnSlot {
            pools: self.clone(),
            held: Mutex::new(Held::Ordinary { _permit: permit }),
        }))
    }
}

impl ConnSlot {
    fn held(&self) -> MutexGuard<'_, Held> {
        // Every change is one assignment: a poisoned lock is consistent.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Moves the connection to the question pool while a question waits,
    /// freeing its ordinary slot. `false` when the question pool is full
    /// (the connection keeps its ordinary slot).
    pub(crate) fn enter_question(&self) -> bool {
        let mut held = self.held();
        if matches!(*held, Held::Question { .. }) {
            return true;
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
        if matches!(*held, Held::Ordinary { .. }) {
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

    #[test]
    fn the_ordinary_pool_caps_connections() {
        let pools = Pools::new(2, 1);
        let a = pools.admit().unwrap();
        let _b = pools.admit().unwrap();
        assert!(pools.admit().is_none());
        drop(a);
        assert!(pools.admit().is_some());
    }

    #[test]
    fn a_waiting_question_frees_its_ordinary_slot_and_takes_a_question_slot() {
        let pools = Pools::new(1, 1);
        let a = pools.admit().unwrap();
        assert!(pools.admit().is_none());
        assert!(a.enter_question());
        // The ordinary slot is free for another connection now.
        let b = pools.admit().unwrap();
        // The question pool is full: a second question cannot wait.
        assert!(!b.enter_question());
        // After its answer, `a` finds no ordinary room and must close.
        assert!(!a.settle());
        drop(b);
        assert!(a.settle());
        assert!(pools.admit().is_none());
        drop(a);
        assert!(pools.admit().is_some());
    }
}
