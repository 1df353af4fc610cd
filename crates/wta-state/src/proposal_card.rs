//! Terminal-action proposals waiting for the user: a FIFO of recommendation
//! cards whose front is shown (after any permission card).
//!
//! The card only *asks*. Confirming emits `Effect::ConfirmProposal`; the
//! proposal engine then atomically claims the live proposal before anything
//! is sent, so a card that went stale between the key press and the claim
//! still cannot dispatch. The app refuses on its side too: a stale card, or
//! one older than [`PROPOSAL_CARD_TIMEOUT`], shows why and only dismisses.
//! And what the user confirms is what the card showed: a card confirms only
//! once every row showing what its actions do, of every choice, has been on
//! screen (see `proposal_card_reading.rs`); until then Enter opens the
//! full view. And a choice that types into a pane the helper knows is busy
//! cannot Run or Insert until it is idle again (`proposal_card_pane.rs`).
//!
//! Keys (once the card has been visible for the grace period every card
//! has, `guard.rs`, so typing in progress is never taken as an answer; until
//! then the keys below do nothing): Up/Down choose a choice, digits
//! pick one by its number, Left/Right/Tab/Shift+Tab choose a button, `v`
//! opens the full view, Enter confirms, Esc cancels: Enter and Esc whatever
//! the editor holds (`card_enter.rs`), digits and `v` only while it is
//! empty (with a draft they type). Anything else falls through to the
//! editor. In the full view (the card over the whole pane)
//! Up/Down/PageUp/PageDown/Home/End scroll, `v` goes back to the card, the
//! button and digit keys work as on the card, Enter confirms once every row
//! was on screen, Esc cancels, and other keys do nothing (the editor is
//! hidden, so nothing may type into it unseen).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use wta_i18n::tr;
use wta_protocol::{Action, Choice, FinalStatus, Origin, ProposalId, ProposalPayload};

use super::card_enter::ProposalEnter;
use super::domain::PaneFacts;
use super::state::AppState;
use super::transcript::SystemLevel;

#[path = "proposal_card_keys.rs"]
mod keys;
#[path = "proposal_card_pane.rs"]
mod pane;
#[path = "proposal_card_reading.rs"]
mod reading;
pub(crate) use keys::on_key;
pub use pane::{PaneNotes, TypedText, types_into_target};
pub(crate) use pane::{front_notes, on_facts};
pub use reading::{CardSight, FullView, FullViewFrame, Reading};

/// A card nobody decided on within this time can no longer confirm
/// (the engine reports `timed_out`; the app refuses on its own as well).
pub const PROPOSAL_CARD_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// What the proposal engine hands the app once a proposal was `accepted`.
/// Everything but `payload` is trusted context from the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedProposal {
    pub id: ProposalId,
    pub payload: ProposalPayload,
    /// The pane `send` actions type into (`%N`).
    pub target_pane: String,
    /// That pane's working directory, when known.
    pub target_cwd: Option<String>,
    pub origin: Origin,
    /// Pre-approved by the agent's permission flow (digest armed).
    pub armed: bool,
    /// The agent id `delegate: true` actions launch, when configured.
    pub delegate_agent: Option<String>,
}

/// How the user confirmed a choice (the proposal engine takes it as it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmMode {
    /// Send the input and press Enter.
    Run,
    /// Type the input without Enter (nothing runs).
    Insert,
    /// Open actions (tab/panel) only.
    Open,
}

/// The button's label, in the user's language.
pub fn mode_label(mode: ConfirmMode) -> String {
    let key = match mode {
        ConfirmMode::Run => "chat.proposal.run",
        ConfirmMode::Insert => "chat.proposal.insert",
        ConfirmMode::Open => "chat.proposal.open",
    };
    tr(key, &[])
}

/// The buttons a choice offers: `Open` for a choice that only opens,
/// otherwise `Run`, plus `Insert` unless an action delegates to an agent
/// (a delegate task is never typed half-way).
pub fn buttons(choice: &Choice) -> Vec<ConfirmMode> {
    let has_input = choice
        .actions
        .iter()
        .any(|a| matches!(a, Action::Send { .. } | Action::OpenAndSend { .. }));
    if !has_input {
        return vec![ConfirmMode::Open];
    }
    let delegates = choice
        .actions
        .iter()
        .any(|a| matches!(a, Action::OpenAndSend { delegate: true, .. }));
    if delegates {
        vec![ConfirmMode::Run]
    } else {
        vec![ConfirmMode::Run, ConfirmMode::Insert]
    }
}

