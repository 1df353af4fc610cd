//! Markdown → wrapped terminal lines for a given width (pulldown-cmark).
//!
//! Headings, emphasis, strike-through, inline code, links (text plus the
//! address when it differs), block quotes, nested and task lists, fenced code
//! with its language label, rules, and tables (aligned when they fit, one
//! record per row when they do not). Partial markdown from a stream renders
//! as well as it parses; no construct can make a line exceed `width`.
//!
//! [`height`] runs the same renderer into a line counter: it parses but
//! builds no lines, and always equals `render(..).len()`.

use std::borrow::Cow;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_i18n::tr;

use crate::sink::{Count, Sink};
use crate::table::{Table, render_table};
use crate::theme;
use crate::wrap::{wrap_chars_into, wrap_into};

/// The markdown extensions the transcript understands.
pub const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS);

/// Renders `source` into lines no wider than `width`.
pub fn render(source: &str, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    render_into(source, width, &mut out);
    out
}

/// The number of lines `render(source, width)` returns, without building them.
pub fn height(source: &str, width: usize) -> usize {
    let mut out = Count::default();
    render_into(source, width, &mut out);
    out.len()
}

/// [`render`] into any sink; `out` starts empty (blocks after the first
/// are set apart by a blank line).
pub(crate) fn render_into<S: Sink>(source: &str, width: usize, out: &mut S) {
    let mut r = Renderer {
        width: width.max(8),
        out,
        inline: Vec::new(),
        styles: Vec::new(),
        containers: Vec::new(),
        lists: Vec::new(),
        links: Vec::new(),
        code: None,
        table: None,
        gap: false,
    };
    for event in Parser::new_ext(source, OPTIONS) {
        r.event(event);
    }
    r.flush();
    if r.code.is_some() {
        r.end_code();
    }
}

