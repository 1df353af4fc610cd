//! The padded panel the cards and the master-lost notice are drawn in: a
//! rounded border in one colour, the name bold at the top left, "1 of N"
//! at the top right when more wait, the keys on the bottom edge, and the
//! body one column in from each side. One shape, so every card looks the
//! same; what goes inside is each renderer's.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};
use wta_i18n::tr;

use crate::theme;

/// The panel's frame: `name` at the top left in `style`, bold; the border
/// in `style`; "1 of `queued`" at the top right when more than one waits.
pub(crate) fn block(name: &str, style: Style, queued: usize) -> Block<'static> {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(style)
        .title(Line::from(Span::styled(
            format!(" {name} "),
            style.add_modifier(Modifier::BOLD),
        )));
    if queued > 1 {
        block.title(
            Line::from(Span::styled(
                format!(" {} ", tr!("card.of", n = 1, total = queued)),
                theme::dim(),
            ))
            .right_aligned(),
        )
    } else {
        block
    }
}

/// Where the body goes in `block` drawn over `area`: inside the border,
/// one column in from each side.
pub(crate) fn body_area(block: &Block<'_>, area: Rect) -> Rect {
    let inner = block.inner(area);
    Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(2),
        ..inner
    }
}

/// Draws `block` over `area` and `lines` padded inside it.
pub(crate) fn render(
    frame: &mut Frame,
    area: Rect,
    block: Block<'static>,
    lines: Vec<Line<'static>>,
) {
    let body = body_area(&block, area);
    frame.render_widget(block, area);
    frame.render_widget(Paragraph::new(lines), body);
}
