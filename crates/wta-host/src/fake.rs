//! An in-memory [`TerminalHost`] (and, in `fake_async.rs`, [`crate::AsyncHost`])
//! for unit tests of code above the host.
//!
//! It models sessions, windows and panes closely enough for callers to test
//! their decisions (which pane, which split, what text was sent) without tmux.
//! Every mutating call is recorded in [`FakeHost::log`]; pane options, open
//! pipes (the sink argv, so a test can connect where tmux would write) and
//! typed text are kept for tests to read.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use wta_protocol::{PaneId, TmuxSessionId, WindowId};

use crate::{
    HostError, Integration, NewTab, PaneCommand, PaneInfo, PaneSize, PaneState, PaneStatus, Popup,
    ServerInfo, SessionInfo, Split, StashRecord, StashSide, TerminalHost, WindowInfo,
};

#[derive(Debug, Default)]
pub(crate) struct World {
    next: u32,
    pub(crate) panes: Vec<PaneInfo>,
    pub(crate) screens: Vec<(PaneId, String)>,
    pub(crate) stashed: Vec<StashRecord>,
    /// Panes a popup shows now ([`FakeHost::hold_popup`]).
    pub(crate) popups: Vec<PaneId>,
    pub(crate) log: Vec<String>,
    pub(crate) options: HashMap<(PaneId, String), String>,
    tab_options: HashMap<(WindowId, String), String>,
    /// The sink argv of each open pipe.
    pub(crate) pipes: HashMap<PaneId, Vec<String>>,
    /// Text typed into each pane, in order.
    pub(crate) typed: Vec<(PaneId, String)>,
    pub(crate) clipboard: Option<String>,
}

/// A fake terminal: one session `$0` with window `@0` and pane `%0` to start.
#[derive(Debug)]
pub struct FakeHost {
    world: Mutex<World>,
    caller: Option<PaneId>,
}

impl Default for FakeHost {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeHost {
    /// A fake with one pane `%0` in window `@0` of session `$0`; the caller is `%0`.
    pub fn new() -> Self {
        let host = Self {
            world: Mutex::new(World::default()),
            caller: Some(pane_id(0)),
        };
        host.with(|w| {
            let pane = make_pane(w, 0, 0, "/home/user", "bash");
            w.panes.push(pane);
        });
        host
    }

    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut World) -> T) -> T {
        let mut guard = match self.world.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut guard)
    }

    /// Sets what [`TerminalHost::capture`] returns for `pane`.
    pub fn set_screen(&self, pane: &PaneId, text: &str) {
        self.with(|w| {
            w.screens.retain(|(p, _)| p != pane);
            w.screens.push((pane.clone(), text.to_owned()));
        });
    }

    /// Marks `pane` dead with `status`.
    pub fn exit_pane(&self, pane: &PaneId, status: i32) {
        self.with(|w| {
            if let Some(p) = w.panes.iter_mut().find(|p| &p.id == pane) {
                p.dead = true;
                p.dead_status = Some(status);
            }
        });
    }

    /// Every mutating call so far, e.g. `send %0 "ls" enter`.
    pub fn log(&self) -> Vec<String> {
        self.with(|w| w.log.clone())
    }

    /// The sink argv of `pane`'s open pipe (its last word is where the sink
    /// would connect), if one is open.
    pub fn pipe(&self, pane: &PaneId) -> Option<Vec<String>> {
        self.with(|w| w.pipes.get(pane).cloned())
    }

    /// Every text typed into `pane` so far, in order.
    pub fn typed(&self, pane: &PaneId) -> Vec<String> {
        self.with(|w| {
            w.typed
                .iter()
                .filter(|(p, _)| p == pane)
                .map(|(_, t)| t.clone())
                .collect()
        })
    }

    /// What the last [`TerminalHost::copy_to_clipboard`] put there.
    pub fn clipboard(&self) -> Option<String> {
        self.with(|w| w.clipboard.clone())
    }

    pub(crate) fn check_pane(&self, pane: &PaneId) -> Result<(), HostError> {
        if self.with(|w| w.panes.iter().any(|p| &p.id == pane)) {
            Ok(())
        } else {
            Err(HostError::PaneNotFound(pane.to_string()))
        }
    }
}

fn command_name(c: &PaneCommand) -> &str {
    match c {
        PaneCommand::Shell(line) => line.split_whitespace().next().unwrap_or("sh"),
        PaneCommand::Argv(argv) => argv.first().map(String::as_str).unwrap_or("?"),
    }
}

fn pane_id(n: u32) -> PaneId {
    PaneId::from_number(n)
}

