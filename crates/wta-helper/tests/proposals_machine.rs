//! The proposal state machine, driven with explicit time: every validation
//! status, lease, digest, retry budget, tombstones, claims and timeouts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use wta_helper::proposals::machine::{Effect, Event, ProposalState, Via, step};
use wta_helper::proposals::{Approval, ClaimError, TurnContext};
use wta_protocol::limits::{ARMED_LEASE, TOMBSTONE_TTL, USER_DECISION_TIMEOUT};
use wta_protocol::{
    Channel, FinalStatus, HelperId, Origin, PaneId, ProposalId, ProposalRequest, ResponseLine,
    TurnNonce, ValidationLine, ValidationStatus as S,
};

const HELPER: HelperId = HelperId::from_bytes([0x11; 16]);
const GOOD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","rationale":"see files","actions":[{"type":"send","input":"ls -la"}]}]}"#;
const REORDERED: &str = r#"{"choices":[{"actions":[{"input":"ls -la","type":"send"}],"title":"List","choice":1}],"recommended_choice":1,"origin":"terminal_agent","schema_version":1}"#;

struct Sim {
    state: Option<ProposalState>,
    now: Instant,
    next_id: u8,
}

impl Sim {
    fn new() -> Self {
        Self {
            state: Some(ProposalState::new(HELPER)),
            now: Instant::now(),
            next_id: 1,
        }
    }

    fn step(&mut self, event: Event) -> Vec<Effect> {
        let (state, effects) = step(self.state.take().unwrap(), event, self.now);
        self.state = Some(state);
        effects
    }

    fn state(&self) -> &ProposalState {
        self.state.as_ref().unwrap()
    }

    fn issue(&mut self, n: u8) -> Channel {
        self.issue_with(n, turn())
    }

    fn issue_with(&mut self, n: u8, turn: TurnContext) -> Channel {
        let nonce = TurnNonce::from_bytes([n; 16]);
        self.step(Event::IssueChannel { nonce, turn });
        Channel::new(HELPER, nonce)
    }

    fn arm(&mut self, channel: Channel, payload: &str) {
        self.step(Event::Arm {
            channel,
            payload: payload.to_owned(),
        });
    }

    fn send(&mut self, channel: Channel, payload: &str) -> (ValidationLine, Vec<Effect>) {
        self.send_ui(channel, payload, true)
    }

    fn send_ui(
        &mut self,
        channel: Channel,
        payload: &str,
        ui: bool,
    ) -> (ValidationLine, Vec<Effect>) {
        self.send_via(channel, payload, ui, Via::Cli)
    }

    fn send_via(
        &mut self,
        channel: Channel,
        payload: &str,
        ui: bool,
        via: Via,
    ) -> (ValidationLine, Vec<Effect>) {
        let proposal_id = ProposalId::from_bytes([self.next_id; 16]);
        self.next_id += 1;
        let mut effects = self.step(Event::Validate {
            request: ProposalRequest::new(channel, payload),
            proposal_id,
            ui_ready: ui,
            via,
        });
        let Effect::Validation(line) = effects.remove(0) else {
            panic!("first effect must be the validation line: {effects:?}")
        };
        (line, effects)
    }

    fn advance(&mut self, d: Duration) {
        self.now += d;
    }
}

fn turn() -> TurnContext {
    TurnContext::agent_turn(
        Some(PaneId::parse("%1").unwrap()),
        Some(PaneId::parse("%9").unwrap()),
    )
}

fn finals(effects: &[Effect]) -> Vec<FinalStatus> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Final(f) => Some(f.status),
            _ => None,
        })
        .collect()
}

#[test]
fn armed_canonical_payload_is_accepted_pre_approved_with_any_key_order() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    sim.arm(ch, REORDERED);
    let (line, effects) = sim.send(ch, REORDERED);
    assert_eq!(line.status, S::Accepted);
    assert!(!line.retryable);
    let Some(Effect::Accepted(acc)) = effects.first() else {
        panic!("{effects:?}")
    };
    assert_eq!(acc.approval, Approval::PreApproved);
    assert_eq!(Some(acc.id), line.proposal_id);
    assert_eq!(acc.turn, turn());
    assert!(sim.state().awaiting().is_some());
}

