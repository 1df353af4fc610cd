//! The one place where the runtime meets terminal-action proposals: card
//! decisions (`Effect::ConfirmProposal` / `CancelProposal`) go to the
//! proposal engine, which claims the proposal and runs the executor.

use super::engine::Runtime;
use crate::app::{DomainEvent, Effect};

impl Runtime {
    /// Hands a card decision to the proposal engine.
    pub(super) fn proposal_decision(&mut self, effect: Effect) -> Vec<DomainEvent> {
        tracing::debug!(?effect, "proposal decision without a proposal engine");
        vec![DomainEvent::Error(
            "terminal-action proposals are not available in this helper".to_owned(),
        )]
    }
}
