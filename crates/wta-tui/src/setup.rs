//! The setup screen shown instead of the transcript when the agent is not
//! installed (with its install hint) or needs authentication (its methods;
//! a terminal login runs in a new tmux window on Enter). Below it, why a
//! message typed here was not sent (`AppState::setup_notice`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use wta_i18n::tr;
use wta_state::{AppState, Setup};

use crate::theme;
use crate::wrap::{wrap, wrap_chars};

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let Some(setup) = &state.setup else { return };
    let width = area.width.saturating_sub(2) as usize;
    let indent = [Span::raw("  ")];
    let para = |text: &str, style| wrap(&[Span::styled(text.to_owned(), style)], width, &[], &[]);
    let mut lines = vec![Line::default()];
    match setup {
        Setup::NotInstalled {
            agent,
            install_hint,
        } => {
            lines.extend(para(
                &tr!("chat.agent_missing", agent = agent),
                theme::bold(),
            ));
            lines.push(Line::default());
            lines.extend(para(&tr!("setup.install_with"), theme::dim()));
            for row in install_hint.lines() {
                lines.extend(wrap_chars(row, theme::accent(), width, &indent, &indent));
            }
            lines.push(Line::default());
            lines.extend(para(&tr!("setup.then_restart"), theme::dim()));
        }
        Setup::NeedsAuth {
            agent,
            methods,
            selected,
        } => {
            lines.extend(para(
                &tr!("chat.agent_needs_auth", agent = agent),
                theme::bold(),
            ));
            lines.push(Line::default());
            for (i, method) in methods.iter().enumerate() {
                let chosen = i == *selected;
                let mark = Span::styled(if chosen { "› " } else { "  " }, theme::accent());
                let style = if chosen {
                    theme::popup_selected()
                } else {
                    ratatui::style::Style::new()
                };
                lines.extend(wrap(
                    &[Span::styled(method.name.clone(), style)],
                    width,
                    &[mark],
                    &indent,
                ));
                if let Some(command) = &method.terminal_command {
                    let text = tr!("setup.runs_in_window", command = command.join(" "));
                    lines.extend(wrap(
                        &[Span::styled(text, theme::dim())],
                        width,
                        &indent,
                        &indent,
                    ));
                } else if let Some(description) = &method.description {
                    lines.extend(wrap(
                        &[Span::styled(description.clone(), theme::dim())],
                        width,
                        &indent,
                        &indent,
                    ));
                }
            }
            lines.push(Line::default());
            lines.extend(para(&tr!("setup.auth_keys"), theme::dim()));
        }
    }
    if let Some(notice) = &state.setup_notice {
        lines.push(Line::default());
        lines.extend(wrap(
            &[Span::styled(notice.clone(), theme::attention())],
            width,
            &[Span::styled("! ", theme::attention())],
            &indent,
        ));
    }
    let inner = Rect {
        x: area.x + 1,
        width: area.width.saturating_sub(2),
        ..area
    };
    frame.render_widget(Paragraph::new(lines), inner);
}
