//! Markdown tables: aligned columns when they fit the width, otherwise one
//! record per row (`• first cell`, then `header: value` lines), so a wide
//! table degrades into readable text instead of a mangled grid.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::theme;
use crate::wrap::{spans_width, wrap};

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

pub fn render_table(table: &Table, width: usize, prefix: &[Span<'static>]) -> Vec<Line<'static>> {
    let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    if columns == 0 {
        return Vec::new();
    }
    let mut widths = vec![1usize; columns];
    for row in &table.rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.width());
        }
    }
    let total = widths.iter().sum::<usize>() + 3 * (columns - 1);
    if total + spans_width(prefix) <= width {
        grid(table, &widths, prefix)
    } else {
        records(table, width, prefix)
    }
}

fn grid(table: &Table, widths: &[usize], prefix: &[Span<'static>]) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (r, row) in table.rows.iter().enumerate() {
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
        lines.push(Line::from(spans));
        if r == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            let mut spans = prefix.to_vec();
            spans.push(Span::styled(rule.join("─┼─"), theme::dim()));
            lines.push(Line::from(spans));
        }
    }
    lines
}

fn records(table: &Table, width: usize, prefix: &[Span<'static>]) -> Vec<Line<'static>> {
    let header = table.rows.first().cloned().unwrap_or_default();
    let mut lines = Vec::new();
    let mut first = prefix.to_vec();
    first.push(Span::styled("• ", theme::dim()));
    let mut rest = prefix.to_vec();
    rest.push(Span::raw("  "));
    for row in table.rows.iter().skip(1) {
        let title = row.first().map_or("", String::as_str);
        lines.extend(wrap(
            &[Span::styled(title.to_owned(), theme::bold())],
            width,
            &first,
            &rest,
        ));
        for (i, cell) in row.iter().enumerate().skip(1) {
            let name = header.get(i).map_or(String::new(), |h| format!("{h}: "));
            let spans = [Span::styled(name, theme::dim()), Span::raw(cell.clone())];
            lines.extend(wrap(&spans, width, &rest, &rest));
        }
    }
    lines
}
