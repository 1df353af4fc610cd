//! The permission card for the front of the queue: the tool's kind and
//! title, its command or path, every option the agent offered, and the keys.
//! A compact three-row form is used when the pane is short. Until the card
//! on top is armed (`wta_state::guard`), its keys line says to read it
//! first ([`guard_hint`], shared by every card); once armed, the keys
//! (`card_keys.rs`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;
use wta_state::permission::PendingPermission;
use wta_state::{AppState, PermissionOptionKind};

use crate::items::kind_glyph;
use wta_i18n::tr;

use crate::wrap::{truncate, wrap_chars};
use crate::{panel, theme};

fn shortcut(kind: PermissionOptionKind, first_allow: bool, first_reject: bool) -> &'static str {
    match kind {
        PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways if first_allow => {
            " (y)"
        }
        PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways if first_reject => {
            " (n)"
        }
        _ => "",
    }
}

fn option_lines(p: &PendingPermission, active: bool) -> Vec<Line<'static>> {
    let (yes, no) = (p.shortcut_index(true), p.shortcut_index(false));
    p.request
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let chosen = i == p.selected;
            let marker = if chosen { "› " } else { "  " };
            let style = match (chosen, active) {
                (true, true) => theme::popup_selected(),
                (true, false) => theme::bold(),
                _ => ratatui::style::Style::new(),
            };
            let key = shortcut(o.kind, yes == Some(i), no == Some(i));
            Line::from(vec![
                Span::styled(marker, theme::accent()),
                Span::styled(format!("{}. {}", i + 1, o.name), style),
                Span::styled(key, theme::dim()),
            ])
        })
        .collect()
}

fn body(state: &AppState, p: &PendingPermission, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} ", kind_glyph(p.request.kind)), theme::dim()),
        Span::styled(p.request.title.clone(), theme::bold()),
    ])];
    if let Some(target) = &p.request.target {
        for row in target.lines().take(4) {
            lines.extend(wrap_chars(
                row,
                theme::accent(),
                width,
                &[Span::raw("  ")],
                &[Span::raw("  ")],
            ));
        }
    }
    lines.push(Line::default());
    lines.extend(option_lines(p, armed(state)));
    lines
}

/// Whether the card on top takes keys now (at the state's clock).
pub(crate) fn armed(state: &AppState) -> bool {
    state.clock.is_some_and(|now| state.card_armed(now))
}

/// What the keys line of the card on top says while the card is not armed
/// yet: to read it first (standing out once a key was ignored). `None`
/// once it is armed: the hint going is how a reader (or a test) sees it.
pub(crate) fn guard_hint(state: &AppState) -> Option<Span<'static>> {
    if armed(state) {
        return None;
    }
    let style = if state.guard.refused() {
        theme::attention().add_modifier(Modifier::BOLD)
    } else {
        theme::dim()
    };
    Some(Span::styled(tr!("card.read_first"), style))
}

/// Rows the card wants at this width (full form).
pub fn card_height(state: &AppState, width: usize) -> usize {
    state
        .permissions
        .front()
        .map_or(0, |p| body(state, p, width.saturating_sub(4)).len() + 2)
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let Some(p) = state.permissions.front() else {
        return;
    };
    let queued = state.permissions.len();
    let full = card_height(state, area.width as usize);
    if (area.height as usize) < full {
        return compact(state, p, frame, area);
    }
    let keys = crate::card_keys::permission(state, p);
    let block = panel::block(&tr!("card.permission_title"), theme::attention(), queued)
        .title_bottom(crate::card_keys::title(state, &keys, area.width));
    let inner_width = area.width.saturating_sub(4) as usize;
    let lines = body(state, p, inner_width);
    panel::render(frame, area, block, lines);
}

fn compact(state: &AppState, p: &PendingPermission, frame: &mut Frame, area: Rect) {
    let width = area.width as usize;
    let queued = state.permissions.len();
    let more = if queued > 1 {
        format!(" · {}", tr!("card.of", n = 1, total = queued))
    } else {
        String::new()
    };
    let target = p.request.target.as_deref().unwrap_or("");
    let head = truncate(
        &format!(
            "{} {}  {target}",
            kind_glyph(p.request.kind),
            p.request.title
        ),
        width.saturating_sub(more.width() + 2),
    );
    let mut lines = vec![Line::from(vec![
        Span::styled("◆ ", theme::attention()),
        Span::styled(head, theme::bold()),
        Span::styled(more, theme::dim()),
    ])];
    let mut options: Vec<Span<'static>> = Vec::new();
    for line in option_lines(p, true) {
        options.extend(line.spans);
        options.push(Span::raw("  "));
    }
    options.extend(guard_hint(state));
    lines.push(Line::from(options));
    let rows = area.height as usize;
    frame.render_widget(
        Paragraph::new(lines.into_iter().take(rows).collect::<Vec<_>>()),
        area,
    );
}
