//! F12 panel: this pane's JSON-RPC lines as they crossed the master socket,
//! `→` for what we sent and `←` for what we received, each line whole and
//! wrapped (`wta_state::debug::rows_of`: after commas where it can), the
//! newest at the bottom. It scrolls (PageUp/PageDown, the wheel, Home/End
//! while it is open); the title says which rows are in view once they do
//! not all fit. After drawing it writes back its width and rows
//! ([`wta_state::TrafficArea`]), which scrolling counts in.
//!
//! The title gives way when narrow, first listed first to go: the scroll
//! keys, how many lines were dropped, which rows are in view, `F12 close`
//! down to `F12` (never gone); then the title is cut.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};
use wta_i18n::tr;
use wta_state::debug::rows_of;
use wta_state::{AppState, Direction, Scroll, TrafficArea};

use crate::fit::{Part, fit};
use crate::theme;

/// Columns before a line's text: ` → ` (its continuation rows: blank).
const GUTTER: u16 = 3;

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let log = &state.debug;
    let block = Block::default()
        .borders(Borders::LEFT | Borders::TOP)
        .border_style(theme::dim());
    let inner = block.inner(area);
    let rows = inner.height as usize;
    let width = inner.width.saturating_sub(GUTTER) as usize;
    // Every kept line's rows (byte ranges), oldest first.
    let laid: Vec<_> = log.lines().map(|l| (l, rows_of(&l.text, width))).collect();
    let total_rows: usize = laid.iter().map(|(_, r)| r.len()).sum();
    let measured = TrafficArea {
        width,
        rows,
        total_rows,
    };
    log.area.set(measured);
    let top = measured.top(log.scroll);
    let end = (top + rows).min(total_rows);
    let block = block.title(title(state, top, end, total_rows, area.width));
    frame.render_widget(block, area);
    let buf = frame.buffer_mut();
    if log.is_empty() {
        let line = Line::from(Span::styled(
            format!(" {}", tr!("debug.empty")),
            theme::dim(),
        ));
        buf.set_line(inner.x, inner.y, &line, inner.width);
        return;
    }
    let mut row = 0;
    let mut y = inner.y;
    for (line, ranges) in &laid {
        if row + ranges.len() <= top {
            row += ranges.len();
            continue;
        }
        let (arrow, style) = match line.direction {
            Direction::Out => (" → ", theme::ok()),
            Direction::In => (" ← ", theme::accent()),
        };
        for (i, range) in ranges.iter().enumerate() {
            if row >= end {
                return;
            }
            if row >= top {
                let head = if i == 0 {
                    Span::styled(arrow, style)
                } else {
                    Span::raw("   ")
                };
                let text = Span::styled(line.text[range.clone()].to_owned(), theme::dim());
                buf.set_line(inner.x, y, &Line::from(vec![head, text]), inner.width);
                y += 1;
            }
            row += 1;
        }
    }
}

/// The top border's title: what the panel is, how many lines, which rows
/// are in view (once they do not all fit), the keys.
fn title(state: &AppState, top: usize, end: usize, total: usize, cols: u16) -> Line<'static> {
    let log = &state.debug;
    let dropped = log.total.saturating_sub(log.len() as u64);
    let dim = theme::dim();
    let mut parts = vec![
        Part::new(9, dim, &[tr!("debug.title", lines = log.len())])
            .kept()
            .flexible(),
    ];
    if dropped > 0 {
        parts.push(Part::new(1, dim, &[tr!("debug.dropped", n = dropped)]));
    }
    if total > end - top {
        let style = match log.scroll {
            Scroll::Pinned { .. } => theme::accent(),
            Scroll::Follow => dim,
        };
        parts.push(Part::new(
            2,
            style,
            &[tr!("debug.rows", from = top + 1, to = end, total = total)],
        ));
        parts.push(Part::new(0, dim, &[tr!("debug.scroll")]));
    }
    parts.push(Part::new(3, dim, &[tr!("debug.close"), "F12".to_owned()]).kept());
    // The border's corner, and a space each side.
    let room = usize::from(cols).saturating_sub(3);
    let mut spans = vec![Span::raw(" ")];
    spans.extend(fit(&parts, &Span::styled(" · ", dim), room));
    spans.push(Span::raw(" "));
    Line::from(spans)
}
