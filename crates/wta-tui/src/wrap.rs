//! Word wrapping of styled text by display width (unicode-width), with a
//! first-line prefix and a hanging continuation prefix. Words wider than the
//! line are broken between characters; nothing is ever cut off.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// A run of text in one style.
pub type Piece = (Style, String);

/// Display width of a list of spans.
pub fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| s.content.width()).sum()
}

/// One word (or one whitespace run) as styled fragments.
struct Token {
    space: bool,
    pieces: Vec<Piece>,
    width: usize,
}

fn tokenize(spans: &[Span<'_>]) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    for span in spans {
        for c in span.content.chars() {
            let space = c == ' ';
            let w = c.width().unwrap_or(0);
            let start_new = tokens.last().is_none_or(|t| t.space != space);
            if start_new {
                tokens.push(Token {
                    space,
                    pieces: Vec::new(),
                    width: 0,
                });
            }
            let Some(token) = tokens.last_mut() else {
                continue;
            };
            token.width += w;
            match token.pieces.last_mut() {
                Some((style, text)) if *style == span.style => text.push(c),
                _ => token.pieces.push((span.style, c.to_string())),
            }
        }
    }
    tokens
}

struct Builder<'p> {
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    used: usize,
    width: usize,
    first: &'p [Span<'static>],
    rest: &'p [Span<'static>],
}

impl<'a> Builder<'a> {
    /// A builder whose first line is started; the width leaves room for the
    /// longer prefix plus one column.
    fn start(width: usize, first: &'a [Span<'static>], rest: &'a [Span<'static>]) -> Self {
        let width = width.max(spans_width(first).max(spans_width(rest)) + 1);
        let mut b = Builder {
            lines: Vec::new(),
            current: Vec::new(),
            used: 0,
            width,
            first,
            rest,
        };
        b.start_line();
        b
    }

    /// The wrapped lines, the current one included.
    fn finish(mut self) -> Vec<Line<'static>> {
        self.lines
            .push(Line::from(std::mem::take(&mut self.current)));
        self.lines
    }

    fn prefix(&self) -> &[Span<'static>] {
        if self.lines.is_empty() {
            self.first
        } else {
            self.rest
        }
    }

    fn start_line(&mut self) {
        self.current = self.prefix().to_vec();
        self.used = spans_width(&self.current);
    }

    fn available(&self) -> usize {
        self.width.saturating_sub(self.used)
    }

    fn finish_line(&mut self) {
        let spans = std::mem::take(&mut self.current);
        self.lines.push(Line::from(spans));
        self.start_line();
    }

    fn at_line_start(&self) -> bool {
        self.used == spans_width(self.prefix())
    }

    fn push_piece(&mut self, style: Style, text: &str, width: usize) {
        self.used += width;
        match self.current.last_mut() {
            Some(span) if span.style == style => span.content.to_mut().push_str(text),
            _ => self.current.push(Span::styled(text.to_owned(), style)),
        }
    }

    /// Breaks a too-wide word between characters.
    fn push_broken(&mut self, pieces: &[Piece]) {
        for (style, text) in pieces {
            for c in text.chars() {
                let w = c.width().unwrap_or(0);
                if w > self.available() && !self.at_line_start() {
                    self.finish_line();
                }
                let mut buf = [0u8; 4];
                self.push_piece(*style, c.encode_utf8(&mut buf), w);
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
    let mut b = Builder::start(width, first, rest);
    let mut pending_space: Option<Vec<Piece>> = None;
    for token in tokenize(spans) {
        if token.space {
            if !b.at_line_start() {
                pending_space = Some(token.pieces);
            }
            continue;
        }
        let space: Vec<Piece> = pending_space.take().unwrap_or_default();
        let space_width: usize = space.iter().map(|(_, t)| t.width()).sum();
        if space_width + token.width <= b.available() {
            for (style, text) in &space {
                b.push_piece(*style, text, text.width());
            }
        } else if !b.at_line_start() {
            b.finish_line();
        }
        if token.width <= b.available() {
            for (style, text) in &token.pieces {
                b.push_piece(*style, text, text.width());
            }
        } else {
            b.push_broken(&token.pieces);
        }
    }
    b.finish()
}

/// Hard-wraps one line of preformatted text (code, output) between characters.
pub fn wrap_chars(
    text: &str,
    style: Style,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut b = Builder::start(width, first, rest);
    b.push_broken(&[(style, text.to_owned())]);
    b.finish()
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
    use super::*;

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
