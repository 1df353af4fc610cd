//! The JSON of terminal things: sessions, tabs and panes as the listing
//! commands, `info`, `new-tab`/`split-pane` and `up` print them. Each view
//! takes all of its host type (no `..`): a field added there must be named
//! here too, in this vocabulary.

use std::path::Path;

use serde::Serialize;
use wta_host::{Integration, PaneInfo, PaneSize, ServerInfo, SessionInfo, WindowInfo};
use wta_protocol::{PaneId, TmuxSessionId, WindowId};

/// `list-windows`: the tmux sessions (a terminal window each).
#[derive(Debug, Serialize)]
pub struct Sessions<'a> {
    pub sessions: Vec<SessionRow<'a>>,
}

#[derive(Debug, Serialize)]
pub struct SessionRow<'a> {
    pub session: &'a TmuxSessionId,
    pub session_name: &'a str,
    /// How many tabs (the TABS column).
    pub tabs: u32,
    pub attached: bool,
}

impl<'a> Sessions<'a> {
    pub fn new(sessions: &'a [SessionInfo]) -> Self {
        let row = |s: &'a SessionInfo| {
            let SessionInfo {
                id,
                name,
                windows,
                attached,
            } = s;
            SessionRow {
                session: id,
                session_name: name,
                tabs: *windows,
                attached: *attached,
            }
        };
        Self {
            sessions: sessions.iter().map(row).collect(),
        }
    }
}

/// `list-tabs`.
#[derive(Debug, Serialize)]
pub struct Tabs<'a> {
    pub tabs: Vec<TabRow<'a>>,
}

#[derive(Debug, Serialize)]
pub struct TabRow<'a> {
    pub tab: &'a WindowId,
    pub session: &'a TmuxSessionId,
    pub tab_index: u32,
    pub tab_name: &'a str,
    pub tab_active: bool,
    pub panes: u32,
}

impl<'a> Tabs<'a> {
    pub fn new(tabs: &'a [WindowInfo]) -> Self {
        let row = |w: &'a WindowInfo| {
            let WindowInfo {
                id,
                session,
                index,
                name,
                active,
                panes,
            } = w;
            TabRow {
                tab: id,
                session,
                tab_index: *index,
                tab_name: name,
                tab_active: *active,
                panes: *panes,
            }
        };
        Self {
            tabs: tabs.iter().map(row).collect(),
        }
    }
}

/// `list-panes`.
#[derive(Debug, Serialize)]
pub struct Panes<'a> {
    pub panes: Vec<PaneRow<'a>>,
}

impl<'a> Panes<'a> {
    pub fn new(panes: &'a [PaneInfo]) -> Self {
        Self {
            panes: panes.iter().map(PaneRow::new).collect(),
        }
    }
}

/// One pane (a row of `list-panes`, and all of `active-pane`).
#[derive(Debug, Serialize)]
pub struct PaneRow<'a> {
    pub pane: &'a PaneId,
    pub tab: &'a WindowId,
    pub session: &'a TmuxSessionId,
    pub session_name: &'a str,
    pub tab_index: u32,
    pub tab_name: &'a str,
    pub index: u32,
    pub active: bool,
    pub tab_active: bool,
    pub size: PaneSize,
    pub pid: u32,
    pub command: &'a str,
    pub title: &'a str,
    pub cwd: &'a Path,
    pub dead: bool,
    pub dead_status: Option<i32>,
    pub in_mode: bool,
    pub alternate_screen: bool,
    pub pipe_open: bool,
    pub integration: &'a Integration,
}

impl<'a> PaneRow<'a> {
    pub fn new(p: &'a PaneInfo) -> Self {
        let PaneInfo {
            id,
            window,
            session,
            session_name,
            window_index,
            window_name,
            index,
            active,
            window_active,
            size,
            pid,
            command,
            title,
            cwd,
            dead,
            dead_status,
            in_mode,
            alternate_screen,
            pipe_open,
            integration,
        } = p;
        Self {
            pane: id,
            tab: window,
            session,
            session_name,
            tab_index: *window_index,
            tab_name: window_name,
            index: *index,
            active: *active,
            tab_active: *window_active,
            size: *size,
            pid: *pid,
            command,
            title,
            cwd,
            dead: *dead,
            dead_status: *dead_status,
            in_mode: *in_mode,
            alternate_screen: *alternate_screen,
            pipe_open: *pipe_open,
            integration,
        }
    }
}

/// `info`: the server, and where the caller sits in it (all `null` outside tmux).
#[derive(Debug, Serialize)]
pub struct Server<'a> {
    pub socket: &'a Path,
    pub tmux_version: &'a str,
    pub pane: Option<&'a PaneId>,
    pub tab: Option<&'a WindowId>,
    pub session: Option<&'a TmuxSessionId>,
    pub session_name: Option<&'a str>,
}

impl<'a> Server<'a> {
    pub fn new(info: &'a ServerInfo) -> Self {
        let ServerInfo {
            socket,
            tmux_version,
            pane,
            window,
            session,
            session_name,
        } = info;
        Self {
            socket,
            tmux_version,
            pane: pane.as_ref(),
            tab: window.as_ref(),
            session: session.as_ref(),
            session_name: session_name.as_deref(),
        }
    }
}

/// `new-tab` and `split-pane`: where the new pane is.
#[derive(Debug, Serialize)]
pub struct Opened<'a> {
    pub pane: &'a PaneId,
    pub tab: &'a WindowId,
    pub session: &'a TmuxSessionId,
}

impl<'a> Opened<'a> {
    pub fn new(p: &'a PaneInfo) -> Self {
        Self {
            pane: &p.id,
            tab: &p.window,
            session: &p.session,
        }
    }
}

/// `up`: the session it made or reused, and its two panes.
#[derive(Debug, Serialize)]
pub struct Up<'a> {
    pub session: &'a TmuxSessionId,
    pub session_name: &'a str,
    pub tab: &'a WindowId,
    pub shell_pane: &'a PaneId,
    pub agent_pane: &'a PaneId,
    pub agent: &'a str,
    pub master_socket: String,
    pub tmux_socket: String,
    pub created: bool,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wta_host::{FakeHost, TerminalHost};

    use super::*;

    #[test]
    fn a_pane_names_its_tab_and_session_by_id_as_the_tables_do() {
        let host = FakeHost::new();
        let pane = host.active_pane().unwrap();
        let v = serde_json::to_value(PaneRow::new(&pane)).unwrap();
        assert_eq!(v["pane"], pane.id.as_str());
        assert_eq!(v["tab"], pane.window.as_str());
        assert_eq!(v["session"], pane.session.as_str());
        assert_eq!(v["tab_name"], pane.window_name.as_str());
        for old in [
            "id",
            "window",
            "window_name",
            "window_index",
            "window_active",
        ] {
            assert!(v.get(old).is_none(), "{old} in {v}");
        }
        let listed = host.list_sessions().unwrap();
        let v = serde_json::to_value(Sessions::new(&listed)).unwrap();
        let row = &v["sessions"][0];
        assert_eq!(row["session"], listed[0].id.as_str());
        assert_eq!(row["tabs"], listed[0].windows);
        assert!(row.get("windows").is_none(), "{row}");
    }
}
