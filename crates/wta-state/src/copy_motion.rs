//! The select mode's pure geometry over the transcript's drawn lines: vi
//! motions, search matches, and the text a selection covers. Points are
//! [`TextPoint`]s (line from the top of the wrapped transcript, display
//! column), the same as the mouse selection's.
//!
//! Lines come from the view ([`super::copy_mode::TranscriptText`]); a line
//! the view has not written yet is treated as empty, so nothing here can
//! index out of bounds whatever the cursor says. No state, no I/O.

use unicode_width::UnicodeWidthChar;

use super::selection::{Selection, TextPoint, Unit};

/// The wrapped transcript as the reducer knows it: `total` lines (the
/// view's measure), of which `lines` are the drawn text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lines<'a> {
    pub lines: &'a [String],
    pub total: usize,
}

/// What a character is to `w` and `b`: blank, a word character, or other
/// punctuation (vi's "word": a run of either of the last two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Blank,
    Word,
    Punct,
}

fn class(c: char) -> Class {
    if c.is_whitespace() {
        Class::Blank
    } else if c.is_alphanumeric() || c == '_' {
        Class::Word
    } else {
        Class::Punct
    }
}

/// `(display column, char)` of each character of `line`.
fn cells(line: &str) -> Vec<(usize, char)> {
    let mut col = 0usize;
    line.chars()
        .map(|c| {
            let cell = (col, c);
            col += c.width().unwrap_or(0);
            cell
        })
        .collect()
}

impl Lines<'_> {
    fn line(&self, line: usize) -> &str {
        self.lines.get(line).map_or("", String::as_str)
    }

    fn cells(&self, line: usize) -> Vec<(usize, char)> {
        cells(self.line(line))
    }

    /// Column of the last non-blank character of `line` (0 when none).
    pub fn last_col(&self, line: usize) -> usize {
        let cells = self.cells(line);
        cells
            .iter()
            .rev()
            .find(|(_, c)| !c.is_whitespace())
            .map_or(0, |(col, _)| *col)
    }

    fn last_line(&self) -> usize {
        self.total.saturating_sub(1)
    }

    /// `point` moved onto the transcript: its line in range, its column on
    /// the start of a character no further than the line's last one.
    pub fn clamp(&self, point: TextPoint) -> TextPoint {
        let line = point.line.min(self.last_line());
        let cells = self.cells(line);
        let col = cells
            .iter()
            .rev()
            .find(|(col, _)| *col <= point.col.min(self.last_col(line)))
            .map_or(0, |(col, _)| *col);
        TextPoint { line, col }
    }

    /// `h` / `l`: one character left or right on the line.
    pub fn horizontal(&self, point: TextPoint, right: bool) -> TextPoint {
        let point = self.clamp(point);
        let cells = self.cells(point.line);
        let here = cells.iter().position(|(col, _)| *col == point.col);
        let col = match (here, right) {
            (Some(i), true) => cells.get(i + 1).map_or(point.col, |(col, _)| *col),
            (Some(i), false) => i.checked_sub(1).map_or(0, |j| cells[j].0),
            (None, _) => point.col,
        };
        self.clamp(TextPoint { col, ..point })
    }

    /// `j` / `k` / Ctrl+D / Ctrl+U: `delta` lines down (or up), keeping the
    /// column where the line has one.
    pub fn vertical(&self, point: TextPoint, delta: isize) -> TextPoint {
        let line = point
            .line
            .saturating_add_signed(delta)
            .min(self.last_line());
        self.clamp(TextPoint { line, ..point })
    }

    /// Every cell from the start of `line`, in reading order, with a blank
    /// between lines (a line end separates words).
    fn forward_from(&self, line: usize) -> impl Iterator<Item = (TextPoint, Class)> + '_ {
        (line..self.total).flat_map(move |l| {
            let mut cells: Vec<(TextPoint, Class)> = self
                .cells(l)
                .into_iter()
                .map(|(col, c)| (TextPoint { line: l, col }, class(c)))
                .collect();
            cells.push((
                TextPoint {
                    line: l,
                    col: usize::MAX,
                },
                Class::Blank,
            ));
            cells
        })
    }

    /// `w`: the start of the next word, across lines; the last line's last
    /// character when there is none.
    pub fn word_forward(&self, point: TextPoint) -> TextPoint {
        let point = self.clamp(point);
        let mut prev: Option<Class> = None;
        for (at, cls) in self.forward_from(point.line) {
            if at < point {
                continue;
            }
            match prev {
                None => prev = Some(cls),
                Some(p) => {
                    if cls != Class::Blank && cls != p {
                        return at;
                    }
                    prev = Some(cls);
                }
            }
        }
        let last = self.last_line();
        TextPoint {
            line: last,
            col: self.last_col(last),
        }
    }

    /// `b`: the start of this word, or of the previous one when already at
    /// a start, across lines; the first cell when there is none.
    pub fn word_backward(&self, point: TextPoint) -> TextPoint {
        let point = self.clamp(point);
        let mut before: Vec<(TextPoint, Class)> = Vec::new();
        for line in 0..=point.line.min(self.last_line()) {
            before.push((TextPoint { line, col: 0 }, Class::Blank));
            before.extend(
                self.cells(line)
                    .into_iter()
                    .map(|(col, c)| (TextPoint { line, col }, class(c)))
                    .filter(|(at, _)| *at < point),
            );
        }
        // Skip blanks back from the cursor, then to the start of that run.
        let mut i = before.len();
        while i > 0 && before[i - 1].1 == Class::Blank {
            i -= 1;
        }
        let Some(&(_, run)) = i.checked_sub(1).map(|j| &before[j]) else {
            return TextPoint { line: 0, col: 0 };
        };
        while i > 1 && before[i - 2].1 == run {
            i -= 1;
        }
        before[i - 1].0
    }
}

