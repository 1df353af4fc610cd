//! The keyboard select mode over the transcript, as data: Alt+V enters it
//! with a cursor on the last line in view; vi motions move the cursor,
//! `v`/`V` select characters or lines (the selection is the mouse
//! selection's own [`Selection`], so the view draws and Ctrl+C copies it
//! the same way), `y` or Enter copies through [`Effect::CopyToClipboard`]
//! (the tmux buffer and OSC 52, as the mouse selection does), `/` (or `?`,
//! upwards) searches with `n`/`N`, Esc or `q` leaves and puts the view back where it was.
//!
//! While the mode is on, the view writes the transcript's wrapped lines
//! into [`AppState::transcript_text`] after each frame (as it writes the
//! viewport); motions, search and copying read them there, so keys read in
//! one batch before a frame still move over the right text. Geometry comes
//! from the viewport as for the mouse. This module never renders.

use super::copy_motion::{self, Lines};
use super::effects::Effect;
use super::events::{Key, KeyCode, Mods};
use super::selection::{Selection, TextPoint, Unit};
use super::state::{AppState, Scroll};

/// The key that enters the select mode (not bound by tmux by default, nor
/// by the editor: Alt+B/F/D are its word keys).
pub const SELECT_KEY: Key = Key {
    code: KeyCode::Char('v'),
    mods: Mods::ALT,
};

/// The select mode while it is on (`AppState::copy_mode`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyMode {
    /// The cursor cell, always inside the transcript once it has lines.
    pub cursor: TextPoint,
    /// Where the view was before the mode, restored when it ends.
    pub scroll_before: Scroll,
    /// The column `j`/`k` aim for across shorter lines (vi's): set by the
    /// first vertical move, dropped by any other.
    pub want_col: Option<usize>,
    pub search: Search,
}

/// The mode's search.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Search {
    /// The query being typed after `/` (Enter searches, Esc cancels).
    pub typing: Option<String>,
    /// The query `n`/`N` repeat; its matches are highlighted.
    pub query: Option<String>,
    /// The query is searched upwards (typed after `?`, not `/`): `n`
    /// repeats that way, `N` the other.
    pub backward: bool,
    /// The last search found nothing.
    pub no_match: bool,
    /// The match at the cursor: (its number from 1, how many there are).
    pub hit: Option<(usize, usize)>,
}

impl Search {
    /// What the view highlights: the query being typed, else the last one.
    pub fn shown_query(&self) -> Option<&str> {
        self.typing
            .as_deref()
            .or(self.query.as_deref())
            .filter(|q| !q.is_empty())
    }
}

/// The transcript's wrapped lines as the view last drew them (written by
/// the view while the select mode is on; `None` otherwise).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranscriptText {
    /// Every line from the top of the wrapped transcript, plain text.
    pub lines: Vec<String>,
}

/// A key while the select mode is on, or the key that enters it; false
/// leaves the key to the rest of the pane.
pub(crate) fn on_key(state: &mut AppState, key: Key, fx: &mut Vec<Effect>) -> bool {
    if state.copy_mode.is_none() {
        if key != SELECT_KEY {
            return false;
        }
        enter(state);
        return true;
    }
    // The lines are taken out of their cell while the key works on them
    // and put back after: no copy, no borrow held across the state.
    let text = state.transcript_text.take().unwrap_or_default();
    let lines = Lines {
        lines: &text.lines,
        total: state.viewport.get().total_lines,
    };
    let typing = state
        .copy_mode
        .as_ref()
        .is_some_and(|m| m.search.typing.is_some());
    if typing {
        search_key(state, key, lines);
    } else {
        mode_key(state, key, lines, fx);
    }
    state.transcript_text.replace(Some(text));
    true
}

