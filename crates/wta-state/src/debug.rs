//! Bounded log of this pane's ACP traffic for the F12 panel, where the
//! panel is scrolled to, and how one traffic line breaks into rows.
//!
//! The panel shows whole lines, wrapped ([`rows_of`]: after commas or
//! spaces where it can, so `"method":"session/prompt"` stays whole, else between
//! characters, by display width). Its scroll position counts those rows
//! from the first kept line, as the transcript's does; the view writes back
//! the width and height it drew at ([`TrafficArea`]), so PageUp knows a
//! page and a line dropped from the front of the ring while reading
//! history moves the position with it (the rows in view stay in view).
//! While the panel is open, PageUp/PageDown, the wheel and Home/End scroll
//! it (`keys.rs`), not the transcript behind it.

use std::cell::Cell;
use std::collections::VecDeque;
use std::ops::Range;

use unicode_width::UnicodeWidthChar;

use super::state::Scroll;

/// Lines kept at most; older lines are dropped first.
pub const DEBUG_KEEP_LINES: usize = 500;
/// Characters kept of all lines together (older lines go first), so long
/// lines are kept whole without the log growing past a few hundred KiB.
pub const DEBUG_KEEP_CHARS: usize = 256 * 1024;
/// Characters kept per line; the rest is replaced by `…`.
pub const DEBUG_LINE_CHARS: usize = 16 * 1024;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Helper → master/agent.
    Out,
    /// Master/agent → helper.
    In,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugLine {
    pub direction: Direction,
    pub text: String,
    /// Characters of `text` (for the log's budget).
    chars: usize,
}

/// What the panel last drew: its text width, rows, and the rows of every
/// kept line at that width (written by the view after each draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrafficArea {
    pub width: usize,
    pub rows: usize,
    pub total_rows: usize,
}

impl TrafficArea {
    /// The row at the top of the panel for `scroll`.
    pub fn top(&self, scroll: Scroll) -> usize {
        let bottom_top = self.total_rows.saturating_sub(self.rows);
        match scroll {
            Scroll::Follow => bottom_top,
            Scroll::Pinned { top } => top.min(bottom_top),
        }
    }
}

/// The ring of traffic lines, the panel's visibility and scroll position.
#[derive(Debug, Clone, Default)]
pub struct DebugLog {
    pub visible: bool,
    lines: VecDeque<DebugLine>,
    /// Characters of every kept line.
    chars: usize,
    /// Total lines ever pushed (so the view can say how many were dropped).
    pub total: u64,
    pub scroll: Scroll,
    /// Where the view last drew the panel (written by the view).
    pub area: Cell<TrafficArea>,
}

impl DebugLog {
    pub fn push(&mut self, direction: Direction, text: &str) {
        let long = text.chars().nth(DEBUG_LINE_CHARS).is_some();
        let mut text: String = text
            .chars()
            .take(DEBUG_LINE_CHARS)
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        if long {
            text.push('…');
        }
        let chars = text.chars().count();
        self.lines.push_back(DebugLine {
            direction,
            text,
            chars,
        });
        self.chars += chars;
        self.total += 1;
        while self.lines.len() > DEBUG_KEEP_LINES
            || (self.chars > DEBUG_KEEP_CHARS && self.lines.len() > 1)
        {
            self.drop_front();
        }
    }

    /// Drops the oldest line; a pinned position moves up by its rows, so
    /// the rows in view stay in view.
    fn drop_front(&mut self) {
        let Some(line) = self.lines.pop_front() else {
            return;
        };
        self.chars -= line.chars;
        if let Scroll::Pinned { top } = self.scroll {
            let area = self.area.get();
            let rows = rows_of(&line.text, area.width).len();
            self.scroll = Scroll::Pinned {
                top: top.saturating_sub(rows),
            };
            self.area.set(TrafficArea {
                total_rows: area.total_rows.saturating_sub(rows),
                ..area
            });
        }
    }

