//! The transcript viewport. Each entry's height is cached keyed by
//! (revision, width, focus); its wrapped lines only once it has been in
//! view. A frame sums the heights of all entries, then lays out just the
//! entries the window (and a selection) covers, so the first frame of a
//! long chat measures the history instead of building every line of it.
//! It writes back what the reducer maps the mouse through: the geometry
//! (`viewport`, `transcript_area`) and the text a selection covers; while
//! the select mode is on, every entry is laid out and the whole wrapped
//! transcript's text is written back too (`transcript_text`), with the
//! mode's cursor and search matches drawn over the rows in view.
//!
//! Exactness: a measured height is `items::entry_height`, which runs the
//! same layout as `render_entry` into a line counter, so line numbers
//! (`total_lines`, scroll tops, selections) are those of the full layout.

use std::collections::HashMap;
use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;
use wta_state::{AppState, Entry, ItemId, SelectedText, TranscriptArea, TranscriptText, Viewport};

use crate::items::{entry_height, render_entry};
use crate::{copy_view, selection};

/// What an entry's layout depends on besides its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    rev: u64,
    width: usize,
    focused: bool,
}

#[derive(Debug)]
struct Cached {
    key: Key,
    height: usize,
    /// Built once the entry is in view (or, changed, was on screen the
    /// frame before); `None` while it is only measured.
    lines: Option<Vec<Line<'static>>>,
    /// The last frame that drew the entry.
    drawn: u64,
}

/// A visible entry of this frame and its height.
struct Slot<'s> {
    entry: &'s Entry,
    key: Key,
    height: usize,
}

/// Heights of every entry drawn so far, and the lines of those in view.
#[derive(Debug, Default)]
pub struct TranscriptCache {
    entries: HashMap<ItemId, Cached>,
    /// Frames rendered, the current one included.
    frame: u64,
}

impl TranscriptCache {
    /// Draws the visible window of the transcript into `area` and records
    /// the geometry in `state.viewport` (the reducer pages with it).
    pub fn render(&mut self, state: &AppState, frame: &mut Frame, area: Rect) {
        self.frame += 1;
        let width = area.width as usize;
        let rows = area.height as usize;
        self.prune(state.transcript.entries().len());
        let slots: Vec<Slot<'_>> = state
            .transcript
            .visible()
            .map(|entry| {
                let key = Key {
                    rev: entry.rev,
                    width,
                    focused: state.fold_focus == Some(entry.id),
                };
                let height = self.height(entry, key);
                Slot { entry, key, height }
            })
            .collect();
        // The very first line is always a separator blank; skip it so the
        // transcript starts at the top edge.
        let skip_first = usize::from(slots.first().is_some_and(|s| s.height > 0));
        let total = slots.iter().map(|s| s.height).sum::<usize>() - skip_first;
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
        let window = top + skip_first..top + skip_first + rows;
        for id in self.build(&slots, window.clone()) {
            if let Some(c) = self.entries.get_mut(&id) {
                c.drawn = self.frame;
            }
        }
        let selection = state.selection.filter(|s| s.dragged);
        if let Some(selection) = &selection {
            let (start, end) = selection.range();
            self.build(&slots, start.line + skip_first..end.line + skip_first + 1);
        }
        if state.copy_mode.is_some() {
            self.build(&slots, skip_first..total + skip_first);
        }
        let buf = frame.buffer_mut();
        for (y, line) in self.lines_from(&slots, window.start).take(rows).enumerate() {
            buf.set_line(area.x, area.y + y as u16, line, area.width);
        }
        let drawn = selection.map(|selection| {
            selection::highlight(
                &selection,
                top,
                self.lines_from(&slots, window.start).take(rows),
                buf,
                area,
            );
            let (start, end) = selection.range();
            let lines = self
                .lines_from(&slots, start.line + skip_first)
                .take(end.line + 1 - start.line);
            SelectedText {
                selection,
                text: selection::text(&selection, start.line, lines),
            }
        });
        state.selected_text.replace(drawn);
        let Some(mode) = &state.copy_mode else {
            if state.transcript_text.borrow().is_some() {
                state.transcript_text.replace(None);
            }
            return;
        };
        let in_view = self.lines_from(&slots, window.start).take(rows);
        copy_view::highlight(mode, top, in_view, buf, area);
        let lines = self
            .lines_from(&slots, skip_first)
            .take(total)
            .map(copy_view::line_text)
            .collect();
        state
            .transcript_text
            .replace(Some(TranscriptText { lines }));
        if let Some((x, y)) = copy_view::cursor_position(mode, top, area) {
            frame.set_cursor_position(Position::new(x, y));
        }
    }

    /// The entry's height at `key`: cached, else measured. An entry that
    /// was on screen last frame (the reply streaming in) is laid out in full
    /// instead, as it is most likely on screen again.
    fn height(&mut self, entry: &Entry, key: Key) -> usize {
        let cached = self.entries.get(&entry.id);
        if let Some(c) = cached.filter(|c| c.key == key) {
            return c.height;
        }
        let lines = cached
            .filter(|c| c.drawn + 1 == self.frame)
            .map(|_| render_entry(entry, key.width, key.focused));
        let height = lines
            .as_ref()
            .map_or_else(|| entry_height(entry, key.width, key.focused), Vec::len);
        self.entries.insert(
            entry.id,
            Cached {
                key,
                height,
                lines,
                drawn: 0,
            },
        );
        height
    }

    /// Lays out every entry with a line in `range` (raw line numbers,
    /// counting the leading separator blank) that has no lines yet, and
    /// returns the ids of all entries the range touches.
    fn build(&mut self, slots: &[Slot<'_>], range: Range<usize>) -> Vec<ItemId> {
        let mut touched = Vec::new();
        let mut start = 0usize;
        for slot in slots {
            let end = start + slot.height;
            if start >= range.end {
                break;
            }
            if end > range.start {
                touched.push(slot.entry.id);
                let c = self.entries.entry(slot.entry.id).or_insert(Cached {
                    key: slot.key,
                    height: slot.height,
                    lines: None,
                    drawn: 0,
                });
                if c.lines.is_none() {
                    let lines = render_entry(slot.entry, slot.key.width, slot.key.focused);
                    debug_assert_eq!(lines.len(), slot.height, "{:?}", slot.entry.id);
                    c.lines = Some(lines);
                }
            }
            start = end;
        }
        touched
    }

    /// Laid-out lines in order, starting at raw line `first` (counting the
    /// leading separator blank). Entries not built yield no lines, so the
    /// caller builds the range it reads first.
    fn lines_from<'a>(
        &'a self,
        slots: &'a [Slot<'_>],
        first: usize,
    ) -> impl Iterator<Item = &'a Line<'static>> + 'a {
        let mut line_no = 0usize;
        slots.iter().flat_map(move |slot| {
            let start = line_no;
            line_no += slot.height;
            let lines: &[Line<'static>] = if start + slot.height <= first {
                &[]
            } else {
                self.entries
                    .get(&slot.entry.id)
                    .and_then(|c| c.lines.as_deref())
                    .and_then(|lines| lines.get(first.saturating_sub(start)..))
                    .unwrap_or_default()
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

    /// Entries cached, measured or laid out.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}
