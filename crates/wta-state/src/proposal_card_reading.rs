//! What of a proposal card the user has had on screen, and the full view
//! that scrolls through it.
//!
//! The card's *full text* is every choice with its rationale and every
//! action in full, wrapped at the card's text width. Its *action rows* are
//! the rows that show what the actions do: each command, where it runs,
//! what opens where, in which directory, under which title. The view lays
//! the text out and, after each draw, reports which action rows were on
//! screen as a [`CardSight`] (card id, width, action rows in all, the range
//! on screen, and the full view's scroll position). The driver feeds that
//! back as `Event::CardShown`, so this state stays pure data and the view
//! stays a pure function of it.
//!
//! Invariants:
//! - A card may be confirmed (Run, Insert or Open) only when every action
//!   row of every choice at the current width has been reported on screen
//!   ([`Reading::complete`]). Rows seen stay seen for that card and width;
//!   another width (or row count) re-wraps the text, so reading starts over.
//! - A resize makes the card wait for the next report before it confirms
//!   (`remeasure`), so a key pressed between a resize and the next frame
//!   cannot confirm text laid out for the old size.
//! - Nothing here blocks Esc: cancelling never depends on reading.

use std::ops::Range;

use wta_protocol::ProposalId;

/// What the view drew of the front card in one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardSight {
    pub id: ProposalId,
    /// Columns the full text was wrapped at.
    pub width: u16,
    /// Action rows of the full text at that width.
    pub total: usize,
    /// Action rows `first .. first + shown` were on screen, each in full
    /// (`shown` is 0 when none was, e.g. in the compact card).
    pub first: usize,
    pub shown: usize,
    /// Where the full view stood, when it drew the frame.
    pub full_view: Option<FullViewFrame>,
}

impl CardSight {
    fn rows(&self) -> Range<usize> {
        let end = self.first.saturating_add(self.shown).min(self.total);
        self.first.min(end)..end
    }
}

/// The full view's scroll geometry in one frame, in rows of the full text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FullViewFrame {
    /// First row on screen (clamped by the view).
    pub top: usize,
    /// Rows per page.
    pub page: usize,
    /// Rows of the full text.
    pub total: usize,
}

/// The action rows of one card seen at one width.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reading {
    /// Width and action-row count of the text these rows belong to (0
    /// rows: the card was never measured).
    pub width: u16,
    pub total: usize,
    /// Seen rows: sorted, disjoint, non-adjacent ranges.
    seen: Vec<Range<usize>>,
    /// A resize happened since the last report.
    pub remeasure: bool,
}

impl Reading {
    /// Whether this reading is about the text laid out at `width` with `total` rows.
    pub fn is_for(&self, width: u16, total: usize) -> bool {
        self.width == width && self.total == total
    }

    /// Action rows not seen yet.
    pub fn unseen(&self) -> usize {
        let seen: usize = self.seen.iter().map(|r| r.len()).sum();
        self.total.saturating_sub(seen)
    }

    /// Action rows of the text at `width`/`total` still unseen once
    /// `showing` is seen too (what the frame being drawn should say).
    pub fn unseen_with(&self, width: u16, total: usize, showing: Range<usize>) -> usize {
        let mut next = if self.is_for(width, total) {
            self.clone()
        } else {
            Reading {
                width,
                total,
                ..Reading::default()
            }
        };
        next.add(showing);
        next.unseen()
    }

    /// Every row was seen, at the width last reported, and no resize is pending.
    pub fn complete(&self) -> bool {
        self.total > 0 && !self.remeasure && self.unseen() == 0
    }

    fn add(&mut self, rows: Range<usize>) {
        let rows = rows.start.min(self.total)..rows.end.min(self.total);
        if rows.is_empty() {
            return;
        }
        let mut merged = rows;
        let mut rest = Vec::with_capacity(self.seen.len() + 1);
        for r in self.seen.drain(..) {
            if r.end < merged.start || merged.end < r.start {
                rest.push(r);
            } else {
                merged = merged.start.min(r.start)..merged.end.max(r.end);
            }
        }
        rest.push(merged);
        rest.sort_by_key(|r| r.start);
        self.seen = rest;
    }

    /// Whether `sight` would change this reading.
    fn is_news(&self, sight: &CardSight) -> bool {
        if !self.is_for(sight.width, sight.total) || self.remeasure {
            return true;
        }
        let rows = sight.rows();
        !rows.is_empty()
            && !self
                .seen
                .iter()
                .any(|r| r.start <= rows.start && rows.end <= r.end)
    }

