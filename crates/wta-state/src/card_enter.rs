//! What Enter does on the card on top, as data: the card's key handlers act
//! on this decision and the card's footer says it, so the two cannot
//! disagree.
//!
//! Ownership: while a card is on top it owns Enter and Esc, whatever the
//! draft in the editor holds (a failed `/help me` left selected, a reply
//! being typed). A draft never takes them from the card: the footer would
//! promise what the key does not do, and the way to cancel the card would
//! be gone while anything is typed. The draft stays in the editor, and the
//! card says so ([`AppState::draft_kept`]). Keys that type (letters, and on
//! a card with a draft `y`, `n`, `v` and digits) still reach the draft.
//! What protects typing in progress from being taken as an answer is the
//! card's grace period (`guard.rs`): until it is armed, Enter does nothing.

use std::time::Instant;

use super::guard::TopCard;
use super::proposal_card::ConfirmMode;
use super::state::AppState;

/// What Enter on the card on top does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardEnter {
    /// Answers the permission card with its highlighted option.
    Permission,
    Question(QuestionEnter),
    Proposal(ProposalEnter),
}

/// Enter on the agent's question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionEnter {
    /// Answers with the highlighted choice.
    Choice,
    /// Answers with the text in the editor (free-form answers allowed).
    Typed,
    /// Free-form only and nothing typed yet: Enter waits for text.
    NeedsText,
}

/// Enter on a terminal-action card, in the order the card decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProposalEnter {
    /// Stale, or too old: the card says why (the next Enter dismisses).
    ShowWhy,
    /// Stale and saying so: closes the card.
    Dismiss,
    /// Rows not read yet: opens the full view.
    ReadAll,
    /// In the full view with rows not read yet: stays (holding Enter must
    /// never scroll to text nobody read and confirm it).
    ReadOn,
    /// The highlighted button's pane is busy: its reason stands out.
    Blocked,
    /// Confirms the highlighted choice with this button.
    Confirm(ConfirmMode),
    /// No choice or button to act on.
    Nothing,
}

impl AppState {
    /// What Enter does on the card on top at `now`; `None` without a card
    /// on top. The key handlers do exactly this (once the card is armed).
    pub fn card_enter(&self, now: Instant) -> Option<CardEnter> {
        Some(match self.top_card()? {
            TopCard::Permission(_) => CardEnter::Permission,
            TopCard::Question(_) => {
                let q = self.question.as_ref()?;
                let typed = !self.input.text().trim().is_empty();
                CardEnter::Question(if q.request.allow_freeform && typed {
                    QuestionEnter::Typed
                } else if q.request.choices.is_empty() {
                    QuestionEnter::NeedsText
                } else {
                    QuestionEnter::Choice
                })
            }
            TopCard::Proposal { .. } => {
                let card = self.proposals.front()?;
                let facts = self.facts_of(&card.proposal.target_pane);
                CardEnter::Proposal(card.enter_action(now, facts))
            }
        })
    }

    /// A card is on top, text is in the editor, and no key of the card
    /// uses it: the draft is kept (the card says so). Not while a question
    /// would take the text as its answer.
    pub fn draft_kept(&self, now: Instant) -> bool {
        !self.input.is_empty()
            && self
                .card_enter(now)
                .is_some_and(|enter| enter != CardEnter::Question(QuestionEnter::Typed))
    }
}
