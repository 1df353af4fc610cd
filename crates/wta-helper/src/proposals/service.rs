//! [`ProposalService`]: the shared, lockable home of the proposal state
//! machine, and the API the runtime, the card and the executor call.
//!
//! Every transition runs `machine::step` under one mutex and applies its
//! effects before the lock is released, so "two CLIs racing on one channel"
//! and "confirm vs. supersede" are decided by one atomic step each. Effects
//! only push into unbounded channels (never block under the lock).
//!
//! Lines to a CLI connection go through a per-proposal sender registered in
//! the same critical section that accepts the proposal, so a final line can
//! never be lost between accept and registration; the connection task writes
//! them in order after the validation line (see `server.rs`).
//!
//! A CLI that hangs up while its card still waits for the user (the agent
//! gave up on the tool call) makes the card stale, like a superseded one,
//! with [`CLIENT_GONE_REASON`]: nothing it confirms could report back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::mpsc;
use wta_protocol::limits::USER_DECISION_TIMEOUT;
use wta_protocol::{
    Channel, ExecutionLine, FinalStatus, HelperId, ProposalId, ProposalRequest, ResponseLine,
    TurnNonce, ValidationLine,
};

use super::machine::{Effect, Event, ProposalState, Via, step};
use super::preflight::{Preflight, preflight};
use super::types::{ClaimError, Claimed, ProposalEvent, TurnContext};

/// Why a card went stale when its CLI disconnected before the user decided.
pub const CLIENT_GONE_REASON: &str = "the agent stopped waiting for this proposal";

/// A validation line and, when accepted, the receiver of the lines that
/// follow (final, then execution lines).
pub type Validated = (
    ValidationLine,
    Option<mpsc::UnboundedReceiver<ResponseLine>>,
);

/// A claimed proposal and the way back to its CLI for execution lines
/// (issue 7). Drop `executions` (or call [`ExecutionSink::finish`]) when
/// every action has reported; the CLI then exits.
#[derive(Debug)]
pub struct ConfirmedProposal {
    pub claimed: Claimed,
    pub executions: ExecutionSink,
}

/// Writes execution lines to the CLI that sent a confirmed proposal. When
/// it is dropped (every action reported), the exchange is complete: the
/// turn may go on, and the CLI's last line is the `next` channel (or why
/// there is none).
#[derive(Debug)]
pub struct ExecutionSink {
    id: ProposalId,
    tx: Option<mpsc::UnboundedSender<ResponseLine>>,
    service: Option<ProposalService>,
}

impl Drop for ExecutionSink {
    fn drop(&mut self) {
        let (Some(tx), Some(service)) = (self.tx.take(), self.service.take()) else {
            return;
        };
        if tx.is_closed() {
            return;
        }
        if let Some(line) = service.exchange_complete(self.id) {
            let _ = tx.send(line);
        }
    }
}

impl ExecutionSink {
    /// Queues one execution line; false when the CLI is gone (or its
    /// `proposal_id` is not this proposal's, which is refused).
    pub fn send(&self, line: ExecutionLine) -> bool {
        if line.proposal_id != self.id {
            tracing::warn!("execution line for another proposal refused");
            return false;
        }
        self.tx
            .as_ref()
            .is_some_and(|tx| tx.send(ResponseLine::Execution(line)).is_ok())
    }

    /// Whether a CLI is still connected to receive lines.
    pub fn is_connected(&self) -> bool {
        self.tx.as_ref().is_some_and(|tx| !tx.is_closed())
    }

    /// Closes the connection after the queued lines are written.
    pub fn finish(self) {}
}

struct Shared {
    machine: Option<ProposalState>,
    /// Proposal → its CLI connection, from accept until its final line.
    lines: HashMap<ProposalId, mpsc::UnboundedSender<ResponseLine>>,
    ui: Option<mpsc::UnboundedSender<ProposalEvent>>,
}

/// Clone-able handle on one helper's proposal engine.
#[derive(Clone)]
pub struct ProposalService {
    helper: HelperId,
    shared: Arc<Mutex<Shared>>,
}

impl std::fmt::Debug for ProposalService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProposalService")
            .field("helper", &self.helper)
            .finish_non_exhaustive()
    }
}

/// What a step produced for its caller.
#[derive(Default)]
struct Outcome {
    validation: Option<ValidationLine>,
    claimed: Option<Result<ConfirmedProposal, ClaimError>>,
    continued: Option<ResponseLine>,
}

impl ProposalService {
    /// An engine for helper `helper`, with no card UI attached yet (until
    /// [`Self::attach_ui`], proposals are answered `unavailable`).
    pub fn new(helper: HelperId) -> Self {
        Self {
            helper,
            shared: Arc::new(Mutex::new(Shared {
                machine: Some(ProposalState::new(helper)),
                lines: HashMap::new(),
                ui: None,
            })),
        }
    }

    /// An engine with a fresh random helper id.
    pub fn with_random_id() -> std::io::Result<Self> {
        Ok(Self::new(HelperId::from_bytes(random_bytes()?)))
    }

