//! The status probe's answer and the `/sessions` table text: pure facts
//! for the machine (the probe itself is I/O: `crate::runtime::status`).

use wta_protocol::helper_master::{SESSIONS_TABLE_HEADER, SessionsListResponse};

/// What one status probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The target pane's current directory; `None` when it is gone.
    pub cwd: Option<String>,
    /// This agent pane is in an attached session's active window. Unknown
    /// counts as visible, so refreshing never stops by mistake.
    pub visible: bool,
    /// The tab this pane belongs to is gone (closed while the pane was
    /// stashed, say). Only a definite answer counts: a failed check is not gone.
    pub owner_gone: bool,
}

/// `wta sessions list` as text for the transcript: the same columns
/// ([`SESSIONS_TABLE_HEADER`]), each padded to its widest cell, and this
/// helper's own row marked.
pub fn sessions_table(list: &SessionsListResponse, own_pid: u32) -> String {
    if list.sessions.is_empty() {
        return "No live sessions in this master.".to_owned();
    }
    let header = SESSIONS_TABLE_HEADER.map(str::to_owned);
    let rows: Vec<[String; 8]> = list.sessions.iter().map(|s| s.table_cells()).collect();
    let mut widths = [0; 8];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |row: &[String; 8]| {
        let padded: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut text = format!(
        "Live sessions ({}):\n{}",
        list.sessions.len(),
        line(&header)
    );
    for (s, row) in list.sessions.iter().zip(&rows) {
        text.push('\n');
        text.push_str(&line(row));
        if s.helper_pid.is_some_and(|p| p as u32 == own_pid) {
            text.push_str(" (this pane)");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_table_aligns_the_shared_columns_and_marks_this_pane() {
        use wta_protocol::helper_master::{SessionState, WtaSessionInfo};
        let row = |session: &str, pid| WtaSessionInfo {
            session_id: session.into(),
            agent_id: "custom:test".into(),
            helper: 1,
            helper_pid: Some(pid),
            owner_tab: None,
            target_pane: None,
            state: SessionState::Active,
            yolo: None,
        };
        let list = SessionsListResponse {
            sessions: vec![row("short", 10), row("a-longer-session", 20)],
        };
        let text = sessions_table(&list, 20);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Live sessions (2):");
        assert!(
            lines[1].starts_with("AGENT        SESSION           HELPER"),
            "{text}"
        );
        assert!(
            lines[2].starts_with("custom:test  short             1"),
            "{text}"
        );
        assert!(!lines[2].ends_with("(this pane)"), "{text}");
        assert!(lines[3].ends_with("active (this pane)"), "{text}");
        assert_eq!(
            sessions_table(&SessionsListResponse::default(), 20),
            "No live sessions in this master."
        );
    }
}
