//! Bounded log of this pane's ACP traffic for the F12 panel.

use std::collections::VecDeque;

/// Lines kept; older lines are dropped first.
pub const DEBUG_KEEP_LINES: usize = 500;
/// Characters kept per line; the rest is replaced by `…`.
pub const DEBUG_LINE_CHARS: usize = 1000;

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
}

/// The ring of traffic lines plus the panel's visibility.
#[derive(Debug, Clone, Default)]
pub struct DebugLog {
    pub visible: bool,
    lines: VecDeque<DebugLine>,
    /// Total lines ever pushed (so the view can say how many were dropped).
    pub total: u64,
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
        if self.lines.len() == DEBUG_KEEP_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(DebugLine { direction, text });
        self.total += 1;
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
    }
}