/// A bracketed paste while the mode is on: into the query being typed
/// (its line ends as spaces: a match is one line), and true; else the
/// mode ends and the paste goes to the editor as usual (false).
pub(crate) fn on_paste(state: &mut AppState, text: &str) -> bool {
    let Some(mode) = state.copy_mode.as_mut() else {
        return false;
    };
    match mode.search.typing.as_mut() {
        Some(query) => {
            query.push_str(&super::paste_chip::newlines(text).replace('\n', " "));
            true
        }
        None => {
            leave(state);
            false
        }
    }
}

/// Alt+V: the cursor on the last line in view; the view stops following.
fn enter(state: &mut AppState) {
    let viewport = state.viewport.get();
    let top = viewport.top(state.scroll);
    let bottom = (top + viewport.rows).min(viewport.total_lines);
    state.selection = None;
    state.copy_mode = Some(CopyMode {
        cursor: TextPoint {
            line: bottom.saturating_sub(1),
            col: 0,
        },
        scroll_before: state.scroll,
        want_col: None,
        search: Search::default(),
    });
    state.scroll = Scroll::Pinned { top };
}

/// Esc, `q`, or after copying: the view goes back where it was.
pub(crate) fn leave(state: &mut AppState) {
    if let Some(mode) = state.copy_mode.take() {
        state.scroll = mode.scroll_before;
        state.selection = None;
    }
}

fn mode_key(state: &mut AppState, key: Key, lines: Lines<'_>, fx: &mut Vec<Effect>) {
    let Some(mode) = state.copy_mode.as_ref() else {
        return;
    };
    let cursor = mode.cursor;
    let half = (state.viewport.get().rows / 2).max(1) as isize;
    let ctrl = key.mods.ctrl;
    let rows = match key.code {
        KeyCode::Char('u') if ctrl => Some(-half),
        KeyCode::Char('d') if ctrl => Some(half),
        _ if ctrl || key.mods.alt => None,
        KeyCode::Char('j') | KeyCode::Down => Some(1),
        KeyCode::Char('k') | KeyCode::Up => Some(-1),
        KeyCode::PageDown => Some(half * 2),
        KeyCode::PageUp => Some(-half * 2),
        _ => None,
    };
    if let Some(rows) = rows {
        let col = mode.want_col.unwrap_or(cursor.col);
        move_to(state, lines.vertical(TextPoint { col, ..cursor }, rows));
        if let Some(mode) = state.copy_mode.as_mut() {
            mode.want_col = Some(col);
        }
        return;
    }
    let moved = match key.code {
        KeyCode::Esc => return leave(state),
        KeyCode::Char('q') if !ctrl => return leave(state),
        KeyCode::Char('y') | KeyCode::Enter => return copy(state, lines, fx),
        _ if ctrl || key.mods.alt => return,
        KeyCode::Char('h') | KeyCode::Left => lines.horizontal(cursor, false),
        KeyCode::Char('l') | KeyCode::Right => lines.horizontal(cursor, true),
        KeyCode::Char('w') => lines.word_forward(cursor),
        KeyCode::Char('b') => lines.word_backward(cursor),
        KeyCode::Char('0') | KeyCode::Home => TextPoint { col: 0, ..cursor },
        KeyCode::Char('$') | KeyCode::End => TextPoint {
            col: lines.last_col(cursor.line),
            ..cursor
        },
        KeyCode::Char('g') => TextPoint { line: 0, col: 0 },
        KeyCode::Char('G') => lines.clamp(TextPoint {
            line: usize::MAX,
            col: 0,
        }),
        KeyCode::Char('v') => return toggle(state, Unit::Char),
        KeyCode::Char('V') => return toggle(state, Unit::Line),
        KeyCode::Char(c @ ('/' | '?')) => {
            if let Some(mode) = state.copy_mode.as_mut() {
                mode.search.typing = Some(String::new());
                mode.search.backward = c == '?';
                mode.search.no_match = false;
            }
            return;
        }
        KeyCode::Char(c @ ('n' | 'N')) => {
            let backward = state.copy_mode.as_ref().is_some_and(|m| m.search.backward);
            return jump(state, lines, (c == 'n') != backward);
        }
        _ => return,
    };
    move_to(state, lines.clamp(moved));
}

