//! The `wta sessions pick` view as data: the registry's rows, the search
//! text, the selection and a notice. [`View::step`] is pure: one key in,
//! what to do out; the terminal loop does it and reports back.

use wta_protocol::agent_sessions::AgentSessionRow;

use crate::cmd::sessions_registry::matches;

/// A key the view understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickKey {
    Up,
    Down,
    /// Go to a live session, resume an ended one.
    Enter,
    /// Close the selected session (Ctrl+D, Delete).
    Close,
    /// Clear the search, else leave.
    Esc,
    /// Leave (Ctrl+C).
    Quit,
    Backspace,
    Char(char),
}

/// What the loop should do after a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Stay,
    Quit,
    Focus(AgentSessionRow),
    Resume(AgentSessionRow),
    Close(AgentSessionRow),
}

/// A line under the list: what the last action did, or why it could not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

#[derive(Debug, Clone, Default)]
pub struct View {
    rows: Vec<AgentSessionRow>,
    query: String,
    /// Index into [`View::visible`].
    selected: usize,
    notice: Option<Notice>,
}

impl View {
    pub fn new(rows: Vec<AgentSessionRow>) -> Self {
        Self {
            rows,
            ..Self::default()
        }
    }

    /// The rows the search matches, in the registry's order.
    pub fn visible(&self) -> Vec<&AgentSessionRow> {
        self.rows
            .iter()
            .filter(|r| self.query.is_empty() || matches(r, &self.query))
            .collect()
    }

    pub fn total(&self) -> usize {
        self.rows.len()
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    pub fn selected_index(&self) -> usize {
        self.selected
    }

    pub fn selected(&self) -> Option<&AgentSessionRow> {
        self.visible().get(self.selected).copied()
    }

    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// Shows `text` under the list until the next key.
    pub fn tell(&mut self, text: String, error: bool) {
        self.notice = Some(Notice { text, error });
    }

    /// New rows from the registry; the selection stays on the same session
    /// where it is still listed.
    pub fn refresh(&mut self, rows: Vec<AgentSessionRow>) {
        let key = self.selected().map(|r| r.key.clone());
        self.rows = rows;
        let visible = self.visible();
        self.selected = key
            .and_then(|k| visible.iter().position(|r| r.key == k))
            .unwrap_or(self.selected)
            .min(visible.len().saturating_sub(1));
    }

    /// One key.
    pub fn step(&mut self, key: PickKey) -> Action {
        self.notice = None;
        let last = self.visible().len().saturating_sub(1);
        match key {
            PickKey::Up => self.selected = self.selected.saturating_sub(1),
            PickKey::Down => self.selected = (self.selected + 1).min(last),
            PickKey::Char(c) if !c.is_control() => {
                self.query.push(c);
                self.selected = 0;
            }
            PickKey::Char(_) => {}
            PickKey::Backspace => {
                self.query.pop();
                self.selected = 0;
            }
            PickKey::Esc if !self.query.is_empty() => {
                self.query.clear();
                self.selected = 0;
            }
            PickKey::Esc | PickKey::Quit => return Action::Quit,
            PickKey::Enter => return self.enter(),
            PickKey::Close => {
                if let Some(row) = self.selected() {
                    return Action::Close(row.clone());
                }
            }
        }
        Action::Stay
    }

    fn enter(&mut self) -> Action {
        let Some(row) = self.selected().cloned() else {
            return Action::Stay;
        };
        if row.status.is_live() {
            Action::Focus(row)
        } else if row.resumable {
            Action::Resume(row)
        } else {
            let text = wta_i18n::tr(
                "sessions.pick.not_resumable",
                &[("agent", row.agent.as_str())],
            );
            self.tell(text, true);
            Action::Stay
        }
    }
}

#[cfg(test)]
mod tests {
    use wta_protocol::agent_sessions::{AgentStatus, SessionSource};

    use super::*;

    fn row(key: &str, agent: &str, status: AgentStatus, resumable: bool) -> AgentSessionRow {
        AgentSessionRow {
            key: key.into(),
            source: SessionSource::AgentPane,
            agent: agent.into(),
            session_id: Some(key.into()),
            pane: None,
            tab: None,
            cwd: Some(format!("/src/{agent}")),
            title: None,
            status,
            last_activity_ms: None,
            current_tool: None,
            resumable,
        }
    }

    fn view() -> View {
        View::new(vec![
            row("a", "claude", AgentStatus::Working, false),
            row("b", "codex", AgentStatus::Ended, true),
            row("c", "gemini", AgentStatus::Historical, false),
        ])
    }

    #[test]
    fn enter_goes_to_a_live_session_and_resumes_an_ended_one() {
        let mut v = view();
        assert!(matches!(v.step(PickKey::Enter), Action::Focus(r) if r.key == "a"));
        v.step(PickKey::Down);
        assert!(matches!(v.step(PickKey::Enter), Action::Resume(r) if r.key == "b"));
        v.step(PickKey::Down);
        assert_eq!(v.step(PickKey::Enter), Action::Stay);
        let notice = v.notice().expect("says why");
        assert!(notice.error && notice.text.contains("gemini"), "{notice:?}");
        v.step(PickKey::Down);
        assert_eq!(v.selected_index(), 2, "the last row stops the selection");
        assert!(v.notice().is_none(), "a key clears the notice");
    }

    #[test]
    fn typing_searches_and_esc_clears_the_search_before_leaving() {
        let mut v = view();
        v.step(PickKey::Down);
        for c in "CODEX".chars() {
            v.step(PickKey::Char(c));
        }
        assert_eq!(v.visible().len(), 1);
        assert_eq!(v.selected().map(|r| r.key.as_str()), Some("b"));
        assert!(matches!(v.step(PickKey::Close), Action::Close(r) if r.key == "b"));
        for c in "zz".chars() {
            v.step(PickKey::Char(c));
        }
        assert!(v.visible().is_empty());
        assert_eq!(v.step(PickKey::Enter), Action::Stay);
        assert_eq!(v.step(PickKey::Close), Action::Stay);
        v.step(PickKey::Backspace);
        v.step(PickKey::Char('\u{7}'));
        assert_eq!(v.query(), "CODEXz");
        assert_eq!(v.step(PickKey::Esc), Action::Stay);
        assert_eq!(v.visible().len(), 3);
        assert_eq!(v.step(PickKey::Esc), Action::Quit);
        assert_eq!(view().step(PickKey::Quit), Action::Quit);
    }

    #[test]
    fn a_refresh_keeps_the_selected_session_or_clamps() {
        let mut v = view();
        v.step(PickKey::Down);
        v.step(PickKey::Down);
        v.refresh(vec![
            row("new", "opencode", AgentStatus::Idle, false),
            row("a", "claude", AgentStatus::Idle, false),
            row("c", "gemini", AgentStatus::Historical, false),
        ]);
        assert_eq!(v.selected().map(|r| r.key.as_str()), Some("c"));
        v.refresh(vec![row("a", "claude", AgentStatus::Idle, false)]);
        assert_eq!(v.selected().map(|r| r.key.as_str()), Some("a"));
        v.refresh(Vec::new());
        assert!(v.selected().is_none());
        assert_eq!(v.step(PickKey::Down), Action::Stay);
    }
}
