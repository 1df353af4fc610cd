//! Errors of the terminal host, written for the user who will read them.

use std::path::PathBuf;

/// Everything that can go wrong talking to the terminal host.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(
        "tmux is not installed (or not on PATH): install it with `apt-get install tmux` \
         (Debian/Ubuntu), `dnf install tmux` (Fedora) or `brew install tmux` (macOS)"
    )]
    TmuxMissing,

    #[error(
        "tmux {found} is too old: wta needs tmux 3.2 or newer (`tmux -V` shows the version); \
         upgrade it with your package manager"
    )]
    TmuxTooOld { found: String },

    #[error(
        "not inside tmux and no tmux server was named: run `wta up` to start one, \
         or name a server with `-L NAME` or `--socket PATH`"
    )]
    NoServerNamed,

    #[error("no tmux server is running on {}: start one with `wta up` or `tmux -S {} new`", socket.display(), socket.display())]
    NoServer { socket: PathBuf },

    #[error("not inside a tmux pane: name one with `-t %N` (see `wta list-panes`)")]
    NoCallerPane,

    #[error("pane {0} does not exist (see `wta list-panes -a`)")]
    PaneNotFound(String),

    #[error("window {0} does not exist (see `wta list-tabs`)")]
    WindowNotFound(String),

    #[error("session {0} does not exist (see `wta list-windows`)")]
    SessionNotFound(String),

    #[error("directory {} does not exist or is not a directory", .0.display())]
    BadDirectory(PathBuf),

    #[error("{0}")]
    InvalidArgument(String),

    #[error("tmux {command} failed: {message}")]
    Tmux { command: String, message: String },

    #[error("cannot run tmux: {0}")]
    Spawn(#[source] std::io::Error),

    #[error("tmux returned output wta cannot read ({0}); please report this with `tmux -V`")]
    Parse(String),
}

impl HostError {
    /// True for errors that mean "there is no server to talk to" (exit status 2).
    pub fn is_no_server(&self) -> bool {
        matches!(self, Self::NoServerNamed | Self::NoServer { .. })
    }
}
