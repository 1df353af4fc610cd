//! Where a wrapped line may break: the tokenizer behind [`super::wrap`].
//! Spans become alternating runs of words and of spaces; a space is a
//! break unless it holds its neighbours together (before CJK text, between
//! a number and its unit), and CJK text breaks between its characters,
//! keeping its punctuation with its neighbours. Widths only: nothing here
//! copies text the caller does not keep.

use std::borrow::Cow;

use ratatui::text::Span;

use super::{Piece, char_width};

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
pub(super) struct Tokens<'s> {
    at: Cursor<'s>,
    /// Widest the words a space joins may get (a line's width, at most
    /// [`GLUE_MAX`]).
    glue_max: usize,
    /// The word being taken so far is a number (digits, `.`, `,`).
    number: bool,
}

impl<'s> Tokens<'s> {
    pub(super) fn new(spans: &'s [Span<'s>], line_width: usize) -> Self {
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
    pub(super) fn next(&mut self, pieces: &mut Vec<Piece<'s>>) -> Option<(bool, usize)> {
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
