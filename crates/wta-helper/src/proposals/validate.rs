//! Validating a proposal request (DESIGN §4.2), step by step: the channel
//! it names must be this pane's live one of the current session; its
//! approval is what armed it (the agent's permission request, the session
//! endpoint's bearer, or nothing); the payload must parse, fit the turn's
//! origin and pass the policy; and a card must be showable. Each refusal
//! is a validation line; a retryable one spends one of the channel's
//! retries, a final one closes it. Accepting consumes the channel and
//! makes the card.

use std::time::Instant;

use wta_protocol::limits::RETRY_BUDGET;
use wta_protocol::{
    ArmCheck, ChannelDigest, FinalStatus, ProposalId, ProposalRequest, ValidationLine,
    ValidationStatus, parse_payload,
};

use super::super::policy::{self, Filtered};
use super::super::types::{Approval, ProposalAccepted};
use super::{Awaiting, Effect, Phase, ProposalState, Via};

use ValidationStatus as S;

/// Checks a request in the order of DESIGN §4.2 and returns its answer.
pub(super) fn validate(
    state: &mut ProposalState,
    request: &ProposalRequest,
    (proposal_id, via): (ProposalId, Via),
    ui_ready: bool,
    now: Instant,
    out: &mut Vec<Effect>,
) -> ValidationLine {
    let checked = live_channel(state, request, now)
        .and_then(|()| approval(state, via, request.payload.as_bytes(), now))
        .and_then(|approval| {
            let filtered = checked_payload(state, request.payload.as_bytes(), now)?;
            Ok((approval, filtered))
        })
        .and_then(|found| showable(state, ui_ready, now).map(|()| found));
    match checked {
        Ok((approval, filtered)) => accept(state, proposal_id, approval, filtered, now, out),
        Err(refused) => refused,
    }
}

/// The refusal for a channel that is not the live one.
fn unknown_channel() -> ValidationLine {
    ValidationLine::refused(
        S::UnknownChannel,
        "no live channel with this value; use the channel of the current turn",
        false,
    )
}

/// The request names this pane's live channel, of the current session.
fn live_channel(
    state: &mut ProposalState,
    request: &ProposalRequest,
    now: Instant,
) -> Result<(), ValidationLine> {
    let channel = request.channel;
    if state.closed {
        return Err(ValidationLine::refused(
            S::Unavailable,
            "the agent pane is closing",
            false,
        ));
    }
    if channel.helper() != state.helper {
        return Err(ValidationLine::refused(
            S::HelperMismatch,
            "this channel belongs to another agent pane",
            false,
        ));
    }
    let Some(live) = state.live.as_ref().filter(|l| l.channel == channel) else {
        let digest = ChannelDigest::of(&channel);
        return Err(match state.tombstones.iter().find(|t| t.digest == digest) {
            Some(t) => ValidationLine::refused(t.status, t.reason, false),
            None => unknown_channel(),
        });
    };
    if live.epoch != state.epoch {
        state.retire_live(S::Stale, "the agent session was replaced", now);
        return Err(ValidationLine::refused(
            S::Stale,
            "the agent session was replaced",
            false,
        ));
    }
    Ok(())
}

/// What approved the request: the session endpoint's bearer, the agent's
/// permission request that armed the channel for exactly this payload, or
/// nothing (when the session's agent does not ask).
fn approval(
    state: &mut ProposalState,
    via: Via,
    payload: &[u8],
    now: Instant,
) -> Result<Approval, ValidationLine> {
    let Some(live) = state.live.as_ref() else {
        return Err(unknown_channel());
    };
    let check = match &live.phase {
        Phase::Consumed => {
            return Err(ValidationLine::refused(
                S::AlreadyConsumed,
                "this channel was already used",
                false,
            ));
        }
        // The bearer authenticated the session; its agent's own permission
        // request (if any) was answered by the preflight.
        _ if via == Via::SessionEndpoint => return Ok(Approval::SessionEndpoint),
        Phase::Issued if state.session_asks => None,
        Phase::Issued => return Ok(Approval::NotPreApproved),
        Phase::Armed(armed) => Some(armed.check(payload, now)),
    };
    let (status, reason) = match check {
        Some(ArmCheck::Ok) => return Ok(Approval::PreApproved),
        None => (
            S::NotArmed,
            "no permission request approved this exact command; request it again",
        ),
        Some(ArmCheck::Expired) => (
            S::Expired,
            "the 30 s approval lease ran out; run the command again",
        ),
        Some(ArmCheck::DigestMismatch) => (
            S::DigestMismatch,
            "the payload differs from the one the permission request approved",
        ),
    };
    Err(fail(state, status, reason.into(), now))
}

