//! Host-neutral model of terminal objects. `wta … --json` prints
//! [`PaneStatus`] and [`Integration`] as they are (their field names are
//! part of the CLI's JSON vocabulary, `crates/wta/src/json`: never rename
//! them), the others through that vocabulary's views (`tab` for a window
//! id, …), which name every field: a field added here is named there too.

use std::path::PathBuf;

use serde::Serialize;
use wta_protocol::{PaneId, TmuxSessionId, WindowId};

/// A terminal window (a tmux session).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    pub id: TmuxSessionId,
    pub name: String,
    pub windows: u32,
    pub attached: bool,
}

/// A tab (a tmux window).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WindowInfo {
    pub id: WindowId,
    pub session: TmuxSessionId,
    pub index: u32,
    pub name: String,
    pub active: bool,
    pub panes: u32,
}

/// Columns × rows of a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PaneSize {
    pub cols: u16,
    pub rows: u16,
}

/// WTA shell integration of a pane: what its shell announced (the
/// `@wta_integration` pane option, `"<shell> <pid>"`) and what a watcher
/// observed (the `@wta_integration_state` pane option, `present`/`absent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Integration {
    /// `present` when the announcement names the pane's shell (its own process,
    /// or a direct child of it: a gated pane's wrapper runs the shell as a child)
    /// or a watcher saw its marks; `absent` when a watcher saw a command or the
    /// first prompt without marks; `stale` when the announcement names another
    /// process (e.g. a nested shell that has exited); `unknown` otherwise.
    pub state: &'static str,
    pub shell: Option<String>,
    pub pid: Option<u32>,
}

impl Integration {
    /// Reads the raw `@wta_integration` value against the pane's pid (no watcher verdict).
    pub fn from_option(raw: &str, pane_pid: u32) -> Self {
        Self::from_pane(raw, "", pane_pid, None)
    }

    /// Combines the announcement `raw`, a watcher's verdict `observed`
    /// (`@wta_integration_state`), the pane's pid and the parent pid of the
    /// announcing process (when known). A valid announcement is `present`; a
    /// watcher's `absent` wins over `unknown` and `stale`.
    pub fn from_pane(
        raw: &str,
        observed: &str,
        pane_pid: u32,
        announcer_parent: Option<u32>,
    ) -> Self {
        let mut parts = raw.split_whitespace();
        let shell = parts.next().map(str::to_owned);
        let pid = parts.next().and_then(|p| p.parse::<u32>().ok());
        let announced = match (&shell, pid) {
            (Some(_), Some(p)) if p == pane_pid || announcer_parent == Some(pane_pid) => "present",
            (Some(_), Some(_)) => "stale",
            _ => "unknown",
        };
        let state = match (announced, observed.trim()) {
            ("present", _) => "present",
            (_, "absent") => "absent",
            (_, "present") => "present",
            (other, _) => other,
        };
        match (shell, pid) {
            (Some(shell), Some(pid)) => Self {
                state,
                shell: Some(shell),
                pid: Some(pid),
            },
            _ => Self {
                state,
                shell: None,
                pid: None,
            },
        }
    }

    /// The pid an announcement names when it is not `pane_pid` itself: the one
    /// whose parent must be looked up to judge it.
    pub fn announcer_to_check(raw: &str, pane_pid: u32) -> Option<u32> {
        raw.split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok())
            .filter(|p| *p != pane_pid && *p != 0)
    }
}

/// One pane with everything a caller usually needs in one round trip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PaneInfo {
    pub id: PaneId,
    pub window: WindowId,
    pub session: TmuxSessionId,
    pub session_name: String,
    pub window_index: u32,
    pub window_name: String,
    pub index: u32,
    pub active: bool,
    pub window_active: bool,
    pub size: PaneSize,
    pub pid: u32,
    pub command: String,
    pub title: String,
    /// The foreground process's own cwd (`pane_current_path`), never the
    /// OSC 7 path (`pane_path`), which any output in the pane can set.
    pub cwd: PathBuf,
    pub dead: bool,
    pub dead_status: Option<i32>,
    pub in_mode: bool,
    pub alternate_screen: bool,
    pub pipe_open: bool,
    pub integration: Integration,
}

impl PaneStatus {
    /// True unless tmux has seen the pty close but not yet the exit status.
    pub fn is_settled(&self) -> bool {
        self.state != PaneState::Dead || self.exit_status.is_some() || self.exit_signal.is_some()
    }
}

/// Running or dead, with the exit status when tmux kept it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneState {
    Running,
    Dead,
    /// The pane no longer exists (it exited without `remain-on-exit`, or was killed).
    Gone,
}

/// `pane-status` / `wait-for` answer.
///
/// tmux marks a pane dead when its pty closes, a moment before it has reaped
/// the exit status: a dead pane with neither status nor signal is still being
/// reaped ([`PaneStatus::is_settled`] is false).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PaneStatus {
    pub pane: PaneId,
    pub state: PaneState,
    pub exit_status: Option<i32>,
    /// The signal that ended the program, when it did not exit by itself.
    pub exit_signal: Option<i32>,
    pub command: Option<String>,
    pub pid: Option<u32>,
}

/// The server a host talks to and where the caller sits in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerInfo {
    pub socket: PathBuf,
    pub tmux_version: String,
    pub pane: Option<PaneId>,
    pub window: Option<WindowId>,
    pub session: Option<TmuxSessionId>,
    pub session_name: Option<String>,
}

/// Which way a split goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitDirection {
    /// Side by side: the new pane to the right.
    Right,
    /// Side by side: the new pane to the left.
    Left,
    /// Stacked: the new pane below.
    Down,
    /// Stacked: the new pane above.
    Up,
}

