//! Paste chips: when a bracketed paste is long enough to stand in the
//! prompt as one `[Pasted 40 lines]` chip, what a chip says, and how the
//! editor's raw text (each chip one [`CHIP`]) becomes the text sent.
//!
//! The editor (`input.rs`) owns the chips; this module only decides and
//! converts, and never changes a chip's content: what was pasted is what
//! is sent, with line ends made `\n` (tmux and terminals paste `\r`).

use wta_i18n::tr;

/// The character that stands for one chip in the editor's raw text: U+FFFC
/// OBJECT REPLACEMENT CHARACTER, Unicode's own mark for an embedded object.
/// The same character typed or pasted as text becomes a chip of itself, so
/// it never stands for the wrong content.
pub const CHIP: char = '\u{FFFC}';

/// A paste of more lines than this becomes a chip.
pub const CHIP_MIN_LINES: usize = 3;

/// A paste of more characters than this becomes a chip, however few lines.
pub const CHIP_MIN_CHARS: usize = 500;

/// Whether a bracketed paste of `text` shows as a chip.
pub fn wants_chip(text: &str) -> bool {
    let text = newlines(text);
    line_count(&text) > CHIP_MIN_LINES || text.chars().count() > CHIP_MIN_CHARS
}

/// `\r\n` and lone `\r` made `\n`; nothing else changes.
pub fn newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Lines of `text` as a reader counts them: a final newline ends the last
/// line rather than starting an empty one.
pub fn line_count(text: &str) -> usize {
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').count()
}

/// What a chip holding `content` shows: `[Pasted 40 lines]`, or for a long
/// single line `[Pasted 812 characters]`.
pub fn label(content: &str) -> String {
    let lines = line_count(content);
    if lines > 1 {
        tr!("pastecopy.chip_lines", count = lines)
    } else {
        tr!("pastecopy.chip_chars", count = content.chars().count())
    }
}

/// `raw` with its k-th [`CHIP`] replaced by `chips[k]` (a chip without
/// content, which the editor's invariant rules out, stays a [`CHIP`]).
pub fn expand(raw: &str, chips: &[String]) -> String {
    let mut out = String::with_capacity(raw.len() + chips.iter().map(String::len).sum::<usize>());
    let mut chips = chips.iter();
    for part in raw.split_inclusive(CHIP) {
        match part.strip_suffix(CHIP) {
            Some(before) => {
                out.push_str(before);
                match chips.next() {
                    Some(content) => out.push_str(content),
                    None => out.push(CHIP),
                }
            }
            None => out.push_str(part),
        }
    }
    out
}

/// The chips for text inserted as typed: each literal [`CHIP`] in it is a
/// chip holding that one character.
pub(crate) fn literal_chips(text: &str) -> Vec<String> {
    vec![CHIP.to_string(); text.matches(CHIP).count()]
}

#[cfg(test)]
#[path = "paste_chip_tests.rs"]
mod tests;
