//! Where laid-out lines go. Every layout function (wrapping, markdown,
//! tables, transcript items) writes through a [`Sink`]: a `Vec<Line>`
//! keeps the lines for drawing, a [`Count`] only counts them.
//!
//! Invariant: a layout run into a `Count` yields exactly the number of lines
//! the same run yields into a `Vec`. Both run the same code, which decides
//! every line break from text widths alone; the sink only chooses whether
//! the text is kept. The transcript relies on this to measure entries that
//! are off screen without building their lines.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

pub trait Sink: Default {
    /// The line being built: its spans when lines are kept, nothing when
    /// they are counted.
    type Row;

    /// Lines so far.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Starts a row with `prefix`.
    fn row(prefix: &[Span<'static>]) -> Self::Row;

    /// Appends text to a row, joined to its last span when the style matches.
    fn push(row: &mut Self::Row, style: Style, text: &str);

    fn end_row(&mut self, row: Self::Row);

    /// One whole line; `make` runs only when lines are kept.
    fn line(&mut self, make: impl FnOnce() -> Line<'static>);

    /// The first `max` lines of `body`.
    fn append(&mut self, body: Self, max: usize);

    /// The lines of `body` behind a hanging prefix: `first` before its first
    /// line, `rest` before the others (each line keeps its own style).
    fn append_indented(&mut self, body: Self, first: Span<'static>, rest: Span<'static>);
}

impl Sink for Vec<Line<'static>> {
    type Row = Vec<Span<'static>>;

    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn row(prefix: &[Span<'static>]) -> Self::Row {
        prefix.to_vec()
    }

    fn push(row: &mut Self::Row, style: Style, text: &str) {
        match row.last_mut() {
            Some(span) if span.style == style => span.content.to_mut().push_str(text),
            _ => row.push(Span::styled(text.to_owned(), style)),
        }
    }

    fn end_row(&mut self, row: Self::Row) {
        self.push(Line::from(row));
    }

    fn line(&mut self, make: impl FnOnce() -> Line<'static>) {
        self.push(make());
    }

    fn append(&mut self, body: Self, max: usize) {
        self.extend(body.into_iter().take(max));
    }

    fn append_indented(&mut self, body: Self, first: Span<'static>, rest: Span<'static>) {
        for (i, line) in body.into_iter().enumerate() {
            let mut spans = vec![if i == 0 { first.clone() } else { rest.clone() }];
            spans.extend(line.spans);
            self.push(Line::from(spans).style(line.style));
        }
    }
}

/// Counts lines without building them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Count(pub usize);

impl Sink for Count {
    type Row = ();

    fn len(&self) -> usize {
        self.0
    }

    fn row(_prefix: &[Span<'static>]) {}

    fn push(_row: &mut (), _style: Style, _text: &str) {}

    fn end_row(&mut self, _row: ()) {
        self.0 += 1;
    }

    fn line(&mut self, _make: impl FnOnce() -> Line<'static>) {
        self.0 += 1;
    }

    fn append(&mut self, body: Self, max: usize) {
        self.0 += body.0.min(max);
    }

    fn append_indented(&mut self, body: Self, _first: Span<'static>, _rest: Span<'static>) {
        self.0 += body.0;
    }
}