#[test]
fn unarmed_proposal_is_accepted_but_flagged_until_the_session_is_known_to_ask() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let (line, effects) = sim.send(ch, GOOD);
    assert_eq!(line.status, S::Accepted);
    let Some(Effect::Accepted(acc)) = effects.first() else {
        panic!()
    };
    assert_eq!(acc.approval, Approval::NotPreApproved);
    assert!(acc.approval.notice().unwrap().contains("not pre-approved"));

    // Once the agent used the permission flow, an unarmed request is not_armed.
    let ch2 = sim.issue(2);
    sim.arm(ch2, GOOD);
    sim.send(ch2, GOOD);
    let ch3 = sim.issue(3);
    let (line, _) = sim.send(ch3, GOOD);
    assert_eq!((line.status, line.retryable), (S::NotArmed, true));
    // Yolo on: unasked runs are expected again.
    sim.step(Event::AgentMayRunUnasked);
    assert_eq!(sim.send(ch3, GOOD).0.status, S::Accepted);
}

/// The session endpoint's bearer stands for the agent's permission: its
/// proposal is accepted without arming, even where the session is known to
/// ask, and shows no "not pre-approved" note; every other rule still
/// holds (one use per turn, the turn's origin, no card without a turn).
#[test]
fn the_session_endpoint_needs_no_arming_but_keeps_every_other_rule() {
    let mut sim = Sim::new();
    let c = sim.issue(1);
    sim.arm(c, GOOD); // the session is known to ask
    let c = sim.issue(2);
    let (line, effects) = sim.send_via(c, GOOD, true, Via::SessionEndpoint);
    assert_eq!(line.status, S::Accepted, "{line:?}");
    let Some(Effect::Accepted(acc)) = effects.first() else {
        panic!("{effects:?}")
    };
    assert_eq!(acc.approval, Approval::SessionEndpoint);
    assert_eq!(acc.approval.notice(), None);
    let (again, _) = sim.send_via(c, GOOD, true, Via::SessionEndpoint);
    assert_eq!(again.status, S::AlreadyConsumed);
    let c = sim.issue(3);
    let autofix = GOOD.replace("terminal_agent", "autofix");
    let (wrong, _) = sim.send_via(c, &autofix, true, Via::SessionEndpoint);
    assert_eq!(
        wrong.status,
        S::Rejected,
        "the turn's origin decides: {wrong:?}"
    );
    // The same request from the CLI on a fresh turn still needs arming.
    let c = sim.issue(4);
    let (cli, _) = sim.send_via(c, GOOD, true, Via::Cli);
    assert_eq!(cli.status, S::NotArmed);
}

#[test]
fn every_refusal_status_is_reachable() {
    let mut sim = Sim::new();
    // helper_mismatch
    let foreign = Channel::new(
        HelperId::from_bytes([0x22; 16]),
        TurnNonce::from_bytes([1; 16]),
    );
    sim.issue(1);
    assert_eq!(sim.send(foreign, GOOD).0.status, S::HelperMismatch);
    // unknown_channel
    let unknown = Channel::new(HELPER, TurnNonce::from_bytes([0x77; 16]));
    assert_eq!(sim.send(unknown, GOOD).0.status, S::UnknownChannel);
    // invalid_schema (retryable)
    let ch = sim.issue(2);
    let (line, _) = sim.send(ch, r#"{"schema_version":1}"#);
    assert_eq!((line.status, line.retryable), (S::InvalidSchema, true));
    // rejected: origin mismatch, not retryable, channel closed
    let autofix = GOOD.replace("terminal_agent", "autofix");
    let (line, _) = sim.send(ch, &autofix);
    assert_eq!((line.status, line.retryable), (S::Rejected, false));
    assert_eq!(sim.send(ch, GOOD).0.status, S::AlreadyConsumed);
    // superseded
    let old = sim.issue(3);
    sim.issue(4);
    assert_eq!(sim.send(old, GOOD).0.status, S::Superseded);
    // stale: cancelled turn
    let cancelled = sim.issue(5);
    sim.step(Event::TurnCancelled);
    assert_eq!(sim.send(cancelled, GOOD).0.status, S::Stale);
    // unavailable: no UI, then transport loss
    let ch = sim.issue(6);
    assert_eq!(sim.send_ui(ch, GOOD, false).0.status, S::Unavailable);
    let ch = sim.issue(7);
    sim.step(Event::TransportLost);
    assert_eq!(sim.send(ch, GOOD).0.status, S::Unavailable);
    // not_armed / expired / digest_mismatch
    let ch = sim.issue(8);
    sim.arm(ch, GOOD);
    sim.advance(ARMED_LEASE + Duration::from_millis(1));
    let (line, _) = sim.send(ch, GOOD);
    assert_eq!((line.status, line.retryable), (S::Expired, true));
    let (line, _) = sim.send(ch, GOOD);
    assert_eq!((line.status, line.retryable), (S::NotArmed, true));
    let ch = sim.issue(9);
    sim.arm(ch, GOOD);
    let (line, _) = sim.send(ch, REORDERED);
    assert_eq!((line.status, line.retryable), (S::DigestMismatch, true));
    // accepted, then already_consumed
    sim.arm(ch, REORDERED);
    assert_eq!(sim.send(ch, REORDERED).0.status, S::Accepted);
    assert_eq!(sim.send(ch, REORDERED).0.status, S::AlreadyConsumed);
}

#[test]
fn lease_is_valid_at_30_s_and_expired_after() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    sim.arm(ch, GOOD);
    sim.advance(ARMED_LEASE);
    let (line, effects) = sim.send(ch, GOOD);
    assert_eq!(line.status, S::Accepted);
    let Some(Effect::Accepted(acc)) = effects.first() else {
        panic!("{effects:?}")
    };
    assert_eq!(acc.approval, Approval::PreApproved);

    // One millisecond past the lease: expired, retryable, saying why, and
    // nothing is accepted; arming again is accepted pre-approved.
    let ch = sim.issue(2);
    sim.arm(ch, GOOD);
    sim.advance(ARMED_LEASE + Duration::from_millis(1));
    let (line, effects) = sim.send(ch, GOOD);
    assert_eq!((line.status, line.retryable), (S::Expired, true));
    assert!(line.reason.unwrap().contains("lease ran out"));
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Accepted(_))),
        "{effects:?}"
    );
    sim.arm(ch, GOOD);
    let (line, effects) = sim.send(ch, GOOD);
    assert_eq!(line.status, S::Accepted);
    let Some(Effect::Accepted(acc)) = effects.first() else {
        panic!("{effects:?}")
    };
    assert_eq!(acc.approval, Approval::PreApproved);
}

