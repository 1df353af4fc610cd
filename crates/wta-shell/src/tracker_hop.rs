//! Hops: a shell reached through `wta ssh`, followed in place of the pane's
//! own shell while the ssh session lasts.
//!
//! `wta ssh` gives the remote shell a nonce and an `aid` of its own (its
//! local pid) and announces both on the pane like a local shell does
//! (`@wta_nonce_<pid>`), plus the host in `@wta_remote_<pid>`
//! ([`remote_option`]). The watcher reads that option with the nonce and
//! steps [`super::Event::HopLearned`]. From then on:
//!
//! - **Enter.** The first trusted mark of a remote pid that the tracker does
//!   not follow yet sets what it followed aside (the local shell, typically
//!   running `wta ssh` itself) and follows the remote shell from a clean
//!   state. A nested local shell's marks stay output of the outer command,
//!   as before: only an announced remote pid is followed.
//! - **Leave.** The hop ends with a trusted [`MarkKind::ShellGone`] of its
//!   pid (`wta ssh` prints it when ssh ends), or with any trusted mark of
//!   another shell (the local shell's `D` for `wta ssh`, after a SIGKILL of
//!   `wta ssh` too). A remote run still open then ends with
//!   [`EndReason::SessionEnded`] (exit unknown), a submission waiting for
//!   its `C` is reported not started, and what was set aside comes back.
//!
//! Invariants: only marks the trust layer accepted get here, so no output
//! (local or remote) can start or end a hop; one hop at a time; memory is
//! bounded ([`MAX_REMOTES`]). Pure: no I/O, time is an input.

use std::collections::BTreeMap;

use super::{EndReason, NotStarted, Restore, Run, State, Tracker, close_run, not_started};
use crate::parser::{Cwd, Mark, MarkKind};
use crate::tracker::{Effect, Millis};

/// Most remote pids one tracker remembers.
pub const MAX_REMOTES: usize = 8;
/// Longest host label kept (what `wta ssh` was given as its destination).
pub const MAX_HOST_LABEL: usize = 255;

/// The pane option in which `wta ssh` (pid `pid`) names the host of the
/// remote shell whose marks carry `aid=<pid>`.
pub fn remote_option(pid: u32) -> String {
    format!("@wta_remote_{pid}")
}

/// A host label as `wta ssh` announces it: 1 to [`MAX_HOST_LABEL`] bytes,
/// no control characters (it reaches the agent's trusted context).
pub fn valid_host_label(host: &str) -> bool {
    !host.is_empty() && host.len() <= MAX_HOST_LABEL && !host.chars().any(char::is_control)
}

/// What one tracker knows of remote shells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hops {
    /// Pids announced as remote shells, with their host label.
    remotes: BTreeMap<u32, String>,
    /// The remote shell followed now, and what was set aside for it.
    active: Option<Active>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Active {
    pid: u32,
    host: String,
    outer: Box<Outer>,
}

/// The part of a tracker that follows one shell, set aside during a hop.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outer {
    state: State,
    shell_aid: Option<String>,
    cwd: Option<Cwd>,
    current: Option<Run>,
    alt_screen: bool,
    typed_text: bool,
}

impl Hops {
    /// The host of the remote shell followed now, if any.
    pub fn host(&self) -> Option<&str> {
        self.active.as_ref().map(|a| a.host.as_str())
    }

    /// Records what the watcher read for `pid`: its host label, or none.
    pub(super) fn learned(&mut self, pid: u32, host: Option<String>) {
        match host.filter(|h| valid_host_label(h)) {
            Some(host) => {
                self.remotes.insert(pid, host);
                while self.remotes.len() > MAX_REMOTES {
                    // Keep the one followed now; else drop the lowest pid.
                    let active = self.active.as_ref().map(|a| a.pid);
                    let drop = self.remotes.keys().copied().find(|p| Some(*p) != active);
                    match drop {
                        Some(p) => self.remotes.remove(&p),
                        None => break,
                    };
                }
            }
            None => {
                self.remotes.remove(&pid);
            }
        }
    }
}

/// The pid a trusted mark names (the trust layer only accepts decimal pids).
fn pid_of(mark: &Mark) -> Option<u32> {
    mark.aid.as_deref()?.parse().ok()
}

/// Enters or leaves a hop for a trusted `mark` before it is stepped;
/// `false` when the mark was all about the hop and is not stepped further.
pub(super) fn before_mark(t: &mut Tracker, mark: &Mark, now: Millis, fx: &mut Vec<Effect>) -> bool {
    let Some(pid) = pid_of(mark) else {
        return true;
    };
    let gone = mark.kind == MarkKind::ShellGone;
    match t.hops.active.as_ref().map(|a| a.pid) {
        Some(active) if active == pid => {
            if gone {
                leave(t, now, fx);
                t.hops.remotes.remove(&pid);
            }
            !gone
        }
        Some(_) => {
            // Another shell speaks with its own nonce: the remote one is gone.
            leave(t, now, fx);
            !gone
        }
        None if gone => {
            t.hops.remotes.remove(&pid);
            false
        }
        None => {
            if let Some(host) = t.hops.remotes.get(&pid).cloned() {
                enter(t, pid, host, fx);
            }
            true
        }
    }
}

/// Sets the followed shell aside and follows the remote one from scratch.
fn enter(t: &mut Tracker, pid: u32, host: String, fx: &mut Vec<Effect>) {
    let outer = Outer {
        state: std::mem::replace(&mut t.state, State::Unknown),
        shell_aid: t.shell_aid.replace(pid.to_string()),
        cwd: t.cwd.take(),
        current: t.current.take(),
        alt_screen: std::mem::take(&mut t.alt_screen),
        typed_text: std::mem::take(&mut t.typed_text),
    };
    t.restore = Restore::None;
    t.hops.active = Some(Active {
        pid,
        host,
        outer: Box::new(outer),
    });
    fx.push(Effect::RemoteChanged);
}

/// Ends the hop: its open run and pending submission end, the shell set
/// aside comes back.
fn leave(t: &mut Tracker, now: Millis, fx: &mut Vec<Effect>) {
    let Some(active) = t.hops.active.take() else {
        return;
    };
    close_run(t, None, EndReason::SessionEnded, now, fx);
    not_started(t, NotStarted::EnterLost, fx);
    let outer = *active.outer;
    t.state = outer.state;
    t.shell_aid = outer.shell_aid;
    t.cwd = outer.cwd;
    t.current = outer.current;
    t.alt_screen = outer.alt_screen;
    t.typed_text = outer.typed_text;
    t.restore = Restore::None;
    fx.push(Effect::RemoteChanged);
}

/// The watcher stopped following the pane: whatever the hop set aside is
/// stale now.
pub(super) fn forget(t: &mut Tracker) {
    t.hops.active = None;
}

#[cfg(test)]
#[path = "tracker_hop_tests.rs"]
mod tests;
