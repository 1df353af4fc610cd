//! The prompt editor: multi-line text with a cursor, an optional selection,
//! word motions, and per-pane history that keeps the unsent draft.
//!
//! Positions are byte offsets that always sit on char boundaries. No key
//! mapping here: `keys.rs` decides which key calls which method.

/// Most prompts remembered per pane.
pub const HISTORY_LIMIT: usize = 50;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputEditor {
    text: String,
    cursor: usize,
    /// Selection anchor; the selection spans anchor..cursor.
    anchor: Option<usize>,
    history: Vec<String>,
    /// Index into `history` while browsing; `None` while editing the draft.
    browsing: Option<usize>,
    draft: String,
}

impl InputEditor {
    pub fn text(&self) -> &str {
        &self.text
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
        self.text = text.to_owned();
        self.cursor = self.text.len();
        self.anchor = None;
    }

    /// Empties the editor (not the history) and leaves history browsing.
    pub fn clear(&mut self) {
        self.set_text("");
        self.browsing = None;
    }

    /// The selected text, if a non-empty selection exists.
    pub fn selection(&self) -> Option<&str> {
        let (start, end) = self.selection_range()?;
        Some(&self.text[start..end])
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
        self.text.replace_range(start..end, "");
        self.cursor = start;
        self.anchor = None;
        true
    }

    /// Inserts text at the cursor (replacing a selection). `\r\n` and `\r`
    /// become `\n`, tabs become four spaces so widths stay predictable.
    pub fn insert_str(&mut self, text: &str) {
        self.delete_selection();
        let clean = text
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\t', "    ");
        self.text.insert_str(self.cursor, &clean);
        self.cursor += clean.len();
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
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    pub fn delete(&mut self) {
        if self.delete_selection() || self.cursor == self.text.len() {
            return;
        }
        let end = self.next_boundary(self.cursor);
        self.text.replace_range(self.cursor..end, "");
    }

    pub fn delete_word_left(&mut self) {
        if self.delete_selection() {
            return;
        }
        let start = self.word_left_of(self.cursor);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    pub fn delete_word_right(&mut self) {
        if self.delete_selection() {
            return;
        }
        let end = self.word_right_of(self.cursor);
        self.text.replace_range(self.cursor..end, "");
    }

    /// Ctrl+U: delete from the line start to the cursor.
    pub fn kill_line_left(&mut self) {
        self.anchor = None;
        let start = self.line_start(self.cursor);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Ctrl+K: delete from the cursor to the line end.
    pub fn kill_line_right(&mut self) {
        self.anchor = None;
        let end = self.line_end(self.cursor);
        self.text.replace_range(self.cursor..end, "");
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
            self.set_text(&draft);
        }
        true
    }

    /// Takes the text for sending, remembers it in history, empties the editor.
    pub fn submit(&mut self) -> String {
        let text = std::mem::take(&mut self.text);
        self.clear();
        self.draft.clear();
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