/// Why a card can no longer be confirmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    pub status: FinalStatus,
    pub reason: Option<String>,
}

impl Stale {
    /// One line for the card and the transcript.
    pub fn describe(&self) -> String {
        let why = tr(
            match self.status {
                FinalStatus::Superseded => "chat.proposal.superseded",
                FinalStatus::SessionReplaced => "chat.proposal.session_replaced",
                FinalStatus::TimedOut => "chat.proposal.timed_out",
                FinalStatus::Unavailable => "chat.proposal.unavailable",
                FinalStatus::Cancelled => "chat.proposal.cancelled",
                FinalStatus::Confirmed => "chat.proposal.confirmed",
            },
            &[],
        );
        match &self.reason {
            Some(reason) if !reason.is_empty() => {
                tr!("chat.proposal.why_reason", why = why, reason = reason)
            }
            _ => why,
        }
    }
}

/// One recommendation card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalCard {
    pub proposal: AcceptedProposal,
    /// Indices into `proposal.payload.choices` in display order:
    /// the recommended choice first, then by choice number.
    pub order: Vec<usize>,
    /// Highlighted row of `order`.
    pub selected: usize,
    /// Highlighted button of the selected choice.
    pub button: usize,
    pub arrived_at: Instant,
    pub stale: Option<Stale>,
    /// What of the full text has been on screen.
    pub reading: Reading,
    /// The full view, while it is open.
    pub full_view: Option<FullView>,
    /// Enter was pressed on a button its busy pane cannot take, since the
    /// pane's last fact: the reason stands out.
    pub pane_pressed: bool,
}

impl ProposalCard {
    fn new(proposal: AcceptedProposal, now: Instant) -> Self {
        let choices = &proposal.payload.choices;
        let mut order: Vec<usize> = (0..choices.len()).collect();
        let recommended = proposal.payload.recommended_choice;
        order.sort_by_key(|&i| (choices[i].choice != recommended, choices[i].choice));
        Self {
            proposal,
            order,
            selected: 0,
            button: 0,
            arrived_at: now,
            stale: None,
            reading: Reading::default(),
            full_view: None,
            pane_pressed: false,
        }
    }

    /// Whether every action row of every choice has been on screen (at the
    /// current width), so a confirm is what the user saw.
    pub fn read_in_full(&self) -> bool {
        self.reading.complete()
    }

    /// Action rows at `width`/`total` not seen yet once the rows `showing`
    /// (being drawn now) are seen too.
    pub fn unseen_with(&self, width: u16, total: usize, showing: std::ops::Range<usize>) -> usize {
        self.reading.unseen_with(width, total, showing)
    }

    /// Choices in display order.
    pub fn choices(&self) -> impl Iterator<Item = &Choice> {
        self.order
            .iter()
            .filter_map(|&i| self.proposal.payload.choices.get(i))
    }

    pub fn selected_choice(&self) -> Option<&Choice> {
        self.order
            .get(self.selected)
            .and_then(|&i| self.proposal.payload.choices.get(i))
    }

    /// Whether `choice` is the one the agent recommends.
    pub fn is_recommended(&self, choice: &Choice) -> bool {
        choice.choice == self.proposal.payload.recommended_choice
    }

    /// Buttons of the selected choice.
    pub fn buttons(&self) -> Vec<ConfirmMode> {
        self.selected_choice().map(buttons).unwrap_or_default()
    }

    pub fn selected_mode(&self) -> Option<ConfirmMode> {
        self.buttons().get(self.button).copied()
    }

    /// What Enter does on this card at `now`, its pane's facts being
    /// `facts` (the footer says it; [`ProposalQueue::confirm`] does it).
    pub fn enter_action(&self, now: Instant, facts: &PaneFacts) -> ProposalEnter {
        self.enter_action_read(now, facts, self.read_in_full())
    }

    /// [`ProposalCard::enter_action`] with `read` for whether every action
    /// row has been on screen: the view asks it for the frame it is drawing,
    /// which counts as seen once reported (before any key can arrive).
    pub fn enter_action_read(&self, now: Instant, facts: &PaneFacts, read: bool) -> ProposalEnter {
        if self.staleness(now).is_some() {
            return if self.stale.is_some() {
                ProposalEnter::Dismiss
            } else {
                ProposalEnter::ShowWhy
            };
        }
        if self.selected_choice().is_none() {
            return ProposalEnter::Nothing;
        }
        if !read {
            return if self.full_view.is_some() {
                ProposalEnter::ReadOn
            } else {
                ProposalEnter::ReadAll
            };
        }
        match self.selected_mode() {
            None => ProposalEnter::Nothing,
            Some(mode) if !self.enabled(facts, mode) => ProposalEnter::Blocked,
            Some(mode) => ProposalEnter::Confirm(mode),
        }
    }

