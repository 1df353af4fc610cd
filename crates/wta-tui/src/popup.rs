//! Lists pinned above the prompt: slash-command completions and pickers
//! (agent, model, config, sessions). At most `MAX_ROWS` rows, scrolled to
//! the highlighted entry; only whole entries are drawn, each with its
//! detail wrapped (never cut), in display-width columns. A picker's title
//! line keeps Esc whatever the width (`header`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_i18n::tr;
use wta_state::{AppState, PickerKind};

use crate::fit::{Part, fit};
use crate::theme;
use crate::wrap::{truncate, wrap};

/// Lines the list shows at most (an entry's wrapped detail counts its rows).
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

/// Rows the popup needs at `width` (0 when hidden): the title, and the
/// rows of its entries up to [`MAX_ROWS`].
pub fn popup_height(state: &AppState, width: usize) -> usize {
    let (title, rows, _) = rows(state);
    if rows.is_empty() {
        return 0;
    }
    let label_width = label_width(&rows, width);
    let whole = title.is_some();
    let lines: usize = rows
        .iter()
        .map(|r| row_lines(r, false, label_width, width, whole).len())
        .sum();
    lines.min(MAX_ROWS) + usize::from(title.is_some())
}

/// The picker's title and keys. When narrow, parts give way in this order
/// (first listed, first to go): `↑↓ choose`; the sessions picker's Enter
/// words shorten (`Enter go/resume`), then `Ctrl+D close` goes, then Enter
/// shortens to `Enter`; `Esc cancel` shortens to `Esc` (never gone); only
/// then is the title cut.
fn header(title: &str, kind: Option<&PickerKind>, width: usize) -> Line<'static> {
    let sessions = kind == Some(&PickerKind::Sessions);
    let mut parts = vec![
        Part::new(9, theme::bold(), &[title.to_owned()])
            .kept()
            .flexible(),
        Part::new(0, theme::dim(), &[tr!("keys.choose"), "↑↓".to_owned()]),
    ];
    if sessions {
        // Enter's words shorten before Ctrl+D goes, and down to `Enter` after.
        parts.push(
            Part::new(
                1,
                theme::dim(),
                &[
                    tr!("keys.sessions_enter"),
                    tr!("keys.sessions_enter_short"),
                    tr!("keys.enter"),
                ],
            )
            .then(&[3])
            .kept(),
        );
        parts.push(Part::new(2, theme::dim(), &[tr!("keys.sessions_close")]));
    } else {
        parts.push(
            Part::new(
                2,
                theme::dim(),
                &[tr!("keys.enter_pick"), tr!("keys.enter")],
            )
            .kept(),
        );
    }
    parts.push(Part::new(4, theme::dim(), &[tr!("keys.esc_cancel"), tr!("keys.esc")]).kept());
    let mut spans = vec![Span::raw(" ")];
    spans.extend(fit(
        &parts,
        &Span::styled(" · ", theme::dim()),
        width.saturating_sub(1),
    ));
    Line::from(spans)
}

/// One entry's lines: the mark, the label padded to `label_width` display
/// columns, then the detail. A picker's detail (`whole`) is wrapped, never
/// cut (an install line must be copyable): its later rows hang under the
/// detail column while that leaves a third of the width and its longest
/// word, else the detail goes on rows of its own, under the label's mark.
/// A completion's detail (a
/// command's description) is cut to its row.
fn row_lines(
    row: &Row,
    chosen: bool,
    label_width: usize,
    width: usize,
    whole: bool,
) -> Vec<Line<'static>> {
    let mark = if chosen { " › " } else { "   " };
    let current = if row.current { "● " } else { "  " };
    let label = truncate(&row.label, label_width);
    let pad = " ".repeat(label_width.saturating_sub(label.width()));
    let label_style = if chosen {
        theme::popup_selected()
    } else {
        ratatui::style::Style::new()
    };
    let head = vec![
        Span::styled(mark, theme::accent()),
        Span::styled(current, theme::ok()),
        Span::styled(label, label_style),
        Span::raw(pad),
    ];
    let column = 3 + 2 + label_width + 2;
    if row.detail.is_empty() {
        return vec![Line::from(head)];
    }
    if !whole {
        let mut line = head;
        line.push(Span::raw("  "));
        let cut = truncate(&row.detail, width.saturating_sub(column));
        line.push(Span::styled(cut, theme::dim()));
        return vec![Line::from(line)];
    }
    let detail = [Span::styled(row.detail.clone(), theme::dim())];
    let room = width.saturating_sub(column);
    let longest = row.detail.split(' ').map(str::width).max().unwrap_or(0);
    if column + row.detail.width() <= width || (room >= width / 3 && longest <= room) {
        let mut first = head;
        first.push(Span::raw("  "));
        return wrap(&detail, width, &first, &[Span::raw(" ".repeat(column))]);
    }
    let indent = [Span::raw(" ".repeat(3))];
    let mut lines = vec![Line::from(head)];
    lines.extend(wrap(&detail, width, &indent, &indent));
    lines
}

/// The label column: the widest label, capped so the detail keeps room.
fn label_width(rows: &[Row], width: usize) -> usize {
    rows.iter()
        .map(|r| r.label.width())
        .max()
        .unwrap_or(0)
        .min(label_cap(width))
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let (title, rows, selected) = rows(state);
    let width = area.width as usize;
    let buf = frame.buffer_mut();
    let mut y = area.y;
    let whole = title.is_some();
    if let Some(title) = title {
        let kind = state.picker.as_ref().map(|p| &p.kind);
        buf.set_line(area.x, y, &header(&title, kind, width), area.width);
        y += 1;
    }
    let top = y;
    let visible = (area.bottom().saturating_sub(y)) as usize;
    let label_width = label_width(&rows, width);
    let laid: Vec<Vec<Line<'static>>> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| row_lines(row, i == selected, label_width, width, whole))
        .collect();
    // The first entry shown: the highlighted one and those above it that
    // fit; only whole entries are drawn.
    let mut first = selected.min(laid.len().saturating_sub(1));
    let mut used = laid.get(first).map_or(0, Vec::len);
    while first > 0 && used + laid[first - 1].len() <= visible {
        first -= 1;
        used += laid[first].len();
    }
    for lines in laid.iter().skip(first) {
        if usize::from(y) + lines.len() > usize::from(area.bottom()) && y > top {
            break;
        }
        for line in lines {
            if y >= area.bottom() {
                break;
            }
            buf.set_line(area.x, y, line, area.width);
            y += 1;
        }
    }
}

/// The widest a label column gets: 24 columns, or three fifths of a wider
/// popup (session rows carry agent, state and place in the label), so the
/// detail always keeps some room.
fn label_cap(width: usize) -> usize {
    (width * 3 / 5).saturating_sub(7).max(24)
}
