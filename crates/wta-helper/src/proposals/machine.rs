//! The proposal channel manager as data: [`ProposalState`], [`Event`]s in,
//! [`Effect`]s out, and the pure [`step`] between them (DESIGN §4.2).
//!
//! One live channel per helper (issuing a new one supersedes the old), at
//! most one card awaiting the user, and up to [`MAX_TOMBSTONES`] tombstones
//! (only a channel digest, a status and a time) so a late client learns
//! `superseded`/`already_consumed`/`stale`/`unavailable` instead of
//! `unknown_channel`. Randomness and time are inputs (ids ride in events,
//! `now` is an argument), so every transition is reproducible in a test.
//!
//! Invariants: every `Validate` yields exactly one `Effect::Validation`; a
//! proposal is claimed at most once, and only while it awaits the user and is
//! younger than [`USER_DECISION_TIMEOUT`]; every accepted proposal ends with
//! exactly one `Effect::Final`.

use std::collections::VecDeque;
use std::time::Instant;

use wta_protocol::limits::{MAX_TOMBSTONES, TOMBSTONE_TTL, USER_DECISION_TIMEOUT};
use wta_protocol::{
    Armed, Channel, ChannelDigest, FinalLine, FinalStatus, HelperId, ProposalId, ProposalRequest,
    TurnNonce, ValidationLine, ValidationStatus,
};

use super::types::{ClaimError, Claimed, ProposalAccepted, TurnContext};

/// Where the live channel is in its one use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    Issued,
    /// A canonical permission preflight armed this digest.
    Armed(Armed),
    /// A proposal was accepted on it: one use is spent.
    Consumed,
}

/// The current turn's channel.
#[derive(Debug, Clone)]
pub struct LiveChannel {
    pub channel: Channel,
    pub epoch: u64,
    pub turn: TurnContext,
    pub phase: Phase,
    /// Failed validations so far (retry budget).
    pub failures: u32,
    /// Proposals this turn accepted before this channel was issued.
    pub proposals: u32,
    /// The proposal this channel carried, once consumed.
    pub accepted: Option<ProposalId>,
}

#[derive(Debug, Clone)]
struct Tombstone {
    digest: ChannelDigest,
    status: ValidationStatus,
    reason: &'static str,
    at: Instant,
}

/// The card awaiting the user.
#[derive(Debug, Clone)]
pub struct Awaiting {
    pub accepted: ProposalAccepted,
    pub accepted_at: Instant,
}

/// Everything the manager knows.
#[derive(Debug, Clone)]
pub struct ProposalState {
    helper: HelperId,
    epoch: u64,
    closed: bool,
    /// This session's agent asks permission before running the CLI (it armed
    /// a channel before): an unarmed request is then `not_armed`.
    session_asks: bool,
    live: Option<LiveChannel>,
    awaiting: Option<Awaiting>,
    tombstones: VecDeque<Tombstone>,
    finished: VecDeque<(ProposalId, FinalStatus)>,
    /// Proposals one turn may make (`[proposals] per_turn`).
    budget: u32,
}

const MAX_FINISHED: usize = 8;

/// What happened.
#[derive(Debug, Clone)]
pub enum Event {
    /// A prompt starts: this nonce is its channel's secret half.
    IssueChannel { nonce: TurnNonce, turn: TurnContext },
    /// The permission preflight approved the canonical invocation of the
    /// live channel with this payload.
    Arm { channel: Channel, payload: String },
    /// A CLI (or the session endpoint) sent this request. `proposal_id` is
    /// drawn by the caller; `ui_ready` says whether a card can be shown at all.
    Validate {
        request: ProposalRequest,
        proposal_id: ProposalId,
        ui_ready: bool,
        via: Via,
    },
    /// The user confirmed `choice` on the card.
    Claim {
        proposal_id: ProposalId,
        choice: u64,
    },
    /// The user dismissed the card (Esc).
    CancelCard { proposal_id: ProposalId },
    /// The turn was cancelled (Esc while running, `/stop`).
    TurnCancelled,
    /// The turn ended normally.
    TurnEnded,
    /// `/new`, `/restart`, an agent switch or a session load.
    SessionReplaced,
    /// The agent or master connection is gone.
    TransportLost,
    /// Yolo was turned on: the agent may now run the CLI without asking.
    AgentMayRunUnasked,
    /// The helper is exiting: everything ends `unavailable`.
    Shutdown,
    /// Time passed (card timeout, tombstone expiry).
    Tick,
    /// The exchange of confirmed proposal `after` is complete (its last
    /// execution line is out): the turn may go on, on a fresh channel whose
    /// secret half is `nonce`, within its budget.
    Continue { after: ProposalId, nonce: TurnNonce },
}

