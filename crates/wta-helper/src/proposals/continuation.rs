//! Multi-step turns (DESIGN §4.8): once a confirmed proposal's exchange is
//! complete, the turn gets a fresh one-use channel, so the agent can go on
//! (run the fix it just reasoned about) with every command still on a card.
//! The new channel is issued only while the channel that carried the
//! proposal is still the live one of the same session (not after the turn
//! ended or was cancelled, a newer turn, `/new`, a replaced session or a
//! lost transport) and only within the turn's budget; past it, the CLI's
//! last line says so instead.

use std::time::Instant;

use wta_protocol::invocation::invocation_template;
use wta_protocol::{
    Channel, EndLine, NextLine, ProposalId, ResponseLine, TurnNonce, ValidationStatus,
};

use super::{Effect, LiveChannel, Phase, ProposalState};

/// `Event::Continue`.
pub(super) fn next(
    state: &mut ProposalState,
    after: ProposalId,
    nonce: TurnNonce,
    now: Instant,
    out: &mut Vec<Effect>,
) {
    let carried = state.live.as_ref().is_some_and(|live| {
        live.phase == Phase::Consumed && live.accepted == Some(after) && live.epoch == state.epoch
    });
    if state.closed || !carried {
        // The chain ended already (stop, a new turn, …): the CLI just ends.
        return;
    }
    let Some(live) = state.live.take() else {
        return;
    };
    let used = live.proposals + 1;
    state.tombstone(
        &live.channel,
        ValidationStatus::AlreadyConsumed,
        "this channel was already used",
        now,
    );
    if used >= state.budget {
        let reason = format!(
            "this turn's {} proposals are spent; end your turn and tell the user what is left to do",
            state.budget
        );
        out.push(Effect::Continued {
            after,
            line: ResponseLine::End(EndLine { reason }),
        });
        return;
    }
    let channel = Channel::new(state.helper, nonce);
    state.live = Some(LiveChannel {
        channel,
        epoch: live.epoch,
        turn: live.turn,
        phase: Phase::Issued,
        failures: 0,
        proposals: used,
        accepted: None,
    });
    out.push(Effect::Continued {
        after,
        line: ResponseLine::Next(NextLine {
            channel,
            invocation: invocation_template(&channel),
            remaining: state.budget - used,
        }),
    });
}
