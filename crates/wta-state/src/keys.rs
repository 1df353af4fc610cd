//! Key routing. Precedence, top first: Ctrl+C ladder and F12 (always) →
//! the select mode over the transcript while it is on (Alt+V enters it;
//! `copy_mode.rs`: it takes every other key, so none reaches a card) →
//! Enter while the master is gone (reconnect) → the card on top, only that
//! one (a permission card, else the agent's question, else the proposal
//! card: `guard.rs`; a card's keys do nothing until it is armed; it owns
//! Enter and Esc whatever the draft holds: `card_enter.rs`) → picker →
//! slash popup → setup list → fold selection → scrolling (the F12 panel
//! while it is open, else the transcript) → the editor.

use std::time::Instant;

use super::commands;
use super::effects::Effect;
use super::events::{Key, KeyCode, Mods};
use super::guard::{self, TopCard};
use super::pickers;
use super::proposal_card;
use super::reducer::{page_size, scroll_down, scroll_up};
use super::selection;
use super::state::{AppState, Scroll, Setup};

pub(crate) fn on_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) {
    if key == Key::ctrl('c') {
        return ctrl_c(state, now, fx);
    }
    if key.code == KeyCode::F(12) {
        state.debug.toggle();
        return;
    }
    if super::copy_mode::on_key(state, key, fx) {
        return;
    }
    if key == Key::ctrl('f') && state.failure.is_some() {
        // The pill's key: the same as `/fix`.
        return commands::fix(state, None, now, fx);
    }
    if key == Key::plain(KeyCode::Enter) && state.master_lost() {
        // Enter asks; the machine reconnects once at a time and says so.
        if !state.reconnecting() {
            fx.push(Effect::Reconnect);
        }
        return;
    }
    let card_took = match state.top_card() {
        Some(TopCard::Permission(_)) => permission_key(state, key, now, fx),
        Some(TopCard::Question(_)) => super::question::on_key(state, key, now, fx),
        Some(TopCard::Proposal { .. }) => proposal_card::on_key(state, key, now, fx),
        None => false,
    };
    if card_took {
        return;
    }
    if state.picker.is_some() {
        return picker_key(state, key, fx);
    }
    if popup_key(state, key, now, fx) || setup_key(state, key, fx) || fold_key(state, key) {
        return;
    }
    if scroll_key(state, key) {
        return;
    }
    editor_key(state, key, now, fx);
}

/// Copy selection (transcript, then editor) → cancel turn → clear draft →
/// arm → quit.
fn ctrl_c(state: &mut AppState, now: Instant, fx: &mut Vec<Effect>) {
    if let Some(text) = selection::take_text(state) {
        // A selection the view has not drawn yet has no text to copy; the
        // press still only clears it.
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            fx.push(Effect::CopyToClipboard(text));
        }
        return;
    }
    if let Some(selection) = state.input.selected_text() {
        fx.push(Effect::CopyToClipboard(selection));
        state.input.clear_selection();
        return;
    }
    if state.transcript.turn_running() {
        commands::cancel_turn(state, fx);
        return;
    }
    if !state.input.is_empty() {
        state.input.clear();
        return;
    }
    if state.quit_armed() {
        fx.push(Effect::Quit);
    } else {
        state.quit_armed_at = Some(now);
    }
}

/// What a key does on the permission card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PermissionKey {
    Move(isize),
    /// Answer with the highlighted option.
    Selected,
    /// `y` (true) or `n`/Esc (false).
    Shortcut(bool),
    /// Answer with option `n` (0-based), if the card has it.
    Option(usize),
}

/// The permission card's key map; `None` for keys it leaves to the
/// editor. Enter and Esc are the card's whatever the draft holds
/// (`card_enter.rs`); with a draft in the editor, `y`, `n` and digits are
/// typing.
fn permission_key_of(key: Key, input_empty: bool) -> Option<PermissionKey> {
    match (key.code, key.mods) {
        (KeyCode::Up | KeyCode::Left | KeyCode::BackTab, _) => Some(PermissionKey::Move(-1)),
        (KeyCode::Down | KeyCode::Right | KeyCode::Tab, _) => Some(PermissionKey::Move(1)),
        (KeyCode::Enter, Mods::NONE) => Some(PermissionKey::Selected),
        (KeyCode::Esc, _) => Some(PermissionKey::Shortcut(false)),
        _ if !input_empty => None,
        (KeyCode::Char('y' | 'Y'), _) => Some(PermissionKey::Shortcut(true)),
        (KeyCode::Char('n' | 'N'), _) => Some(PermissionKey::Shortcut(false)),
        (KeyCode::Char(d @ '1'..='9'), Mods::NONE) => {
            Some(PermissionKey::Option(d as usize - '1' as usize))
        }
        _ => None,
    }
}