#[test]
fn digest_mismatch_then_retry_with_a_fresh_preflight_is_accepted() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    sim.arm(ch, GOOD);
    assert_eq!(sim.send(ch, REORDERED).0.status, S::DigestMismatch);
    sim.arm(ch, REORDERED);
    let (line, _) = sim.send(ch, REORDERED);
    assert_eq!(line.status, S::Accepted);
}

#[test]
fn retry_budget_of_two_then_the_channel_is_closed() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let bad = r#"{"nope":1}"#;
    assert!(sim.send(ch, bad).0.retryable);
    assert!(sim.send(ch, bad).0.retryable);
    let (third, _) = sim.send(ch, bad);
    assert_eq!((third.status, third.retryable), (S::InvalidSchema, false));
    assert!(third.reason.unwrap().contains("retry budget"));
    assert_eq!(sim.send(ch, GOOD).0.status, S::AlreadyConsumed);
}

#[test]
fn oversize_payload_is_invalid_schema_and_retryable() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let big = GOOD.replace("see files", &"x".repeat(9000));
    let (line, _) = sim.send(ch, &big);
    assert_eq!((line.status, line.retryable), (S::InvalidSchema, true));
    assert!(line.reason.unwrap().contains("8192"));
}

#[test]
fn new_turn_supersedes_the_awaiting_card_and_late_clients_learn_it() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let (line, _) = sim.send(ch, GOOD);
    let id = line.proposal_id.unwrap();
    let effects = sim.step(Event::IssueChannel {
        nonce: TurnNonce::from_bytes([2; 16]),
        turn: turn(),
    });
    assert_eq!(finals(&effects), vec![FinalStatus::Superseded]);
    assert_eq!(sim.send(ch, GOOD).0.status, S::Superseded);
    let refused = sim.step(Event::Claim {
        proposal_id: id,
        choice: 1,
    });
    assert!(matches!(
        refused.as_slice(),
        [Effect::ClaimRefused(ClaimError::NotLive(_))]
    ));
}

#[test]
fn new_session_ends_the_card_as_session_replaced_and_bumps_the_epoch() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    sim.send(ch, GOOD);
    let epoch = sim.state().epoch();
    let effects = sim.step(Event::SessionReplaced);
    assert_eq!(finals(&effects), vec![FinalStatus::SessionReplaced]);
    assert_eq!(sim.state().epoch(), epoch + 1);
    assert_eq!(sim.send(ch, GOOD).0.status, S::Stale);
}

#[test]
fn claim_is_atomic_and_once() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let id = sim.send(ch, GOOD).0.proposal_id.unwrap();
    assert!(matches!(
        sim.step(Event::Claim {
            proposal_id: id,
            choice: 3
        })
        .as_slice(),
        [Effect::ClaimRefused(ClaimError::NoSuchChoice(3))]
    ));
    let effects = sim.step(Event::Claim {
        proposal_id: id,
        choice: 1,
    });
    assert_eq!(finals(&effects), vec![FinalStatus::Confirmed]);
    assert!(matches!(&effects[1], Effect::Claimed(c) if c.id == id && c.choice.choice == 1));
    assert!(matches!(
        sim.step(Event::Claim {
            proposal_id: id,
            choice: 1
        })
        .as_slice(),
        [Effect::ClaimRefused(ClaimError::NotLive(_))]
    ));
    // Cancelling after a confirm does nothing.
    assert!(sim.step(Event::CancelCard { proposal_id: id }).is_empty());
}

