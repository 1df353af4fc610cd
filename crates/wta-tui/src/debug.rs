//! F12 panel: the newest ACP traffic lines of this pane, one per row,
//! `→` for what we sent and `←` for what we received.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};
use wta_state::{AppState, Direction};

use crate::theme;
use crate::wrap::truncate;

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let log = &state.debug;
    let dropped = log.total.saturating_sub(log.len() as u64);
    let mut title = format!(" ACP traffic · {} lines", log.len());
    if dropped > 0 {
        title.push_str(&format!(" ({dropped} older dropped)"));
    }
    title.push_str(" · F12 ");
    let block = Block::default()
        .borders(Borders::LEFT | Borders::TOP)
        .border_style(theme::dim())
        .title(Span::styled(title, theme::dim()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = inner.height as usize;
    let width = inner.width.saturating_sub(3) as usize;
    let buf = frame.buffer_mut();
    if log.is_empty() {
        let line = Line::from(Span::styled(" no traffic yet", theme::dim()));
        buf.set_line(inner.x, inner.y, &line, inner.width);
        return;
    }
    let skip = log.len().saturating_sub(rows);
    for (y, entry) in log.lines().skip(skip).enumerate() {
        let (arrow, style) = match entry.direction {
            Direction::Out => (" → ", theme::ok()),
            Direction::In => (" ← ", theme::accent()),
        };
        let line = Line::from(vec![
            Span::styled(arrow, style),
            Span::styled(truncate(&entry.text, width), theme::dim()),
        ]);
        buf.set_line(inner.x, inner.y + y as u16, &line, inner.width);
    }
}