/// Keys for the permission card on top; false lets the key through. Before
/// the card is armed its keys are taken and do nothing.
fn permission_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let Some(action) = permission_key_of(key, state.input.is_empty()) else {
        return false;
    };
    if !guard::admit(state, now) {
        return true;
    }
    let queue = &mut state.permissions;
    let answer = match action {
        PermissionKey::Move(delta) => {
            queue.move_selection(delta);
            return true;
        }
        PermissionKey::Selected => queue.answer_selected(),
        PermissionKey::Shortcut(allow) => queue.answer_kind(allow),
        PermissionKey::Option(index) => {
            let count = queue.front().map_or(0, |p| p.request.options.len());
            if index >= count {
                return true;
            }
            queue.move_selection(-(count as isize));
            queue.move_selection(index as isize);
            queue.answer_selected()
        }
    };
    if let Some((request, answer, label)) = answer {
        commands::note_permission_answer(state, &label);
        fx.push(Effect::AnswerPermission { request, answer });
    }
    true
}

fn picker_key(state: &mut AppState, key: Key, fx: &mut Vec<Effect>) {
    let Some(picker) = state.picker.as_mut() else {
        return;
    };
    let last = picker.items.len().saturating_sub(1);
    match key.code {
        KeyCode::Up => picker.selected = picker.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Tab => picker.selected = (picker.selected + 1).min(last),
        KeyCode::Esc => state.picker = None,
        KeyCode::Enter => {
            if let Some(picker) = state.picker.take() {
                pickers::picked(state, picker, fx);
            }
        }
        KeyCode::Delete => pickers::close_session(state, fx),
        KeyCode::Char('d') if key.mods.ctrl => pickers::close_session(state, fx),
        _ => {}
    }
}

/// Keys for the slash popup while it shows candidates. Enter runs: the line
/// as typed when it names a command exactly (bare, or with a value the popup
/// offers), else the highlighted row (a command bare: `/model` and `/agent`
/// open their pickers, `/yolo` explains; a value with its command). A row
/// picked with ↑↓ wins over the typed text. Tab only completes.
fn popup_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let rows = state.completions();
    if rows.is_empty() {
        return false;
    }
    let selected = state.popup_selected.min(rows.len() - 1);
    match (key.code, key.mods) {
        (KeyCode::Up, _) => {
            state.popup_selected = selected.saturating_sub(1);
            state.popup_chosen = true;
        }
        (KeyCode::Down, _) => {
            state.popup_selected = (selected + 1).min(rows.len() - 1);
            state.popup_chosen = true;
        }
        (KeyCode::Esc, _) => state.popup_dismissed = true,
        (KeyCode::Tab, _) => {
            state.input.set_text(&rows[selected].replacement);
            state.popup_selected = 0;
            state.popup_chosen = false;
        }
        (KeyCode::Enter, Mods::NONE) => {
            let sources = super::slash::ArgSources {
                agents: &state.agents,
                models: &state.models,
            };
            if state.popup_chosen || !super::slash::runs_as_typed(state.input.text(), sources) {
                let line = rows[selected].replacement.trim_end().to_owned();
                state.input.set_text(&line);
            }
            state.popup_selected = 0;
            state.popup_chosen = false;
            commands::submit(state, now, fx);
        }
        _ => return false,
    }
    true
}

fn setup_key(state: &mut AppState, key: Key, fx: &mut Vec<Effect>) -> bool {
    let Some(Setup::NeedsAuth {
        agent,
        methods,
        selected,
    }) = state.setup.as_mut()
    else {
        return false;
    };
    if !state.input.is_empty() {
        return false;
    }
    match key.code {
        KeyCode::Up => *selected = selected.saturating_sub(1),
        KeyCode::Down => *selected = (*selected + 1).min(methods.len().saturating_sub(1)),
        KeyCode::Enter => {
            let Some(method) = methods.get(*selected) else {
                return true;
            };
            let agent = agent.clone();
            fx.push(match &method.terminal_command {
                Some(command) => Effect::RunAuthInWindow {
                    agent,
                    method: method.id.clone(),
                    command: command.clone(),
                },
                None => Effect::Authenticate {
                    agent,
                    method: method.id.clone(),
                },
            });
        }
        _ => return false,
    }
    true
}

/// Tab/Shift+Tab select foldable entries while the input is empty; Enter folds.
fn fold_key(state: &mut AppState, key: Key) -> bool {
    if !state.input.is_empty() {
        return false;
    }
    let foldables = state.transcript.foldables();
    let position = state
        .fold_focus
        .and_then(|id| foldables.iter().position(|f| *f == id));
    match key.code {
        KeyCode::Tab | KeyCode::BackTab if foldables.is_empty() => return false,
        // Tab walks upwards from the newest entry, like reading back.
        KeyCode::Tab => {
            let next = position.map_or(foldables.len() - 1, |p| p.saturating_sub(1));
            state.fold_focus = Some(foldables[next]);
        }
        KeyCode::BackTab => {
            state.fold_focus = match position {
                Some(p) if p + 1 < foldables.len() => Some(foldables[p + 1]),
                _ => None,
            };
        }
        KeyCode::Enter if key.mods == Mods::NONE && position.is_some() => {
            if let Some(id) = state.fold_focus {
                state.transcript.toggle(id);
                // Lines below the fold moved: a selection would cover other text.
                state.selection = None;
            }
        }
        KeyCode::Esc if state.fold_focus.is_some() => state.fold_focus = None,
        _ => return false,
    }
    true
}