/// Whether a search for `query` ignores case: unless it has a capital
/// (vi's smartcase).
fn folds(query: &str) -> bool {
    !query.chars().any(char::is_uppercase)
}

fn fold(c: char, folding: bool) -> char {
    if folding {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c
    }
}

/// Display columns `[from, to)` of each match of `query` in `line`, left
/// to right, not overlapping. A match never spans two wrapped lines.
pub fn matches_in(line: &str, query: &str) -> Vec<(usize, usize)> {
    let folding = folds(query);
    let want: Vec<char> = query.chars().map(|c| fold(c, folding)).collect();
    if want.is_empty() {
        return Vec::new();
    }
    let cells = cells(line);
    let mut found = Vec::new();
    let mut i = 0;
    while i + want.len() <= cells.len() {
        let hit = cells[i..i + want.len()]
            .iter()
            .zip(&want)
            .all(|((_, c), w)| fold(*c, folding) == *w);
        if hit {
            let (last_col, last) = cells[i + want.len() - 1];
            found.push((cells[i].0, last_col + last.width().unwrap_or(0).max(1)));
            i += want.len();
        } else {
            i += 1;
        }
    }
    found
}

/// The start of every match of `query` over all drawn lines, in order.
pub(crate) fn all_matches(lines: Lines<'_>, query: &str) -> Vec<TextPoint> {
    (0..lines.total.min(lines.lines.len()))
        .flat_map(|line| {
            matches_in(lines.line(line), query)
                .into_iter()
                .map(move |(col, _)| TextPoint { line, col })
        })
        .collect()
}

/// The match after `from` (or before it, backwards), wrapping around the
/// transcript, as (its index among `matches`, its point).
pub(crate) fn next_match(
    matches: &[TextPoint],
    from: TextPoint,
    forward: bool,
) -> Option<(usize, TextPoint)> {
    let found = if forward {
        matches
            .iter()
            .position(|m| *m > from)
            .or((!matches.is_empty()).then_some(0))
    } else {
        matches
            .iter()
            .rposition(|m| *m < from)
            .or(matches.len().checked_sub(1))
    };
    found.map(|i| (i, matches[i]))
}

/// The characters of `line` that start in display columns `[from, to)`,
/// trailing spaces trimmed (as the mouse selection copies).
fn columns_of(line: &str, from: usize, to: usize) -> String {
    let mut out: String = cells(line)
        .into_iter()
        .filter(|(col, _)| *col >= from && *col < to)
        .map(|(_, c)| c)
        .collect();
    out.truncate(out.trim_end_matches(' ').len());
    out
}

/// The text `selection` covers over the drawn lines, one `\n` between
/// lines. A word selection (a mouse double click) is read cell by cell
/// here; the view widens its ends when it draws it.
pub(crate) fn selected_text(selection: &Selection, lines: Lines<'_>) -> String {
    let (start, end) = selection.range();
    let last = end.line.min(lines.last_line());
    (start.line..=last)
        .filter_map(|line| {
            let (from, to) = selection.columns(line)?;
            Some(columns_of(lines.line(line), from, to))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of the cursor's line (what `y` copies without a selection).
pub(crate) fn line_text(lines: Lines<'_>, line: usize) -> String {
    let whole = Selection {
        anchor: TextPoint { line, col: 0 },
        head: TextPoint { line, col: 0 },
        dragged: true,
        unit: Unit::Line,
    };
    selected_text(&whole, lines)
}
