//! The notice pinned above the prompt while the master is gone: the two
//! ways on (Enter reconnects, Ctrl+C twice closes the pane), a spinner once
//! Enter was pressed. What happened to the master is the transcript's last
//! line, just above it (it stays there after a reconnect). A two-row form
//! is used when the pane is short.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use wta_i18n::tr;
use wta_state::AppState;

use crate::status::SPINNER;
use crate::wrap::{truncate, wrap};
use crate::{panel, theme};

fn spinner(state: &AppState) -> &'static str {
    SPINNER[(state.frame % SPINNER.len() as u64) as usize]
}

/// Rows of the short form.
const COMPACT_ROWS: usize = 2;

fn body(state: &AppState, width: usize) -> Vec<Line<'static>> {
    if state.reconnecting() {
        return vec![Line::from(vec![
            Span::styled(format!("{} ", spinner(state)), theme::accent()),
            Span::raw(tr!("master_lost.reconnecting")),
        ])];
    }
    let key = |key: &str, what: &str| {
        wrap(
            &[
                Span::styled(key.to_owned(), theme::accent().add_modifier(Modifier::BOLD)),
                Span::raw(what.to_owned()),
            ],
            width,
            &[],
            &[Span::raw("  ")],
        )
    };
    let mut lines = key("Enter", &format!(": {}", tr!("master_lost.enter")));
    lines.extend(key("Ctrl+C", &format!(" {}", tr!("master_lost.ctrl_c"))));
    lines
}

/// Rows the notice takes at this width with `room` rows free above the
/// prompt: the full form when it fits, else the short one (0 while the
/// master is there).
pub fn height(state: &AppState, width: usize, room: usize) -> usize {
    if !state.master_lost() {
        return 0;
    }
    let full = body(state, width.saturating_sub(4)).len() + 2;
    if full <= room { full } else { COMPACT_ROWS }
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    if !state.master_lost() {
        return;
    }
    let full = body(state, area.width.saturating_sub(4) as usize).len() + 2;
    if (area.height as usize) < full {
        return compact(state, frame, area);
    }
    let block = panel::block(&tr!("master_lost.title"), theme::error(), 1);
    let lines = body(state, area.width.saturating_sub(4) as usize);
    panel::render(frame, area, block, lines);
}

fn compact(state: &AppState, frame: &mut Frame, area: Rect) {
    let width = area.width as usize;
    let head = truncate(&tr!("master_lost.title"), width.saturating_sub(2));
    let keys = if state.reconnecting() {
        format!(
            "{} {}",
            spinner(state),
            tr!("master_lost.reconnecting_short")
        )
    } else {
        tr!("master_lost.keys_short")
    };
    let lines = vec![
        Line::from(vec![
            Span::styled("✗ ", theme::error()),
            Span::styled(head, theme::bold()),
        ]),
        Line::from(Span::styled(truncate(&keys, width), theme::dim())),
    ];
    frame.render_widget(
        Paragraph::new(
            lines
                .into_iter()
                .take(area.height as usize)
                .collect::<Vec<_>>(),
        ),
        area,
    );
}
