//! The one error type of wta-shell, with messages written for users;
//! [`ShellError::localized`] in the user's language (`locales/shell`).

use std::path::PathBuf;

/// Everything that can go wrong in shell integration and pane watching.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("`{0}` is not a supported shell (choose bash, zsh, fish or pwsh)")]
    UnknownShell(String),
    #[error(
        "pane {pane} already has a pipe-pane that WTA did not open (another tool, e.g. a logging \
         plugin, owns it); refusing to replace it. Close it with `tmux pipe-pane -t {pane}` if it is not needed"
    )]
    ForeignPipe { pane: String },
    #[error(
        "pane {pane} is already followed by another agent pane's watcher (or an older WTA's): \
         `wta listen` can join it, but only one agent pane types cards' commands into a pane. \
         Close the other one first (`wta pane close`)"
    )]
    FollowedByWta { pane: String },
    #[error("pane {pane} does not exist (any more)")]
    PaneGone { pane: String },
    #[error(transparent)]
    Host(wta_host::HostError),
    #[error("watcher socket {path}: {source}")]
    Socket {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("reading pane output: {0}")]
    Io(#[from] std::io::Error),
    #[error(
        "no tracked command has finished in pane {pane} yet (run `wta listen -t {pane}` or start a helper to track it)"
    )]
    NoTrackedCommand { pane: String },
    #[error(transparent)]
    UnsafeDir(#[from] wta_env::private_dir::UnsafeDir),
    #[error("state file {path}: {message}")]
    StateFile { path: PathBuf, message: String },
    #[error("{name:?} is not a command name: {reason}")]
    BadCommandName { name: String, reason: &'static str },
    #[error("cannot hand the command to the shell: {0}")]
    Handoff(String),
    /// `wta ssh`'s remote integration could not be prepared.
    #[error("wta ssh: {0}")]
    Remote(String),
}

impl ShellError {
    /// The message in the user's language (`Display` stays English, for
    /// logs and anything a program reads).
    pub fn localized(&self) -> String {
        use wta_i18n::tr;
        let path = |p: &PathBuf| p.display().to_string();
        match self {
            Self::UnknownShell(shell) => tr("shell.unknown_shell", &[("shell", shell)]),
            Self::ForeignPipe { pane } => tr("shell.foreign_pipe", &[("pane", pane)]),
            Self::FollowedByWta { pane } => tr("shell.followed_by_wta", &[("pane", pane)]),
            Self::PaneGone { pane } => tr("shell.pane_gone", &[("pane", pane)]),
            Self::Host(e) => e.localized(),
            Self::Socket { path: p, source } => tr(
                "shell.socket",
                &[("path", &path(p)), ("err", &source.to_string())],
            ),
            Self::Io(e) => tr("shell.io", &[("err", &e.to_string())]),
            Self::NoTrackedCommand { pane } => tr("shell.no_tracked_command", &[("pane", pane)]),
            Self::UnsafeDir(e) => e.to_string(),
            Self::StateFile { path: p, message } => tr(
                "shell.state_file",
                &[("path", &path(p)), ("message", message)],
            ),
            Self::Handoff(why) => tr("shell.handoff", &[("why", why)]),
            // The remote form of a script failed its own checks: a bug, said as is.
            Self::Remote(_) => self.to_string(),
            Self::BadCommandName { name, reason } => {
                let quoted = format!("{name:?}");
                tr(
                    "shell.bad_command_name",
                    &[("name", quoted.as_str()), ("reason", reason)],
                )
            }
        }
    }
}

impl From<wta_host::HostError> for ShellError {
    /// A pane the host cannot find is gone (it may have existed a moment ago).
    fn from(e: wta_host::HostError) -> Self {
        match e {
            wta_host::HostError::PaneNotFound(pane) => ShellError::PaneGone { pane },
            other => ShellError::Host(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In English the localized text is the `Display` text, for every variant.
    #[test]
    fn english_localized_is_display() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        for err in [
            ShellError::UnknownShell("tcsh".into()),
            ShellError::ForeignPipe { pane: "%1".into() },
            ShellError::FollowedByWta { pane: "%1".into() },
            ShellError::PaneGone { pane: "%1".into() },
            ShellError::Host(wta_host::HostError::NoCallerPane),
            ShellError::Socket {
                path: "/run/w.sock".into(),
                source: io(),
            },
            ShellError::Io(io()),
            ShellError::NoTrackedCommand { pane: "%1".into() },
            ShellError::StateFile {
                path: "/s.json".into(),
                message: "bad".into(),
            },
            ShellError::BadCommandName {
                name: "a b".into(),
                reason: "it has a space",
            },
        ] {
            assert_eq!(err.localized(), err.to_string());
        }
    }
}
