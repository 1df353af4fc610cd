//! Word wrapping of styled text by display width (unicode-width), with a
//! first-line prefix and a hanging continuation prefix. Words wider than the
//! line are broken between characters; nothing is ever cut off.
//!
//! Line breaks are decided from widths alone, and text is copied only into
//! the lines a [`Sink`] keeps, so counting a wrap (`Count`) costs a scan of
//! the text and gives exactly the number of lines the kept wrap has.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::sink::Sink;

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

/// Widest run of words a non-breaking space may hold together.
const GLUE_MAX: usize = 16;

/// Chinese and Japanese text (kana, ideographs, their punctuation and the
/// fullwidth forms): written without spaces between words, so a line may
/// break between any two of its characters, and a space next to it is
/// spacing, not a place to break. Hangul is not here: Korean puts spaces
/// between words.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3000}'..='\u{30FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FF00}'..='\u{FFEF}')
}

/// Characters a line never starts with (closing brackets and punctuation,
/// small kana, the prolonged sound mark): they stay with what precedes them.
fn no_break_before(c: char) -> bool {
    matches!(
        c,
        '、' | '。'
            | '，'
            | '．'
            | '・'
            | '：'
            | '；'
            | '？'
            | '！'
            | 'ー'
            | '）'
            | '」'
            | '』'
            | '】'
            | '〕'
            | '〉'
            | '》'
            | '…'
            | '‥'
            | '々'
            | 'ぁ'
            | 'ぃ'
            | 'ぅ'
            | 'ぇ'
            | 'ぉ'
            | 'っ'
            | 'ゃ'
            | 'ゅ'
            | 'ょ'
            | 'ゎ'
            | 'ァ'
            | 'ィ'
            | 'ゥ'
            | 'ェ'
            | 'ォ'
            | 'ッ'
            | 'ャ'
            | 'ュ'
            | 'ョ'
            | 'ヮ'
            | 'ヵ'
            | 'ヶ'
            | ')'
            | ']'
            | '}'
            | ','
            | '.'
            | ':'
            | ';'
            | '!'
            | '?'
    )
}

/// Characters a line never ends with (opening brackets): they stay with
/// what follows them.
fn no_break_after(c: char) -> bool {
    matches!(
        c,
        '（' | '「' | '『' | '【' | '〔' | '〈' | '《' | '(' | '[' | '{'
    )
}

/// Whether a line may break between `a` and `b` (neither a space): next to
/// CJK text, unless a bracket or punctuation rule holds them together.
fn breaks_between(a: char, b: char) -> bool {
    // Below U+3000 neither is CJK (the common case, checked first).
    (a >= '\u{3000}' || b >= '\u{3000}')
        && (is_cjk(a) || is_cjk(b))
        && !no_break_before(b)
        && !no_break_after(a)
}

/// Where the tokenizer is in the spans; iterates the characters from there.
#[derive(Clone, Copy)]
struct Cursor<'s> {
    spans: &'s [Span<'s>],
    span: usize,
    byte: usize,
}

impl<'s> Cursor<'s> {
    fn chars(self) -> impl Iterator<Item = char> + 's {
        let (spans, span, byte) = (self.spans, self.span, self.byte);
        spans
            .get(span..)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .flat_map(move |(i, s)| {
                let from = if i == 0 { byte } else { 0 };
                s.content.get(from..).unwrap_or_default().chars()
            })
    }

    /// The first character after the spaces at the cursor.
    fn past_spaces(self) -> Option<char> {
        let (mut span, mut byte) = (self.span, self.byte);
        while let Some(s) = self.spans.get(span) {
            let rest = s.content.get(byte..).unwrap_or_default();
            if let Some(c) = rest.chars().find(|c| *c != ' ') {
                return Some(c);
            }
            span += 1;
            byte = 0;
        }
        None
    }

    fn peek(self) -> Option<char> {
        let (mut span, mut byte) = (self.span, self.byte);
        while let Some(s) = self.spans.get(span) {
            if let Some(c) = s.content.get(byte..).and_then(|t| t.chars().next()) {
                return Some(c);
            }
            span += 1;
            byte = 0;
        }
        None
    }
}

/// Splits spans into tokens: alternating runs of words and of spaces, which
/// may cross span boundaries. A space is where a line may break, except:
/// - before CJK text (it is spacing there: `ms 後`, `/restart を` stay
///   together), whose characters break between each other instead
///   ([`breaks_between`]: `失敗（exit` may break before `（`, never after);
/// - between a number and a unit of up to three letters (`412 ms`, `3 s`).
///
/// A space that does not break belongs to the word around it, as long as
/// the words it joins stay within [`GLUE_MAX`] columns and fit a line:
/// holding words together never breaks one between its characters.
struct Tokens<'s> {
    at: Cursor<'s>,
    /// Widest the words a space joins may get (a line's width, at most
    /// [`GLUE_MAX`]).
    glue_max: usize,
    /// The word being taken so far is a number (digits, `.`, `,`).
    number: bool,
}