/// Event text as a span's content, borrowing the source where the parser did.
fn cow(text: CowStr<'_>) -> Cow<'_, str> {
    match text {
        CowStr::Borrowed(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.into_string()),
    }
}

/// A container's line prefixes: `first` once, then `rest`.
struct Prefix {
    first: Vec<Span<'static>>,
    rest: Vec<Span<'static>>,
    used: bool,
}

struct Code {
    lang: String,
    text: String,
}

/// Renders events of a source borrowed for `'a` into `S`.
struct Renderer<'a, 'o, S: Sink> {
    width: usize,
    out: &'o mut S,
    /// The paragraph being collected; wrapped into `out` at `flush`.
    inline: Vec<Span<'a>>,
    styles: Vec<Style>,
    containers: Vec<Prefix>,
    lists: Vec<Option<u64>>,
    links: Vec<(String, usize)>,
    code: Option<Code>,
    table: Option<Table>,
    /// A block ended; the next block starts after a blank line.
    gap: bool,
}

impl<'a, S: Sink> Renderer<'a, '_, S> {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::new(), |acc, s| acc.patch(*s))
    }

    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for c in &mut self.containers {
            first.extend(if c.used {
                c.rest.clone()
            } else {
                c.first.clone()
            });
            rest.extend(c.rest.clone());
            c.used = true;
        }
        (first, rest)
    }

    fn rest_prefix(&self) -> Vec<Span<'static>> {
        rest_prefix(&self.containers)
    }

    /// Starts a block: a blank line when a block came before, unless this is
    /// the first block inside a fresh list item.
    fn block(&mut self) {
        self.flush();
        let fresh_item = self.containers.last().is_some_and(|c| !c.used);
        if self.gap && !self.out.is_empty() && !fresh_item {
            let containers = &self.containers;
            self.out.line(|| {
                let blank = rest_prefix(containers).into_iter().map(trim_span);
                Line::from(blank.collect::<Vec<_>>())
            });
        }
        self.gap = false;
    }

    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let mut spans = std::mem::take(&mut self.inline);
        let (first, rest) = self.prefixes();
        wrap_into(&spans, self.width, &first, &rest, self.out);
        spans.clear();
        self.inline = spans;
    }

    fn text(&mut self, text: impl Into<Cow<'a, str>>) {
        let text = text.into();
        if let Some(code) = &mut self.code {
            code.text.push_str(&text);
        } else if let Some(table) = &mut self.table {
            table.push_text(&text);
        } else {
            let style = self.style();
            self.inline.push(Span::styled(text, style));
        }
    }

    fn event(&mut self, event: Event<'a>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(cow(text)),
            Event::Code(code) => {
                if let Some(table) = &mut self.table {
                    table.push_text(&code);
                } else {
                    let style = self.style().patch(theme::inline_code());
                    self.inline.push(Span::styled(cow(code), style));
                }
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(cow(t)),
            Event::Html(html) | Event::InlineHtml(html) => {
                let text = match cow(html) {
                    Cow::Borrowed(s) => Cow::Borrowed(s.trim_end_matches('\n')),
                    Cow::Owned(s) => Cow::Owned(s.trim_end_matches('\n').to_owned()),
                };
                self.inline.push(Span::styled(text, theme::dim()));
            }
            Event::FootnoteReference(label) => self.text(format!("[{label}]")),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.block();
                let (containers, width) = (&self.containers, self.width);
                self.out.line(|| {
                    let mut spans = rest_prefix(containers);
                    let used: usize = spans.iter().map(|s| s.content.width()).sum();
                    spans.push(Span::styled(
                        "─".repeat(width.saturating_sub(used).min(40)),
                        theme::dim(),
                    ));
                    Line::from(spans)
                });
                self.gap = true;
            }
            Event::TaskListMarker(done) => {
                let (mark, style) = if done {
                    ("[x] ", theme::ok())
                } else {
                    ("[ ] ", theme::dim())
                };
                self.inline.push(Span::styled(mark, style));
            }
        }
    }

    fn start(&mut self, tag: Tag<'a>) {
        match tag {
            Tag::Paragraph => self.block(),
            Tag::Heading { level, .. } => {
                self.block();
                self.styles.push(heading_style(level));
            }
            Tag::BlockQuote(_) => {
                self.block();
                let bar = Span::styled("│ ", theme::dim());
                self.containers.push(Prefix {
                    first: vec![bar.clone()],
                    rest: vec![bar],
                    used: false,
                });
                self.styles
                    .push(Style::new().add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(Code {
                    lang,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.block();
                } else {
                    self.flush();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        Span::styled(m, theme::dim())
                    }
                    _ => Span::styled(["• ", "◦ ", "▪ "][depth.min(2)], theme::dim()),
                };
                let indent = Span::raw(" ".repeat(marker.content.width()));
                self.containers.push(Prefix {
                    first: vec![marker],
                    rest: vec![indent],
                    used: false,
                });
            }
            Tag::Table(_) => {
                self.block();
                self.table = Some(Table::default());
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.start_row();
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.start_cell();
                }
            }
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.links.push((dest_url.into_string(), self.inline.len()));
                self.styles.push(theme::link());
            }
            Tag::Image { dest_url, .. } => {
                self.links.push((dest_url.into_string(), self.inline.len()));
                self.styles.push(theme::dim());
                self.text(format!("[{}: ", tr!("transcript.image")));
            }
            Tag::Superscript | Tag::Subscript | Tag::HtmlBlock | Tag::MetadataBlock(_) => {
                self.styles.push(Style::new());
            }
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => {
                self.block();
                self.styles.push(Style::new());
            }
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.gap = true;
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush();
                self.gap = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.styles.pop();
                self.containers.pop();
                self.gap = true;
            }
            TagEnd::CodeBlock => self.end_code(),
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                self.gap = true;
            }
            TagEnd::Item => {
                self.flush();
                self.containers.pop();
                self.gap = false;
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let rest = self.rest_prefix();
                    render_table(&table, self.width, &rest, self.out);
                }
                self.gap = true;
            }
            TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell => {}
            TagEnd::Link => self.end_link(false),
            TagEnd::Image => {
                self.text("]");
                self.end_link(true);
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::HtmlBlock
            | TagEnd::MetadataBlock(_) => {
                self.styles.pop();
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => {
                self.styles.pop();
                self.flush();
                self.gap = true;
            }
        }
    }

    /// Shows the address after the link text unless the text already is it.
    fn end_link(&mut self, image: bool) {
        self.styles.pop();
        let Some((url, start)) = self.links.pop() else {
            return;
        };
        let text: String = self.inline[start.min(self.inline.len())..]
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        let same =
            text == url || text.trim_start_matches("mailto:") == url.trim_start_matches("mailto:");
        if !url.is_empty() && !same && !image {
            self.inline
                .push(Span::styled(format!(" ({url})"), theme::dim()));
        }
    }

    fn end_code(&mut self) {
        let Some(code) = self.code.take() else {
            return;
        };
        let rest = self.rest_prefix();
        let gutter = |s: &str| {
            let mut p = rest.clone();
            p.push(Span::styled(s.to_owned(), theme::dim()));
            p
        };
        if !code.lang.is_empty() {
            self.out.line(|| {
                let mut label = gutter("┌ ");
                label.push(Span::styled(
                    code.lang,
                    theme::dim().add_modifier(Modifier::ITALIC),
                ));
                Line::from(label)
            });
        }
        let (bar, cont) = (gutter("│ "), gutter("┆ "));
        for line in code.text.trim_end_matches('\n').split('\n') {
            let line = if line.contains('\t') {
                Cow::Owned(line.replace('\t', "    "))
            } else {
                Cow::Borrowed(line)
            };
            wrap_chars_into(&line, Style::new(), self.width, &bar, &cont, self.out);
        }
        if let Some(c) = self.containers.last_mut() {
            c.used = true;
        }
        self.gap = true;
    }
}

fn rest_prefix(containers: &[Prefix]) -> Vec<Span<'static>> {
    containers.iter().flat_map(|c| c.rest.clone()).collect()
}

fn heading_style(level: HeadingLevel) -> Style {
    match level {
        HeadingLevel::H1 => Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        HeadingLevel::H2 => Style::new().add_modifier(Modifier::BOLD),
        _ => Style::new().add_modifier(Modifier::BOLD | Modifier::ITALIC),
    }
}

fn trim_span(span: Span<'static>) -> Span<'static> {
    Span::styled(span.content.trim_end().to_owned(), span.style)
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