/// Keys while a query is typed after `/`.
fn search_key(state: &mut AppState, key: Key, lines: Lines<'_>) {
    let Some(search) = state.copy_mode.as_mut().map(|m| &mut m.search) else {
        return;
    };
    let Some(typing) = search.typing.as_mut() else {
        return;
    };
    match key.code {
        KeyCode::Esc => search.typing = None,
        KeyCode::Enter => {
            let query = search.typing.take().unwrap_or_default();
            if !query.is_empty() {
                search.query = Some(query);
            }
            let forward = !search.backward;
            jump(state, lines, forward);
        }
        KeyCode::Backspace if typing.is_empty() => search.typing = None,
        KeyCode::Backspace => drop(typing.pop()),
        KeyCode::Char(c) if !key.mods.ctrl && !key.mods.alt => typing.push(c),
        _ => {}
    }
}

/// `n` (forward) / `N`, and Enter after a query: the cursor to the next
/// match, wrapping around; "no match" when there is none.
fn jump(state: &mut AppState, lines: Lines<'_>, forward: bool) {
    let Some(mode) = state.copy_mode.as_mut() else {
        return;
    };
    let Some(query) = mode.search.query.clone() else {
        return;
    };
    let matches = copy_motion::all_matches(lines, &query);
    match copy_motion::next_match(&matches, mode.cursor, forward) {
        Some((index, point)) => {
            mode.search.no_match = false;
            mode.search.hit = Some((index + 1, matches.len()));
            move_to(state, point);
        }
        None => {
            mode.search.no_match = true;
            mode.search.hit = None;
        }
    }
}

/// `v` / `V`: starts a selection of that unit at the cursor, switches an
/// open one to it, or ends one already of it.
fn toggle(state: &mut AppState, unit: Unit) {
    let Some(cursor) = state.copy_mode.as_ref().map(|m| m.cursor) else {
        return;
    };
    state.selection = match state.selection {
        Some(s) if s.dragged && s.unit == unit => None,
        Some(s) if s.dragged => Some(Selection { unit, ..s }),
        _ => Some(Selection {
            anchor: cursor,
            head: cursor,
            dragged: true,
            unit,
        }),
    };
}

/// `y` / Enter: copies the selection (the cursor's line without one) and
/// leaves the mode. A word selection made with the mouse copies as the
/// view drew it.
fn copy(state: &mut AppState, lines: Lines<'_>, fx: &mut Vec<Effect>) {
    let Some(cursor) = state.copy_mode.as_ref().map(|m| m.cursor) else {
        return;
    };
    let drawn = state.selected_text.get_mut().take();
    let text = match state.selection.filter(|s| s.dragged) {
        Some(s) if s.unit == Unit::Word => drawn.filter(|d| d.selection == s).map(|d| d.text),
        Some(s) => Some(copy_motion::selected_text(&s, lines)),
        None => Some(copy_motion::line_text(lines, cursor.line)),
    };
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        fx.push(Effect::CopyToClipboard(text));
    }
    leave(state);
}

/// The cursor to `point` (a column `j`/`k` aimed for is dropped), the
/// selection's free end with it, and the view scrolled just enough to show
/// it.
fn move_to(state: &mut AppState, point: TextPoint) {
    if let Some(mode) = state.copy_mode.as_mut() {
        mode.cursor = point;
        mode.want_col = None;
    }
    if let Some(selection) = state.selection.as_mut().filter(|s| s.dragged) {
        selection.head = point;
    }
    let viewport = state.viewport.get();
    if viewport.rows == 0 {
        return;
    }
    let top = viewport.top(state.scroll);
    if point.line < top {
        state.scroll = Scroll::Pinned { top: point.line };
    } else if point.line >= top + viewport.rows {
        state.scroll = Scroll::Pinned {
            top: point.line + 1 - viewport.rows,
        };
    }
}