/// The payload parsed, fitting the turn's origin, through the policy.
fn checked_payload(
    state: &mut ProposalState,
    payload: &[u8],
    now: Instant,
) -> Result<Filtered, ValidationLine> {
    let Some(live) = state.live.as_ref() else {
        return Err(unknown_channel());
    };
    let parsed = parse_payload(payload).and_then(|p| p.check_origin(live.turn.origin).map(|()| p));
    let policed = parsed.map(|p| policy::apply(p, &live.turn));
    match policed {
        Ok(Ok(filtered)) => Ok(filtered),
        Ok(Err(reason)) => Err(reject(state, S::Rejected, reason, now)),
        Err(err) => {
            let (status, retryable) = err.validation_answer();
            Err(if retryable {
                fail(state, status, err.to_string(), now)
            } else {
                reject(state, status, err.to_string(), now)
            })
        }
    }
}

/// A card can be shown now; else the channel ends unavailable.
fn showable(state: &mut ProposalState, ui_ready: bool, now: Instant) -> Result<(), ValidationLine> {
    if ui_ready {
        return Ok(());
    }
    state.retire_live(S::Unavailable, "no card can be shown right now", now);
    Err(ValidationLine::refused(
        S::Unavailable,
        "the agent pane cannot show a card right now",
        false,
    ))
}

/// Consumes the channel and makes the card.
fn accept(
    state: &mut ProposalState,
    proposal_id: ProposalId,
    approval: Approval,
    filtered: Filtered,
    now: Instant,
    out: &mut Vec<Effect>,
) -> ValidationLine {
    let Some(live) = state.live.as_mut() else {
        return unknown_channel();
    };
    live.phase = Phase::Consumed;
    live.accepted = Some(proposal_id);
    let accepted = ProposalAccepted {
        id: proposal_id,
        payload: filtered.payload,
        dropped_choices: filtered.dropped,
        turn: live.turn.clone(),
        approval,
    };
    // A card still up from earlier in this turn cannot be: the channel is
    // one-use and a new turn supersedes. Guard anyway.
    state.finish(
        FinalStatus::Superseded,
        Some("a newer proposal replaced it"),
        out,
    );
    state.awaiting = Some(Awaiting {
        accepted: accepted.clone(),
        accepted_at: now,
    });
    out.push(Effect::Accepted(accepted));
    ValidationLine::accepted(proposal_id)
}

/// A retryable failure: the channel goes back to `Issued` (disarmed) and
/// spends one retry; past the budget it is tombstoned.
fn fail(
    state: &mut ProposalState,
    status: ValidationStatus,
    reason: String,
    now: Instant,
) -> ValidationLine {
    let Some(live) = state.live.as_mut() else {
        return ValidationLine::refused(status, reason, false);
    };
    live.phase = Phase::Issued;
    live.failures += 1;
    let budget_left = live.failures <= RETRY_BUDGET;
    if !budget_left {
        state.retire_live(
            ValidationStatus::AlreadyConsumed,
            "the channel's retry budget is spent",
            now,
        );
        return ValidationLine::refused(
            status,
            format!("{reason} (retry budget spent; this channel is closed)"),
            false,
        );
    }
    ValidationLine::refused(status, reason, true)
}

/// A final refusal: the channel is closed.
fn reject(
    state: &mut ProposalState,
    status: ValidationStatus,
    reason: String,
    now: Instant,
) -> ValidationLine {
    state.retire_live(
        ValidationStatus::AlreadyConsumed,
        "this channel was already used",
        now,
    );
    ValidationLine::refused(status, reason, false)
}
