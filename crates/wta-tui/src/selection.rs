//! Drawing and reading a transcript mouse selection: reverse video over the
//! selected cells of the visible rows, and the selected text as rendered
//! (display columns, trailing spaces trimmed). Pure over the wrapped lines
//! the transcript cache already holds.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use unicode_width::UnicodeWidthChar;
use wta_helper::app::Selection;

use crate::theme;

/// Reverses the selected cells of the drawn rows. `lines` are the rows on
/// screen from the top of `area`; `top` is the transcript line of the first.
pub fn highlight<'a>(
    selection: &Selection,
    top: usize,
    lines: impl Iterator<Item = &'a Line<'static>>,
    buf: &mut Buffer,
    area: Rect,
) {
    for (y, line) in lines.enumerate() {
        let Some((from, to)) = selection.columns(top + y) else {
            continue;
        };
        let to = to.min(line.width()).min(usize::from(area.width));
        if from >= to {
            continue;
        }
        let row = Rect {
            x: area.x + from as u16,
            y: area.y + y as u16,
            width: (to - from) as u16,
            height: 1,
        };
        buf.set_style(row, theme::selected());
    }
}

/// The selected text of `lines` (transcript lines from `first`), joined with
/// `\n`, each line's trailing spaces trimmed.
pub fn text<'a>(
    selection: &Selection,
    first: usize,
    lines: impl Iterator<Item = &'a Line<'static>>,
) -> String {
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let Some((from, to)) = selection.columns(first + i) else {
            continue;
        };
        rows.push(columns_of(line, from, to));
    }
    rows.join("\n")
}

/// The characters of `line` that start in display columns `[from, to)`,
/// trailing spaces trimmed.
fn columns_of(line: &Line<'_>, from: usize, to: usize) -> String {
    let mut out = String::new();
    let mut col = 0usize;
    for c in line.spans.iter().flat_map(|s| s.content.chars()) {
        if col >= to {
            break;
        }
        if col >= from {
            out.push(c);
        }
        col += c.width().unwrap_or(0);
    }
    out.truncate(out.trim_end_matches(' ').len());
    out
}

#[cfg(test)]
mod tests {
    use ratatui::text::Span;
    use wta_helper::app::TextPoint;

    use super::*;

    fn selection(a: (usize, usize), b: (usize, usize)) -> Selection {
        Selection {
            anchor: TextPoint {
                line: a.0,
                col: a.1,
            },
            head: TextPoint {
                line: b.0,
                col: b.1,
            },
            dragged: true,
        }
    }

    #[test]
    fn text_is_cut_by_display_columns_and_trimmed() {
        let lines = [
            Line::from(vec![Span::raw("• "), Span::raw("hello world  ")]),
            Line::from("  世界 wide"),
            Line::from("  last line"),
        ];
        // Backwards drag from (2, 5) to (0, 8): same range as forwards, both
        // end cells included.
        let s = selection((2, 5), (0, 8));
        assert_eq!(text(&s, 0, lines.iter()), "world\n  世界 wide\n  last");
        assert_eq!(
            text(&selection((1, 4), (1, 5)), 0, lines.iter()),
            "界",
            "a wide character belongs to the column it starts in"
        );
        assert_eq!(columns_of(&lines[0], 2, usize::MAX), "hello world");
    }

    #[test]
    fn a_click_that_never_dragged_selects_nothing() {
        let lines = [Line::from("text")];
        let mut s = selection((0, 0), (0, 3));
        s.dragged = false;
        assert_eq!(text(&s, 0, lines.iter()), "");
    }
}