/// What a new pane runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaneCommand {
    /// A command line for `/bin/sh -c`, started behind a readiness gate; the
    /// pane stays (dead) after it exits so its exit status can be read.
    Shell(String),
    /// A program and its arguments, executed directly (no shell, no gate).
    Argv(Vec<String>),
}

/// A new tab request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewTab {
    /// Session to open the tab in; `None` = the caller's session.
    pub session: Option<TmuxSessionId>,
    /// Open it right after this pane's tab (when no `session` is named);
    /// `None`: after the caller's. An agent pane names the shell it works
    /// on, since its own window may be the hidden stash.
    pub after: Option<PaneId>,
    /// `None` = the user's default shell.
    pub command: Option<PaneCommand>,
    pub cwd: Option<PathBuf>,
    pub title: Option<String>,
    /// Environment for the new pane's process.
    pub env: Vec<(String, String)>,
    /// Make the new tab current.
    pub focus: bool,
}

/// A split request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub target: PaneId,
    pub direction: SplitDirection,
    /// Size of the new pane in percent of the split pane (1–99).
    pub percent: Option<u8>,
    /// `None` = the user's default shell.
    pub command: Option<PaneCommand>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// Use the full height/width of the window instead of splitting only the target.
    pub full: bool,
    pub focus: bool,
}

/// Where a stashed side pane came from, to put it back the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StashRecord {
    pub pane: PaneId,
    /// The window (tab) the pane was stashed from.
    pub window: WindowId,
    /// The pane it sat beside (joined back next to it when it still exists).
    pub neighbour: PaneId,
    pub side: StashSide,
    /// Columns (left/right) or rows (top/bottom).
    pub size: u16,
}

/// Which edge of the window a stashed pane sat on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StashSide {
    Left,
    Right,
    Top,
    Bottom,
}

impl StashSide {
    /// Left/right (a column) rather than top/bottom (a row).
    pub fn is_horizontal(self) -> bool {
        matches!(self, Self::Left | Self::Right)
    }

    fn name(self) -> &'static str {
        match self {
            Self::Left => "left",
            Self::Right => "right",
            Self::Top => "top",
            Self::Bottom => "bottom",
        }
    }
}

impl StashRecord {
    /// `"@W %N side size"`, the `@wta_stash` pane option value.
    pub fn encode(&self) -> String {
        format!(
            "{} {} {} {}",
            self.window,
            self.neighbour,
            self.side.name(),
            self.size
        )
    }

    /// Parses [`StashRecord::encode`]'s form; `None` for anything else.
    pub fn decode(pane: &PaneId, raw: &str) -> Option<Self> {
        let mut f = raw.split_whitespace();
        let window = WindowId::parse(f.next()?).ok()?;
        let neighbour = PaneId::parse(f.next()?).ok()?;
        let side = match f.next()? {
            "left" => StashSide::Left,
            "right" => StashSide::Right,
            "top" => StashSide::Top,
            "bottom" => StashSide::Bottom,
            _ => return None,
        };
        let size = f.next()?.parse().ok()?;
        f.next().is_none().then(|| Self {
            pane: pane.clone(),
            window,
            neighbour,
            side,
            size,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stash_record_round_trips_and_rejects_garbage() {
        let pane = PaneId::from_number(6);
        let r = StashRecord {
            pane: pane.clone(),
            window: WindowId::from_number(4),
            neighbour: PaneId::from_number(5),
            side: StashSide::Right,
            size: 48,
        };
        assert_eq!(r.encode(), "@4 %5 right 48");
        assert_eq!(StashRecord::decode(&pane, &r.encode()), Some(r));
        for bad in [
            "",
            "@4 %5 right",
            "@4 %5 sideways 3",
            "@4 %5 right 48 extra",
            "%4 %5 right 4",
        ] {
            assert_eq!(StashRecord::decode(&pane, bad), None, "{bad}");
        }
    }

    #[test]
    fn integration_states() {
        assert_eq!(Integration::from_option("bash 42", 42).state, "present");
        let stale = Integration::from_option("zsh 7", 42);
        assert_eq!(
            (stale.state, stale.shell.as_deref(), stale.pid),
            ("stale", Some("zsh"), Some(7))
        );
        assert_eq!(
            Integration::from_option("", 42),
            Integration {
                state: "unknown",
                shell: None,
                pid: None
            }
        );
        assert_eq!(
            Integration::from_option("bash notapid", 42).state,
            "unknown"
        );
    }

    #[test]
    fn watcher_verdicts_and_wrapped_shells() {
        // A gated pane: the wrapper is pane_pid 42, the shell (50) its child.
        assert_eq!(
            Integration::from_pane("bash 50", "", 42, Some(42)).state,
            "present"
        );
        assert_eq!(
            Integration::from_pane("bash 50", "", 42, Some(1)).state,
            "stale"
        );
        // absent wins over unknown and stale; a valid announcement is present.
        assert_eq!(
            Integration::from_pane("", "absent", 42, None).state,
            "absent"
        );
        let stale_absent = Integration::from_pane("zsh 7", "absent", 42, None);
        assert_eq!(
            (stale_absent.state, stale_absent.shell.as_deref()),
            ("absent", Some("zsh"))
        );
        assert_eq!(
            Integration::from_pane("bash 42", "absent", 42, None).state,
            "present"
        );
        assert_eq!(
            Integration::from_pane("", "present", 42, None).state,
            "present"
        );
        assert_eq!(
            Integration::from_pane("", "junk", 42, None).state,
            "unknown"
        );
        assert_eq!(Integration::announcer_to_check("bash 42", 42), None);
        assert_eq!(Integration::announcer_to_check("bash 50", 42), Some(50));
        assert_eq!(Integration::announcer_to_check("", 42), None);
    }
}
