//! The one error type of wta-shell, with messages written for users.

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
        "pane {pane} is already followed by another WTA watcher (an agent pane beside it, or a \
         `wta listen`); one watcher follows a pane at a time. Stop that one first (e.g. `wta pane close`)"
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
