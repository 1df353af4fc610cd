//! One action's progress through the [`lifecycle`](super::lifecycle) while
//! the executor works on it: the events it is fed, the execution id drawn
//! when it dispatches, and the [`ActionResult`] it settles into.

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::time::Instant;
use wta_protocol::{ExecutionId, PaneId};
use wta_shell::RunId;

use super::lifecycle::{self, Event, Phase};
use super::{ActionResult, unavailable};

/// One action on its way through the [`lifecycle`], and the proposal's
/// execution deadline it shares with the rest of its choice.
pub(crate) struct Progress {
    pub(super) phase: Phase,
    pub(super) deadline: Instant,
}

impl Progress {
    pub(super) fn apply(&mut self, event: Event) {
        let phase = std::mem::replace(&mut self.phase, Phase::Confirmed);
        let (phase, effect) = lifecycle::step(phase, event);
        if let Some(lifecycle::Effect::Ignored(why)) = effect {
            tracing::debug!("execution lifecycle: event ignored: {why}");
        }
        self.phase = phase;
    }

    /// Keys are going to `pane` (or it was opened): the execution id is drawn now.
    pub(super) fn dispatch(&mut self, pane: &PaneId) {
        self.apply(Event::Dispatch {
            execution: new_execution_id(),
            pane: pane.clone(),
        });
    }

    pub(super) fn run_opened(&mut self, run: Option<RunId>) {
        if let Some(run) = run {
            self.apply(Event::RunOpened(run));
        }
    }

    pub(super) fn settle(mut self, action: u64, event: Event) -> ActionResult {
        self.apply(event);
        let (dispatch, outcome) = match self.phase {
            Phase::Settled { dispatch, outcome } => (dispatch, outcome),
            // Not reachable: `Ended` and `Cancel` settle every unsettled phase.
            Phase::Dispatched(d) => (Some(d), unavailable("the action ended without a result")),
            Phase::Confirmed => (None, unavailable("the action ended without a result")),
        };
        let execution = dispatch
            .as_ref()
            .map_or_else(new_execution_id, |d| d.execution);
        ActionResult {
            action,
            outcome,
            execution,
            dispatch,
        }
    }
}

/// A fresh execution id: 16 bytes from the OS CSPRNG, or, if that fails,
/// the process, the clock and a counter (unique, not secret: the id only
/// correlates lines of one proposal).
fn new_execution_id() -> ExecutionId {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let bytes = crate::proposals::service::random_bytes().unwrap_or_else(|_| {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&(nanos ^ u64::from(std::process::id())).to_le_bytes());
        b[8..].copy_from_slice(&n.to_le_bytes());
        b
    });
    ExecutionId::from_bytes(bytes)
}
