//! The prompt box while the select mode is on: which mode (characters,
//! lines, or none yet), the search's state (the query being typed after
//! `/` or `?`, the match at the cursor as "2 of 5", or "no match"), and the mode's
//! keys as far as they fit. The draft stays in the editor, not shown.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_i18n::tr;
use wta_state::{AppState, CopyMode, Unit};

use crate::input::fit_hint;
use crate::theme;

pub fn render(state: &AppState, mode: &CopyMode, frame: &mut Frame, area: Rect) {
    let width = area.width as usize;
    let search = &mode.search;
    if let Some(query) = &search.typing {
        let typed = format!("{}{query}", if search.backward { '?' } else { '/' });
        let hint = fit_hint(
            &tr!("pastecopy.search_keys"),
            width.saturating_sub(typed.width() + 2),
        );
        let line = Line::from(vec![
            Span::styled(typed.clone(), theme::accent()),
            Span::raw("  "),
            Span::styled(hint, theme::dim()),
        ]);
        frame
            .buffer_mut()
            .set_line(area.x, area.y, &line, area.width);
        let x = area.x + (typed.width() as u16).min(area.width.saturating_sub(1));
        frame.set_cursor_position(Position::new(x, area.y));
        return;
    }
    let name = match state.selection.filter(|s| s.dragged).map(|s| s.unit) {
        Some(Unit::Line) => tr!("pastecopy.mode_lines"),
        Some(_) => tr!("pastecopy.mode_chars"),
        None => tr!("pastecopy.mode"),
    };
    let mut spans = vec![Span::styled(
        name.clone(),
        theme::attention().add_modifier(Modifier::BOLD),
    )];
    let mut used = name.width();
    let found = match (&search.query, search.no_match, search.hit) {
        (Some(query), true, _) => Some((tr!("pastecopy.no_match", query = query), theme::error())),
        (Some(query), false, Some((index, total))) => Some((
            tr!(
                "pastecopy.match_of",
                query = query,
                index = index,
                total = total
            ),
            theme::accent(),
        )),
        _ => None,
    };
    if let Some((text, style)) = found {
        let text = crate::wrap::truncate(&text, width.saturating_sub(used + 2));
        used += text.width() + 2;
        spans.push(Span::raw("  "));
        spans.push(Span::styled(text, style));
    }
    let keys = fit_hint(&tr!("pastecopy.mode_keys"), width.saturating_sub(used + 2));
    if !keys.is_empty() && used + 2 < width {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(keys, theme::dim()));
    }
    frame
        .buffer_mut()
        .set_line(area.x, area.y, &Line::from(spans), area.width);
}