    /// Applies a report of what was on screen.
    fn record(&mut self, sight: &CardSight) {
        if !self.is_for(sight.width, sight.total) {
            *self = Reading {
                width: sight.width,
                total: sight.total,
                ..Reading::default()
            };
        }
        self.remeasure = false;
        self.add(sight.rows());
    }
}

/// The card expanded over the whole pane, scrolled to `top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FullView {
    /// First row of the full text on screen.
    pub top: usize,
    /// Rows per page and rows of the full text, as the view last reported
    /// (0 before the first frame).
    pub page: usize,
    pub total: usize,
}

impl FullView {
    fn last_top(&self) -> usize {
        self.total.saturating_sub(self.page)
    }

    /// Scrolls by `delta` rows, within the text when its size is known.
    pub fn scroll(&mut self, delta: isize) {
        let top = self.top.saturating_add_signed(delta);
        self.top = if self.page == 0 {
            top
        } else {
            top.min(self.last_top())
        };
    }

    /// One page (at least one row).
    pub fn page_rows(&self) -> isize {
        self.page.max(1) as isize
    }

    pub fn to_end(&mut self) {
        self.top = if self.page == 0 {
            usize::MAX / 2
        } else {
            self.last_top()
        };
    }

    fn frame(&self) -> FullViewFrame {
        FullViewFrame {
            top: self.top,
            page: self.page,
            total: self.total,
        }
    }

    fn is_news(&self, sight: &CardSight) -> bool {
        sight.full_view.is_some_and(|f| f != self.frame())
    }

    fn record(&mut self, sight: &CardSight) {
        if let Some(f) = sight.full_view {
            self.top = f.top;
            self.page = f.page;
            self.total = f.total;
        }
    }
}

/// Whether feeding `sight` to a card with this reading and view changes anything.
pub(crate) fn is_news(reading: &Reading, full: Option<&FullView>, sight: &CardSight) -> bool {
    reading.is_news(sight) || full.is_some_and(|f| f.is_news(sight))
}

/// Applies `sight` to a card's reading and view.
pub(crate) fn record(reading: &mut Reading, full: Option<&mut FullView>, sight: &CardSight) {
    reading.record(sight);
    if let Some(full) = full {
        full.record(sight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sight(width: u16, total: usize, first: usize, shown: usize) -> CardSight {
        CardSight {
            id: ProposalId::from_bytes([1; 16]),
            width,
            total,
            first,
            shown,
            full_view: Some(FullViewFrame {
                top: first,
                page: shown,
                total,
            }),
        }
    }

    #[test]
    fn rows_add_up_to_complete_in_any_order_and_overlap() {
        let mut r = Reading::default();
        assert!(!r.complete(), "never measured");
        for (first, shown) in [(10, 5), (0, 3), (2, 4), (6, 3), (14, 10)] {
            assert!(r.is_news(&sight(40, 20, first, shown)));
            r.record(&sight(40, 20, first, shown));
        }
        assert_eq!(r.unseen(), 1, "row 9 is missing: {:?}", r.seen);
        assert!(!r.is_news(&sight(40, 20, 11, 2)), "inside a seen range");
        r.record(&sight(40, 20, 9, 1));
        assert!(r.complete());
        assert_eq!(r.seen.first(), Some(&(0..20)));
        assert_eq!(r.seen.len(), 1);
    }

    #[test]
    fn another_width_starts_over_and_a_resize_waits_for_a_report() {
        let mut r = Reading::default();
        r.record(&sight(40, 3, 0, 3));
        assert!(r.complete());
        r.remeasure = true;
        assert!(!r.complete());
        assert!(r.is_news(&sight(40, 3, 0, 0)));
        r.record(&sight(40, 3, 0, 0));
        assert!(r.complete(), "same width: what was seen stays seen");
        r.record(&sight(30, 5, 0, 0));
        assert!(!r.complete());
        assert_eq!(r.unseen(), 5);
        assert_eq!(r.unseen_with(30, 5, 1..4), 2);
        assert_eq!(r.unseen_with(50, 2, 0..2), 0, "another layout counts alone");
    }

    #[test]
    fn the_full_view_scrolls_within_the_reported_text() {
        let mut f = FullView::default();
        f.scroll(3);
        assert_eq!(f.top, 3, "size unknown: the view clamps");
        f.record(&sight(40, 10, 3, 4));
        f.scroll(10);
        assert_eq!(f.top, 6);
        f.scroll(-100);
        assert_eq!(f.top, 0);
        f.to_end();
        assert_eq!(f.top, 6);
        assert_eq!(f.page_rows(), 4);
    }
}