    pub fn helper(&self) -> HelperId {
        self.helper
    }

    /// Connects the card side: from now on accepted proposals arrive on the
    /// returned receiver. Dropping it makes later proposals `unavailable`.
    pub fn attach_ui(&self) -> mpsc::UnboundedReceiver<ProposalEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.lock().ui = Some(tx);
        rx
    }

    /// The current turn's channel, if one is live.
    pub fn live_channel(&self) -> Option<Channel> {
        let shared = self.lock();
        shared.machine.as_ref()?.live().map(|l| l.channel)
    }

    /// A prompt starts: issues its channel (superseding the previous one).
    pub fn issue_turn(&self, turn: TurnContext) -> std::io::Result<Channel> {
        let nonce = TurnNonce::from_bytes(random_bytes()?);
        self.step(Event::IssueChannel { nonce, turn }, Instant::now());
        Ok(Channel::new(self.helper, nonce))
    }

    /// The permission preflight for a request's `toolCall` in a session
    /// whose MCP server is `own_server`; arms the live channel when the
    /// decision is [`Preflight::AllowAndArm`].
    pub fn preflight(&self, own_server: Option<&str>, tool_call: &Value) -> Preflight {
        let decision = preflight(self.live_channel().as_ref(), own_server, tool_call);
        if let Preflight::AllowAndArm { channel, payload } = &decision {
            let event = Event::Arm {
                channel: *channel,
                payload: payload.clone(),
            };
            self.step(event, Instant::now());
        }
        decision
    }

    /// Validates one request from a CLI. Returns the validation line and,
    /// when accepted, the receiver of the lines that follow (final, then
    /// execution lines).
    pub fn validate(&self, request: ProposalRequest, now: Instant) -> std::io::Result<Validated> {
        self.validate_via(request, Via::Cli, now)
    }

    /// Validates a proposal a session tool made (the master forwarded it
    /// from the session's MCP endpoint) on the live turn's channel; as
    /// [`Self::validate`] otherwise. Without a live turn it is refused: an
    /// agent proposes only during a turn the user started.
    pub fn validate_session(&self, payload: String, now: Instant) -> std::io::Result<Validated> {
        let Some(channel) = self.live_channel() else {
            let line = ValidationLine::refused(
                wta_protocol::ValidationStatus::Stale,
                "no turn is running in this agent pane; propose while answering the user",
                false,
            );
            return Ok((line, None));
        };
        self.validate_via(
            ProposalRequest::new(channel, payload),
            Via::SessionEndpoint,
            now,
        )
    }

    /// The live turn's trusted origin, if a turn is live.
    pub fn live_origin(&self) -> Option<wta_protocol::Origin> {
        let shared = self.lock();
        shared.machine.as_ref()?.live().map(|l| l.turn.origin)
    }

    fn validate_via(
        &self,
        request: ProposalRequest,
        via: Via,
        now: Instant,
    ) -> std::io::Result<Validated> {
        let proposal_id = ProposalId::from_bytes(random_bytes()?);
        let (tx, rx) = mpsc::unbounded_channel();
        let mut shared = self.lock();
        let ui_ready = shared.ui.as_ref().is_some_and(|ui| !ui.is_closed());
        shared.lines.insert(proposal_id, tx);
        let event = Event::Validate {
            request,
            proposal_id,
            ui_ready,
            via,
        };
        let outcome = apply(&mut shared, event, now);
        let line = outcome.validation.unwrap_or_else(|| {
            ValidationLine::refused(
                wta_protocol::ValidationStatus::Unavailable,
                "internal error",
                false,
            )
        });
        if line.proposal_id == Some(proposal_id) {
            drop(shared);
            spawn_timeout(self.clone());
            Ok((line, Some(rx)))
        } else {
            shared.lines.remove(&proposal_id);
            Ok((line, None))
        }
    }

    /// The user confirmed `choice`: atomically claims the awaiting card.
    /// On success the final `confirmed` line is already queued to the CLI;
    /// the executor reports through [`ConfirmedProposal::executions`].
    pub fn confirm(&self, id: ProposalId, choice: u64) -> Result<ConfirmedProposal, ClaimError> {
        self.confirm_at(id, choice, Instant::now())
    }

    /// [`Self::confirm`] at a given time (tests drive the 10-minute timeout).
    pub fn confirm_at(
        &self,
        id: ProposalId,
        choice: u64,
        now: Instant,
    ) -> Result<ConfirmedProposal, ClaimError> {
        let outcome = apply(
            &mut self.lock(),
            Event::Claim {
                proposal_id: id,
                choice,
            },
            now,
        );
        let mut claimed = outcome
            .claimed
            .unwrap_or(Err(ClaimError::NotLive("no such card")));
        if let Ok(confirmed) = &mut claimed {
            confirmed.executions.service = Some(self.clone());
        }
        claimed
    }

    /// Proposal `id`'s exchange is complete: the line that ends its CLI's
    /// answer (a fresh channel for the same turn, or why there is none);
    /// `None` when the turn went on without it (stopped, replaced).
    fn exchange_complete(&self, id: ProposalId) -> Option<ResponseLine> {
        let nonce = match random_bytes() {
            Ok(bytes) => TurnNonce::from_bytes(bytes),
            Err(err) => {
                tracing::warn!("no randomness for the next channel: {err}");
                return None;
            }
        };
        let event = Event::Continue { after: id, nonce };
        apply(&mut self.lock(), event, Instant::now()).continued
    }

    /// Proposals one turn may make (`[proposals] per_turn`).
    pub fn set_budget(&self, budget: u32) {
        if let Some(machine) = self.lock().machine.as_mut() {
            machine.set_budget(budget);
        }
    }

    /// The CLI that sent proposal `id` hung up. A card still awaiting the
    /// user ends `cancelled` with [`CLIENT_GONE_REASON`], so it can no
    /// longer be confirmed; a proposal already decided is left alone.
    pub fn client_gone(&self, id: ProposalId) {
        let event = Event::CancelCard { proposal_id: id };
        apply_as(
            &mut self.lock(),
            event,
            Instant::now(),
            Some(CLIENT_GONE_REASON),
        );
    }

    /// The user dismissed the card: final `cancelled`.
    pub fn cancel_card(&self, id: ProposalId) {
        self.step(Event::CancelCard { proposal_id: id }, Instant::now());
    }

    /// Esc or `/stop` while the turn runs.
    pub fn turn_cancelled(&self) {
        self.step(Event::TurnCancelled, Instant::now());
    }

    /// The prompt finished.
    pub fn turn_ended(&self) {
        self.step(Event::TurnEnded, Instant::now());
    }

    /// `/new`, `/restart`, agent switch, session load: bumps the epoch.
    pub fn session_replaced(&self) {
        self.step(Event::SessionReplaced, Instant::now());
    }

    /// The master or agent connection is gone.
    pub fn transport_lost(&self) {
        self.step(Event::TransportLost, Instant::now());
    }

    /// Yolo turned on: an unarmed proposal is no longer suspicious.
    pub fn agent_may_run_unasked(&self) {
        self.step(Event::AgentMayRunUnasked, Instant::now());
    }

    /// The helper exits: every card and channel ends `unavailable`.
    pub fn shutdown(&self) {
        self.step(Event::Shutdown, Instant::now());
    }

    /// Applies timeouts as of `now`.
    pub fn tick(&self, now: Instant) {
        self.step(Event::Tick, now);
    }

    fn step(&self, event: Event, now: Instant) {
        apply(&mut self.lock(), event, now);
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panic under the lock cannot leave the machine half-stepped (the
        // state is taken and put back whole), so a poisoned lock is usable.
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Steps the machine and carries out its effects, under the lock.
fn apply(shared: &mut Shared, event: Event, now: Instant) -> Outcome {
    apply_as(shared, event, now, None)
}

/// [`apply`], telling the card side `reason` for the cards it ends.
fn apply_as(shared: &mut Shared, event: Event, now: Instant, reason: Option<&str>) -> Outcome {
    let Some(machine) = shared.machine.take() else {
        return Outcome::default();
    };
    let (machine, effects) = step(machine, event, now);
    shared.machine = Some(machine);
    let mut outcome = Outcome::default();
    let mut held: Option<mpsc::UnboundedSender<ResponseLine>> = None;
    for effect in effects {
        match effect {
            Effect::Validation(line) => outcome.validation = Some(line),
            Effect::Accepted(accepted) => {
                if let Some(ui) = &shared.ui {
                    let _ = ui.send(ProposalEvent::Accepted(accepted));
                }
            }
            Effect::Final(line) => {
                let (id, status) = (line.proposal_id, line.status);
                if let Some(tx) = shared.lines.remove(&id) {
                    let _ = tx.send(ResponseLine::Final(line));
                    if status == FinalStatus::Confirmed {
                        held = Some(tx);
                    }
                }
                if let Some(ui) = &shared.ui {
                    let _ = ui.send(ProposalEvent::Ended {
                        id,
                        status,
                        reason: reason.map(str::to_owned),
                    });
                }
            }
            Effect::Claimed(claimed) => {
                let executions = ExecutionSink {
                    id: claimed.id,
                    tx: held.take(),
                    service: None,
                };
                outcome.claimed = Some(Ok(ConfirmedProposal {
                    claimed,
                    executions,
                }));
            }
            Effect::ClaimRefused(err) => outcome.claimed = Some(Err(err)),
            Effect::Continued { line, .. } => outcome.continued = Some(line),
        }
    }
    outcome
}

/// Times the card out after 10 minutes even when nothing else happens.
fn spawn_timeout(service: ProposalService) {
    if tokio::runtime::Handle::try_current().is_err() {
        return; // no runtime (pure tests): the next step applies the timeout
    }
    tokio::spawn(async move {
        tokio::time::sleep(USER_DECISION_TIMEOUT + std::time::Duration::from_millis(10)).await;
        service.tick(Instant::now());
    });
}

/// 16 bytes from the OS CSPRNG.
pub(crate) fn random_bytes() -> std::io::Result<[u8; 16]> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes)
}
