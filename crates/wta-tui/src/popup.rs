//! Lists pinned above the prompt: slash-command completions and pickers
//! (agent, model, config). At most `MAX_ROWS` rows, scrolled to the
//! highlighted one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_state::AppState;

use crate::theme;
use crate::wrap::truncate;

pub const MAX_ROWS: usize = 8;

struct Row {
    label: String,
    detail: String,
    current: bool,
}

fn rows(state: &AppState) -> (Option<String>, Vec<Row>, usize) {
    if let Some(picker) = &state.picker {
        let rows = picker
            .items
            .iter()
            .map(|i| Row {
                label: i.label.clone(),
                detail: i.detail.clone(),
                current: i.current,
            })
            .collect();
        return (Some(picker.title.clone()), rows, picker.selected);
    }
    let completions = state.completions();
    let selected = state
        .popup_selected
        .min(completions.len().saturating_sub(1));
    let rows = completions
        .into_iter()
        .map(|c| Row {
            label: c.label,
            detail: c.detail,
            current: false,
        })
        .collect();
    (None, rows, selected)
}

/// Rows the popup needs (0 when hidden).
pub fn popup_height(state: &AppState) -> usize {
    let (title, rows, _) = rows(state);
    if rows.is_empty() {
        return 0;
    }
    rows.len().min(MAX_ROWS) + usize::from(title.is_some())
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let (title, rows, selected) = rows(state);
    let buf = frame.buffer_mut();
    let mut y = area.y;
    if let Some(title) = title {
        let line = Line::from(vec![
            Span::styled(format!(" {title}"), theme::bold()),
            Span::styled("  ↑↓ Enter · Esc", theme::dim()),
        ]);
        buf.set_line(area.x, y, &line, area.width);
        y += 1;
    }
    let visible = (area.bottom().saturating_sub(y)) as usize;
    let first = (selected + 1).saturating_sub(visible);
    let label_width = rows
        .iter()
        .map(|r| r.label.width())
        .max()
        .unwrap_or(0)
        .min(label_cap(area.width));
    for (i, row) in rows.iter().enumerate().skip(first).take(visible) {
        let chosen = i == selected;
        let mark = if chosen { " › " } else { "   " };
        let current = if row.current { "● " } else { "  " };
        let label = format!("{:<label_width$}", truncate(&row.label, label_width));
        let used = 3 + 2 + label_width + 2;
        let detail = truncate(&row.detail, (area.width as usize).saturating_sub(used));
        let label_style = if chosen {
            theme::popup_selected()
        } else {
            ratatui::style::Style::new()
        };
        let line = Line::from(vec![
            Span::styled(mark, theme::accent()),
            Span::styled(current, theme::ok()),
            Span::styled(label, label_style),
            Span::raw("  "),
            Span::styled(detail, theme::dim()),
        ]);
        buf.set_line(area.x, y, &line, area.width);
        y += 1;
    }
}

/// The widest a label column gets: 24 columns, or three fifths of a wider
/// popup (session rows carry agent, state and place in the label), so the
/// detail always keeps some room.
fn label_cap(width: u16) -> usize {
    (usize::from(width) * 3 / 5).saturating_sub(7).max(24)
}
