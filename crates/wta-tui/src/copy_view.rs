//! The select mode drawn over the transcript rows in view: the cursor cell,
//! and every match of the search query (the one at the cursor in its own
//! colour). The selection itself is drawn by `selection.rs`, as a mouse
//! selection is. Also the plain text of a drawn line, which the transcript
//! writes back for the mode's motions and search. Pure over drawn lines.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use unicode_width::UnicodeWidthChar;
use wta_state::{CopyMode, matches_in};

/// The select mode's cursor cell.
pub fn cursor_style() -> Style {
    Style::new().fg(Color::Black).bg(Color::Cyan)
}

/// A match of the search query.
pub fn match_style() -> Style {
    Style::new().fg(Color::Black).bg(Color::Yellow)
}

/// The match the cursor is on.
pub fn current_match_style() -> Style {
    Style::new().fg(Color::Black).bg(Color::LightRed)
}

/// A drawn line's characters, as the mode reads them.
pub fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// Styles the cursor and the matches on the rows in view. `lines` are the
/// rows on screen from the top of `area`; `top` is the transcript line of
/// the first.
pub fn highlight<'a>(
    mode: &CopyMode,
    top: usize,
    lines: impl Iterator<Item = &'a Line<'static>>,
    buf: &mut Buffer,
    area: Rect,
) {
    let width = usize::from(area.width);
    let cell = |from: usize, to: usize, y: usize| Rect {
        x: area.x + from as u16,
        y: area.y + y as u16,
        width: (to.min(width) - from) as u16,
        height: 1,
    };
    for (y, line) in lines.enumerate() {
        let line_no = top + y;
        let text = line_text(line);
        if let Some(query) = mode.search.shown_query() {
            for (from, to) in matches_in(&text, query) {
                if from >= width {
                    break;
                }
                let current = line_no == mode.cursor.line && from == mode.cursor.col;
                let style = if current {
                    current_match_style()
                } else {
                    match_style()
                };
                buf.set_style(cell(from, to, y), style);
            }
        }
        if line_no == mode.cursor.line && mode.cursor.col < width {
            let wide = char_at(&text, mode.cursor.col).map_or(1, |c| c.width().unwrap_or(1));
            let from = mode.cursor.col;
            buf.set_style(cell(from, from + wide.max(1), y), cursor_style());
        }
    }
}

/// The character starting at display column `col` of `text`.
fn char_at(text: &str, col: usize) -> Option<char> {
    let mut at = 0usize;
    for c in text.chars() {
        if at == col {
            return Some(c);
        }
        at += c.width().unwrap_or(0);
        if at > col {
            return None;
        }
    }
    None
}

/// Where the terminal cursor goes: on the mode's cursor when it is in view.
pub fn cursor_position(mode: &CopyMode, top: usize, area: Rect) -> Option<(u16, u16)> {
    let row = mode.cursor.line.checked_sub(top)?;
    (row < usize::from(area.height) && mode.cursor.col < usize::from(area.width))
        .then(|| (area.x + mode.cursor.col as u16, area.y + row as u16))
}
