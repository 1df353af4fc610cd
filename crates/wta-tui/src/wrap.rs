//! Word wrapping of styled text by display width (unicode-width), with a
//! first-line prefix and a hanging continuation prefix. Words wider than the
//! line are broken between characters; nothing is ever cut off. Where a
//! line may break (spaces, CJK text, a number and its unit) is
//! `wrap_breaks.rs`'s.
//!
//! Line breaks are decided from widths alone, and text is copied only into
//! the lines a [`Sink`] keeps, so counting a wrap (`Count`) costs a scan of
//! the text and gives exactly the number of lines the kept wrap has.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::sink::Sink;

#[path = "wrap_breaks.rs"]
mod breaks;
use breaks::Tokens;

/// Display width of a list of spans.
pub fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| text_width(&s.content)).sum()
}

/// `text.width()`, without the lookup for printable ASCII (one column a
/// byte, which no sequence rule changes).
fn text_width(text: &str) -> usize {
    if text.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
        text.len()
    } else {
        text.width()
    }
}

/// `c.width()`, zero for control characters, without the lookup for
/// printable ASCII.
fn char_width(c: char) -> usize {
    if c.is_ascii_graphic() || c == ' ' {
        1
    } else {
        c.width().unwrap_or(0)
    }
}

/// A run of a token in one style. Borrowed from its span unless the run
/// continues across spans of the same style.
struct Piece<'s> {
    style: Style,
    text: Cow<'s, str>,
}

impl Piece<'_> {
    /// The piece's width as the wrap counts it: of the whole string (a
    /// sequence can be narrower than its characters).
    fn width(&self) -> usize {
        text_width(&self.text)
    }
}

struct Builder<'p, S: Sink> {
    out: &'p mut S,
    /// Lines this builder finished (the first one takes `first`).
    lines: usize,
    row: S::Row,
    used: usize,
    width: usize,
    rest: &'p [Span<'static>],
    first_width: usize,
    rest_width: usize,
}