/// PageUp/PageDown and Ctrl+Home/End scroll the transcript, or the F12
/// panel while it is open (which takes plain Home/End too while the
/// editor is empty: with a draft they move in it).
fn scroll_key(state: &mut AppState, key: Key) -> bool {
    if state.debug.visible {
        let debug = &mut state.debug;
        match (key.code, key.mods.ctrl) {
            (KeyCode::PageUp, _) => debug.scroll_up(debug.page()),
            (KeyCode::PageDown, _) => debug.scroll_down(debug.page()),
            (KeyCode::Home, ctrl) if ctrl || state.input.is_empty() => debug.to_start(),
            (KeyCode::End, ctrl) if ctrl || state.input.is_empty() => debug.to_end(),
            _ => return false,
        }
        return true;
    }
    match (key.code, key.mods.ctrl) {
        (KeyCode::PageUp, _) => scroll_up(state, page_size(state)),
        (KeyCode::PageDown, _) => scroll_down(state, page_size(state)),
        (KeyCode::Home, true) => state.scroll = Scroll::Pinned { top: 0 },
        (KeyCode::End, true) => state.scroll = Scroll::Follow,
        _ => return false,
    }
    true
}

fn editor_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) {
    let before = state.input.text().to_owned();
    let input = &mut state.input;
    let word = key.mods.ctrl || key.mods.alt;
    let select = key.mods.shift;
    match key.code {
        KeyCode::Enter if key.mods.shift || key.mods.alt => input.insert_char('\n'),
        KeyCode::Char('j') if key.mods.ctrl => input.insert_char('\n'),
        KeyCode::Enter if input.raw().ends_with('\\') && input.cursor() == input.raw().len() => {
            // `\` + Enter: a newline on terminals that cannot report Shift+Enter.
            input.backspace();
            input.insert_char('\n');
        }
        KeyCode::Enter => commands::submit(state, now, fx),
        KeyCode::Esc if input.is_empty() => {
            if let Some(queued) = state.queued.take() {
                commands::unqueue(state, queued);
            }
        }
        KeyCode::Esc => input.clear(),
        KeyCode::Left if word => input.word_left(select),
        KeyCode::Right if word => input.word_right(select),
        KeyCode::Left => input.left(select),
        KeyCode::Right => input.right(select),
        KeyCode::Home => input.home(select),
        KeyCode::End => input.end(select),
        KeyCode::Char('a') if key.mods.ctrl => input.home(false),
        KeyCode::Char('e') if key.mods.ctrl => input.end(false),
        KeyCode::Char('o') if key.mods.ctrl => drop(input.expand_chip()),
        KeyCode::Char('b') if key.mods.alt => input.word_left(false),
        KeyCode::Char('f') if key.mods.alt => input.word_right(false),
        KeyCode::Char('w') if key.mods.ctrl => input.delete_word_left(),
        KeyCode::Char('d') if key.mods.alt => input.delete_word_right(),
        KeyCode::Char('u') if key.mods.ctrl => input.kill_line_left(),
        KeyCode::Char('k') if key.mods.ctrl => input.kill_line_right(),
        KeyCode::Char('h') if key.mods.ctrl => input.delete_word_left(),
        KeyCode::Backspace if word => input.delete_word_left(),
        KeyCode::Backspace => input.backspace(),
        KeyCode::Delete if word => input.delete_word_right(),
        KeyCode::Delete => input.delete(),
        KeyCode::Up if !input.up() => {
            input.history_prev();
        }
        KeyCode::Down if !input.down() => {
            input.history_next();
        }
        KeyCode::Char(c) if !key.mods.ctrl && !key.mods.alt => input.insert_char(c),
        _ => {}
    }
    after_edit(state, &before);
}

pub(crate) fn on_paste(state: &mut AppState, text: &str) {
    if super::copy_mode::on_paste(state, text) {
        return;
    }
    let before = state.input.text().to_owned();
    state.input.paste(text);
    after_edit(state, &before);
}

/// New text re-opens the popup at its first row and ends fold selection.
fn after_edit(state: &mut AppState, before: &str) {
    if state.input.text() != before {
        state.popup_selected = 0;
        state.popup_chosen = false;
        state.popup_dismissed = false;
        state.fold_focus = None;
    }
}
