//! F12 panel: the newest JSON-RPC lines of this pane as they crossed the
//! master socket, `→` for what we sent and `←` for what we received. A line
//! wraps over up to [`ROWS_PER_LINE`] rows (the method name of a request
//! comes after its id), the rest cut with `…`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};
use wta_i18n::tr;
use wta_state::{AppState, Direction};

use crate::theme;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::wrap::truncate;

/// Rows one traffic line may take.
pub const ROWS_PER_LINE: usize = 3;

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let log = &state.debug;
    let dropped = log.total.saturating_sub(log.len() as u64);
    let mut title = format!(" {}", tr!("debug.title", lines = log.len()));
    if dropped > 0 {
        title.push_str(&format!(" ({})", tr!("debug.dropped", n = dropped)));
    }
    title.push_str(" · F12 ");
    let block = Block::default()
        .borders(Borders::LEFT | Borders::TOP)
        .border_style(theme::dim())
        .title(Span::styled(title, theme::dim()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = inner.height as usize;
    let width = inner.width.saturating_sub(3) as usize;
    let buf = frame.buffer_mut();
    if log.is_empty() {
        let line = Line::from(Span::styled(
            format!(" {}", tr!("debug.empty")),
            theme::dim(),
        ));
        buf.set_line(inner.x, inner.y, &line, inner.width);
        return;
    }
    // Newest at the bottom: lay out lines from the newest back until the
    // panel is full (a newest line taller than the panel shows its start).
    let mut shown: Vec<Line<'static>> = Vec::new();
    for entry in log.lines().rev() {
        if shown.len() >= rows {
            break;
        }
        let (arrow, style) = match entry.direction {
            Direction::Out => (" → ", theme::ok()),
            Direction::In => (" ← ", theme::accent()),
        };
        let cap = if shown.is_empty() {
            ROWS_PER_LINE.min(rows)
        } else {
            ROWS_PER_LINE
        };
        let rows_of = pack(&entry.text, width.max(1), cap);
        let lines = rows_of.into_iter().enumerate().map(|(i, text)| {
            let head = if i == 0 {
                Span::styled(arrow, style)
            } else {
                Span::raw("   ")
            };
            Line::from(vec![head, Span::styled(text, theme::dim())])
        });
        shown.splice(0..0, lines);
    }
    let skip = shown.len().saturating_sub(rows);
    for (y, line) in shown.iter().skip(skip).enumerate() {
        buf.set_line(inner.x, inner.y + y as u16, line, inner.width);
    }
}

/// `text` in rows of at most `width` columns, broken after commas where it
/// can (JSON keeps `"method":"session/prompt"` whole), at most `max_rows`
/// rows, the last cut with `…` when text is left over.
pub fn pack(text: &str, width: usize, max_rows: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    for piece in text.split_inclusive(',') {
        let w = piece.width();
        if used + w > width && used > 0 {
            rows.push(std::mem::take(&mut row));
            used = 0;
        }
        if w <= width {
            row.push_str(piece);
            used += w;
            continue;
        }
        // A piece wider than a row: between characters.
        for c in piece.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            row.push(c);
            used += cw;
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    if rows.len() > max_rows {
        let rest: String = rows[max_rows - 1..].concat();
        rows.truncate(max_rows - 1);
        rows.push(truncate(&format!("{rest}…"), width));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_break_after_commas_and_are_capped() {
        let line = r#"{"jsonrpc":"2.0","id":"14e80807-0c70-4b84-a461-947e3acece52","method":"session/prompt","params":{}}"#;
        let rows = pack(line, 50, 3);
        assert!(rows.iter().all(|r| r.width() <= 50), "{rows:?}");
        assert!(
            rows.iter()
                .any(|r| r.contains(r#""method":"session/prompt""#)),
            "{rows:?}"
        );
        assert_eq!(rows.concat(), line);
        let long = "x,".repeat(200);
        let rows = pack(&long, 10, 3);
        assert_eq!(rows.len(), 3);
        assert!(rows[2].ends_with('…') && rows[2].width() <= 10, "{rows:?}");
        let unbroken = "y".repeat(25);
        assert_eq!(
            pack(&unbroken, 10, 3),
            ["y".repeat(10), "y".repeat(10), "y".repeat(5)]
        );
        assert_eq!(pack("", 10, 3), [""]);
    }
}
