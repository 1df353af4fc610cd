//! Session-level tmux operations of the launcher (`wta up`): create a
//! session (and remove it again when `up` fails), find one by name or the
//! one attached last ([`super::recent`]), show it to the user. Sessions are
//! looked up by name in the list and then addressed by id (`$N`), so no
//! name is ever parsed as a tmux target (`=`, `:`, `.`, patterns).

use std::path::PathBuf;

use wta_protocol::TmuxSessionId;

use super::recent::{self, Recency};
use super::{Cmd, TmuxHost, check_name, format};
use crate::{HostError, PaneInfo, PaneSize, SessionInfo, TerminalHost, WindowInfo};

/// A session to create, its first pane running `argv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    pub name: String,
    pub size: PaneSize,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub argv: Vec<String>,
}

/// The session [`TmuxHost::recent_session`] chose, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentSession {
    pub id: TmuxSessionId,
    pub name: String,
    pub how: Recency,
}

impl TmuxHost {
    /// Checks a session name: tmux would change `:` and `.` (to `_`) and
    /// escape `\` and control characters, so such a name would not read
    /// back as given.
    pub fn check_session_name(name: &str) -> Result<(), HostError> {
        if super::is_private_session(name) {
            return Err(HostError::InvalidArgument(format!(
                "{name:?} is a session where wta keeps stashed agent panes; pick another name"
            )));
        }
        if name.is_empty() || name.contains([':', '.', '\\']) {
            return Err(HostError::InvalidArgument(format!(
                "{name:?}: a tmux session name cannot be empty or contain ':', '.' or '\\'"
            )));
        }
        check_name("session name", name)
    }

    /// Creates a detached session and returns its first pane.
    pub fn new_session(&self, spec: &NewSession) -> Result<PaneInfo, HostError> {
        Self::check_session_name(&spec.name)?;
        let cwd = Self::checked_cwd(spec.cwd.as_deref())?;
        let cmd = Cmd::new("new-session")
            .flag("-d")
            .opt_text("-s", &spec.name)
            .opt("-x", &spec.size.cols.to_string())
            .opt("-y", &spec.size.rows.to_string())
            .flag("-P")
            .opt_format("-F", &format::pane_format());
        let cmd = Self::pane_spec(cmd, cwd.as_deref(), &spec.env, Some(&spec.argv))?;
        let out = self.run(&cmd)?;
        self.one_pane(&out, "new-session").inspect_err(|_| {
            // tmux made the session but its answer cannot be read: remove
            // it rather than leave a session nobody knows the panes of (tmux
            // refuses a duplicate name, so the one of that name is ours).
            if let Ok(Some(made)) = self.session_named(&spec.name) {
                let _ = self.kill_session(&made.id);
            }
        })
    }

    /// The active pane of `session`'s active window.
    pub fn active_pane_of(&self, session: &TmuxSessionId) -> Result<PaneInfo, HostError> {
        let out = self.run(
            &Cmd::new("display-message")
                .flag("-p")
                .opt("-t", session.as_str())
                .arg_format(&format::pane_format()),
        )?;
        self.one_pane(&out, "display-message")
    }

    /// Ends `session`, its windows and their processes.
    pub fn kill_session(&self, session: &TmuxSessionId) -> Result<(), HostError> {
        self.run(&Cmd::new("kill-session").opt("-t", session.as_str()))
            .map(drop)
    }

    /// The session a command run outside tmux means when it names none:
    /// the one attached last, never the stash (`super::recent`); `None`
    /// when that is ambiguous (several, none ever attached) or there is
    /// none.
    pub fn recent_session(&self) -> Result<Option<RecentSession>, HostError> {
        let out = self.run(&Cmd::new("list-sessions").opt_format("-F", recent::FORMAT))?;
        let listed = recent::parse(&out)?;
        Ok(recent::choose(&listed).map(|(s, how)| RecentSession {
            id: s.id.clone(),
            name: s.name.clone(),
            how,
        }))
    }

    /// The session called exactly `name`, if there is one.
    pub fn session_named(&self, name: &str) -> Result<Option<SessionInfo>, HostError> {
        match self.list_sessions() {
            Ok(sessions) => Ok(sessions.into_iter().find(|s| s.name == name)),
            // No server yet: no session of that name either.
            Err(HostError::NoServer { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The active window of `session`.
    pub fn active_window(&self, session: &TmuxSessionId) -> Result<WindowInfo, HostError> {
        self.list_windows(Some(session))?
            .into_iter()
            .find(|w| w.active)
            .ok_or_else(|| HostError::SessionNotFound(session.to_string()))
    }

    /// Shows `session` in the client the caller runs in.
    pub fn switch_client(&self, session: &TmuxSessionId) -> Result<(), HostError> {
        self.run(&Cmd::new("switch-client").opt("-t", session.as_str()))
            .map(drop)
    }

    /// The process that attaches this terminal to `session` (to `exec`).
    pub fn attach_command(&self, session: &TmuxSessionId) -> std::process::Command {
        let mut command = std::process::Command::new(&self.binary);
        command.args(self.location.args()).args(
            Cmd::new("attach-session")
                .opt("-t", session.as_str())
                .argv(),
        );
        command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_names_that_would_change_are_refused() {
        for bad in ["", "a:b", "a.b", "a\\b", "tab\there", "nl\n"] {
            let err = TmuxHost::check_session_name(bad).unwrap_err().to_string();
            assert!(err.contains("session name"), "{err}");
        }
        for good in ["wta", "#(id)", "a;", "ünï", "-x"] {
            assert!(TmuxHost::check_session_name(good).is_ok(), "{good}");
        }
    }
}