    pub fn lines(&self) -> impl DoubleEndedIterator<Item = &DebugLine> + ExactSizeIterator {
        self.lines.iter()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// F12: opens the panel at its newest rows, or closes it.
    pub fn toggle(&mut self) {
        self.visible = !self.visible;
        self.scroll = Scroll::Follow;
    }

    /// Scrolls up by `rows` (toward older traffic).
    pub fn scroll_up(&mut self, rows: usize) {
        let area = self.area.get();
        if area.total_rows <= area.rows {
            return;
        }
        self.scroll = Scroll::Pinned {
            top: area.top(self.scroll).saturating_sub(rows),
        };
    }

    /// Scrolls down by `rows`; reaching the newest rows follows again.
    pub fn scroll_down(&mut self, rows: usize) {
        let Scroll::Pinned { top } = self.scroll else {
            return;
        };
        let area = self.area.get();
        let top = top + rows;
        self.scroll = if top + area.rows >= area.total_rows {
            Scroll::Follow
        } else {
            Scroll::Pinned { top }
        };
    }

    /// Rows one PageUp/PageDown moves: a page minus two rows of overlap.
    pub fn page(&self) -> usize {
        self.area.get().rows.saturating_sub(2).max(1)
    }

    /// The oldest kept rows (Home).
    pub fn to_start(&mut self) {
        let area = self.area.get();
        if area.total_rows > area.rows {
            self.scroll = Scroll::Pinned { top: 0 };
        }
    }

    /// The newest rows, following new traffic (End).
    pub fn to_end(&mut self) {
        self.scroll = Scroll::Follow;
    }
}

/// The rows of one traffic line at `width` columns, as byte ranges of
/// `text`: broken after commas (and spaces) where it can, a piece wider
/// than a row between characters; at least one row (an empty line is one).
pub fn rows_of(text: &str, width: usize) -> Vec<Range<usize>> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut start = 0;
    let mut used = 0;
    let mut at = 0;
    for piece in text.split_inclusive([',', ' ']) {
        let w: usize = piece.chars().map(|c| c.width().unwrap_or(0)).sum();
        if used + w > width && used > 0 {
            rows.push(start..at);
            start = at;
            used = 0;
        }
        if w <= width {
            used += w;
            at += piece.len();
            continue;
        }
        for c in piece.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width && used > 0 {
                rows.push(start..at);
                start = at;
                used = 0;
            }
            used += cw;
            at += c.len_utf8();
        }
    }
    if start < text.len() || rows.is_empty() {
        rows.push(start..text.len());
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_newest_lines_and_bounds_length() {
        let mut log = DebugLog::default();
        for i in 0..(DEBUG_KEEP_LINES + 10) {
            log.push(Direction::In, &format!("line {i}"));
        }
        assert_eq!(log.len(), DEBUG_KEEP_LINES);
        assert_eq!(log.lines().next().map(|l| l.text.as_str()), Some("line 10"));
        assert_eq!(log.total, (DEBUG_KEEP_LINES + 10) as u64);
        log.push(Direction::Out, &"x".repeat(DEBUG_LINE_CHARS * 2));
        let last = log.lines().last().map(|l| l.text.chars().count());
        assert_eq!(last, Some(DEBUG_LINE_CHARS + 1));
        // Long lines count against the whole log's budget.
        for _ in 0..40 {
            log.push(Direction::In, &"y".repeat(DEBUG_LINE_CHARS));
        }
        assert!(log.chars <= DEBUG_KEEP_CHARS, "{}", log.chars);
        assert_eq!(
            log.chars,
            log.lines().map(|l| l.text.chars().count()).sum::<usize>()
        );
    }

    #[test]
    fn json_lines_break_after_commas_and_nothing_is_lost() {
        let line = r#"{"jsonrpc":"2.0","id":"14e80807-0c70-4b84-a461-947e3acece52","method":"session/prompt","params":{}}"#;
        let rows = rows_of(line, 50);
        let texts: Vec<&str> = rows.iter().map(|r| &line[r.clone()]).collect();
        assert!(texts.iter().all(|r| r.len() <= 50), "{texts:?}");
        assert!(
            texts
                .iter()
                .any(|r| r.contains(r#""method":"session/prompt","#)),
            "{texts:?}"
        );
        assert_eq!(texts.concat(), line);
        let unbroken = "y".repeat(25);
        assert_eq!(rows_of(&unbroken, 10), [0..10, 10..20, 20..25]);
        assert_eq!(rows_of("", 10).len(), 1, "an empty line is one row");
        // Wide characters take two columns.
        let wide = "世界世界世";
        let texts: Vec<&str> = rows_of(wide, 4).iter().map(|r| &wide[r.clone()]).collect();
        assert_eq!(texts, ["世界", "世界", "世"]);
    }

    #[test]
    fn a_pinned_panel_keeps_its_rows_when_old_lines_go() {
        let mut log = DebugLog::default();
        for i in 0..DEBUG_KEEP_LINES {
            log.push(Direction::In, &format!("{i:03}{}", "z".repeat(10)));
        }
        // Every line is two rows at width 8.
        assert_eq!(rows_of("000zzzzzzzzzz", 8), [0..8, 8..13]);
        log.area.set(TrafficArea {
            width: 8,
            rows: 10,
            total_rows: 2 * DEBUG_KEEP_LINES,
        });
        log.scroll = Scroll::Pinned { top: 30 };
        log.push(Direction::Out, "new");
        assert_eq!(
            log.scroll,
            Scroll::Pinned { top: 28 },
            "a line of 2 rows went"
        );
        log.to_end();
        assert_eq!(log.scroll, Scroll::Follow);
        log.push(Direction::Out, "newer");
        assert_eq!(log.scroll, Scroll::Follow, "following is not moved");
    }
}
