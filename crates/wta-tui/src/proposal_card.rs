//! The recommendation card for the front terminal-action proposal: every
//! choice (recommended first) with its title, rationale and actions shown
//! exactly — command text in full, where it runs, what opens where — the
//! unarmed note, and the buttons. When the pane is short, choices other than
//! the highlighted one shrink to their titles; the buttons always stay.
//! Draws only; the keys live in `wta_helper::app::proposal_card`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};
use wta_helper::app::AppState;
use wta_helper::app::proposal_card::{ConfirmMode, ProposalCard};
use wta_protocol::{Action, Choice, Direction, OpenTarget, Origin};

use crate::theme;
use crate::wrap::{truncate, wrap, wrap_chars};

/// Indent of a choice's details under its title.
const INDENT: &str = "     ";

fn indent() -> Vec<Span<'static>> {
    vec![Span::raw(INDENT)]
}

fn push_command(lines: &mut Vec<Line<'static>>, input: &str, width: usize) {
    for (i, row) in input.split('\n').enumerate() {
        let first = if i == 0 { "$ " } else { "  " };
        lines.extend(wrap_chars(
            row,
            theme::accent(),
            width,
            &[Span::raw(INDENT), Span::styled(first, theme::dim())],
            &[Span::raw(INDENT), Span::raw("  ")],
        ));
    }
}

fn push_detail(lines: &mut Vec<Line<'static>>, text: &str, width: usize) {
    lines.extend(wrap(
        &[Span::styled(text.to_owned(), theme::dim())],
        width,
        &[Span::raw(format!("{INDENT}  "))],
        &[Span::raw(format!("{INDENT}  "))],
    ));
}

fn place(target: OpenTarget, direction: Option<Direction>, pane: &str) -> String {
    match target {
        OpenTarget::Tab => "new tab".to_owned(),
        OpenTarget::Panel => {
            let side = match direction {
                Some(Direction::Right) => "right of",
                Some(Direction::Left) => "left of",
                Some(Direction::Up) => "above",
                Some(Direction::Down) => "below",
                Some(Direction::Auto) | None => "beside",
            };
            format!("new panel {side} {pane}")
        }
    }
}

fn with_cwd(text: String, cwd: Option<&str>) -> String {
    match cwd {
        Some(cwd) => format!("{text} · cwd {cwd}"),
        None => text,
    }
}

fn action_lines(card: &ProposalCard, action: &Action, width: usize) -> Vec<Line<'static>> {
    let p = &card.proposal;
    let mut lines = Vec::new();
    match action {
        Action::Send { input } => {
            push_command(&mut lines, input, width);
            let here = format!("in {}", p.target_pane);
            push_detail(&mut lines, &with_cwd(here, p.target_cwd.as_deref()), width);
        }
        Action::Open {
            target,
            cwd,
            title,
            direction,
        } => {
            let mut text = format!("open {}", place(*target, *direction, &p.target_pane));
            if let Some(title) = title {
                text.push_str(&format!(" \u{201c}{title}\u{201d}"));
            }
            lines.extend(wrap(
                &[Span::styled(with_cwd(text, cwd.as_deref()), theme::bold())],
                width,
                &[Span::raw(INDENT), Span::styled("+ ", theme::dim())],
                &[Span::raw(format!("{INDENT}  "))],
            ));
        }
        Action::OpenAndSend {
            target,
            input,
            delegate,
            cwd,
        } => {
            let head = if *delegate {
                let agent = p.delegate_agent.as_deref().unwrap_or("the delegate agent");
                format!(
                    "open {}, delegate to {agent}:",
                    place(*target, None, &p.target_pane)
                )
            } else {
                format!("open {}, then run:", place(*target, None, &p.target_pane))
            };
            let text = match cwd {
                Some(cwd) => format!("{head} (cwd {cwd})"),
                None => head,
            };
            lines.extend(wrap(
                &[Span::styled(text, theme::bold())],
                width,
                &[Span::raw(INDENT), Span::styled("+ ", theme::dim())],
                &[Span::raw(format!("{INDENT}  "))],
            ));
            if *delegate {
                lines.extend(wrap(
                    &[Span::styled(input.clone(), theme::accent())],
                    width,
                    &[Span::raw(format!("{INDENT}  "))],
                    &[Span::raw(format!("{INDENT}  "))],
                ));
            } else {
                push_command(&mut lines, input, width);
            }
        }
    }
    lines
}

fn title_line(card: &ProposalCard, row: usize, choice: &Choice, width: usize) -> Line<'static> {
    let chosen = row == card.selected;
    let marker = if chosen { "› " } else { "  " };
    let style = if chosen {
        theme::popup_selected()
    } else {
        theme::bold()
    };
    let tag = if card.is_recommended(choice) {
        "  recommended"
    } else {
        ""
    };
    let room = width.saturating_sub(2 + 3 + tag.len());
    Line::from(vec![
        Span::styled(marker, theme::accent()),
        Span::styled(
            format!("{}. {}", row + 1, truncate(&choice.title, room)),
            style,
        ),
        Span::styled(tag, theme::ok()),
    ])
}

/// How much of the card fits, most first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// Every choice with its rationale and actions.
    All,
    /// Other choices shrink to their titles.
    Focused,
    /// As `Focused`, without the rationale: the actions matter most.
    ActionsOnly,
}

