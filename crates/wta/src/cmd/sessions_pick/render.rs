//! Draws the `wta sessions pick` view: a title with the keys, the search
//! line, one line per session (the selected one marked, live ones with a
//! dot), and the notice or the count at the bottom.

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_i18n::tr;
use wta_protocol::agent_sessions::AgentSessionRow;
use wta_tui::theme;
use wta_tui::wrap::truncate;

use super::view::View;
use crate::cmd::sessions_registry::{place_text, status_text};

/// One session's text: agent, status (with its tool, or resumable), where,
/// directory and title.
fn describe(row: &AgentSessionRow) -> String {
    let status = status_text(row);
    let place = place_text(row).unwrap_or_default();
    [
        Some(row.agent.as_str()),
        Some(status.as_str()),
        Some(place.as_str()).filter(|p| !p.is_empty()),
        row.cwd.as_deref(),
        row.title.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ")
}

pub fn draw(frame: &mut Frame<'_>, view: &View) {
    let area = frame.area();
    let width = usize::from(area.width);
    let buf = frame.buffer_mut();
    let mut y = area.y;
    let mut put = |line: Line<'_>, y: &mut u16| {
        if *y < area.bottom() {
            buf.set_line(area.x, *y, &line, area.width);
            *y += 1;
        }
    };
    put(title_line(width), &mut y);
    put(search_line(view), &mut y);
    // Two lines stay for the notice or the count.
    let rows_room = usize::from(area.bottom().saturating_sub(y).saturating_sub(2));
    let visible = view.visible();
    let selected = view.selected_index();
    let first = (selected + 1).saturating_sub(rows_room);
    if visible.is_empty() {
        let none = if view.total() == 0 {
            tr("sessions.pick.none", &[])
        } else {
            tr("sessions.pick.no_match", &[])
        };
        put(
            Line::from(Span::styled(format!("   {none}"), theme::dim())),
            &mut y,
        );
    }
    for (i, row) in visible.iter().enumerate().skip(first).take(rows_room) {
        put(session_line(row, i == selected, width), &mut y);
    }
    let bottom = area.bottom().saturating_sub(1);
    if bottom >= y {
        let footer = footer(view, visible.len(), width);
        buf.set_line(area.x, bottom, &Line::from(footer), area.width);
    }
}

/// The title, with the keys when they fit beside it.
fn title_line(width: usize) -> Line<'static> {
    let title = tr("sessions.pick.title", &[]);
    let keys = tr("sessions.pick.keys", &[]);
    if title.width() + 2 + keys.width() < width {
        Line::from(vec![
            Span::styled(format!(" {title}"), theme::bold()),
            Span::styled(format!("  {keys}"), theme::dim()),
        ])
    } else {
        Line::from(Span::styled(
            truncate(&format!(" {title}"), width),
            theme::bold(),
        ))
    }
}

/// The search line: the query, or what to type when there is none.
fn search_line(view: &View) -> Line<'static> {
    let search = if view.query().is_empty() {
        Span::styled(tr("sessions.pick.search", &[]), theme::dim())
    } else {
        Span::raw(view.query().to_owned())
    };
    Line::from(vec![Span::styled(" › ", theme::accent()), search])
}

/// One session: marked when `chosen`, a dot when live.
fn session_line(row: &AgentSessionRow, chosen: bool, width: usize) -> Line<'static> {
    let mark = if chosen { " › " } else { "   " };
    let live = if row.status.is_live() { "● " } else { "  " };
    let text = truncate(&describe(row), width.saturating_sub(5));
    let style = if chosen {
        theme::popup_selected()
    } else {
        Style::new()
    };
    Line::from(vec![
        Span::styled(mark, theme::accent()),
        Span::styled(live, theme::ok()),
        Span::styled(text, style),
    ])
}

/// The bottom line: the notice, else how many of the sessions are `shown`.
fn footer(view: &View, shown: usize, width: usize) -> Span<'static> {
    match view.notice() {
        Some(n) => Span::styled(
            truncate(&format!(" {}", n.text), width),
            if n.error { theme::error() } else { theme::ok() },
        ),
        None => Span::styled(
            format!(
                " {}",
                tr(
                    "sessions.pick.count",
                    &[
                        ("shown", &shown.to_string()),
                        ("total", &view.total().to_string()),
                    ],
                )
            ),
            theme::dim(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use wta_protocol::PaneId;
    use wta_protocol::agent_sessions::{AgentStatus, SessionSource};

    use super::super::view::PickKey;
    use super::*;

    fn screen(view: &View, width: u16, height: u16) -> String {
        let mut term = Terminal::new(TestBackend::new(width, height)).unwrap();
        term.draw(|f| draw(f, view)).unwrap();
        let buf = term.backend().buffer();
        (0..height)
            .map(|y| {
                (0..width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_owned()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn rows() -> Vec<AgentSessionRow> {
        let row = |key: &str, agent: &str, status, source, pane: &str| AgentSessionRow {
            key: key.into(),
            source,
            agent: agent.into(),
            session_id: Some(key.into()),
            pane: PaneId::parse(pane).ok(),
            tab: None,
            cwd: Some("/src/app".into()),
            title: None,
            status,
            last_activity_ms: None,
            current_tool: None,
            resumable: status == AgentStatus::Ended,
        };
        (0..8)
            .map(|n| {
                let (status, source) = if n % 2 == 0 {
                    (AgentStatus::Idle, SessionSource::ShellPane)
                } else {
                    (AgentStatus::Ended, SessionSource::AgentPane)
                };
                row(&format!("k{n}"), &format!("agent{n}"), status, source, "%3")
            })
            .collect()
    }

    #[test]
    fn the_list_marks_live_and_selected_rows_and_counts() {
        let screen = screen(&View::new(rows()), 60, 8);
        let lines: Vec<&str> = screen.lines().collect();
        assert!(lines[0].starts_with(" Sessions"), "{screen}");
        assert!(lines[1].contains("type to search"), "{screen}");
        assert_eq!(
            lines[2], " › ● agent0 · idle · in shell %3 · /src/app",
            "{screen}"
        );
        assert_eq!(
            lines[3], "     agent1 · ended (resumable) · for %3 · /src/app",
            "{screen}"
        );
        assert_eq!(lines[7], " 8 of 8", "{screen}");
    }

    #[test]
    fn the_selection_scrolls_into_view_and_a_notice_replaces_the_count() {
        let mut view = View::new(rows());
        for _ in 0..7 {
            view.step(PickKey::Down);
        }
        view.tell("gone".into(), true);
        let screen = screen(&view, 40, 8);
        assert!(
            screen.contains(" › ") && screen.contains("agent7"),
            "{screen}"
        );
        assert!(!screen.contains("agent0"), "{screen}");
        assert!(screen.ends_with(" gone"), "{screen}");
        for line in screen.lines() {
            assert!(line.width() <= 40, "{line}");
        }
        let mut empty = View::new(rows());
        empty.step(PickKey::Char('#'));
        assert!(screen_of(&empty).contains("No session matches"));
        assert!(screen_of(&View::new(Vec::new())).contains("No sessions yet"));
    }

    fn screen_of(view: &View) -> String {
        screen(view, 60, 6)
    }
}
