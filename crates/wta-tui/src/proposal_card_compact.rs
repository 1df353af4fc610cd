//! The card in a pane with three rows or fewer for it: the highlighted
//! choice's title and first command on one row, then the buttons (or, while
//! rows are unread, how many and the key; while its pane is busy, why the
//! buttons are dark, the buttons below), and in a third row the card's
//! first note about its pane. Draws only.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use wta_i18n::tr;
use wta_protocol::Action;
use wta_state::AppState;
use wta_state::proposal_card::ProposalCard;

use super::{buttons_line, fitting, pane};
use crate::theme;
use crate::wrap::truncate;

/// Three rows or fewer: the highlighted choice's title and first command,
/// then the buttons, or (while rows are unread) how many and the key.
pub(super) fn compact(
    state: &AppState,
    card: &ProposalCard,
    frame: &mut Frame,
    area: Rect,
    unread: usize,
) {
    let width = area.width as usize;
    let head = card.selected_choice().map_or(String::new(), |c| {
        let input = c.actions.iter().find_map(|a| match a {
            Action::Send { input } | Action::OpenAndSend { input, .. } => Some(input.as_str()),
            Action::Open { .. } => None,
        });
        match input {
            Some(input) => format!(
                "{}. {}  $ {}",
                c.choice,
                c.title,
                input.replace('\n', " ⏎ ")
            ),
            None => format!("{}. {}", c.choice, c.title),
        }
    });
    let head = Line::from(vec![
        Span::styled("◆ ", theme::attention()),
        Span::styled(truncate(&head, width.saturating_sub(2)), theme::bold()),
    ]);
    let second = if let Some(hint) = crate::card::guard_hint(state) {
        Line::from(vec![Span::styled("! ", hint.style), hint])
    } else if unread > 0 {
        let hints = [
            format!("! {}", tr!("proposal.compact_unread", n = unread)),
            format!("! {}", tr!("proposal.compact_unread_short", n = unread)),
            format!("! {}", tr!("proposal.read_all")),
            "! v".to_owned(),
        ];
        Line::from(Span::styled(
            fitting(&hints, width).unwrap_or_default(),
            theme::attention(),
        ))
    } else if pane::waits(state, card) {
        // The buttons are dark: the row says why, the next shows them.
        pane::first_short(state, card, width).unwrap_or_default()
    } else {
        buttons_line(state, card, width, 0)
    };
    let third = match (unread, pane::waits(state, card)) {
        (0, true) => Some(buttons_line(state, card, width, 0)),
        _ => pane::first_short(state, card, width),
    };
    let lines = if area.height == 1 && unread > 0 {
        vec![second]
    } else {
        [head, second].into_iter().chain(third).collect()
    };
    let rows = area.height as usize;
    frame.render_widget(
        Paragraph::new(lines.into_iter().take(rows).collect::<Vec<_>>()),
        area,
    );
}