fn body(card: &ProposalCard, width: usize, detail: Detail) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (row, choice) in card.choices().enumerate() {
        lines.push(title_line(card, row, choice, width));
        if detail != Detail::All && row != card.selected {
            continue;
        }
        if !choice.rationale.is_empty() && detail != Detail::ActionsOnly {
            lines.extend(wrap(
                &[Span::raw(choice.rationale.clone())],
                width,
                &indent(),
                &indent(),
            ));
        }
        for action in &choice.actions {
            lines.extend(action_lines(card, action, width));
        }
    }
    if !card.proposal.armed {
        lines.extend(wrap(
            &[Span::styled(
                "unarmed: not pre-approved by the agent's permission flow",
                theme::attention(),
            )],
            width,
            &[Span::styled("! ", theme::attention())],
            &[Span::raw("  ")],
        ));
    }
    lines
}

/// The stale reason, wrapped (empty for a live card).
fn stale_lines(card: &ProposalCard, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(stale) = card.stale.as_ref() {
        lines.extend(wrap(
            &[Span::styled(
                format!("cannot run: {}", stale.describe()),
                theme::error(),
            )],
            width,
            &[Span::styled("✗ ", theme::error())],
            &[Span::raw("  ")],
        ));
    }
    lines
}

fn buttons_line(state: &AppState, card: &ProposalCard, width: usize) -> Line<'static> {
    if card.stale.is_some() {
        return Line::from(Span::styled("nothing will run · Esc dismiss", theme::dim()));
    }
    let active = state
        .clock
        .is_some_and(|now| state.proposals.accepts_keys(now));
    let mut spans = Vec::new();
    for (i, mode) in card.buttons().into_iter().enumerate() {
        let label = match mode {
            ConfirmMode::Run => " Run ",
            ConfirmMode::Insert => " Insert ",
            ConfirmMode::Open => " Open ",
        };
        let style = match (i == card.button, active) {
            (true, true) => theme::selected().add_modifier(Modifier::BOLD),
            (true, false) => theme::bold(),
            (false, _) => Style::new(),
        };
        spans.push(Span::styled("[", theme::dim()));
        spans.push(Span::styled(label, style));
        spans.push(Span::styled("]", theme::dim()));
        spans.push(Span::raw(" "));
    }
    let hint = " Insert types without Enter";
    if card.buttons().contains(&ConfirmMode::Insert)
        && crate::wrap::spans_width(&spans) + hint.len() <= width
    {
        spans.push(Span::styled(hint, theme::dim()));
    }
    Line::from(spans)
}

/// Rows the card wants at this width (everything shown).
pub fn card_height(state: &AppState, width: usize) -> usize {
    state.proposals.front().map_or(0, |card| {
        let width = width.saturating_sub(4);
        stale_lines(card, width).len() + body(card, width, Detail::All).len() + 3
    })
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let Some(card) = state.proposals.front() else {
        return;
    };
    if area.height < 4 {
        return compact(state, card, frame, area);
    }
    let name = match card.proposal.origin {
        Origin::TerminalAgent => " Terminal action ",
        Origin::Autofix => " Suggested fix ",
    };
    let queued = state.proposals.len();
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(theme::attention())
        .title(Line::from(Span::styled(
            name,
            theme::attention().add_modifier(Modifier::BOLD),
        )));
    if queued > 1 {
        block = block.title(
            Line::from(Span::styled(format!(" 1 of {queued} "), theme::dim())).right_aligned(),
        );
    }
    let keys = if card.stale.is_some() {
        " Esc dismiss "
    } else {
        " ↑↓ choice · ←→ button · Enter confirm · Esc cancel "
    };
    block = block.title_bottom(Line::from(Span::styled(keys, theme::dim())));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let inner = Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(2),
        ..inner
    };
    let width = inner.width as usize;
    let mut head = stale_lines(card, width);
    head.truncate((inner.height as usize).saturating_sub(1));
    let rows = (inner.height as usize).saturating_sub(head.len());
    let mut lines = body(card, width, Detail::All);
    for detail in [Detail::Focused, Detail::ActionsOnly] {
        if lines.len() < rows {
            break;
        }
        lines = body(card, width, detail);
    }
    if lines.len() + 1 > rows {
        // Keep the highlighted choice's title in view.
        let title_row = lines
            .iter()
            .position(|l| l.spans.first().is_some_and(|s| s.content == "› "))
            .unwrap_or(0);
        let skip = title_row.min(lines.len().saturating_sub(rows.saturating_sub(1)));
        lines.drain(..skip);
    }
    let room = rows.saturating_sub(1);
    if lines.len() > room && room > 0 {
        // Never let a cut command look complete.
        let hidden = lines.len() - room + 1;
        lines.truncate(room - 1);
        lines.push(Line::from(Span::styled(
            format!("… {hidden} more lines: make the pane taller to see all"),
            theme::attention(),
        )));
    }
    while lines.len() + 1 < rows {
        lines.push(Line::default());
    }
    lines.push(buttons_line(state, card, width));
    head.extend(lines);
    frame.render_widget(Paragraph::new(head), inner);
}

/// Two rows or fewer: the highlighted choice's title and command, then the buttons.
fn compact(state: &AppState, card: &ProposalCard, frame: &mut Frame, area: Rect) {
    let width = area.width as usize;
    let head = card.selected_choice().map_or(String::new(), |c| {
        let input = c.actions.iter().find_map(|a| match a {
            Action::Send { input } | Action::OpenAndSend { input, .. } => Some(input.as_str()),
            Action::Open { .. } => None,
        });
        match input {
            Some(input) => format!("{}  $ {}", c.title, input.replace('\n', " ⏎ ")),
            None => c.title.clone(),
        }
    });
    let lines = vec![
        Line::from(vec![
            Span::styled("◆ ", theme::attention()),
            Span::styled(truncate(&head, width.saturating_sub(2)), theme::bold()),
        ]),
        buttons_line(state, card, width),
    ];
    let rows = area.height as usize;
    frame.render_widget(
        Paragraph::new(lines.into_iter().take(rows).collect::<Vec<_>>()),
        area,
    );
}
