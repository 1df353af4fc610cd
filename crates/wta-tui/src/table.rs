//! Markdown tables: aligned columns when they fit the width, otherwise one
//! record per row (`• first cell`, then `header: value` lines), so a wide
//! table degrades into readable text instead of a mangled grid.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::sink::Sink;
use crate::theme;
use crate::wrap::{spans_width, wrap_into};

/// Cells as plain text; the first row is the header.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn start_row(&mut self) {
        self.rows.push(Vec::new());
    }

    pub fn start_cell(&mut self) {
        if let Some(row) = self.rows.last_mut() {
            row.push(String::new());
        }
    }

    pub fn push_text(&mut self, text: &str) {
        if let Some(cell) = self.rows.last_mut().and_then(|r| r.last_mut()) {
            cell.push_str(text);
        }
    }
}

pub fn render_table<S: Sink>(table: &Table, width: usize, prefix: &[Span<'static>], out: &mut S) {
    let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    if columns == 0 {
        return;
    }
    let mut widths = vec![1usize; columns];
    for row in &table.rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.width());
        }
    }
    let total = widths.iter().sum::<usize>() + 3 * (columns - 1);
    if total + spans_width(prefix) <= width {
        grid(table, &widths, prefix, out);
    } else {
        records(table, width, prefix, out);
    }
}

fn grid<S: Sink>(table: &Table, widths: &[usize], prefix: &[Span<'static>], out: &mut S) {
    for (r, row) in table.rows.iter().enumerate() {
        out.line(|| grid_row(r, row, widths, prefix));
        if r == 0 {
            out.line(|| {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                let mut spans = prefix.to_vec();
                spans.push(Span::styled(rule.join("─┼─"), theme::dim()));
                Line::from(spans)
            });
        }
    }
}

fn grid_row(r: usize, row: &[String], widths: &[usize], prefix: &[Span<'static>]) -> Line<'static> {
    let mut spans = prefix.to_vec();
    let style = if r == 0 { theme::bold() } else { Style::new() };
    for (i, w) in widths.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme::dim()));
        }
        let cell = row.get(i).map_or("", String::as_str);
        let pad = w - cell.width();
        let text = if i + 1 == widths.len() {
            cell.to_owned()
        } else {
            format!("{cell}{}", " ".repeat(pad))
        };
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

fn records<S: Sink>(table: &Table, width: usize, prefix: &[Span<'static>], out: &mut S) {
    let header = table.rows.first().cloned().unwrap_or_default();
    let mut first = prefix.to_vec();
    first.push(Span::styled("• ", theme::dim()));
    let mut rest = prefix.to_vec();
    rest.push(Span::raw("  "));
    for row in table.rows.iter().skip(1) {
        let title = row.first().map_or("", String::as_str);
        wrap_into(
            &[Span::styled(title, theme::bold())],
            width,
            &first,
            &rest,
            out,
        );
        for (i, cell) in row.iter().enumerate().skip(1) {
            let name = header.get(i).map_or(String::new(), |h| format!("{h}: "));
            let spans = [Span::styled(name, theme::dim()), Span::raw(cell.as_str())];
            wrap_into(&spans, width, &rest, &rest, out);
        }
    }
}