fn make_pane(w: &mut World, window: u32, index: u32, cwd: &str, command: &str) -> PaneInfo {
    let n = w.next;
    w.next += 1;
    PaneInfo {
        id: pane_id(n),
        window: WindowId::from_number(window),
        session: TmuxSessionId::from_number(0),
        session_name: "main".into(),
        window_index: window,
        window_name: command.into(),
        index,
        active: index == 0,
        window_active: window == 0,
        size: PaneSize { cols: 80, rows: 24 },
        pid: 1000 + n,
        command: command.into(),
        title: String::new(),
        cwd: PathBuf::from(cwd),
        dead: false,
        dead_status: None,
        in_mode: false,
        alternate_screen: false,
        pipe_open: false,
        integration: Integration::from_option("", 0),
    }
}

impl TerminalHost for FakeHost {
    fn server_info(&self) -> Result<ServerInfo, HostError> {
        let caller = self.caller.as_ref().map(|c| self.pane(c)).transpose()?;
        Ok(ServerInfo {
            socket: PathBuf::from("/fake/tmux"),
            tmux_version: "fake".into(),
            pane: caller.as_ref().map(|p| p.id.clone()),
            window: caller.as_ref().map(|p| p.window.clone()),
            session: caller.as_ref().map(|p| p.session.clone()),
            session_name: caller.map(|p| p.session_name),
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>, HostError> {
        let windows = self.list_windows(None)?.len() as u32;
        Ok(vec![SessionInfo {
            id: TmuxSessionId::from_number(0),
            name: "main".into(),
            windows,
            attached: true,
        }])
    }

    fn list_windows(&self, _session: Option<&TmuxSessionId>) -> Result<Vec<WindowInfo>, HostError> {
        Ok(self.with(|w| {
            let mut out: Vec<WindowInfo> = Vec::new();
            for p in &w.panes {
                match out.iter_mut().find(|x| x.id == p.window) {
                    Some(win) => win.panes += 1,
                    None => out.push(WindowInfo {
                        id: p.window.clone(),
                        session: p.session.clone(),
                        index: p.window_index,
                        name: p.window_name.clone(),
                        active: p.window_active,
                        panes: 1,
                    }),
                }
            }
            out
        }))
    }

    fn list_panes(&self) -> Result<Vec<PaneInfo>, HostError> {
        Ok(self.with(|w| w.panes.clone()))
    }

    fn window_exists(&self, window: &WindowId) -> Result<bool, HostError> {
        Ok(self.with(|w| w.panes.iter().any(|p| &p.window == window)))
    }

    fn window_panes(&self, window: &WindowId) -> Result<Vec<PaneInfo>, HostError> {
        let panes: Vec<PaneInfo> = self.with(|w| {
            w.panes
                .iter()
                .filter(|p| &p.window == window)
                .cloned()
                .collect()
        });
        if panes.is_empty() {
            Err(HostError::WindowNotFound(window.to_string()))
        } else {
            Ok(panes)
        }
    }

    fn pane(&self, pane: &PaneId) -> Result<PaneInfo, HostError> {
        self.with(|w| w.panes.iter().find(|p| &p.id == pane).cloned())
            .ok_or_else(|| HostError::PaneNotFound(pane.to_string()))
    }

    fn caller_pane(&self) -> Option<PaneId> {
        self.caller.clone()
    }

    fn active_pane(&self) -> Result<PaneInfo, HostError> {
        match &self.caller {
            Some(c) => self.pane(c),
            None => Err(HostError::NoCallerPane),
        }
    }

    fn capture(&self, pane: &PaneId, lines: Option<u32>) -> Result<String, HostError> {
        self.pane(pane)?;
        let text = self
            .with(|w| {
                w.screens
                    .iter()
                    .find(|(p, _)| p == pane)
                    .map(|(_, t)| t.clone())
            })
            .unwrap_or_default();
        Ok(match lines {
            Some(n) => {
                let all: Vec<&str> = text.lines().collect();
                all[all.len().saturating_sub(n as usize)..].join("\n")
            }
            None => text,
        })
    }

    fn new_tab(&self, spec: &NewTab) -> Result<PaneInfo, HostError> {
        let cwd = spec
            .cwd
            .clone()
            .unwrap_or_else(|| PathBuf::from("/home/user"));
        let pane = self.with(|w| {
            let window = w.panes.iter().map(|p| p.window_index).max().unwrap_or(0) + 1;
            let mut pane = make_pane(
                w,
                window,
                0,
                &cwd.to_string_lossy(),
                spec.command.as_ref().map(command_name).unwrap_or("bash"),
            );
            if let Some(title) = &spec.title {
                pane.window_name = title.clone();
            }
            w.log.push(format!(
                "new-tab {} {:?} {:?}",
                pane.id, spec.command, spec.cwd
            ));
            w.panes.push(pane.clone());
            pane
        });
        Ok(pane)
    }

    fn split(&self, spec: &Split) -> Result<PaneInfo, HostError> {
        let target = self.pane(&spec.target)?;
        let cwd = spec.cwd.clone().unwrap_or(target.cwd.clone());
        Ok(self.with(|w| {
            let index = w.panes.iter().filter(|p| p.window == target.window).count() as u32;
            let mut pane = make_pane(
                w,
                target.window_index,
                index,
                &cwd.to_string_lossy(),
                spec.command.as_ref().map(command_name).unwrap_or("bash"),
            );
            pane.window = target.window.clone();
            w.log.push(format!(
                "split {} {:?} -> {} {:?}",
                spec.target, spec.direction, pane.id, spec.command
            ));
            w.panes.push(pane.clone());
            pane
        }))
    }

    fn kill_pane(&self, pane: &PaneId) -> Result<(), HostError> {
        self.pane(pane)?;
        self.with(|w| {
            w.panes.retain(|p| &p.id != pane);
            w.pipes.remove(pane);
            w.log.push(format!("kill {pane}"));
        });
        Ok(())
    }

    fn pane_status(&self, pane: &PaneId) -> Result<PaneStatus, HostError> {
        let p = self.pane(pane)?;
        Ok(PaneStatus {
            pane: p.id,
            state: if p.dead {
                PaneState::Dead
            } else {
                PaneState::Running
            },
            exit_status: p.dead_status,
            exit_signal: None,
            command: (!p.dead).then_some(p.command),
            pid: (!p.dead).then_some(p.pid),
        })
    }

    fn visible(&self, pane: &PaneId) -> Result<bool, HostError> {
        Ok(self.pane(pane)?.window_active || self.popup_shown(pane))
    }

    fn focus(&self, pane: &PaneId) -> Result<(), HostError> {
        self.pane(pane)?;
        self.with(|w| w.log.push(format!("focus {pane}")));
        Ok(())
    }

    fn set_title(&self, pane: &PaneId, title: &str) -> Result<(), HostError> {
        self.check_pane(pane)?;
        self.with(|w| {
            if let Some(p) = w.panes.iter_mut().find(|p| &p.id == pane) {
                p.title = title.to_owned();
            }
            w.log.push(format!("title {pane} {title:?}"));
        });
        Ok(())
    }

    fn stash(&self, pane: &PaneId, neighbour: &PaneId) -> Result<StashRecord, HostError> {
        let info = self.pane(pane)?;
        let record = StashRecord {
            pane: pane.clone(),
            window: info.window,
            neighbour: neighbour.clone(),
            side: StashSide::Right,
            size: info.size.cols,
        };
        self.with(|w| {
            if let Some(p) = w.panes.iter_mut().find(|p| &p.id == pane) {
                p.window = WindowId::from_number(u32::MAX);
                // Out of sight: no client shows the stash.
                p.window_active = false;
            }
            w.stashed.push(record.clone());
            w.log.push(format!("stash {pane}"));
        });
        Ok(record)
    }

    fn restore(&self, pane: &PaneId) -> Result<StashRecord, HostError> {
        self.with(|w| {
            let at = w.stashed.iter().position(|r| &r.pane == pane)?;
            let record = w.stashed.remove(at);
            let shown = w
                .panes
                .iter()
                .find(|p| p.window == record.window)
                .is_none_or(|p| p.window_active);
            if let Some(p) = w.panes.iter_mut().find(|p| &p.id == pane) {
                p.window = record.window.clone();
                p.window_active = shown;
            }
            w.log.push(format!("restore {pane}"));
            Some(record)
        })
        .ok_or_else(|| HostError::InvalidArgument(format!("pane {pane} is not stashed")))
    }

    fn show_popup(&self, pane: &PaneId, popup: &Popup) -> Result<(), HostError> {
        self.popup_show(pane, popup)
    }

    fn close_popup(&self, pane: &PaneId) -> Result<bool, HostError> {
        self.popup_close(pane)
    }

    fn in_popup(&self, pane: &PaneId) -> Result<bool, HostError> {
        self.check_pane(pane)?;
        Ok(self.popup_shown(pane))
    }

    fn send_text(&self, pane: &PaneId, text: &str, enter: bool) -> Result<(), HostError> {
        self.pane(pane)?;
        crate::check_typed_text(text)?;
        self.with(|w| {
            w.typed.push((pane.clone(), text.to_owned()));
            w.log.push(format!(
                "send {pane} {text:?}{}",
                if enter { " enter" } else { "" }
            ))
        });
        Ok(())
    }

    fn option(&self, pane: &PaneId, name: &str) -> Result<String, HostError> {
        self.check_pane(pane)?;
        Ok(self.with(|w| {
            w.options
                .get(&(pane.clone(), name.to_owned()))
                .cloned()
                .unwrap_or_default()
        }))
    }

    fn set_options(&self, pane: &PaneId, options: &[(&str, &str)]) -> Result<(), HostError> {
        self.check_pane(pane)?;
        self.with(|w| {
            for (name, value) in options {
                w.options
                    .insert((pane.clone(), (*name).to_owned()), (*value).to_owned());
            }
        });
        Ok(())
    }

    fn keep_when_dead(&self, pane: &PaneId, keep: bool) -> Result<(), HostError> {
        self.check_pane(pane)?;
        self.with(|w| w.log.push(format!("keep-when-dead {pane} {keep}")));
        Ok(())
    }

    fn tab_option(&self, window: &WindowId, name: &str) -> Result<String, HostError> {
        Ok(self.with(|w| {
            w.tab_options
                .get(&(window.clone(), name.to_owned()))
                .cloned()
                .unwrap_or_default()
        }))
    }

    fn set_tab_option(
        &self,
        window: &WindowId,
        name: &str,
        value: Option<&str>,
    ) -> Result<(), HostError> {
        self.with(|w| {
            let key = (window.clone(), name.to_owned());
            match value {
                Some(v) => w.tab_options.insert(key, v.to_owned()),
                None => w.tab_options.remove(&key),
            }
        });
        Ok(())
    }

    fn unset_option(&self, pane: &PaneId, name: &str) -> Result<(), HostError> {
        self.check_pane(pane)?;
        self.with(|w| w.options.remove(&(pane.clone(), name.to_owned())));
        Ok(())
    }

    fn options_of_all_panes(&self, name: &str) -> Result<Vec<(PaneId, String)>, HostError> {
        Ok(self.with(|w| {
            w.panes
                .iter()
                .map(|p| {
                    let value = w.options.get(&(p.id.clone(), name.to_owned()));
                    (p.id.clone(), value.cloned().unwrap_or_default())
                })
                .collect()
        }))
    }

    fn close_pipe(&self, pane: &PaneId, owner_option: &str) -> Result<(), HostError> {
        self.check_pane(pane)?;
        self.with(|w| w.close_pipe(pane, owner_option));
        Ok(())
    }

    fn signal(&self, channel: &str) -> Result<(), HostError> {
        self.with(|w| w.log.push(format!("signal {channel}")));
        Ok(())
    }

    fn copy_to_clipboard(&self, text: &str) -> Result<(), HostError> {
        self.with(|w| w.clipboard = Some(text.to_owned()));
        Ok(())
    }
}

impl World {
    pub(crate) fn close_pipe(&mut self, pane: &PaneId, owner_option: &str) {
        self.pipes.remove(pane);
        self.options
            .remove(&(pane.clone(), owner_option.to_owned()));
        if let Some(p) = self.panes.iter_mut().find(|p| &p.id == pane) {
            p.pipe_open = false;
        }
        self.log.push(format!("close-pipe {pane}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitDirection;

    #[test]
    fn models_tabs_splits_and_sends() {
        let host = FakeHost::new();
        let first = host.active_pane().unwrap();
        let split = host
            .split(&Split {
                target: first.id.clone(),
                direction: SplitDirection::Right,
                percent: Some(30),
                command: None,
                cwd: None,
                env: vec![],
                full: false,
                focus: false,
            })
            .unwrap();
        assert_eq!(split.window, first.window);
        let tab = host
            .new_tab(&NewTab {
                after: None,
                title: Some("build".into()),
                ..NewTab::default()
            })
            .unwrap();
        assert_ne!(tab.window, first.window);
        host.send_text(&split.id, "ls", true).unwrap();
        assert_eq!(host.window_panes(&first.window).unwrap().len(), 2);
        host.exit_pane(&tab.id, 7);
        assert_eq!(host.pane_status(&tab.id).unwrap().exit_status, Some(7));
        host.kill_pane(&tab.id).unwrap();
        assert!(
            matches!(host.pane(&tab.id), Err(HostError::PaneNotFound(p)) if p == tab.id.as_str())
        );
        assert!(host.log().iter().any(|l| l == "send %1 \"ls\" enter"));
    }
}
