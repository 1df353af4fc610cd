//! The full view: the front proposal card's full text over the whole pane,
//! from the row the user scrolled to, between a header (which rows of how
//! many) and a footer (how many rows are still unread and the scroll keys,
//! or the buttons once all were on screen; until the view is armed, the
//! hint to read it first), with what the card knows of its pane right
//! above the footer. It wraps at the same width as the card, so the rows
//! it reports are the card's rows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use wta_state::AppState;
use wta_state::proposal_card::{CardSight, FullViewFrame};

use wta_i18n::tr;

use super::words::{insert_hint, origin_name};
use super::{buttons_line, fits, fitting, full_text, sight, text_width, unread};
use crate::theme;

/// Draws the full view of the front card over `area`; returns what of its
/// full text was on screen. `None` when no card has its full view open.
pub(crate) fn render_full(state: &AppState, frame: &mut Frame, area: Rect) -> Option<CardSight> {
    let card = state.proposals.front()?;
    let view = card.full_view?;
    let text_cols = text_width(area.width);
    let width = text_cols as usize;
    let full = full_text(card, width);
    let total = full.len();
    // What the card knows of its pane, above the footer: at most a third
    // of the rows between header and footer.
    let between = (area.height as usize).saturating_sub(2);
    let notes = super::pane::forms(state, card, width, between / 3)
        .into_iter()
        .next()
        .unwrap_or_default();
    let notes = if between > notes.len() {
        notes
    } else {
        Vec::new()
    };
    let page = between - notes.len();
    let top = view.top.min(total.saturating_sub(page));
    let end = (top + page).min(total);
    let whole = fits(&full.lines, width);
    let showing = if whole {
        full.actions_in(top..end)
    } else {
        0..0
    };
    let unread = unread(card, text_cols, full.action_rows, showing.clone());

    let name = origin_name(card.proposal.origin);
    let rows = if total == 0 {
        String::new()
    } else {
        tr!(
            "proposal.full_rows",
            from = top + 1,
            to = end,
            total = total
        )
    };
    let heads = [
        format!("◆ {}", tr!("proposal.full_head", name = name, rows = rows)),
        format!("◆ {rows}"),
        "◆".to_owned(),
    ];
    let header = Line::from(Span::styled(
        fitting(&heads, area.width as usize).unwrap_or_default(),
        theme::attention().add_modifier(Modifier::BOLD),
    ));
    let footer = footer(state, card, width, unread, whole, end < total);
    let buf = frame.buffer_mut();
    buf.set_line(area.x, area.y, &header, area.width);
    let text = Rect {
        x: area.x + 2,
        y: area.y + 1,
        width: text_cols,
        height: page as u16,
    };
    let shown: Vec<Line<'static>> = full
        .lines
        .get(top..end)
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    frame.render_widget(Paragraph::new(shown), text);
    let notes_area = Rect {
        y: text.bottom(),
        height: notes.len() as u16,
        ..text
    };
    frame.render_widget(Paragraph::new(notes), notes_area);
    let bottom = area.bottom().saturating_sub(1);
    if bottom > area.y {
        frame
            .buffer_mut()
            .set_line(area.x + 2, bottom, &footer, text_cols);
    }
    let frame_at = FullViewFrame { top, page, total };
    Some(sight(
        card,
        text_cols,
        full.action_rows,
        showing,
        Some(frame_at),
    ))
}

/// The last row: why nothing can run, how much is left to read, or the buttons.
fn footer(
    state: &AppState,
    card: &wta_state::ProposalCard,
    width: usize,
    unread: usize,
    whole: bool,
    more_below: bool,
) -> Line<'static> {
    if let Some(hint) = crate::card::guard_hint(state) {
        return Line::from(vec![Span::styled("! ", hint.style), hint]);
    }
    if let Some(stale) = card.stale.as_ref() {
        let hints = [
            format!(
                "✗ {}",
                tr!("proposal.cannot_run_esc", why = stale.describe())
            ),
            format!("✗ {}", tr!("proposal.cannot_run_short")),
            "✗ Esc".to_owned(),
        ];
        return Line::from(Span::styled(
            fitting(&hints, width).unwrap_or_default(),
            theme::error(),
        ));
    }
    if !whole {
        return Line::from(Span::styled(
            fitting(
                &[
                    format!("! {}", tr!("proposal.too_narrow_long")),
                    format!("! {}", tr!("proposal.too_narrow_widen")),
                    format!("! {}", tr!("proposal.too_narrow")),
                ],
                width,
            )
            .unwrap_or_default(),
            theme::attention(),
        ));
    }
    if unread > 0 {
        let arrow = if more_below { "↓" } else { "↑" };
        let parts = crate::card_keys::full_unread(state, arrow, unread);
        return Line::from(crate::card_keys::line(&parts, width));
    }
    let mut line = buttons_line(state, card, width, 0);
    // The buttons' own hint gives way to the keys of this view.
    let hint = insert_hint();
    line.spans.retain(|s| s.content != hint.as_str());
    let parts = crate::card_keys::full_read(state);
    let room = width.saturating_sub(line.width() + 1);
    line.spans.push(Span::raw(" "));
    line.spans.extend(crate::card_keys::line(&parts, room));
    line
}
