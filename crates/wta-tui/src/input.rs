//! The prompt box: `› ` then the draft, hard-wrapped, with the selection
//! highlighted and the terminal cursor placed at the edit point. A paste
//! chip is drawn whole as its label (`[Pasted 40 lines]`), never split
//! across rows. While the select mode is on, the box says so instead
//! (`copy_line.rs`).

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;
use unicode_width::UnicodeWidthStr;
use wta_state::paste_chip::{self, CHIP};
use wta_state::{AppState, ConnectionState};

use wta_i18n::tr;

use crate::theme;

/// Most rows the prompt box grows to; longer drafts scroll inside it.
pub const MAX_INPUT_ROWS: usize = 8;
const PROMPT_WIDTH: usize = 2;

/// Rows of the draft wrapped to `width`, and the cursor's (row, column).
pub struct Wrapped {
    pub rows: Vec<Line<'static>>,
    pub cursor: (usize, usize),
}

pub fn wrap_input(state: &AppState, width: usize) -> Wrapped {
    let text = state.input.raw();
    let mut chips = state.input.chips().iter();
    let cursor_at = state.input.cursor();
    let selection = state.input.selection_range();
    let avail = width.saturating_sub(PROMPT_WIDTH).max(1);
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut col = 0usize;
    let mut cursor = (0, 0);
    let push = |rows: &mut Vec<Vec<Span<'static>>>, c: char, style: Style| {
        let row = rows.last_mut();
        if let Some(row) = row {
            match row.last_mut() {
                Some(span) if span.style == style => span.content.to_mut().push(c),
                _ => row.push(Span::styled(c.to_string(), style)),
            }
        }
    };
    for (i, c) in text.char_indices() {
        if i == cursor_at {
            cursor = (rows.len() - 1, col);
        }
        if c == '\n' {
            rows.push(Vec::new());
            col = 0;
            continue;
        }
        let selected = selection.is_some_and(|(s, e)| i >= s && i < e);
        if c == CHIP {
            let label = chips
                .next()
                .map_or_else(String::new, |c| paste_chip::label(c));
            let label = crate::wrap::truncate(&label, avail);
            let w = label.width();
            if col > 0 && col + w > avail {
                rows.push(Vec::new());
                col = 0;
                if i == cursor_at {
                    cursor = (rows.len() - 1, 0);
                }
            }
            let style = if selected {
                theme::selected()
            } else {
                theme::accent()
            };
            if let Some(row) = rows.last_mut() {
                row.push(Span::styled(label, style));
            }
            col += w;
            continue;
        }
        let w = c.width().unwrap_or(0);
        if col + w > avail {
            rows.push(Vec::new());
            col = 0;
            if i == cursor_at {
                cursor = (rows.len() - 1, 0);
            }
        }
        push(
            &mut rows,
            c,
            if selected {
                theme::selected()
            } else {
                Style::new()
            },
        );
        col += w;
    }
    if cursor_at >= text.len() {
        if col >= avail {
            rows.push(Vec::new());
            col = 0;
        }
        cursor = (rows.len() - 1, col);
    }
    let rows = rows
        .into_iter()
        .enumerate()
        .map(|(i, spans)| {
            let prefix = if i == 0 {
                Span::styled("› ", theme::user_prefix())
            } else {
                Span::raw("  ")
            };
            let mut line = vec![prefix];
            line.extend(spans);
            Line::from(line)
        })
        .collect();
    Wrapped { rows, cursor }
}

/// Rows the prompt box needs at this width (at least one, at most the cap).
pub fn input_height(state: &AppState, width: usize) -> usize {
    if state.copy_mode.is_some() {
        return 1;
    }
    wrap_input(state, width).rows.len().clamp(1, MAX_INPUT_ROWS)
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    if let Some(mode) = &state.copy_mode {
        return crate::copy_line::render(state, mode, frame, area);
    }
    let buf = frame.buffer_mut();
    if state.input.is_empty() {
        let hint = match (&state.connection, state.setup.is_some()) {
            (ConnectionState::MasterLost { reconnecting: true }, _) => tr!("input.reconnecting"),
            (
                ConnectionState::MasterLost {
                    reconnecting: false,
                },
                _,
            ) => {
                tr!("input.master_lost")
            }
            (_, true) => tr!("input.setup"),
            (ConnectionState::Connecting, _) => tr!("input.connecting", agent = state.agent),
            (ConnectionState::Failed(_), _) => tr!("input.failed"),
            (ConnectionState::Ready, _) => tr!("input.ask", agent = state.agent),
        };
        let hint = fit_hint(&hint, (area.width as usize).saturating_sub(PROMPT_WIDTH));
        let line = Line::from(vec![
            Span::styled("› ", theme::user_prefix()),
            Span::styled(hint, theme::dim()),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
        frame.set_cursor_position(Position::new(area.x + PROMPT_WIDTH as u16, area.y));
        return;
    }
    let wrapped = wrap_input(state, area.width as usize);
    let rows = area.height as usize;
    let first = (wrapped.cursor.0 + 1).saturating_sub(rows);
    for (y, line) in wrapped.rows.iter().skip(first).take(rows).enumerate() {
        buf.set_line(area.x, area.y + y as u16, line, area.width);
    }
    let x = area.x + (PROMPT_WIDTH + wrapped.cursor.1) as u16;
    let y = area.y + (wrapped.cursor.0 - first) as u16;
    frame.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1)), y));
}

/// The hint's ` · `-separated parts that fit in `width` columns, whole
/// (a long language's hint drops its last parts rather than cut a word);
/// the first part alone is cut with `…` only when nothing else fits.
pub(crate) fn fit_hint(hint: &str, width: usize) -> String {
    let mut shown = String::new();
    for part in hint.split(" · ") {
        let next = if shown.is_empty() {
            part.to_owned()
        } else {
            format!("{shown} · {part}")
        };
        if next.width() > width {
            break;
        }
        shown = next;
    }
    if shown.is_empty() {
        crate::wrap::truncate(hint, width)
    } else {
        shown
    }
}