#[test]
fn a_timed_out_card_cannot_be_claimed() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let id = sim.send(ch, GOOD).0.proposal_id.unwrap();
    sim.advance(USER_DECISION_TIMEOUT + Duration::from_millis(1));
    let effects = sim.step(Event::Claim {
        proposal_id: id,
        choice: 1,
    });
    assert_eq!(finals(&effects), vec![FinalStatus::TimedOut]);
    assert!(matches!(
        effects.last(),
        Some(Effect::ClaimRefused(ClaimError::TimedOut))
    ));
    assert!(sim.state().awaiting().is_none());
}

#[test]
fn cancel_card_and_turn_cancel_end_as_cancelled() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let id = sim.send(ch, GOOD).0.proposal_id.unwrap();
    let effects = sim.step(Event::CancelCard { proposal_id: id });
    assert_eq!(finals(&effects), vec![FinalStatus::Cancelled]);
    let ch = sim.issue(2);
    sim.send(ch, GOOD);
    assert_eq!(
        finals(&sim.step(Event::TurnCancelled)),
        vec![FinalStatus::Cancelled]
    );
}

#[test]
fn turn_end_keeps_the_card_but_closes_the_channel() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let id = sim.send(ch, GOOD).0.proposal_id.unwrap();
    assert!(finals(&sim.step(Event::TurnEnded)).is_empty());
    assert_eq!(sim.send(ch, GOOD).0.status, S::AlreadyConsumed);
    let effects = sim.step(Event::Claim {
        proposal_id: id,
        choice: 1,
    });
    assert_eq!(finals(&effects), vec![FinalStatus::Confirmed]);
    let unused = sim.issue(2);
    sim.step(Event::TurnEnded);
    assert_eq!(sim.send(unused, GOOD).0.status, S::Stale);
}

#[test]
fn tombstones_are_bounded_and_expire() {
    let mut sim = Sim::new();
    let first = sim.issue(1);
    for n in 2..=7 {
        sim.issue(n);
    }
    assert!(sim.state().tombstone_count() <= 4);
    assert_eq!(sim.send(first, GOOD).0.status, S::UnknownChannel);
    let recent = Channel::new(HELPER, TurnNonce::from_bytes([6; 16]));
    assert_eq!(sim.send(recent, GOOD).0.status, S::Superseded);
    sim.advance(TOMBSTONE_TTL + Duration::from_secs(1));
    assert_eq!(sim.send(recent, GOOD).0.status, S::UnknownChannel);
}

#[test]
fn shutdown_makes_everything_unavailable() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    sim.send(ch, GOOD);
    assert_eq!(
        finals(&sim.step(Event::Shutdown)),
        vec![FinalStatus::Unavailable]
    );
    let ch = sim.issue(2);
    assert_eq!(sim.send(ch, GOOD).0.status, S::Unavailable);
}

#[test]
fn delegate_without_a_configured_agent_is_rejected_and_agent_pane_choices_dropped() {
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let delegate = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Hand off","actions":[{"type":"open_and_send","target":"tab","input":"fix","delegate":true}]}]}"#;
    let (line, _) = sim.send(ch, delegate);
    assert_eq!((line.status, line.retryable), (S::Rejected, false));

    let agent = PaneId::parse("%9").unwrap();
    let ch = sim.issue_with(2, TurnContext::agent_turn(Some(agent.clone()), Some(agent)));
    let two = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Run","actions":[{"type":"send","input":"ls"}]},{"choice":2,"title":"Tab","actions":[{"type":"open","target":"tab"}]}]}"#;
    let (line, effects) = sim.send(ch, two);
    assert_eq!(line.status, S::Accepted);
    let Some(Effect::Accepted(acc)) = effects.first() else {
        panic!()
    };
    assert_eq!(acc.dropped_choices, vec![1]);
    assert_eq!(acc.payload.recommended_choice, 2);
    assert_eq!(acc.payload.choices.len(), 1);

    let mut autofix = turn();
    autofix.origin = Origin::Autofix;
    let ch = sim.issue_with(3, autofix);
    let (line, _) = sim.send(ch, GOOD);
    assert_eq!(line.status, S::Rejected);
}

