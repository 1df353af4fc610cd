//! Small host facts for the status line and `/sessions`: one tmux call that
//! reads whether this agent pane is visible and the target pane's cwd, and
//! the sessions table text. Parsing and formatting are pure.

use wta_agent::wire::{SESSIONS_TABLE_HEADER, SessionsListResponse};
use wta_host::tmux::Cmd;
use wta_host::{HostError, TmuxHost};
use wta_protocol::PaneId;

/// What one status probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The target pane's current directory; `None` when it is gone.
    pub cwd: Option<String>,
    /// This agent pane is in an attached session's active window. Unknown
    /// counts as visible, so refreshing never stops by mistake.
    pub visible: bool,
}

/// The tmux command line of a probe: own visibility first (it cannot fail
/// while we run), then the target's cwd (fails when the target is gone).
pub fn probe_command(target: &PaneId, own: Option<&PaneId>) -> Cmd {
    let cwd = |cmd: Cmd| {
        cmd.args(["-p", "-t"])
            .arg(target.as_str())
            .arg("#{pane_current_path}")
    };
    match own {
        Some(own) => cwd(Cmd::new("display")
            .args(["-p", "-t"])
            .arg(own.as_str())
            .arg("wta-visible #{session_attached} #{window_active}")
            .then("display")),
        None => cwd(Cmd::new("display")),
    }
}

/// Parses a probe's output (see [`probe_command`]).
pub fn parse_probe(output: &str) -> Probe {
    let mut visible = true;
    let mut cwd = None;
    for line in output.lines() {
        if let Some(rest) = line.strip_prefix("wta-visible ") {
            let mut fields = rest.split_whitespace();
            let attached = fields.next().and_then(|n| n.parse::<u32>().ok());
            let active = fields.next();
            visible = attached.is_none_or(|n| n > 0) && active != Some("0");
        } else if !line.is_empty() {
            cwd = Some(line.to_owned());
        }
    }
    Probe { cwd, visible }
}

/// Runs one probe (a blocking tmux call: run it off the UI task).
pub fn probe(host: &TmuxHost, target: &PaneId, own: Option<&PaneId>) -> Probe {
    match host.run(&probe_command(target, own)) {
        Ok(out) => parse_probe(&out),
        Err(err) => {
            tracing::debug!("status probe failed: {err}");
            // The target is gone (or tmux is): keep refreshing, show no cwd.
            Probe {
                cwd: None,
                visible: true,
            }
        }
    }
}

/// Copies `text` to the clipboard through tmux (`set-buffer -w`, OSC 52).
pub fn copy_to_clipboard(host: &TmuxHost, text: &str) -> Result<(), HostError> {
    host.run(&Cmd::new("set-buffer").arg("-w").arg("--").arg(text))
        .map(|_| ())
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
    fn probe_reads_visibility_and_cwd() {
        assert_eq!(
            parse_probe("wta-visible 1 1\n/home/u/src\n"),
            Probe {
                cwd: Some("/home/u/src".into()),
                visible: true
            }
        );
        assert!(!parse_probe("wta-visible 0 1\n/x\n").visible, "unattached");
        assert!(
            !parse_probe("wta-visible 2 0\n/x\n").visible,
            "inactive window"
        );
        assert_eq!(
            parse_probe("/only/cwd\n"),
            Probe {
                cwd: Some("/only/cwd".into()),
                visible: true
            }
        );
    }

    #[test]
    fn sessions_table_aligns_the_shared_columns_and_marks_this_pane() {
        use wta_agent::wire::{SessionState, WtaSessionInfo};
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

    #[test]
    fn probe_command_targets_both_panes() {
        let target = PaneId::parse("%3").unwrap();
        let own = PaneId::parse("%7").unwrap();
        let argv = probe_command(&target, Some(&own)).args_slice().join(" ");
        assert!(argv.starts_with("display -p -t %7"), "{argv}");
        assert!(
            argv.ends_with("; display -p -t %3 #{pane_current_path}"),
            "{argv}"
        );
    }
}
