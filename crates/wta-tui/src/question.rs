//! The agent's question (`request_user_input`): the question, its choices
//! with the highlighted one, whether a typed answer is taken, and the keys
//! (or, until the card is armed, the hint to read it first). A two-row
//! compact form is used when the pane is short.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use wta_state::{AppState, PendingQuestion};

use wta_i18n::tr;

use crate::wrap::{truncate, wrap_chars};
use crate::{card, panel, theme};

/// Question rows shown at most (the rest is cut with a marker).
const MAX_QUESTION_ROWS: usize = 8;

fn body(q: &PendingQuestion, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut rows = 0;
    for row in q.request.question.lines() {
        for line in wrap_chars(row, theme::bold(), width, &[], &[]) {
            rows += 1;
            if rows <= MAX_QUESTION_ROWS {
                lines.push(line);
            }
        }
    }
    if rows > MAX_QUESTION_ROWS {
        lines.push(Line::from(Span::styled(
            tr!("question.more_lines", n = rows - MAX_QUESTION_ROWS),
            theme::dim(),
        )));
    }
    lines.push(Line::default());
    for (i, choice) in q.request.choices.iter().enumerate() {
        let chosen = i == q.selected;
        let (marker, style) = if chosen {
            ("› ", theme::popup_selected())
        } else {
            ("  ", Style::new())
        };
        lines.push(Line::from(vec![
            Span::styled(marker, theme::accent()),
            Span::styled(
                truncate(&format!("{}. {choice}", i + 1), width.saturating_sub(2)),
                style,
            ),
        ]));
    }
    if q.request.allow_freeform {
        let text = if q.request.choices.is_empty() {
            tr!("question.type_answer")
        } else {
            tr!("question.or_type")
        };
        lines.push(Line::from(Span::styled(text, theme::dim())));
    }
    lines
}

/// Rows the card wants at this width.
pub fn card_height(state: &AppState, width: usize) -> usize {
    state
        .question
        .as_ref()
        .map_or(0, |q| body(q, width.saturating_sub(4)).len() + 2)
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let Some(q) = &state.question else {
        return;
    };
    if (area.height as usize) < card_height(state, area.width as usize) {
        return compact(state, q, frame, area);
    }
    let keys = crate::card_keys::question(state, q);
    let block = panel::block(&tr!("question.title"), theme::attention(), 1)
        .title_bottom(crate::card_keys::title(state, &keys, area.width));
    let lines = body(q, area.width.saturating_sub(4) as usize);
    panel::render(frame, area, block, lines);
}

fn compact(state: &AppState, q: &PendingQuestion, frame: &mut Frame, area: Rect) {
    let width = area.width as usize;
    let question = q.request.question.lines().next().unwrap_or_default();
    let mut lines = vec![Line::from(vec![
        Span::styled("◆ ", theme::attention()),
        Span::styled(truncate(question, width.saturating_sub(2)), theme::bold()),
    ])];
    let hint = card::guard_hint(state);
    let answer = match (q.request.choices.get(q.selected), &hint) {
        (Some(choice), Some(_)) => format!("› {}. {choice}  ", q.selected + 1),
        (Some(choice), None) => format!("› {}. {choice}  (↑↓ Enter · Esc)", q.selected + 1),
        (None, Some(_)) => String::new(),
        (None, None) => tr!("question.type_short"),
    };
    let answer = Span::styled(truncate(&answer, width), theme::dim());
    let room = width.saturating_sub(answer.width());
    let hint = hint.map(|h| Span::styled(truncate(&h.content, room), h.style));
    lines.push(Line::from(
        std::iter::once(answer).chain(hint).collect::<Vec<_>>(),
    ));
    let rows = area.height as usize;
    frame.render_widget(
        Paragraph::new(lines.into_iter().take(rows).collect::<Vec<_>>()),
        area,
    );
}
