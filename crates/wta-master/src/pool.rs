//! The agent pool: one process per `AgentKey`, started lazily and shared.
//!
//! Two helpers racing for the same key share one spawn (a `OnceCell` per key).
//! Slots are keyed by [`PoolKey`]: the `AgentKey` plus a generation, 0 for the
//! shared instance; `/restart` asks for a fresh generation, i.e. a new process
//! private to the restarting helper, so other helpers on a hung shared
//! instance are not disturbed.
//!
//! The pool knows nothing of helpers or routes. What an agent sends that
//! the relay did not copy, and an instance's end, it reports as
//! [`PoolEvent`]s on a channel the router reads (`pool/start.rs`); the
//! relay finds a routed update's helper through the [`SessionRoutes`] it is
//! given. An instance's lifecycle task owns the child: when the process
//! exits or its connection ends, its slot is removed (the next request for
//! that key spawns a fresh instance), [`PoolEvent::Exited`] is sent and the
//! whole process group is stopped.
//!
//! Idle instances are retired ([`Pool::retire_if_idle`]): every successful
//! [`Pool::get`] claims its instance under the pool lock, stamping its
//! slot's `claimed_at`, and an instance claimed within the grace period is
//! never retired; so a helper that has just selected it (and is about to
//! record it or send `session/new`) cannot lose it, whatever the caller's
//! idle check saw; once it is retired, a racing `get` sees the slot gone
//! and starts a fresh instance.
//!
//! A start that fails (the agent exits, closes its output, refuses or does
//! not answer `initialize` within `start::initialize_timeout`) is a
//! [`StartError`] that says why as data (`pool/failure.rs`, the last stderr
//! lines from `pool/stderr.rs`), for the helper to show and for the master log.
//!
//! The pool lock is a leaf: held for map work only.

mod failure;
mod instance;
mod start;
mod stderr;
mod wiring;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use wta_agent::registry::LaunchSpec;

pub(crate) use failure::StartError;
pub(crate) use instance::AgentInstance;
#[cfg(test)]
pub(crate) use instance::test_instance;
use wiring::{Cell, PoolKey, Slot, Slots};
pub(crate) use wiring::{FromAgent, PoolEvent, Wiring};

/// What [`Pool::retire_if_idle`] did.
#[derive(Debug)]
pub(crate) enum Retire {
    /// Removed from the pool; the caller must stop it.
    Retired(Arc<AgentInstance>),
    /// Handed out within the grace period: check again later.
    RecentlyClaimed,
    /// A helper or a session still uses it.
    InUse,
    /// No longer in the pool (died or already retired).
    Gone,
}

#[derive(Debug)]
pub(crate) struct Pool {
    slots: Arc<Slots>,
    wiring: Arc<Wiring>,
    next: AtomicU64,
    next_generation: AtomicU64,
}

impl Pool {
    pub fn new(wiring: Wiring) -> Self {
        Self {
            slots: Arc::default(),
            wiring: Arc::new(wiring),
            next: AtomicU64::new(0),
            next_generation: AtomicU64::new(0),
        }
    }

    /// A generation no instance has used yet (for a private `/restart` instance).
    pub fn fresh_generation(&self) -> u64 {
        self.next_generation.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The live instance for `spec.key` in `generation` (0 = shared), starting
    /// one if needed.
    pub async fn get(
        &self,
        spec: &LaunchSpec,
        generation: u64,
    ) -> Result<Arc<AgentInstance>, StartError> {
        let key = PoolKey {
            agent: spec.key.clone(),
            generation,
        };
        for _ in 0..3 {
            let cell = self.cell(&key);
            let instance = cell
                .get_or_try_init(|| {
                    let start = start::Start {
                        spec: spec.clone(),
                        generation,
                        id: self.next.fetch_add(1, Ordering::Relaxed),
                    };
                    start::start(self.wiring.clone(), self.slots.clone(), start)
                })
                .await?
                .clone();
            if !instance.is_alive() {
                self.slots.forget_id(instance.id);
            } else if self.claim(&key, &instance) {
                return Ok(instance);
            }
            // Dead, or retired as idle while we waited: start a fresh one.
        }
        Err(StartError::plain(format!(
            "agent `{}` keeps exiting right after it starts",
            spec.key.id
        )))
    }

    fn cell(&self, key: &PoolKey) -> Cell {
        let mut slots = self.slots.lock();
        let slot = slots.entry(key.clone()).or_insert_with(|| Slot {
            cell: Cell::default(),
            claimed_at: Instant::now(),
        });
        slot.cell.clone()
    }

    /// Stamps `instance` as just handed out, if its slot still holds it.
    fn claim(&self, key: &PoolKey, instance: &AgentInstance) -> bool {
        let mut slots = self.slots.lock();
        match slots.get_mut(key) {
            Some(slot) if slot.cell.get().is_some_and(|i| i.id == instance.id) => {
                slot.claimed_at = Instant::now();
                true
            }
            _ => false,
        }
    }

    /// Removes instance `id` from the pool when it was not handed out within
    /// `grace` and the caller found it `idle` (no helper selected it, no
    /// session is bound to it). The caller stops it.
    pub fn retire_if_idle(&self, id: u64, grace: Duration, idle: bool) -> Retire {
        let mut slots = self.slots.lock();
        let Some((key, slot)) = slots
            .iter()
            .find(|(_, slot)| slot.cell.get().is_some_and(|i| i.id == id))
        else {
            return Retire::Gone;
        };
        if slot.claimed_at.elapsed() < grace {
            return Retire::RecentlyClaimed;
        }
        if !idle {
            return Retire::InUse;
        }
        let key = key.clone();
        match slots.remove(&key).and_then(|slot| slot.cell.get().cloned()) {
            Some(instance) => Retire::Retired(instance),
            None => Retire::Gone,
        }
    }

    pub fn all(&self) -> Vec<Arc<AgentInstance>> {
        self.slots
            .lock()
            .values()
            .filter_map(|s| s.cell.get().cloned())
            .collect()
    }
}
