//! What connects the pool to the rest of the master without the pool
//! knowing it: the [`PoolEvent`]s it reports to the router, the
//! [`Wiring`] every instance gets, and the [`Slots`] its lifecycle tasks
//! free when their agent ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use agent_client_protocol::UntypedMessage;
use agent_client_protocol::v1::Responder;
use serde_json::Value;
use tokio::sync::{OnceCell, mpsc, oneshot};
use wta_agent::AgentKey;

use super::instance::AgentInstance;
use crate::reaper::Reaper;
use crate::relay::SessionRoutes;
use crate::stats::RelayStats;

/// What the pool tells the router.
#[derive(Debug)]
pub(crate) enum PoolEvent {
    /// Agent `instance` sent a notification or a request that the relay did
    /// not copy. Its connection reads on only once `handled` is answered
    /// (or dropped), so whatever it wrote next is handled after this.
    FromAgent {
        instance: u64,
        message: FromAgent,
        handled: oneshot::Sender<()>,
    },
    /// Agent `instance` is gone and its slot free; `reason` in English.
    Exited { instance: u64, reason: String },
}

/// An agent's message for one of its sessions' helper.
#[derive(Debug)]
pub(crate) enum FromAgent {
    Notification(UntypedMessage),
    /// `session/request_permission`, `fs/*`, `terminal/*`: answered by the helper.
    Request(UntypedMessage, Box<Responder<Value>>),
}

/// What every instance the pool starts is wired to.
#[derive(Debug)]
pub(crate) struct Wiring {
    /// Stops agent groups left behind if this process dies.
    pub reaper: Reaper,
    /// The router's end of [`PoolEvent`]s.
    pub events: mpsc::UnboundedSender<PoolEvent>,
    /// Where the relay finds a routed update's helper.
    pub routes: Arc<dyn SessionRoutes>,
    /// Relay counters for the routing benchmark (`None`: not counted).
    pub stats: Option<Arc<RelayStats>>,
}

pub(super) type Cell = Arc<OnceCell<Arc<AgentInstance>>>;

/// A pool slot: which agent, and which generation of it (0 = shared).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PoolKey {
    pub agent: AgentKey,
    pub generation: u64,
}

/// One slot's instance (once started) and when it was last handed out.
#[derive(Debug)]
pub(super) struct Slot {
    pub cell: Cell,
    pub claimed_at: Instant,
}

/// The slots, shared with the lifecycle tasks (which free theirs).
#[derive(Debug, Default)]
pub(crate) struct Slots(Mutex<HashMap<PoolKey, Slot>>);

impl Slots {
    pub(super) fn lock(&self) -> MutexGuard<'_, HashMap<PoolKey, Slot>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Removes the slot holding instance `id`, returning that instance.
    pub(super) fn forget_id(&self, id: u64) -> Option<Arc<AgentInstance>> {
        let mut slots = self.lock();
        let key = slots
            .iter()
            .find(|(_, slot)| slot.cell.get().is_some_and(|i| i.id == id))
            .map(|(k, _)| k.clone())?;
        slots.remove(&key).and_then(|slot| slot.cell.get().cloned())
    }
}
