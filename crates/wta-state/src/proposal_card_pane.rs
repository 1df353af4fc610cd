//! The card and the shell pane it types into: what the helper's pane
//! watcher last said of that pane ([`AppState::pane_facts`], fed by
//! `DomainEvent::PaneFacts`) and what the card makes of it before it is
//! confirmed, for its highlighted choice:
//!
//! - A choice that types into the card's target pane (a `send` action)
//!   cannot Run or Insert while that pane is busy (a command runs, or a
//!   full-screen program holds it): both buttons are disabled and the card
//!   says why. Enter on one does nothing but make the reason stand out.
//!   Choices that only open, or open and run somewhere new, stay available.
//!   A later fact that the pane is idle brings Run back; nothing has to be
//!   read again (reading counts action rows, which these notes are not).
//! - Text the user typed at that prompt: kept and back after the command
//!   (the shell's WTA binding hands the command off), or replaced (typed
//!   as keys over a cleared line).
//! - No WTA key binding: the command is typed as keystrokes.
//! - No WTA shell integration at all: the card says, before it is
//!   confirmed, that the command's end and exit status will not come back
//!   (and the transcript said how to add it when the pane was first seen
//!   so: [`on_facts`]).
//! - No fact yet about a pane: nothing is said, nothing is disabled.
//!
//! Invariants: `pane_facts` holds only the target pane's and the queued
//! cards' panes (pruned on every fact), with their commands made printable
//! ([`PaneFacts::shown`]); while a card's pane is known busy, no Run or
//! Insert of a choice with a `send` is confirmed. The facts are told, not
//! owned: the helper's machine holds what the watcher said.

use wta_protocol::{Action, Choice};

use super::super::domain::{Busy, KeyPath, PaneFacts, Untracked};
use super::super::state::AppState;
use super::super::transcript::SystemLevel;
use super::{ConfirmMode, ProposalCard};

/// What a confirmed command does to text typed at the pane's prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedText {
    /// Put aside and back on the line after the command (hand-off).
    Kept,
    /// Cleared: the command is typed over it (typed keys).
    Replaced,
}

/// What a card says about its target pane for its highlighted choice.
/// Empty (the default) when the choice does not type into the pane or
/// nothing is known of it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PaneNotes {
    /// The pane (`%N`).
    pub pane: String,
    /// Run and Insert wait until this program ends.
    pub busy: Option<Busy>,
    /// What the command does to the text typed at the prompt.
    pub typed: Option<TypedText>,
    /// The command is typed into the pane as keystrokes.
    pub as_keys: bool,
    /// The pane's shell (named) has no WTA integration: the command runs
    /// but its end, exit status and output cannot come back.
    pub untracked: Option<String>,
    /// Enter was pressed on a disabled button: the reason stands out.
    pub stand_out: bool,
}

impl PaneNotes {
    /// Nothing to say.
    pub fn is_empty(&self) -> bool {
        self.busy.is_none() && self.typed.is_none() && !self.as_keys && self.untracked.is_none()
    }
}

/// Whether `choice` types into the card's target pane (a `send` action).
pub fn types_into_target(choice: &Choice) -> bool {
    choice
        .actions
        .iter()
        .any(|a| matches!(a, Action::Send { .. }))
}

impl ProposalCard {
    /// What the card says about its target pane, whose facts are `facts`,
    /// for the highlighted choice.
    pub fn pane_notes(&self, facts: &PaneFacts) -> PaneNotes {
        let pane = self.proposal.target_pane.clone();
        if !self.selected_choice().is_some_and(types_into_target) {
            return PaneNotes {
                pane,
                ..PaneNotes::default()
            };
        }
        if let Some(busy) = &facts.busy {
            // Until it ends there is no prompt: nothing else applies yet,
            // but that a plain ssh (or mosh) cannot be followed.
            let remote = facts.untracked.as_ref().map(|u| u.program.clone());
            return PaneNotes {
                pane,
                busy: Some(busy.clone()),
                stand_out: self.pane_pressed,
                untracked: remote.filter(|login| matches!(login.as_str(), "ssh" | "mosh")),
                ..PaneNotes::default()
            };
        }
        let as_keys = facts.keys == KeyPath::TypedKeys;
        let typed = facts.typed_text.then_some(if as_keys {
            TypedText::Replaced
        } else {
            TypedText::Kept
        });
        PaneNotes {
            pane,
            typed,
            as_keys,
            untracked: facts.untracked.as_ref().map(|u| u.program.clone()),
            ..PaneNotes::default()
        }
    }

    /// Whether button `mode` of the highlighted choice can be confirmed
    /// now, the target pane's facts being `facts`.
    pub fn enabled(&self, facts: &PaneFacts, mode: ConfirmMode) -> bool {
        let waits = matches!(mode, ConfirmMode::Run | ConfirmMode::Insert);
        !(waits && self.pane_notes(facts).busy.is_some())
    }
}

/// What the front card says about its pane (`stand_out` left out), when
/// it is the card on top: a change of it through a fact reveals the card
/// anew, so a key meant for what it said before is not taken for the new.
pub(crate) fn front_notes(state: &AppState) -> Option<PaneNotes> {
    let card = state.proposals.front()?;
    let on_top = matches!(state.top_card(), Some(super::super::TopCard::Proposal { id, .. }) if id == card.proposal.id);
    on_top.then(|| PaneNotes {
        stand_out: false,
        ..card.pane_notes(state.facts_of(&card.proposal.target_pane))
    })
}

/// `DomainEvent::PaneFacts`: what `pane` is doing now. Kept only for the
/// target pane and the queued cards' panes (the others are dropped, and so
/// are facts of panes no longer either); a change clears the stand-out of
/// the cards on that pane.
pub(crate) fn on_facts(state: &mut AppState, pane: String, facts: PaneFacts) {
    let facts = facts.shown();
    let target = state.target.as_ref().map(|t| t.pane.clone());
    let wanted = |p: &str, queue: &super::ProposalQueue| {
        target.as_deref() == Some(p) || queue.iter().any(|c| c.proposal.target_pane == p)
    };
    let changed = *state.facts_of(&pane) != facts;
    let newly_untracked = state.facts_of(&pane).untracked.is_none();
    if let Some(untracked) = facts.untracked.as_ref().filter(|_| newly_untracked)
        && target.as_deref() == Some(pane.as_str())
    {
        state
            .transcript
            .push_system(SystemLevel::Warn, &untracked_notice(&pane, untracked));
    }
    let queue = &state.proposals;
    state.pane_facts.retain(|p, _| wanted(p, queue));
    if !wanted(&pane, &state.proposals) {
        return;
    }
    if changed {
        for card in state.proposals.items.iter_mut() {
            if card.proposal.target_pane == pane {
                card.pane_pressed = false;
            }
        }
    }
    state.pane_facts.insert(pane, facts);
}

/// What the transcript says when the target pane's shell turns out to have
/// no integration: what is lost, and the exact line that adds it for that
/// shell (or which shells have one).
pub fn untracked_notice(pane: &str, untracked: &Untracked) -> String {
    let shell = untracked.program.as_str();
    if matches!(shell, "ssh" | "mosh") {
        // A plain remote login: what runs over there is out of sight.
        return wta_i18n::tr!("proposal.untracked_notice_ssh", pane = pane, shell = shell);
    }
    match &untracked.rc_line {
        Some(line) => wta_i18n::tr!(
            "proposal.untracked_notice",
            pane = pane,
            shell = shell,
            line = line
        ),
        None => wta_i18n::tr!(
            "proposal.untracked_notice_other",
            pane = pane,
            shell = shell
        ),
    }
}
