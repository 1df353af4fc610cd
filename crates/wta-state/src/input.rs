//! The prompt editor: multi-line text with a cursor, an optional selection,
//! word motions, and per-pane history that keeps the unsent draft.
//!
//! Positions are byte offsets into [`InputEditor::raw`] that always sit on
//! char boundaries. No key mapping here: `keys.rs` decides which key calls
//! which method.
//!
//! Paste chips (`paste_chip.rs`): a long paste is one [`CHIP`] character in
//! the raw text, its content kept whole beside it, so every motion and
//! deletion treats it as one character. Invariant: the k-th [`CHIP`] of the
//! raw text is `chips[k]`, and every edit goes through `splice`, which keeps
//! the two in step. [`InputEditor::text`] is what would be sent: the raw
//! text with each chip replaced by its content, exactly.

use std::ops::Range;

use super::paste_chip::{self, CHIP};

/// Most prompts remembered per pane.
pub const HISTORY_LIMIT: usize = 50;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputEditor {
    /// The text as edited: each paste chip is one [`CHIP`].
    text: String,
    /// Each chip's content, in the order of the chips in `text`.
    chips: Vec<String>,
    /// `text` with the chips' contents in place (only while there are chips).
    full: Option<String>,
    cursor: usize,
    /// Selection anchor; the selection spans anchor..cursor.
    anchor: Option<usize>,
    history: Vec<String>,
    /// Index into `history` while browsing; `None` while editing the draft.
    browsing: Option<usize>,
    /// The draft kept while browsing history, raw, with its chips.
    draft: String,
    draft_chips: Vec<String>,
}

impl InputEditor {
    /// The text as it would be sent: every chip's content in its place.
    pub fn text(&self) -> &str {
        self.full.as_deref().unwrap_or(&self.text)
    }

    /// The text as edited and drawn: each chip is one [`CHIP`] character
    /// (positions, the cursor and the selection are offsets into this).
    pub fn raw(&self) -> &str {
        &self.text
    }

    /// The chips' contents, in the order their [`CHIP`]s appear in [`Self::raw`].
    pub fn chips(&self) -> &[String] {
        &self.chips
    }

    /// Replaces `range` of the raw text with `insert`, whose [`CHIP`]s are
    /// `chips` in order; the chips removed with the range go too.
    fn splice(&mut self, range: Range<usize>, insert: &str, chips: Vec<String>) {
        debug_assert_eq!(insert.matches(CHIP).count(), chips.len());
        let first = self.text[..range.start].matches(CHIP).count();
        let removed = self.text[range.clone()].matches(CHIP).count();
        self.chips.splice(first..first + removed, chips);
        self.text.replace_range(range, insert);
        self.full = (!self.chips.is_empty()).then(|| paste_chip::expand(&self.text, &self.chips));
    }

