//! Keys of the visible proposal card and of its full view, and the
//! transcript line and effect each decision makes. The key map itself is
//! described in `proposal_card.rs`; the card state lives there too.

use std::time::Instant;

use wta_i18n::tr;

use super::super::effects::Effect;
use super::super::events::{Key, KeyCode, Mods};
use super::super::guard;
use super::super::state::AppState;
use super::super::transcript::SystemLevel;
use super::{CardOutcome, mode_label};

/// What a key does on the card or in its full view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CardKey {
    /// Move the choice highlight (on the card).
    Choice(isize),
    /// Scroll the full view by rows.
    Scroll(isize),
    /// Scroll by pages.
    Page(isize),
    Home,
    End,
    Button(isize),
    Number(u64),
    ToggleFull,
    Confirm,
    Cancel,
    /// Taken, does nothing (the full view hides the editor).
    Nothing,
}

/// The card's key map (`full`: its full view is open); `None` for keys it
/// leaves to the editor.
fn key_of(key: Key, full: bool, input_empty: bool) -> Option<CardKey> {
    let digit = match key.code {
        KeyCode::Char(d @ '1'..='9') if key.mods == Mods::NONE => {
            Some(u64::from(d) - u64::from('0'))
        }
        _ => None,
    };
    let shared = match (key.code, key.mods) {
        (KeyCode::Left | KeyCode::BackTab, _) => Some(CardKey::Button(-1)),
        (KeyCode::Right | KeyCode::Tab, _) => Some(CardKey::Button(1)),
        // The card owns Enter whatever the draft holds (`card_enter.rs`):
        // the draft stays, and the card says so.
        (KeyCode::Enter, Mods::NONE) => Some(CardKey::Confirm),
        // On the card a digit with a draft is typing; the full view hides
        // the editor.
        _ if full || input_empty => digit.map(CardKey::Number),
        _ => None,
    };
    if shared.is_some() {
        return shared;
    }
    if full {
        return Some(match (key.code, key.mods) {
            (KeyCode::Up, _) => CardKey::Scroll(-1),
            (KeyCode::Down, _) => CardKey::Scroll(1),
            (KeyCode::PageUp, _) => CardKey::Page(-1),
            (KeyCode::PageDown | KeyCode::Char(' '), _) => CardKey::Page(1),
            (KeyCode::Home, _) => CardKey::Home,
            (KeyCode::End, _) => CardKey::End,
            (KeyCode::Char('v'), Mods::NONE) => CardKey::ToggleFull,
            (KeyCode::Esc, _) => CardKey::Cancel,
            _ => CardKey::Nothing,
        });
    }
    match (key.code, key.mods) {
        (KeyCode::Up, _) => Some(CardKey::Choice(-1)),
        (KeyCode::Down, _) => Some(CardKey::Choice(1)),
        (KeyCode::Char('v'), Mods::NONE) if input_empty => Some(CardKey::ToggleFull),
        // Esc, like Enter, is the card's: the way to cancel it is never
        // taken by a draft.
        (KeyCode::Esc, _) => Some(CardKey::Cancel),
        _ => None,
    }
}

/// Keys for the proposal card on top; false lets the key through. Before
/// the card is armed its keys are taken and do nothing. In the full view
/// every key is taken: the editor is hidden, so nothing may type into it
/// unseen.
pub(crate) fn on_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let full = state.proposals.full_view_open();
    let Some(action) = key_of(key, full, state.input.is_empty()) else {
        return false;
    };
    if !guard::admit(state, now) {
        return true;
    }
    let facts = state
        .proposals
        .front()
        .map(|card| state.facts_of(&card.proposal.target_pane).clone())
        .unwrap_or_default();
    let queue = &mut state.proposals;
    let page = queue
        .front()
        .and_then(|c| c.full_view)
        .map_or(1, |f| f.page_rows());
    let outcome = match action {
        CardKey::Choice(delta) => {
            queue.move_choice(delta);
            return true;
        }
        CardKey::Scroll(delta) => {
            queue.scroll_full_view(delta);
            return true;
        }
        CardKey::Page(pages) => {
            queue.scroll_full_view(pages * page);
            return true;
        }
        CardKey::Home => {
            if let Some(full) = queue.full_view_mut() {
                full.top = 0;
            }
            return true;
        }
        CardKey::End => {
            if let Some(full) = queue.full_view_mut() {
                full.to_end();
            }
            return true;
        }
        CardKey::Button(delta) => {
            queue.move_button(delta);
            return true;
        }
        CardKey::Number(number) => {
            queue.select_number(number);
            return true;
        }
        CardKey::ToggleFull => {
            queue.toggle_full_view();
            return true;
        }
        CardKey::Nothing => return true,
        // What `ProposalCard::enter_action` says, as the footer shows it.
        CardKey::Confirm => queue.confirm(now, &facts),
        CardKey::Cancel => queue.cancel(now),
    };
    report(state, outcome, fx);
    true
}

/// Turns a card decision into its effect and transcript line.
fn report(state: &mut AppState, outcome: Option<CardOutcome>, fx: &mut Vec<Effect>) {
    match outcome {
        Some(CardOutcome::Confirmed {
            id,
            choice,
            mode,
            title,
        }) => {
            state.transcript.push_system(
                SystemLevel::Info,
                &tr!(
                    "chat.proposal.chosen",
                    mode = mode_label(mode),
                    title = title
                ),
            );
            fx.push(Effect::ConfirmProposal { id, choice, mode });
        }
        Some(CardOutcome::Cancelled { id }) => {
            state
                .transcript
                .push_system(SystemLevel::Info, &tr("chat.proposal.cancelled_line", &[]));
            fx.push(Effect::CancelProposal { id });
        }
        Some(CardOutcome::Refused(stale)) => state.transcript.push_system(
            SystemLevel::Warn,
            &tr!("chat.proposal.refused", why = stale.describe()),
        ),
        // A blocked Enter only makes the card's reason stand out.
        Some(
            CardOutcome::Moved
            | CardOutcome::Dismissed
            | CardOutcome::Unread
            | CardOutcome::Blocked,
        )
        | None => {}
    }
}
