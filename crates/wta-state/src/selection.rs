//! Mouse selection of transcript text, as data. A selection is two points in
//! transcript coordinates (line number from the top of the wrapped
//! transcript, as in `Scroll::Pinned`, and display column), so scrolling
//! moves the highlight with the text instead of leaving it on screen rows.
//!
//! A double click selects by words and a triple click by lines ([`Unit`]);
//! dragging after either extends in that unit. The reducer only knows
//! geometry: the view expands word ends over the text it drew, writes where
//! it drew the transcript ([`TranscriptArea`]) and the text the current
//! selection covers ([`SelectedText`]) back into `AppState`, the same way it
//! writes `Viewport`. This module never renders and never reads the clock
//! (time is the reducer's `now`).

use std::time::{Duration, Instant};

use super::reducer::{scroll_down, scroll_up};
use super::state::AppState;

/// Presses on the same cell closer than this make a double or triple click.
pub const MULTI_CLICK: Duration = Duration::from_millis(500);

/// What a selection extends over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unit {
    /// Cells, from a single click and drag.
    #[default]
    Char,
    /// Whole words at both ends (double click); the view finds the ends.
    Word,
    /// Whole lines (triple click).
    Line,
}

/// The last left-button press, to count double and triple clicks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Click {
    pub at: Instant,
    pub point: TextPoint,
    /// 1, 2 or 3.
    pub count: u8,
}

/// A cell of the wrapped transcript. Ordered by line, then column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextPoint {
    /// Line number from the start of the wrapped transcript.
    pub line: usize,
    /// Display column within the transcript area.
    pub col: usize,
}

/// A mouse selection: from where the button went down to where it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    pub anchor: TextPoint,
    pub head: TextPoint,
    /// The pointer moved with the button held, or the press was a double or
    /// triple click. A single click that never dragged selects nothing.
    pub dragged: bool,
    pub unit: Unit,
}

impl Selection {
    /// First and last selected cell, both inclusive.
    pub fn range(&self) -> (TextPoint, TextPoint) {
        if self.anchor <= self.head {
            (self.anchor, self.head)
        } else {
            (self.head, self.anchor)
        }
    }

    /// Selected display columns `[from, to)` of `line`, or `None` when the
    /// line is outside the selection. `to` may exceed the line's width. For
    /// [`Unit::Word`] these are the cells before the view widens the ends to
    /// whole words.
    pub fn columns(&self, line: usize) -> Option<(usize, usize)> {
        let (start, end) = self.range();
        if !self.dragged || line < start.line || line > end.line {
            return None;
        }
        if self.unit == Unit::Line {
            return Some((0, usize::MAX));
        }
        let from = if line == start.line { start.col } else { 0 };
        let to = if line == end.line {
            end.col.saturating_add(1)
        } else {
            usize::MAX
        };
        Some((from, to))
    }
}

/// Where the last frame drew the transcript on screen (written by the view;
/// `None` while the transcript is not shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TranscriptArea {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub height: u16,
}

impl TranscriptArea {
    fn contains(&self, col: u16, row: u16) -> bool {
        col >= self.x
            && row >= self.y
            && col < self.x.saturating_add(self.width)
            && row < self.y.saturating_add(self.height)
    }
}

/// The text a selection covers, as the view rendered it (written by the
/// view after drawing that selection; Ctrl+C copies it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectedText {
    pub selection: Selection,
    pub text: String,
}

/// Left button pressed: starts a selection inside the transcript; anywhere
/// else it clears the current one. A second or third press on the same cell
/// within [`MULTI_CLICK`] selects the word or the line under it.
pub(crate) fn on_down(state: &mut AppState, col: u16, row: u16, now: Instant) {
    let inside = state
        .transcript_area
        .get()
        .is_some_and(|area| area.contains(col, row));
    let Some(point) = point_at(state, col, row).filter(|_| inside) else {
        state.selection = None;
        state.last_click = None;
        return;
    };
    let count = match state.last_click {
        Some(last)
            if last.point == point
                && now.saturating_duration_since(last.at) <= MULTI_CLICK
                && last.count < 3 =>
        {
            last.count + 1
        }
        _ => 1,
    };
    state.last_click = Some(Click {
        at: now,
        point,
        count,
    });
    let unit = match count {
        1 => Unit::Char,
        2 => Unit::Word,
        _ => Unit::Line,
    };
    state.selection = Some(Selection {
        anchor: point,
        head: point,
        dragged: unit != Unit::Char,
        unit,
    });
}

/// Pointer moved with the button held: extends the selection. Dragging past
/// the top or bottom edge scrolls one line per event.
pub(crate) fn on_drag(state: &mut AppState, col: u16, row: u16) {
    if state.selection.is_none() {
        return;
    }
    if let Some(area) = state.transcript_area.get() {
        if row < area.y {
            scroll_up(state, 1);
        } else if row >= area.y.saturating_add(area.height) {
            scroll_down(state, 1);
        }
    }
    let point = point_at(state, col, row);
    if let (Some(selection), Some(point)) = (state.selection.as_mut(), point) {
        selection.head = point;
        selection.dragged = true;
    }
}

/// Button released: a click that never dragged clears the selection.
pub(crate) fn on_up(state: &mut AppState) {
    if state.selection.is_some_and(|s| !s.dragged) {
        state.selection = None;
    }
}

/// The rendered text of the current selection, if the view has drawn it.
/// Clears the selection either way.
pub(crate) fn take_text(state: &mut AppState) -> Option<Option<String>> {
    let selection = state.selection.take().filter(|s| s.dragged)?;
    let drawn = state.selected_text.get_mut().take();
    Some(drawn.filter(|d| d.selection == selection).map(|d| d.text))
}

/// The transcript cell under a screen position, clamped into the area; below
/// the last line it is the end of the last line.
fn point_at(state: &AppState, col: u16, row: u16) -> Option<TextPoint> {
    let area = state.transcript_area.get()?;
    let viewport = state.viewport.get();
    if area.width == 0 || area.height == 0 || viewport.total_lines == 0 {
        return None;
    }
    let row = usize::from(row.clamp(area.y, area.y + area.height - 1) - area.y);
    let col = usize::from(col.clamp(area.x, area.x + area.width - 1) - area.x);
    let line = viewport.top(state.scroll) + row;
    Some(if line >= viewport.total_lines {
        TextPoint {
            line: viewport.total_lines - 1,
            col: usize::from(area.width),
        }
    } else {
        TextPoint { line, col }
    })
}