    /// Inserts raw `text` at the cursor (no cleaning): a [`CHIP`] character
    /// in it is kept as a chip of itself, so [`Self::text`] stays exact.
    fn insert_raw(&mut self, text: &str, chips: Vec<String>) {
        self.splice(self.cursor..self.cursor, text, chips);
        self.cursor += text.len();
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Replaces the text and puts the cursor at its end.
    pub fn set_text(&mut self, text: &str) {
        let literal = paste_chip::literal_chips(text);
        self.splice(0..self.text.len(), text, literal);
        self.cursor = self.text.len();
        self.anchor = None;
    }

    /// Empties the editor (not the history) and leaves history browsing.
    pub fn clear(&mut self) {
        self.set_text("");
        self.browsing = None;
    }

    /// The selected raw text, if a non-empty selection exists.
    pub fn selection(&self) -> Option<&str> {
        let (start, end) = self.selection_range()?;
        Some(&self.text[start..end])
    }

    /// The selection with its chips' contents in place (what Ctrl+C copies).
    pub fn selected_text(&self) -> Option<String> {
        let (start, end) = self.selection_range()?;
        let first = self.text[..start].matches(CHIP).count();
        Some(paste_chip::expand(
            &self.text[start..end],
            &self.chips[first..],
        ))
    }

    pub fn selection_range(&self) -> Option<(usize, usize)> {
        let anchor = self.anchor?;
        let (start, end) = (anchor.min(self.cursor), anchor.max(self.cursor));
        (start < end).then_some((start, end))
    }

    /// Selects the whole text (typing then replaces it), cursor at the end.
    pub fn select_all(&mut self) {
        self.cursor = self.text.len();
        self.anchor = Some(0);
    }

    /// Ends the selection, keeping text and cursor.
    pub fn clear_selection(&mut self) {
        self.anchor = None;
    }

    fn delete_selection(&mut self) -> bool {
        let Some((start, end)) = self.selection_range() else {
            self.anchor = None;
            return false;
        };
        self.splice(start..end, "", Vec::new());
        self.cursor = start;
        self.anchor = None;
        true
    }

    /// Inserts text at the cursor (replacing a selection). `\r\n` and `\r`
    /// become `\n`, tabs become four spaces so widths stay predictable.
    pub fn insert_str(&mut self, text: &str) {
        self.delete_selection();
        let clean = paste_chip::newlines(text).replace('\t', "    ");
        let literal = paste_chip::literal_chips(&clean);
        self.insert_raw(&clean, literal);
    }

    /// A bracketed paste: a long one ([`paste_chip::wants_chip`]) becomes one
    /// chip holding it whole (line ends made `\n`, nothing else changed);
    /// a short one is inserted as typed text ([`Self::insert_str`]).
    pub fn paste(&mut self, text: &str) {
        if !paste_chip::wants_chip(text) {
            return self.insert_str(text);
        }
        self.delete_selection();
        let mut buf = [0u8; 4];
        self.insert_raw(CHIP.encode_utf8(&mut buf), vec![paste_chip::newlines(text)]);
    }

    /// Turns the chip just before the cursor (else the one at it) into
    /// editable text, cleaned as [`Self::insert_str`] cleans; the cursor
    /// goes to its end. False when no chip touches the cursor.
    pub fn expand_chip(&mut self) -> bool {
        let before = self.prev_boundary(self.cursor);
        let at = if self.cursor > 0 && self.text[before..].starts_with(CHIP) {
            before
        } else if self.text[self.cursor..].starts_with(CHIP) {
            self.cursor
        } else {
            return false;
        };
        let index = self.text[..at].matches(CHIP).count();
        let content = self.chips[index].clone();
        self.anchor = None;
        self.splice(at..at + CHIP.len_utf8(), "", Vec::new());
        self.cursor = at;
        self.insert_str(&content);
        true
    }

    pub fn insert_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.insert_str(c.encode_utf8(&mut buf));
    }

    fn prev_boundary(&self, pos: usize) -> usize {
        self.text[..pos]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self, pos: usize) -> usize {
        self.text[pos..]
            .chars()
            .next()
            .map_or(pos, |c| pos + c.len_utf8())
    }

