//! The card side of terminal-action proposals in the runtime, in one place:
//! engine events become card events for the app, card decisions go to the
//! engine (`confirm` claims atomically; nothing runs unless it succeeds),
//! and claimed choices run on the [`Executor`], whose results go back to
//! the CLI as execution lines and into the transcript.
//!
//! New tabs and panels run `$SHELL` (else `/bin/sh`) without WTA's
//! integration wrapper: `open_and_send` then waits for marks only when the
//! user's own rc loads `wta shell-integration`.

use std::sync::Arc;

use wta_host::{TerminalHost, TmuxHost};
use wta_protocol::ExecutionId;
use wta_shell::{TmuxTarget, TrackerConfig, WatchOptions};

use super::engine::{Done, Runtime};
use crate::app::{AcceptedProposal, DomainEvent, Effect};
use crate::executor::{Executor, ExecutorConfig, Launch};
use crate::proposals::service::random_bytes;
use crate::proposals::{Approval, ProposalEvent, runtime_dir};

/// The runtime's card-side state: the executor, once the host is known.
#[derive(Default)]
pub(crate) struct Cards {
    executor: Option<Arc<Executor<TmuxHost>>>,
}

impl std::fmt::Debug for Cards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cards")
            .field("executor", &self.executor.is_some())
            .finish()
    }
}

/// What the app shows for an accepted proposal.
fn card_event(event: ProposalEvent) -> DomainEvent {
    match event {
        ProposalEvent::Accepted(p) => DomainEvent::ProposalAccepted(Box::new(AcceptedProposal {
            id: p.id,
            payload: p.payload,
            target_pane: p
                .turn
                .target_pane
                .as_ref()
                .map_or_else(|| "(no target)".to_owned(), |t| t.to_string()),
            target_cwd: None,
            origin: p.turn.origin,
            armed: p.approval == Approval::PreApproved,
            delegate_agent: p.turn.delegate_agent,
        })),
        // For a card the user decided on, the id is gone and the app ignores it.
        ProposalEvent::Ended { id, status } => DomainEvent::ProposalResolved {
            id,
            status,
            reason: None,
        },
    }
}

fn executor_for(host: &TmuxHost) -> Option<Executor<TmuxHost>> {
    let socket = host.server_info().ok()?.socket;
    let exe = std::env::current_exe().ok()?;
    let shell = std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".to_owned());
    let watch = WatchOptions {
        sink_argv: vec![exe.to_string_lossy().into_owned(), "pipe-sink".into()],
        runtime_dir: runtime_dir().join("watch"),
        config: TrackerConfig::default(),
    };
    let launch = Launch {
        argv: vec![shell],
        env: Vec::new(),
    };
    let config = ExecutorConfig::new(TmuxTarget { socket }, watch, launch);
    Some(Executor::new(Arc::new(host.clone()), config))
}

impl Runtime {
    /// Attaches the card UI to the engine and starts following the target
    /// pane, so its prompt state is known when a card is confirmed.
    pub(super) fn start_cards(&mut self) -> Vec<DomainEvent> {
        let mut rx = self.proposals.service().attach_ui();
        let tx = self.done_tx.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                if tx.send(Done::Event(card_event(event))).is_err() {
                    break;
                }
            }
        });
        let Some(executor) = self.host.as_ref().and_then(executor_for).map(Arc::new) else {
            return Vec::new();
        };
        self.cards.executor = Some(executor.clone());
        if let Some(target) = self.config.target_pane.clone() {
            let tx = self.done_tx.clone();
            tokio::spawn(async move {
                if let Err(err) = executor.watch(&target).await {
                    let _ = tx.send(Done::Event(DomainEvent::Error(format!(
                        "Cannot follow {target}; confirmed commands cannot report results: {err}"
                    ))));
                }
            });
        }
        Vec::new()
    }

    /// Hands a card decision to the proposal engine, then to the executor.
    pub(super) fn proposal_decision(&mut self, effect: Effect) -> Vec<DomainEvent> {
        let (id, choice, mode) = match effect {
            Effect::CancelProposal { id } => {
                self.proposals.service().cancel_card(id);
                return Vec::new();
            }
            Effect::ConfirmProposal { id, choice, mode } => (id, choice, mode),
            _ => return Vec::new(),
        };
        let confirmed = match self.proposals.service().confirm(id, choice) {
            Ok(confirmed) => confirmed,
            Err(err) => return vec![DomainEvent::Error(format!("Not run: {err}"))],
        };
        let (Some(executor), Some(target)) = (
            self.cards.executor.clone(),
            confirmed.claimed.turn.target_pane.clone(),
        ) else {
            return vec![DomainEvent::Error(
                "Not run: this pane has no terminal to act on".to_owned(),
            )];
        };
        let tx = self.done_tx.clone();
        tokio::spawn(async move {
            let sink = confirmed.executions;
            let choice = confirmed.claimed.choice;
            let report = |result: &crate::executor::ActionResult| {
                let execution = ExecutionId::from_bytes(random_bytes().unwrap_or([0; 16]));
                if let Some(line) = result.outcome.execution_line(id, execution, result.action) {
                    sink.send(line);
                }
                let _ = tx.send(Done::Event(DomainEvent::Notice(format!(
                    "Action {}: {}",
                    result.action,
                    result.outcome.summary()
                ))));
            };
            executor.execute(&target, &choice, mode, report).await;
            sink.finish();
        });
        Vec::new()
    }
}