    /// Stale, or too old to confirm at `now`.
    pub fn staleness(&self, now: Instant) -> Option<Stale> {
        self.stale.clone().or_else(|| {
            (now.saturating_duration_since(self.arrived_at) >= PROPOSAL_CARD_TIMEOUT).then_some(
                Stale {
                    status: FinalStatus::TimedOut,
                    reason: None,
                },
            )
        })
    }
}

/// What a key press on the card decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardOutcome {
    /// Only the highlight moved.
    Moved,
    Confirmed {
        id: ProposalId,
        choice: u64,
        mode: ConfirmMode,
        title: String,
    },
    Cancelled {
        id: ProposalId,
    },
    /// A stale card was closed; nothing to tell the engine.
    Dismissed,
    /// Enter on a stale card: it stays, showing why.
    Refused(Stale),
    /// Enter on a card not read in full: the full view opens instead.
    Unread,
    /// Enter on a button the card's busy pane cannot take now: the card
    /// stays, its reason standing out.
    Blocked,
}

#[derive(Debug, Clone, Default)]
pub struct ProposalQueue {
    items: VecDeque<ProposalCard>,
}

impl ProposalQueue {
    pub fn front(&self) -> Option<&ProposalCard> {
        self.items.front()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &ProposalCard> {
        self.items.iter()
    }

    pub fn push(&mut self, proposal: AcceptedProposal, now: Instant) {
        self.items.push_back(ProposalCard::new(proposal, now));
    }

    fn pop_front(&mut self) -> Option<ProposalCard> {
        self.items.pop_front()
    }

    /// Highlights choice row `row` (0-based); false when there is none.
    pub fn select(&mut self, row: usize) -> bool {
        match self.items.front_mut() {
            Some(card) if row < card.order.len() => {
                if card.selected != row {
                    card.selected = row;
                    card.button = 0;
                    card.pane_pressed = false;
                }
                true
            }
            _ => false,
        }
    }

    /// Highlights the choice numbered `number` in the payload (what the
    /// card shows next to it); false when there is none.
    pub fn select_number(&mut self, number: u64) -> bool {
        let row = self.items.front().and_then(|card| {
            card.order.iter().position(|&i| {
                card.proposal
                    .payload
                    .choices
                    .get(i)
                    .is_some_and(|c| c.choice == number)
            })
        });
        row.is_some_and(|row| self.select(row))
    }

    /// Moves the choice highlight by `delta`, clamped.
    pub fn move_choice(&mut self, delta: isize) {
        if let Some(card) = self.items.front() {
            let last = card.order.len().saturating_sub(1) as isize;
            let row = (card.selected as isize + delta).clamp(0, last) as usize;
            self.select(row);
        }
    }

    /// Moves the button highlight by `delta`, wrapping around.
    pub fn move_button(&mut self, delta: isize) {
        if let Some(card) = self.items.front_mut() {
            let count = card.buttons().len().max(1) as isize;
            card.button = (card.button as isize + delta).rem_euclid(count) as usize;
        }
    }

    /// Enter: what [`ProposalCard::enter_action`] decides. Confirms the
    /// highlighted choice and button, unless the card is stale (then it
    /// stays, showing why; a second Enter dismisses it), not read in full
    /// (the full view opens; in the full view it stays), or the button
    /// waits for its pane, whose facts are `facts` (then it stays, and the
    /// reason stands out).
    pub fn confirm(&mut self, now: Instant, facts: &PaneFacts) -> Option<CardOutcome> {
        let card = self.items.front_mut()?;
        match card.enter_action(now, facts) {
            ProposalEnter::Dismiss => {
                self.pop_front();
                Some(CardOutcome::Dismissed)
            }
            ProposalEnter::ShowWhy => {
                let stale = card.staleness(now)?;
                card.stale = Some(stale.clone());
                Some(CardOutcome::Refused(stale))
            }
            ProposalEnter::ReadAll => {
                card.full_view.get_or_insert_with(FullView::default);
                Some(CardOutcome::Unread)
            }
            ProposalEnter::ReadOn => None,
            ProposalEnter::Blocked => {
                card.pane_pressed = true;
                Some(CardOutcome::Blocked)
            }
            ProposalEnter::Nothing => Some(CardOutcome::Moved),
            ProposalEnter::Confirm(mode) => {
                let (choice, title) = card
                    .selected_choice()
                    .map(|c| (c.choice, c.title.clone()))?;
                let id = card.proposal.id;
                self.pop_front();
                Some(CardOutcome::Confirmed {
                    id,
                    choice,
                    mode,
                    title,
                })
            }
        }
    }

    /// Esc: cancels a live card, dismisses a stale one.
    pub fn cancel(&mut self, now: Instant) -> Option<CardOutcome> {
        let card = self.pop_front()?;
        Some(if card.staleness(now).is_some() {
            CardOutcome::Dismissed
        } else {
            CardOutcome::Cancelled {
                id: card.proposal.id,
            }
        })
    }

    /// The engine ended proposal `id` (superseded, session replaced, timed
    /// out, unavailable). The visible card stays to show why; a queued one
    /// is dropped. Returns the card's first choice title when it was queued
    /// (for a transcript note), `None` otherwise.
    pub fn mark_stale(&mut self, id: ProposalId, stale: Stale) -> Option<Option<String>> {
        let index = self.items.iter().position(|c| c.proposal.id == id)?;
        if index == 0 {
            if let Some(card) = self.items.front_mut() {
                card.stale = Some(stale);
            }
            return Some(None);
        }
        let card = self.items.remove(index)?;
        Some(card.choices().next().map(|c| c.title.clone()))
    }

    /// Whether the front card is expanded over the pane.
    pub fn full_view_open(&self) -> bool {
        self.items.front().is_some_and(|c| c.full_view.is_some())
    }

    /// Opens or closes the front card's full view.
    pub fn toggle_full_view(&mut self) {
        if let Some(card) = self.items.front_mut() {
            card.full_view = match card.full_view {
                Some(_) => None,
                None => Some(FullView::default()),
            };
        }
    }

    /// Scrolls the open full view by `delta` rows.
    pub fn scroll_full_view(&mut self, delta: isize) {
        if let Some(full) = self.items.front_mut().and_then(|c| c.full_view.as_mut()) {
            full.scroll(delta);
        }
    }

    fn full_view_mut(&mut self) -> Option<&mut FullView> {
        self.items.front_mut().and_then(|c| c.full_view.as_mut())
    }

    /// Whether feeding `sight` back would change the front card (the
    /// driver feeds only news, so a redraw that shows nothing new ends the
    /// draw–feed loop).
    pub fn is_news(&self, sight: &CardSight) -> bool {
        self.items.front().is_some_and(|card| {
            card.proposal.id == sight.id
                && reading::is_news(&card.reading, card.full_view.as_ref(), sight)
        })
    }

    /// Records what the view showed of the front card.
    pub fn record_sight(&mut self, sight: &CardSight) {
        if let Some(card) = self.items.front_mut().filter(|c| c.proposal.id == sight.id) {
            reading::record(&mut card.reading, card.full_view.as_mut(), sight);
        }
    }

    /// The pane was resized: no card confirms before the next frame says
    /// what it shows at the new size.
    pub fn remeasure(&mut self) {
        for card in &mut self.items {
            card.reading.remeasure = true;
        }
    }

    /// Drops every card (the connection died); returns their ids.
    pub fn drain(&mut self) -> Vec<ProposalId> {
        self.items.drain(..).map(|c| c.proposal.id).collect()
    }
}

/// `Event::CardShown`: what the view drew of the front card.
pub(crate) fn on_shown(state: &mut AppState, sight: CardSight) {
    state.proposals.record_sight(&sight);
}

/// `DomainEvent::ProposalAccepted`: queue a card.
pub(crate) fn on_accepted(state: &mut AppState, proposal: AcceptedProposal, now: Instant) {
    state.proposals.push(proposal, now);
}

/// `DomainEvent::ProposalResolved`: the engine ended a proposal the user had
/// not decided on. Unknown ids (already decided here) are ignored.
pub(crate) fn on_resolved(
    state: &mut AppState,
    id: ProposalId,
    status: FinalStatus,
    reason: Option<String>,
) {
    let stale = Stale { status, reason };
    let text = stale.describe();
    if let Some(Some(title)) = state.proposals.mark_stale(id, stale) {
        state.transcript.push_system(
            SystemLevel::Warn,
            &tr!("chat.proposal.dropped", title = title, why = text),
        );
    }
}

#[cfg(test)]
#[path = "proposal_card_tests.rs"]
mod tests;