    fn word_left_of(&self, pos: usize) -> usize {
        let before = &self.text[..pos];
        let trimmed = before.trim_end_matches(char::is_whitespace);
        trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8())
    }

    fn word_right_of(&self, pos: usize) -> usize {
        let after = &self.text[pos..];
        let skip_ws = after.len() - after.trim_start_matches(char::is_whitespace).len();
        let rest = &after[skip_ws..];
        let word = rest.find(char::is_whitespace).unwrap_or(rest.len());
        pos + skip_ws + word
    }

    fn line_start(&self, pos: usize) -> usize {
        self.text[..pos].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self, pos: usize) -> usize {
        self.text[pos..]
            .find('\n')
            .map_or(self.text.len(), |i| pos + i)
    }

    /// Moves the cursor; with `select` the selection extends, else it ends.
    fn move_to(&mut self, pos: usize, select: bool) {
        if select {
            self.anchor.get_or_insert(self.cursor);
        } else {
            self.anchor = None;
        }
        self.cursor = pos;
    }

    pub fn left(&mut self, select: bool) {
        self.move_to(self.prev_boundary(self.cursor), select);
    }

    pub fn right(&mut self, select: bool) {
        self.move_to(self.next_boundary(self.cursor), select);
    }

    pub fn word_left(&mut self, select: bool) {
        self.move_to(self.word_left_of(self.cursor), select);
    }

    pub fn word_right(&mut self, select: bool) {
        self.move_to(self.word_right_of(self.cursor), select);
    }

    pub fn home(&mut self, select: bool) {
        self.move_to(self.line_start(self.cursor), select);
    }

    pub fn end(&mut self, select: bool) {
        self.move_to(self.line_end(self.cursor), select);
    }

    pub fn backspace(&mut self) {
        if self.delete_selection() || self.cursor == 0 {
            return;
        }
        let start = self.prev_boundary(self.cursor);
        self.splice(start..self.cursor, "", Vec::new());
        self.cursor = start;
    }

    pub fn delete(&mut self) {
        if self.delete_selection() || self.cursor == self.text.len() {
            return;
        }
        let end = self.next_boundary(self.cursor);
        self.splice(self.cursor..end, "", Vec::new());
    }

    pub fn delete_word_left(&mut self) {
        if self.delete_selection() {
            return;
        }
        let start = self.word_left_of(self.cursor);
        self.splice(start..self.cursor, "", Vec::new());
        self.cursor = start;
    }

    pub fn delete_word_right(&mut self) {
        if self.delete_selection() {
            return;
        }
        let end = self.word_right_of(self.cursor);
        self.splice(self.cursor..end, "", Vec::new());
    }

    /// Ctrl+U: delete from the line start to the cursor.
    pub fn kill_line_left(&mut self) {
        self.anchor = None;
        let start = self.line_start(self.cursor);
        self.splice(start..self.cursor, "", Vec::new());
        self.cursor = start;
    }

    /// Ctrl+K: delete from the cursor to the line end.
    pub fn kill_line_right(&mut self) {
        self.anchor = None;
        let end = self.line_end(self.cursor);
        self.splice(self.cursor..end, "", Vec::new());
    }

    /// (line, column in chars) of the cursor.
    pub fn cursor_line_col(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let line = before.matches('\n').count();
        let col = before[self.line_start(self.cursor)..].chars().count();
        (line, col)
    }

    fn pos_at(&self, line: usize, col: usize) -> usize {
        let mut start = 0;
        for _ in 0..line {
            start = self.text[start..]
                .find('\n')
                .map_or(self.text.len(), |i| start + i + 1);
        }
        let end = self.line_end(start);
        self.text[start..end]
            .char_indices()
            .nth(col)
            .map_or(end, |(i, _)| start + i)
    }

    /// Moves up one line inside multi-line text; false on the first line.
    pub fn up(&mut self) -> bool {
        let (line, col) = self.cursor_line_col();
        if line == 0 {
            return false;
        }
        self.move_to(self.pos_at(line - 1, col), false);
        true
    }

    /// Moves down one line inside multi-line text; false on the last line.
    pub fn down(&mut self) -> bool {
        let (line, col) = self.cursor_line_col();
        if line + 1 >= self.text.split('\n').count() {
            return false;
        }
        self.move_to(self.pos_at(line + 1, col), false);
        true
    }

    /// Shows the previous history entry, saving the draft on first use.
    pub fn history_prev(&mut self) -> bool {
        let index = match self.browsing {
            None if self.history.is_empty() => return false,
            None => {
                self.draft = self.text.clone();
                self.draft_chips = self.chips.clone();
                self.history.len() - 1
            }
            Some(0) => return false,
            Some(i) => i - 1,
        };
        self.browsing = Some(index);
        let text = self.history[index].clone();
        self.set_text(&text);
        true
    }

    /// Shows the next history entry, or the saved draft after the newest.
    pub fn history_next(&mut self) -> bool {
        let Some(index) = self.browsing else {
            return false;
        };
        if index + 1 < self.history.len() {
            self.browsing = Some(index + 1);
            let text = self.history[index + 1].clone();
            self.set_text(&text);
        } else {
            self.browsing = None;
            let draft = std::mem::take(&mut self.draft);
            let chips = std::mem::take(&mut self.draft_chips);
            self.splice(0..self.text.len(), &draft, chips);
            self.cursor = self.text.len();
            self.anchor = None;
        }
        true
    }

    /// Takes the text for sending, remembers it in history, empties the editor.
    pub fn submit(&mut self) -> String {
        let text = self.text().to_owned();
        self.clear();
        self.draft.clear();
        self.draft_chips.clear();
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            if self.history.len() == HISTORY_LIMIT {
                self.history.remove(0);
            }
            self.history.push(text.clone());
        }
        text
    }
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
