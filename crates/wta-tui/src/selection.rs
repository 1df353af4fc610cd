//! Drawing and reading a transcript mouse selection: reverse video over the
//! selected cells of the visible rows, and the selected text as rendered
//! (display columns, trailing spaces trimmed). A word selection's two ends
//! are widened here to whole words of the drawn text. Pure over the wrapped
//! lines the transcript cache already holds.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use unicode_width::UnicodeWidthChar;
use wta_state::{Selection, Unit};

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
        let Some((from, to)) = columns(selection, top + y, line) else {
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
        let Some((from, to)) = columns(selection, first + i, line) else {
            continue;
        };
        rows.push(columns_of(line, from, to));
    }
    rows.join("\n")
}

/// Selected display columns `[from, to)` of transcript line `line_no`
/// (drawn as `line`): the selection's own columns, with a word selection's
/// first and last cell widened to the words they fall in.
fn columns(selection: &Selection, line_no: usize, line: &Line<'_>) -> Option<(usize, usize)> {
    let (from, to) = selection.columns(line_no)?;
    if selection.unit != Unit::Word {
        return Some((from, to));
    }
    let (start, end) = selection.range();
    let cells = cells(line);
    let from = if line_no == start.line {
        word_start(&cells, from)
    } else {
        from
    };
    let to = if line_no == end.line {
        word_end(&cells, to.saturating_sub(1))
    } else {
        to
    };
    Some((from, to))
}

/// `(display column, char)` of each character of `line`.
fn cells(line: &Line<'_>) -> Vec<(usize, char)> {
    let mut col = 0usize;
    line.spans
        .iter()
        .flat_map(|s| s.content.chars())
        .map(|c| {
            let cell = (col, c);
            col += c.width().unwrap_or(0);
            cell
        })
        .collect()
}

/// Characters a double click keeps together: anything but blanks, quotes
/// and brackets, so `src/main.rs:12`, `--flag=x` and `a_b-c` are one word.
fn is_word(c: char) -> bool {
    !c.is_whitespace() && !"\"'`()[]{}<>,;|".contains(c)
}

/// The index of the character that starts in or covers display column `col`.
fn index_at(cells: &[(usize, char)], col: usize) -> Option<usize> {
    cells.iter().rposition(|(start, _)| *start <= col)
}

/// First column of the word covering `col` (`col` itself off a word).
fn word_start(cells: &[(usize, char)], col: usize) -> usize {
    let Some(mut i) = index_at(cells, col).filter(|&i| is_word(cells[i].1)) else {
        return col;
    };
    while i > 0 && is_word(cells[i - 1].1) {
        i -= 1;
    }
    cells[i].0
}

/// Column just past the word covering `col` (`col + 1` off a word).
fn word_end(cells: &[(usize, char)], col: usize) -> usize {
    let Some(mut i) = index_at(cells, col).filter(|&i| is_word(cells[i].1)) else {
        return col + 1;
    };
    while i + 1 < cells.len() && is_word(cells[i + 1].1) {
        i += 1;
    }
    let (start, c) = cells[i];
    start + c.width().unwrap_or(0).max(1)
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
    use wta_state::TextPoint;

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
            unit: Unit::Char,
        }
    }

    fn clicked(at: (usize, usize), unit: Unit) -> Selection {
        Selection {
            unit,
            ..selection(at, at)
        }
    }

    #[test]
    fn a_double_click_selects_the_word_under_it() {
        let lines = [Line::from(vec![
            Span::raw("  see "),
            Span::raw("src/main.rs:12"),
            Span::raw(" (and `x_y`)"),
        ])];
        let text_at = |col| text(&clicked((0, col), Unit::Word), 0, lines.iter());
        assert_eq!(text_at(6), "src/main.rs:12", "first cell of the word");
        assert_eq!(text_at(12), "src/main.rs:12", "inside it, across spans");
        assert_eq!(text_at(19), "src/main.rs:12", "last cell");
        assert_eq!(text_at(28), "x_y", "quotes and brackets end a word");
        assert_eq!(text_at(20), "", "a blank selects only itself");
    }

    #[test]
    fn a_word_drag_widens_both_ends_and_keeps_the_middle() {
        let lines = [Line::from("alpha beta"), Line::from("gamma delta")];
        let s = Selection {
            unit: Unit::Word,
            ..selection((1, 8), (0, 7))
        };
        assert_eq!(text(&s, 0, lines.iter()), "beta\ngamma delta");
    }

    #[test]
    fn wide_characters_count_by_their_columns() {
        let lines = [Line::from("ab 世界x cd")];
        assert_eq!(text(&clicked((0, 5), Unit::Word), 0, lines.iter()), "世界x");
    }

    #[test]
    fn a_triple_click_selects_whole_lines() {
        let lines = [Line::from("  first line  "), Line::from("second")];
        assert_eq!(
            text(&clicked((0, 4), Unit::Line), 0, lines.iter()),
            "  first line"
        );
        let s = Selection {
            unit: Unit::Line,
            ..selection((0, 9), (1, 1))
        };
        assert_eq!(text(&s, 0, lines.iter()), "  first line\nsecond");
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