impl<'p, S: Sink> Builder<'p, S> {
    /// A builder whose first line is started; the width leaves room for the
    /// longer prefix plus one column.
    fn start(
        width: usize,
        first: &'p [Span<'static>],
        rest: &'p [Span<'static>],
        out: &'p mut S,
    ) -> Self {
        let (first_width, rest_width) = (spans_width(first), spans_width(rest));
        Builder {
            out,
            lines: 0,
            row: S::row(first),
            used: first_width,
            width: width.max(first_width.max(rest_width) + 1),
            rest,
            first_width,
            rest_width,
        }
    }

    /// Ends the current line.
    fn finish(self) {
        self.out.end_row(self.row);
    }

    fn prefix_width(&self) -> usize {
        if self.lines == 0 {
            self.first_width
        } else {
            self.rest_width
        }
    }

    fn available(&self) -> usize {
        self.width.saturating_sub(self.used)
    }

    fn finish_line(&mut self) {
        self.lines += 1;
        let row = std::mem::replace(&mut self.row, S::row(self.rest));
        self.out.end_row(row);
        self.used = self.rest_width;
    }

    fn at_line_start(&self) -> bool {
        self.used == self.prefix_width()
    }

    fn push_piece(&mut self, style: Style, text: &str, width: usize) {
        self.used += width;
        S::push(&mut self.row, style, text);
    }

    fn push_pieces(&mut self, pieces: &[Piece<'_>]) {
        for p in pieces {
            self.push_piece(p.style, &p.text, p.width());
        }
    }

    /// Breaks a too-wide word between characters.
    fn push_broken(&mut self, pieces: &[Piece<'_>]) {
        for p in pieces {
            for c in p.text.chars() {
                let w = char_width(c);
                if w > self.available() && !self.at_line_start() {
                    self.finish_line();
                }
                let mut buf = [0u8; 4];
                self.push_piece(p.style, c.encode_utf8(&mut buf), w);
            }
        }
    }
}

/// Wraps `spans` into lines of at most `width` columns. The first line starts
/// with `first`, later ones with `rest`. Empty input yields one prefix line.
pub fn wrap(
    spans: &[Span<'_>],
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    wrap_into(spans, width, first, rest, &mut out);
    out
}

/// [`wrap`] into any sink.
pub(crate) fn wrap_into<S: Sink>(
    spans: &[Span<'_>],
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
    out: &mut S,
) {
    let mut b = Builder::start(width, first, rest, out);
    let line_width = b.width.saturating_sub(b.first_width.max(b.rest_width));
    let mut tokens = Tokens::new(spans, line_width);
    let mut word = Vec::new();
    // Spaces before the next word; dropped at a line break.
    let mut space = Vec::new();
    let mut pending_space = false;
    while let Some((is_space, token_width)) = tokens.next(&mut word) {
        if is_space {
            if !b.at_line_start() {
                std::mem::swap(&mut space, &mut word);
                pending_space = true;
            }
            continue;
        }
        let space_width: usize = if pending_space {
            space.iter().map(Piece::width).sum()
        } else {
            0
        };
        if space_width + token_width <= b.available() {
            if pending_space {
                b.push_pieces(&space);
            }
        } else if !b.at_line_start() {
            b.finish_line();
        }
        pending_space = false;
        if token_width <= b.available() {
            b.push_pieces(&word);
        } else {
            b.push_broken(&word);
        }
    }
    b.finish();
}

/// Hard-wraps one line of preformatted text (code, output) between characters.
pub fn wrap_chars(
    text: &str,
    style: Style,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    wrap_chars_into(text, style, width, first, rest, &mut out);
    out
}

/// [`wrap_chars`] into any sink.
pub(crate) fn wrap_chars_into<S: Sink>(
    text: &str,
    style: Style,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
    out: &mut S,
) {
    let mut b = Builder::start(width, first, rest, out);
    b.push_broken(&[Piece {
        style,
        text: Cow::Borrowed(text),
    }]);
    b.finish();
}

/// Cuts text to `width` columns, ending with `…` when something was cut.
pub fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn the_ascii_shortcuts_give_unicode_widths(text in "[ -~]{0,40}|\\PC{0,12}") {
            prop_assert_eq!(text_width(&text), text.width());
            for c in text.chars() {
                prop_assert_eq!(char_width(c), c.width().unwrap_or(0));
            }
        }
    }

    proptest! {
        #[test]
        fn wrapping_keeps_every_character_within_the_width(
            text in "([a-z0-9]{1,9}|[ ]{1,2}|[世界後（）、。]|ms){0,30}",
            width in 4usize..30,
        ) {
            let lines = wrap(&[Span::raw(text.as_str())], width, &[], &[]);
            for line in &lines {
                prop_assert!(line.width() <= width, "{:?}", plain(&lines));
            }
            let kept: String = plain(&lines).concat().chars().filter(|c| *c != ' ').collect();
            let given: String = text.chars().filter(|c| *c != ' ').collect();
            prop_assert_eq!(kept, given);
            // The counting run gives the same number of lines.
            let mut count = crate::sink::Count::default();
            wrap_into(&[Span::raw(text.as_str())], width, &[], &[], &mut count);
            prop_assert_eq!(count.len(), lines.len());
        }
    }

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn wraps_on_words_with_hanging_prefix() {
        let spans = [Span::raw("the quick brown fox jumps over")];
        let lines = wrap(&spans, 12, &[Span::raw("• ")], &[Span::raw("  ")]);
        assert_eq!(
            plain(&lines),
            ["• the quick", "  brown fox", "  jumps over"]
        );
        assert!(lines.iter().all(|l| l.width() <= 12));
    }

    #[test]
    fn breaks_long_words_and_keeps_styles_within_a_word() {
        let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let spans = [Span::styled("abcdefghij", bold), Span::raw(", ok")];
        let lines = wrap(&spans, 5, &[], &[]);
        assert_eq!(plain(&lines), ["abcde", "fghij", ", ok"]);
        assert_eq!(lines[0].spans[0].style, bold);
    }

    #[test]
    fn wide_characters_count_double() {
        let lines = wrap(&[Span::raw("世界世界 abc")], 5, &[], &[]);
        assert_eq!(plain(&lines), ["世界", "世界", "abc"]);
    }

    #[test]
    fn a_number_keeps_its_unit_and_cjk_keeps_its_spacing() {
        let text = [Span::raw("Action 2: %3 completed (exit 0) after 3100 ms")];
        let lines = plain(&wrap(&text, 43, &[], &[]));
        assert_eq!(lines, ["Action 2: %3 completed (exit 0) after", "3100 ms"]);
        // Japanese: `412 ms 後` (after 412 ms) stays together; the line
        // breaks between characters, never before `）` or after `（`.
        let ja = [Span::raw("アクション 1: %3 失敗（exit 2） 412 ms 後")];
        for width in 12..34 {
            let lines = plain(&wrap(&ja, width, &[], &[]));
            assert!(
                lines.iter().any(|l| l.contains("412 ms 後")),
                "{width}: {lines:?}"
            );
            assert!(
                lines
                    .iter()
                    .all(|l| !l.starts_with(['）', '後']) && !l.ends_with('（')),
                "{width}: {lines:?}"
            );
        }
        // A sentence without spaces fills its lines.
        let sentence = [Span::raw(
            "その後 /restart を入力。別のエージェントは /agent。",
        )];
        let lines = wrap(&sentence, 20, &[], &[]);
        assert!(lines[0].width() >= 18, "{:?}", plain(&lines));
        assert!(plain(&lines).iter().all(|l| !l.starts_with('。')));
        // Glue never breaks a word between its characters.
        assert_eq!(
            plain(&wrap(&[Span::raw("後 restarting")], 10, &[], &[])),
            ["後", "restarting"]
        );
    }

    #[test]
    fn empty_text_gives_one_prefix_line_and_truncate_marks_cuts() {
        assert_eq!(plain(&wrap(&[], 10, &[Span::raw("> ")], &[])), ["> "]);
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hi", 6), "hi");
        // Wide characters count two columns; the cut never splits one.
        assert_eq!(truncate("ビルドを実行する", 7), "ビルド…");
        assert_eq!(
            plain(&wrap_chars(
                "abcdef",
                Style::new(),
                4,
                &[Span::raw("│ ")],
                &[Span::raw("│ ")]
            )),
            ["│ ab", "│ cd", "│ ef"]
        );
    }
}
