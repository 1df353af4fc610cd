//! The transcript viewport. Wrapped lines are cached per entry keyed by
//! (revision, width, focus), so a frame costs one height sum over the
//! entries plus drawing only the visible rows, however long the chat is.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use wta_helper::app::{AppState, ItemId, Scroll, Viewport};

use crate::items::render_entry;

#[derive(Debug)]
struct Cached {
    rev: u64,
    width: usize,
    focused: bool,
    lines: Vec<Line<'static>>,
}

/// Wrapped lines of every entry drawn so far.
#[derive(Debug, Default)]
pub struct TranscriptCache {
    entries: HashMap<ItemId, Cached>,
}

impl TranscriptCache {
    /// Draws the visible window of the transcript into `area` and records
    /// the geometry in `state.viewport` (the reducer pages with it).
    pub fn render(&mut self, state: &AppState, frame: &mut Frame, area: Rect) {
        let width = area.width as usize;
        let rows = area.height as usize;
        let mut heights: Vec<(ItemId, usize)> = Vec::new();
        for entry in state.transcript.visible() {
            let focused = state.fold_focus == Some(entry.id);
            let fresh = self
                .entries
                .get(&entry.id)
                .is_some_and(|c| c.rev == entry.rev && c.width == width && c.focused == focused);
            if !fresh {
                let lines = render_entry(entry, width, focused);
                self.entries.insert(
                    entry.id,
                    Cached {
                        rev: entry.rev,
                        width,
                        focused,
                        lines,
                    },
                );
            }
            let height = self.entries.get(&entry.id).map_or(0, |c| c.lines.len());
            heights.push((entry.id, height));
        }
        self.prune(state.transcript.entries().len());
        // The very first line is always a separator blank; skip it so the
        // transcript starts at the top edge.
        let skip_first = usize::from(heights.first().is_some_and(|(_, h)| *h > 0));
        let total = heights.iter().map(|(_, h)| h).sum::<usize>() - skip_first;
        state.viewport.set(Viewport {
            total_lines: total,
            rows,
        });
        let bottom_top = total.saturating_sub(rows);
        let top = match state.scroll {
            Scroll::Follow => bottom_top,
            Scroll::Pinned { top } => top.min(bottom_top),
        } + skip_first;
        let buf = frame.buffer_mut();
        let mut line_no = 0usize;
        let mut y = 0usize;
        for (id, height) in heights {
            if line_no + height <= top {
                line_no += height;
                continue;
            }
            let Some(cached) = self.entries.get(&id) else {
                continue;
            };
            let from = top.saturating_sub(line_no);
            for line in &cached.lines[from..] {
                if y >= rows {
                    return;
                }
                buf.set_line(area.x, area.y + y as u16, line, area.width);
                y += 1;
            }
            line_no += height;
        }
    }

    /// Drops cached entries that no longer exist (after `/clear`).
    fn prune(&mut self, live: usize) {
        if self.entries.len() > live * 2 + 64 {
            self.entries.clear();
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}