// Multi-step turns ------------------------------------------------------

impl Sim {
    /// Sends `payload` on `channel`, the user confirms choice 1, and the
    /// exchange completes; returns the CLI's last line, if any.
    fn confirmed_then(&mut self, channel: Channel, n: u8) -> Option<ResponseLine> {
        let (line, _) = self.send(channel, GOOD);
        assert_eq!(line.status, S::Accepted, "{line:?}");
        let id = line.proposal_id.unwrap();
        let claimed = self.step(Event::Claim {
            proposal_id: id,
            choice: 1,
        });
        assert!(
            claimed.iter().any(|e| matches!(e, Effect::Claimed(_))),
            "{claimed:?}"
        );
        self.complete(id, n)
    }

    fn complete(&mut self, after: ProposalId, n: u8) -> Option<ResponseLine> {
        let effects = self.step(Event::Continue {
            after,
            nonce: TurnNonce::from_bytes([n; 16]),
        });
        effects.into_iter().find_map(|e| match e {
            Effect::Continued { line, .. } => Some(line),
            _ => None,
        })
    }
}

fn next_channel(line: Option<ResponseLine>) -> (Channel, u32) {
    match line {
        Some(ResponseLine::Next(next)) => {
            assert_eq!(
                next.invocation,
                wta_protocol::invocation::invocation_template(&next.channel)
            );
            (next.channel, next.remaining)
        }
        other => panic!("expected a next line, got {other:?}"),
    }
}

#[test]
fn a_confirmed_exchange_gives_the_turn_a_fresh_one_use_channel() {
    let mut sim = Sim::new();
    let first = sim.issue(1);
    let (second, left) = next_channel(sim.confirmed_then(first, 2));
    assert_ne!(second, first);
    assert_eq!(left, wta_protocol::limits::DEFAULT_PROPOSALS_PER_TURN - 1);
    // The used channel is spent; the new one takes one proposal, same turn.
    assert_eq!(sim.send(first, GOOD).0.status, S::AlreadyConsumed);
    let (third, left) = next_channel(sim.confirmed_then(second, 3));
    assert_eq!(left, wta_protocol::limits::DEFAULT_PROPOSALS_PER_TURN - 2);
    assert_eq!(sim.send(second, GOOD).0.status, S::AlreadyConsumed);
    let (line, effects) = sim.send(third, GOOD);
    assert_eq!(line.status, S::Accepted);
    let Some(Effect::Accepted(card)) = effects.first() else {
        panic!("{effects:?}")
    };
    assert_eq!(card.turn, turn(), "the same turn's trusted context");
    // Another helper's channel with the same nonce is not this one.
    let foreign = Channel::new(
        HelperId::from_bytes([0x22; 16]),
        TurnNonce::from_bytes([3; 16]),
    );
    assert_eq!(sim.send(foreign, GOOD).0.status, S::HelperMismatch);
}

#[test]
fn the_budget_ends_the_chain_with_a_reason() {
    let mut sim = Sim::new();
    sim.state.as_mut().unwrap().set_budget(2);
    let first = sim.issue(1);
    let (second, left) = next_channel(sim.confirmed_then(first, 2));
    assert_eq!(left, 1);
    match sim.confirmed_then(second, 3) {
        Some(ResponseLine::End(end)) => assert!(end.reason.contains("2 proposals"), "{end:?}"),
        other => panic!("{other:?}"),
    }
    assert!(
        sim.state().live().is_none(),
        "no channel is left for the turn"
    );
}

#[test]
fn stop_a_new_turn_or_a_new_session_end_the_chain() {
    for stop in [
        Event::TurnCancelled,
        Event::SessionReplaced,
        Event::TransportLost,
        Event::TurnEnded,
    ] {
        let mut sim = Sim::new();
        let ch = sim.issue(1);
        let id = sim.send(ch, GOOD).0.proposal_id.unwrap();
        sim.step(Event::Claim {
            proposal_id: id,
            choice: 1,
        });
        sim.step(stop.clone());
        assert_eq!(sim.complete(id, 2), None, "{stop:?}: no next channel");
        assert!(sim.state().live().is_none(), "{stop:?}");
    }
    // A newer turn: its own channel stays, the old exchange gets none.
    let mut sim = Sim::new();
    let ch = sim.issue(1);
    let id = sim.send(ch, GOOD).0.proposal_id.unwrap();
    sim.step(Event::Claim {
        proposal_id: id,
        choice: 1,
    });
    let newer = sim.issue(5);
    assert_eq!(sim.complete(id, 2), None);
    assert_eq!(sim.state().live().map(|l| l.channel), Some(newer));
}
