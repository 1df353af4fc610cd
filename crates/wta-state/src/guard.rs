//! The confirm guard: which card is on top, since when the user can see it,
//! and whether its keys are live yet.
//!
//! Keys go to one card at a time, the one on top: a permission card, else
//! the agent's question, else (unless the master-gone notice covers it) the
//! front proposal card, in its compact form or its full view. The view
//! draws the same card ([`AppState::top_card`] is what both ask). A card
//! takes keys only once it has been on screen, unchanged, for
//! [`CARD_GRACE`]; until then the keys it would act on do nothing (they do
//! not reach the editor either) and the card says so.
//!
//! Invariants, kept by [`settle`] after every event:
//! - `visible_since` is `None` while no card is on top or the pane is hidden
//!   (stashed away in tmux), so a card that was never on screen cannot be
//!   confirmed at all.
//! - It is set to the event's time whenever the card on top is revealed:
//!   another card (or none) was on top after the previous event (a question
//!   or a permission card over it was answered or withdrawn, a new card
//!   reached the front), the full view opened or closed, the pane was shown
//!   again, a resize laid it out anew, or a fact about the proposal card's
//!   pane changed what it says of it (a busy pane's Run coming back).
//! - Time is an input: nothing here reads a clock.

use std::time::{Duration, Instant};

use wta_protocol::ProposalId;

use super::domain::PermissionRequestId;
use super::state::AppState;

/// A card ignores its keys for this long after it became visible, so that
/// a key meant for what was there before (typing in progress, the Enter
/// that answered the card above it) is never taken as an answer.
pub const CARD_GRACE: Duration = Duration::from_millis(300);

/// The card keys go to and the view draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopCard {
    Permission(PermissionRequestId),
    /// The agent's question, by its id.
    Question(u64),
    /// The front proposal card; `full_view` while it covers the pane.
    Proposal {
        id: ProposalId,
        full_view: bool,
    },
}

/// What the guard knows of the card on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CardGuard {
    /// The card on top after the last event.
    on_top: Option<TopCard>,
    /// When it became visible; `None` while covered, absent or hidden.
    visible_since: Option<Instant>,
    /// A key was ignored since then: the card's hint stands out.
    refused: bool,
}

impl CardGuard {
    /// The card on top after the last event.
    pub fn on_top(&self) -> Option<TopCard> {
        self.on_top
    }

    /// When the card on top became visible (`None`: no card, or the pane is hidden).
    pub fn visible_since(&self) -> Option<Instant> {
        self.visible_since
    }

    /// Whether the card on top takes keys at `now`.
    pub fn armed(&self, now: Instant) -> bool {
        self.visible_since
            .is_some_and(|since| now.saturating_duration_since(since) >= CARD_GRACE)
    }

    /// Visible, but not armed yet at `now`: the view needs a tick to
    /// show the card armed.
    pub fn arming(&self, now: Instant) -> bool {
        self.visible_since.is_some() && !self.armed(now)
    }

    /// A key the card would have acted on was ignored since it became visible.
    pub fn refused(&self) -> bool {
        self.refused
    }
}

/// Which card is on top of `state` (what the view draws and keys reach).
pub(crate) fn top_card(state: &AppState) -> Option<TopCard> {
    if let Some(p) = state.permissions.front() {
        return Some(TopCard::Permission(p.request.id));
    }
    if let Some(q) = &state.question {
        return Some(TopCard::Question(q.request.id));
    }
    if state.master_lost() {
        // The master-gone notice takes the card's place.
        return None;
    }
    state.proposals.front().map(|card| TopCard::Proposal {
        id: card.proposal.id,
        full_view: card.full_view.is_some(),
    })
}

/// After every event: which card is on top, and since when it is visible.
/// `relaid`: the event laid the card out anew (a resize, or a fact about
/// its pane that changed what it says).
pub(crate) fn settle(state: &mut AppState, relaid: bool, now: Instant) {
    let on_top = top_card(state);
    let hidden = state.pane_hidden;
    let guard = &mut state.guard;
    let revealed = on_top != guard.on_top || relaid || guard.visible_since.is_none();
    if hidden || on_top.is_none() {
        guard.visible_since = None;
        guard.refused = false;
    } else if revealed {
        guard.visible_since = Some(now);
        guard.refused = false;
    }
    guard.on_top = on_top;
}

/// A key the card on top would act on: true when the card takes it now;
/// otherwise it is ignored, and the card's hint says to read it first.
pub(crate) fn admit(state: &mut AppState, now: Instant) -> bool {
    if state.card_armed(now) {
        return true;
    }
    state.guard.refused = true;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn the_guard_runs_from_the_reveal_and_only_while_shown() {
        let t0 = Instant::now();
        let mut g = CardGuard::default();
        assert!(!g.armed(at(t0, 10_000)), "no card: nothing to arm");
        g.visible_since = Some(at(t0, 100));
        assert!(g.arming(at(t0, 399)));
        assert!(!g.armed(at(t0, 399)));
        assert!(g.armed(at(t0, 400)));
        assert!(!g.arming(at(t0, 400)));
        assert!(!g.armed(t0), "a clock before the reveal is not past it");
    }
}