impl<'s> Tokens<'s> {
    fn new(spans: &'s [Span<'s>], line_width: usize) -> Self {
        Tokens {
            at: Cursor {
                spans,
                span: 0,
                byte: 0,
            },
            glue_max: line_width.min(GLUE_MAX),
            number: false,
        }
    }

    /// Whether the run of spaces at the cursor holds the words around it
    /// together (see the type's docs), the word before it being `so_far`
    /// columns wide.
    fn glued(&self, so_far: usize) -> bool {
        let Some(next) = self.at.past_spaces() else {
            return false;
        };
        let holds = is_cjk(next)
            || (self.number && next.is_ascii_alphabetic() && {
                // A unit: one to three letters, then the word ends.
                let after = self.at.chars().skip_while(|c| *c == ' ').skip(1);
                let letters = 1 + after.take_while(char::is_ascii_alphabetic).take(3).count();
                letters <= 3
                    && self
                        .at
                        .chars()
                        .skip_while(|c| *c == ' ')
                        .nth(letters)
                        .is_none_or(|c| !c.is_alphanumeric())
            });
        holds && so_far + self.joined_width() <= self.glue_max
    }

    /// Columns of the spaces at the cursor and of the word after them (up
    /// to where it may break).
    fn joined_width(&self) -> usize {
        let mut width = 0;
        let mut prev: Option<char> = None;
        let mut chars = self.at.chars().peekable();
        while chars.peek() == Some(&' ') {
            chars.next();
            width += 1;
        }
        for c in chars {
            if c == ' ' || prev.is_some_and(|p| breaks_between(p, c)) {
                break;
            }
            width += char_width(c);
            prev = Some(c);
        }
        width
    }

    /// Takes the longest run at the cursor, within its span, that holds no
    /// space and no place to break into `pieces`. Returns its last
    /// character, its width, and whether it keeps the word a number; `None`
    /// at the end of the text.
    fn take_run(&mut self, pieces: &mut Vec<Piece<'s>>) -> Option<(char, usize, bool)> {
        let (span, content) = self.current()?;
        let rest = &content[self.at.byte..];
        // Printable ASCII (most text): one column a byte, no CJK rules.
        let plain = rest
            .bytes()
            .take_while(|b| *b != b' ' && b.is_ascii_graphic())
            .count();
        let next = rest[plain..].chars().next();
        if plain > 0 && next.is_none_or(|c| c == ' ') {
            let text = &rest[..plain];
            let last = char::from(text.as_bytes()[plain - 1]);
            let number = text
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.' || b == b',')
                && text.as_bytes()[0].is_ascii_digit();
            let end = self.at.byte + plain;
            self.push(pieces, span, content, end);
            return Some((last, plain, number));
        }
        let mut width = 0;
        let mut last: Option<char> = None;
        let mut number = true;
        let mut end = self.at.byte;
        for c in rest.chars() {
            if c == ' ' || last.is_some_and(|p| breaks_between(p, c)) {
                break;
            }
            width += char_width(c);
            number &= c.is_ascii_digit() || (matches!(c, '.' | ',') && last.is_some());
            last = Some(c);
            end += c.len_utf8();
        }
        self.push(pieces, span, content, end);
        last.map(|c| (c, width, number))
    }

    /// Takes the run of spaces at the cursor (across spans); its width.
    fn take_spaces(&mut self, pieces: &mut Vec<Piece<'s>>) -> usize {
        let mut width = 0;
        while let Some((span, content)) = self.current() {
            let run = content[self.at.byte..]
                .bytes()
                .take_while(|b| *b == b' ')
                .count();
            if run == 0 {
                break;
            }
            width += run;
            self.push(pieces, span, content, self.at.byte + run);
        }
        width
    }

    /// The span at the cursor and its text, skipping spans already read.
    fn current(&mut self) -> Option<(&'s Span<'s>, &'s str)> {
        loop {
            let span = self.at.spans.get(self.at.span)?;
            let content: &'s str = &span.content;
            if self.at.byte < content.len() {
                return Some((span, content));
            }
            self.at.span += 1;
            self.at.byte = 0;
        }
    }

    /// Moves the cursor to `end` in `span`, the text passed going into
    /// `pieces` (joined to the last piece when the style is the same).
    fn push(
        &mut self,
        pieces: &mut Vec<Piece<'s>>,
        span: &'s Span<'s>,
        content: &'s str,
        end: usize,
    ) {
        let text = &content[self.at.byte..end];
        self.at.byte = end;
        if text.is_empty() {
            return;
        }
        match pieces.last_mut() {
            Some(p) if p.style == span.style => p.text.to_mut().push_str(text),
            _ => pieces.push(Piece {
                style: span.style,
                text: Cow::Borrowed(text),
            }),
        }
    }

    /// Reads the next token into `pieces`: whether it is spaces, and its
    /// width (the sum of its characters' widths).
    fn next(&mut self, pieces: &mut Vec<Piece<'s>>) -> Option<(bool, usize)> {
        pieces.clear();
        let first = self.at.peek()?;
        // A word ends before a space only where the space breaks.
        if first == ' ' {
            let width = self.take_spaces(pieces);
            self.number = false;
            return Some((true, width));
        }
        self.number = true;
        let mut width = 0;
        while let Some((last, w, number)) = self.take_run(pieces) {
            width += w;
            self.number &= number;
            let Some(next) = self.at.peek() else { break };
            if next == ' ' {
                if !self.glued(width) {
                    break;
                }
                // The spaces join this word to the next one.
                width += self.take_spaces(pieces);
                self.number = true;
                continue;
            }
            if breaks_between(last, next) {
                break;
            }
        }
        Some((false, width))
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