/// How a request reached the helper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// The proposal CLI on the helper's socket, holding the turn's channel.
    Cli,
    /// A tool of the session MCP endpoint, authenticated by the session's
    /// bearer (the master forwards it to the helper of that session): the
    /// helper fills in its live channel, and no arming applies.
    SessionEndpoint,
}

/// What the service must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// The answer to a `Validate`, for that connection.
    Validation(ValidationLine),
    /// Show a card.
    Accepted(ProposalAccepted),
    /// The card ended: write this line to its CLI and remove the card.
    Final(FinalLine),
    /// The confirmation claimed the card: execute it.
    Claimed(Claimed),
    /// The confirmation could not claim the card: nothing may run.
    ClaimRefused(ClaimError),
    /// The last line for proposal `after`'s CLI: a fresh channel (`next`)
    /// or why there is none (`end`).
    Continued {
        after: ProposalId,
        line: wta_protocol::ResponseLine,
    },
}

impl ProposalState {
    pub fn new(helper: HelperId) -> Self {
        Self {
            helper,
            epoch: 0,
            closed: false,
            session_asks: false,
            live: None,
            awaiting: None,
            tombstones: VecDeque::new(),
            finished: VecDeque::new(),
            budget: wta_protocol::limits::DEFAULT_PROPOSALS_PER_TURN,
        }
    }

    /// Proposals one turn may make, from the next turn on (at least 1).
    pub fn set_budget(&mut self, budget: u32) {
        self.budget = budget.clamp(1, wta_protocol::limits::MAX_PROPOSALS_PER_TURN);
    }

