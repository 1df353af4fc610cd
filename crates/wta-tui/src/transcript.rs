//! The transcript viewport. Wrapped lines are cached per entry keyed by
//! (revision, width, focus), so a frame costs one height sum over the
//! entries plus drawing only the visible rows, however long the chat is.
//! It writes back what the reducer maps the mouse through: the geometry
//! (`viewport`, `transcript_area`) and the text a selection covers.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use wta_state::{AppState, ItemId, SelectedText, TranscriptArea, Viewport};

use crate::items::render_entry;
use crate::selection;

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
        state.transcript_area.set(Some(TranscriptArea {
            x: area.x,
            y: area.y,
            width: area.width,
            height: area.height,
        }));
        let top = state.viewport.get().top(state.scroll);
        let buf = frame.buffer_mut();
        for (y, line) in self
            .lines_from(&heights, top + skip_first)
            .take(rows)
            .enumerate()
        {
            buf.set_line(area.x, area.y + y as u16, line, area.width);
        }
        let drawn = state.selection.filter(|s| s.dragged).map(|selection| {
            selection::highlight(
                &selection,
                top,
                self.lines_from(&heights, top + skip_first).take(rows),
                buf,
                area,
            );
            let (start, end) = selection.range();
            let lines = self
                .lines_from(&heights, start.line + skip_first)
                .take(end.line + 1 - start.line);
            SelectedText {
                selection,
                text: selection::text(&selection, start.line, lines),
            }
        });
        state.selected_text.replace(drawn);
    }

    /// Cached lines in order, starting at raw line `first` (counting the
    /// leading separator blank).
    fn lines_from<'a>(
        &'a self,
        heights: &'a [(ItemId, usize)],
        first: usize,
    ) -> impl Iterator<Item = &'a Line<'static>> + 'a {
        let mut line_no = 0usize;
        heights.iter().flat_map(move |(id, height)| {
            let start = line_no;
            line_no += height;
            let lines: &[Line<'static>] = if start + height <= first {
                &[]
            } else {
                self.entries
                    .get(id)
                    .map_or(&[][..], |c| &c.lines[first.saturating_sub(start)..])
            };
            lines.iter()
        })
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
