//! Terminal-action proposals waiting for the user: a FIFO of recommendation
//! cards whose front is shown (after any permission card).
//!
//! The card only *asks*. Confirming emits [`Effect::ConfirmProposal`]; the
//! proposal engine then atomically claims the live proposal before anything
//! is sent, so a card that went stale between the key press and the claim
//! still cannot dispatch. The app refuses on its side too: a stale card, or
//! one older than [`PROPOSAL_CARD_TIMEOUT`], shows why and only dismisses.
//!
//! Keys (after the same grace period as the permission card, so typing in
//! progress is never taken as an answer): Up/Down choose a choice, digits
//! pick one, Left/Right/Tab/Shift+Tab choose a button, Enter confirms, Esc
//! cancels. Anything else falls through to the editor.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use wta_protocol::{Action, Choice, FinalStatus, Origin, ProposalId, ProposalPayload};

use super::effects::Effect;
use super::events::{Key, KeyCode, Mods};
use super::permission::PERMISSION_GRACE;
use super::state::AppState;
use super::transcript::SystemLevel;

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

/// How the user confirmed a choice (the engine's type, so a decision passes
/// through unchanged).
pub use crate::proposals::ConfirmMode;

/// The button's label.
pub const fn mode_label(mode: ConfirmMode) -> &'static str {
    match mode {
        ConfirmMode::Run => "Run",
        ConfirmMode::Insert => "Insert",
        ConfirmMode::Open => "Open",
    }
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
        let why = match self.status {
            FinalStatus::Superseded => "a newer turn replaced this proposal",
            FinalStatus::SessionReplaced => "the agent session was replaced",
            FinalStatus::TimedOut => "nobody decided within 10 minutes",
            FinalStatus::Unavailable => "the proposal channel is unavailable",
            FinalStatus::Cancelled => "the proposal was cancelled",
            FinalStatus::Confirmed => "the proposal was already confirmed",
        };
        match &self.reason {
            Some(reason) if !reason.is_empty() => format!("{why}: {reason}"),
            _ => why.to_owned(),
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
    /// When this card became the visible one.
    pub front_since: Instant,
    pub stale: Option<Stale>,
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
            front_since: now,
            stale: None,
        }
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

    /// True once the front card has been visible for the grace period.
    pub fn accepts_keys(&self, now: Instant) -> bool {
        self.items
            .front()
            .is_some_and(|c| now.saturating_duration_since(c.front_since) >= PERMISSION_GRACE)
    }

    /// True while a card is visible but still in its grace period.
    pub fn in_grace(&self, now: Instant) -> bool {
        !self.items.is_empty() && !self.accepts_keys(now)
    }

    fn pop_front(&mut self, now: Instant) -> Option<ProposalCard> {
        let done = self.items.pop_front();
        if let Some(next) = self.items.front_mut() {
            next.front_since = now;
        }
        done
    }

    /// Highlights choice row `row` (0-based); false when there is none.
    pub fn select(&mut self, row: usize) -> bool {
        match self.items.front_mut() {
            Some(card) if row < card.order.len() => {
                if card.selected != row {
                    card.selected = row;
                    card.button = 0;
                }
                true
            }
            _ => false,
        }
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

    /// Enter: confirms the highlighted choice and button, unless the card is
    /// stale (then it stays, showing why; a second Enter dismisses it).
    pub fn confirm(&mut self, now: Instant) -> Option<CardOutcome> {
        let card = self.items.front_mut()?;
        if let Some(stale) = card.staleness(now) {
            if card.stale.is_some() {
                self.pop_front(now);
                return Some(CardOutcome::Dismissed);
            }
            card.stale = Some(stale.clone());
            return Some(CardOutcome::Refused(stale));
        }
        let (choice, title) = match card.selected_choice() {
            Some(c) => (c.choice, c.title.clone()),
            None => return Some(CardOutcome::Moved),
        };
        let mode = card.selected_mode()?;
        let id = card.proposal.id;
        self.pop_front(now);
        Some(CardOutcome::Confirmed {
            id,
            choice,
            mode,
            title,
        })
    }

    /// Esc: cancels a live card, dismisses a stale one.
    pub fn cancel(&mut self, now: Instant) -> Option<CardOutcome> {
        let card = self.pop_front(now)?;
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

    /// Drops every card (the connection died); returns their ids.
    pub fn drain(&mut self) -> Vec<ProposalId> {
        self.items.drain(..).map(|c| c.proposal.id).collect()
    }
}

/// Keys for the visible proposal card; false lets the key through.
pub(crate) fn on_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    if !state.proposals.accepts_keys(now) {
        return false;
    }
    let queue = &mut state.proposals;
    let outcome = match (key.code, key.mods) {
        (KeyCode::Up, _) => {
            queue.move_choice(-1);
            return true;
        }
        (KeyCode::Down, _) => {
            queue.move_choice(1);
            return true;
        }
        (KeyCode::Left | KeyCode::BackTab, _) => {
            queue.move_button(-1);
            return true;
        }
        (KeyCode::Right | KeyCode::Tab, _) => {
            queue.move_button(1);
            return true;
        }
        (KeyCode::Char(d @ '1'..='9'), Mods::NONE) if state.input.is_empty() => {
            queue.select(d as usize - '1' as usize);
            return true;
        }
        // With a draft in the editor, Enter and Esc belong to the draft:
        // only an explicit answer on an empty prompt may dispatch or cancel.
        (KeyCode::Enter, Mods::NONE) if state.input.is_empty() => queue.confirm(now),
        (KeyCode::Esc, _) if state.input.is_empty() => queue.cancel(now),
        _ => return false,
    };
    match outcome {
        Some(CardOutcome::Confirmed {
            id,
            choice,
            mode,
            title,
        }) => {
            state
                .transcript
                .push_system(SystemLevel::Info, &format!("{}: {title}", mode_label(mode)));
            fx.push(Effect::ConfirmProposal { id, choice, mode });
        }
        Some(CardOutcome::Cancelled { id }) => {
            state
                .transcript
                .push_system(SystemLevel::Info, "Proposal cancelled");
            fx.push(Effect::CancelProposal { id });
        }
        Some(CardOutcome::Refused(stale)) => state.transcript.push_system(
            SystemLevel::Warn,
            &format!("Cannot run this proposal: {}", stale.describe()),
        ),
        Some(CardOutcome::Moved | CardOutcome::Dismissed) | None => {}
    }
    true
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
            &format!("Proposal \u{201c}{title}\u{201d} dropped: {text}"),
        );
    }
}

#[cfg(test)]
#[path = "proposal_card_tests.rs"]
mod tests;
