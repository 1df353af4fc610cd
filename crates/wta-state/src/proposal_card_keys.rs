//! Keys of the visible proposal card and of its full view, and the
//! transcript line and effect each decision makes. The key map itself is
//! described in `proposal_card.rs`; the card state lives there too.

use std::time::Instant;

use wta_i18n::tr;

use super::super::effects::Effect;
use super::super::events::{Key, KeyCode, Mods};
use super::super::state::AppState;
use super::super::transcript::SystemLevel;
use super::{CardOutcome, mode_label};

/// Keys for the visible proposal card; false lets the key through.
pub(crate) fn on_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    if !state.proposals.accepts_keys(now) {
        return false;
    }
    if state.proposals.full_view_open() {
        return full_view_key(state, key, now, fx);
    }
    let empty = state.input.is_empty();
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
        (KeyCode::Char(d @ '1'..='9'), Mods::NONE) if empty => {
            queue.select_number(u64::from(d) - u64::from('0'));
            return true;
        }
        (KeyCode::Char('v'), Mods::NONE) if empty => {
            queue.toggle_full_view();
            return true;
        }
        // With a draft in the editor, Enter and Esc belong to the draft:
        // only an explicit answer on an empty prompt may dispatch or cancel.
        (KeyCode::Enter, Mods::NONE) if empty => queue.confirm(now),
        (KeyCode::Esc, _) if empty => queue.cancel(now),
        _ => return false,
    };
    report(state, outcome, fx);
    true
}

/// Keys while the card covers the pane. Every key is taken: the editor is
/// hidden, so nothing may type into it unseen.
fn full_view_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let empty = state.input.is_empty();
    let queue = &mut state.proposals;
    let page = queue
        .front()
        .and_then(|c| c.full_view)
        .map_or(1, |f| f.page_rows());
    let outcome = match (key.code, key.mods) {
        (KeyCode::Up, _) => {
            queue.scroll_full_view(-1);
            return true;
        }
        (KeyCode::Down, _) => {
            queue.scroll_full_view(1);
            return true;
        }
        (KeyCode::PageUp, _) => {
            queue.scroll_full_view(-page);
            return true;
        }
        (KeyCode::PageDown | KeyCode::Char(' '), _) => {
            queue.scroll_full_view(page);
            return true;
        }
        (KeyCode::Home, _) => {
            if let Some(full) = queue.full_view_mut() {
                full.top = 0;
            }
            return true;
        }
        (KeyCode::End, _) => {
            if let Some(full) = queue.full_view_mut() {
                full.to_end();
            }
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
        (KeyCode::Char(d @ '1'..='9'), Mods::NONE) => {
            queue.select_number(u64::from(d) - u64::from('0'));
            return true;
        }
        (KeyCode::Char('v'), Mods::NONE) => {
            queue.toggle_full_view();
            return true;
        }
        // Not read to the end yet: Enter stays where it is (it must never
        // scroll, or holding it would confirm unread text).
        (KeyCode::Enter, Mods::NONE) if empty => match queue.front() {
            Some(card) if !card.read_in_full() && card.staleness(now).is_none() => return true,
            _ => queue.confirm(now),
        },
        (KeyCode::Esc, _) => queue.cancel(now),
        _ => return true,
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
        Some(CardOutcome::Moved | CardOutcome::Dismissed | CardOutcome::Unread) | None => {}
    }
}