    pub fn helper(&self) -> HelperId {
        self.helper
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub fn live(&self) -> Option<&LiveChannel> {
        self.live.as_ref()
    }

    pub fn awaiting(&self) -> Option<&Awaiting> {
        self.awaiting.as_ref()
    }

    pub fn tombstone_count(&self) -> usize {
        self.tombstones.len()
    }

    fn tombstone(
        &mut self,
        channel: &Channel,
        status: ValidationStatus,
        reason: &'static str,
        now: Instant,
    ) {
        let digest = ChannelDigest::of(channel);
        self.tombstones.retain(|t| t.digest != digest);
        self.tombstones.push_back(Tombstone {
            digest,
            status,
            reason,
            at: now,
        });
        while self.tombstones.len() > MAX_TOMBSTONES {
            self.tombstones.pop_front();
        }
    }

    /// Retires the live channel into a tombstone.
    fn retire_live(&mut self, status: ValidationStatus, reason: &'static str, now: Instant) {
        if let Some(live) = self.live.take() {
            self.tombstone(&live.channel, status, reason, now);
        }
    }

    /// Ends the awaiting card with `status`.
    fn finish(&mut self, status: FinalStatus, reason: Option<&str>, out: &mut Vec<Effect>) {
        if let Some(awaiting) = self.awaiting.take() {
            let id = awaiting.accepted.id;
            self.remember(id, status);
            out.push(Effect::Final(FinalLine {
                status,
                proposal_id: id,
                choice: None,
                reason: reason.map(str::to_owned),
            }));
        }
    }

    fn remember(&mut self, id: ProposalId, status: FinalStatus) {
        self.finished.push_back((id, status));
        while self.finished.len() > MAX_FINISHED {
            self.finished.pop_front();
        }
    }
}

/// One transition. Pure: same state, event and time, same result.
pub fn step(mut state: ProposalState, event: Event, now: Instant) -> (ProposalState, Vec<Effect>) {
    let mut out = Vec::new();
    state
        .tombstones
        .retain(|t| now.saturating_duration_since(t.at) <= TOMBSTONE_TTL);
    expire_card(&mut state, now, &mut out);
    match event {
        Event::IssueChannel { nonce, turn } => {
            state.finish(
                FinalStatus::Superseded,
                Some("a newer turn started"),
                &mut out,
            );
            state.retire_live(
                ValidationStatus::Superseded,
                "a newer turn replaced this channel",
                now,
            );
            if !state.closed {
                state.live = Some(LiveChannel {
                    channel: Channel::new(state.helper, nonce),
                    epoch: state.epoch,
                    turn,
                    phase: Phase::Issued,
                    failures: 0,
                    proposals: 0,
                    accepted: None,
                });
            }
        }
        Event::Arm { channel, payload } => {
            if let Some(live) = state.live.as_mut().filter(|l| l.channel == channel)
                && live.phase != Phase::Consumed
            {
                live.phase = Phase::Armed(Armed::arm(
                    payload.as_bytes(),
                    now,
                    wta_protocol::limits::ARMED_LEASE,
                ));
                state.session_asks = true;
            }
        }
        Event::Validate {
            request,
            proposal_id,
            ui_ready,
            via,
        } => {
            let line = validate(
                &mut state,
                &request,
                (proposal_id, via),
                ui_ready,
                now,
                &mut out,
            );
            out.insert(0, Effect::Validation(line));
        }
        Event::Claim {
            proposal_id,
            choice,
        } => match claim(&mut state, proposal_id, choice) {
            Ok(claimed) => {
                out.push(Effect::Final(FinalLine {
                    status: FinalStatus::Confirmed,
                    proposal_id,
                    choice: Some(choice),
                    reason: None,
                }));
                out.push(Effect::Claimed(claimed));
            }
            Err(err) => out.push(Effect::ClaimRefused(err)),
        },
        Event::CancelCard { proposal_id } => {
            if state
                .awaiting
                .as_ref()
                .is_some_and(|a| a.accepted.id == proposal_id)
            {
                state.finish(
                    FinalStatus::Cancelled,
                    Some("the user dismissed the card"),
                    &mut out,
                );
            }
        }
        Event::TurnCancelled => {
            state.finish(
                FinalStatus::Cancelled,
                Some("the turn was cancelled"),
                &mut out,
            );
            state.retire_live(ValidationStatus::Stale, "the turn was cancelled", now);
        }
        Event::TurnEnded => {
            // The card (if any) stays up: the user may still decide.
            let consumed = state
                .live
                .as_ref()
                .is_some_and(|l| l.phase == Phase::Consumed);
            if consumed {
                state.retire_live(
                    ValidationStatus::AlreadyConsumed,
                    "this channel was already used",
                    now,
                );
            } else {
                state.retire_live(
                    ValidationStatus::Stale,
                    "the turn that issued this channel is over",
                    now,
                );
            }
        }
        Event::SessionReplaced => {
            state.epoch += 1;
            state.session_asks = false;
            state.finish(
                FinalStatus::SessionReplaced,
                Some("the agent session was replaced"),
                &mut out,
            );
            state.retire_live(
                ValidationStatus::Stale,
                "the agent session was replaced",
                now,
            );
        }
        Event::TransportLost => {
            state.finish(
                FinalStatus::Unavailable,
                Some("the agent connection was lost"),
                &mut out,
            );
            state.retire_live(
                ValidationStatus::Unavailable,
                "the agent connection was lost",
                now,
            );
        }
        Event::AgentMayRunUnasked => state.session_asks = false,
        Event::Shutdown => {
            state.closed = true;
            state.finish(
                FinalStatus::Unavailable,
                Some("the agent pane is closing"),
                &mut out,
            );
            state.retire_live(
                ValidationStatus::Unavailable,
                "the agent pane is closing",
                now,
            );
        }
        Event::Tick => {}
        Event::Continue { after, nonce } => {
            continuation::next(&mut state, after, nonce, now, &mut out)
        }
    }
    (state, out)
}

#[path = "continuation.rs"]
mod continuation;
#[path = "validate.rs"]
mod validate;
use validate::validate;

/// Ends a card nobody decided on in time.
fn expire_card(state: &mut ProposalState, now: Instant, out: &mut Vec<Effect>) {
    let late = state
        .awaiting
        .as_ref()
        .is_some_and(|a| now.saturating_duration_since(a.accepted_at) > USER_DECISION_TIMEOUT);
    if late {
        state.finish(
            FinalStatus::TimedOut,
            Some("nobody decided within 10 minutes"),
            out,
        );
    }
}

fn claim(state: &mut ProposalState, id: ProposalId, choice: u64) -> Result<Claimed, ClaimError> {
    let Some(awaiting) = state.awaiting.as_ref().filter(|a| a.accepted.id == id) else {
        let why = match state.finished.iter().rev().find(|(f, _)| *f == id) {
            Some((_, FinalStatus::Confirmed)) => "it was already confirmed",
            Some((_, FinalStatus::Cancelled)) => "it was cancelled",
            Some((_, FinalStatus::Superseded)) => "a newer turn superseded it",
            Some((_, FinalStatus::SessionReplaced)) => "the agent session was replaced",
            Some((_, FinalStatus::TimedOut)) => return Err(ClaimError::TimedOut),
            Some((_, FinalStatus::Unavailable)) => "the agent connection was lost",
            None => "no such card",
        };
        return Err(ClaimError::NotLive(why));
    };
    let Some(picked) = awaiting
        .accepted
        .payload
        .choices
        .iter()
        .find(|c| c.choice == choice)
        .cloned()
    else {
        return Err(ClaimError::NoSuchChoice(choice));
    };
    let accepted = awaiting.accepted.clone();
    state.awaiting = None;
    state.remember(id, FinalStatus::Confirmed);
    Ok(Claimed {
        id,
        choice: picked,
        turn: accepted.turn,
        approval: accepted.approval,
    })
}
