//! Small host facts for the status line and `/sessions`: whether this agent
//! pane is visible and the target pane's cwd, and the sessions table text
//! (formatting is pure).

use wta_host::{HostError, TerminalHost};
use wta_protocol::helper_master::{SESSIONS_TABLE_HEADER, SessionsListResponse};
use wta_protocol::{PaneId, WindowId};

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

/// Runs one probe (blocking host calls: run it off the UI task).
pub fn probe(
    host: &dyn TerminalHost,
    target: &PaneId,
    own: Option<&PaneId>,
    owner: Option<&WindowId>,
) -> Probe {
    let visible = own.is_none_or(|own| match host.visible(own) {
        Ok(visible) => visible,
        Err(err) => {
            tracing::debug!("visibility probe failed: {err}");
            true
        }
    });
    // The target is gone (or tmux is): keep refreshing, show no cwd.
    let cwd = host
        .pane(target)
        .ok()
        .map(|p| p.cwd.to_string_lossy().into_owned());
    let owner_gone = owner.is_some_and(|tab| host.window_exists(tab).is_ok_and(|exists| !exists));
    Probe {
        cwd,
        visible,
        owner_gone,
    }
}

/// Copies `text` to the clipboard through the host (tmux: `set-buffer -w`, OSC 52).
pub fn copy_to_clipboard(host: &dyn TerminalHost, text: &str) -> Result<(), HostError> {
    host.copy_to_clipboard(text)
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
    fn probe_reads_visibility_and_cwd_from_the_host() {
        let host = wta_host::FakeHost::new();
        let target = PaneId::from_number(0);
        let tab = WindowId::from_number(0);
        let seen = probe(&host, &target, Some(&target), Some(&tab));
        assert_eq!(seen.cwd.as_deref(), Some("/home/user"));
        assert!(seen.visible && !seen.owner_gone);
        let gone = probe(
            &host,
            &PaneId::from_number(9),
            Some(&PaneId::from_number(8)),
            Some(&WindowId::from_number(7)),
        );
        assert_eq!(gone.cwd, None);
        assert!(gone.visible, "unknown counts as visible");
        assert!(gone.owner_gone, "the tab @7 does not exist");
    }

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
