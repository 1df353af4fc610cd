//! Errors of the terminal host, written for the user who will read them;
//! [`HostError::localized`] in the user's language (`locales/host`).

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

    #[error(
        "not inside tmux, and wta cannot tell which session you mean (none of this server's \
         sessions was ever attached, and there is not just one): name one (see `wta list-windows`)"
    )]
    NoRecentSession,

    #[error("pane {0} does not exist (see `wta list-panes -a`)")]
    PaneNotFound(String),

    #[error("window {0} does not exist (see `wta list-tabs`)")]
    WindowNotFound(String),

    #[error("session {0} does not exist (see `wta list-windows`)")]
    SessionNotFound(String),

    #[error(
        "no terminal shows tab {0}: attach one (`tmux attach`), or name one with `--client` \
         (see `tmux list-clients`)"
    )]
    NoClient(String),

    #[error("no terminal is called {0} (see `tmux list-clients`)")]
    ClientNotFound(String),

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
    /// The message in the user's language (`Display` stays English, for
    /// logs and anything a program reads).
    pub fn localized(&self) -> String {
        use wta_i18n::tr;
        match self {
            Self::TmuxMissing => tr("host.tmux_missing", &[]),
            Self::TmuxTooOld { found } => tr("host.tmux_too_old", &[("found", found)]),
            Self::NoServerNamed => tr("host.no_server_named", &[]),
            Self::NoServer { socket } => tr(
                "host.no_server",
                &[("socket", &socket.display().to_string())],
            ),
            Self::NoCallerPane => tr("host.no_caller_pane", &[]),
            Self::NoRecentSession => tr("host.no_recent_session", &[]),
            Self::PaneNotFound(pane) => tr("host.pane_not_found", &[("pane", pane)]),
            Self::WindowNotFound(window) => tr("host.window_not_found", &[("window", window)]),
            Self::SessionNotFound(session) => tr("host.session_not_found", &[("session", session)]),
            Self::NoClient(tab) => tr("host.no_client", &[("tab", tab)]),
            Self::ClientNotFound(client) => tr("host.client_not_found", &[("client", client)]),
            Self::BadDirectory(dir) => {
                tr("host.bad_directory", &[("dir", &dir.display().to_string())])
            }
            Self::InvalidArgument(text) => text.clone(),
            Self::Tmux { command, message } => tr(
                "host.tmux_failed",
                &[("command", command), ("message", message)],
            ),
            Self::Spawn(err) => tr("host.spawn", &[("err", &err.to_string())]),
            Self::Parse(what) => tr("host.parse", &[("what", what)]),
        }
    }

    /// True for errors that mean "there is no server to talk to" (exit status 2).
    pub fn is_no_server(&self) -> bool {
        matches!(self, Self::NoServerNamed | Self::NoServer { .. })
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
            HostError::TmuxMissing,
            HostError::TmuxTooOld {
                found: "2.9".into(),
            },
            HostError::NoServerNamed,
            HostError::NoServer {
                socket: "/tmp/s".into(),
            },
            HostError::NoCallerPane,
            HostError::NoRecentSession,
            HostError::PaneNotFound("%9".into()),
            HostError::WindowNotFound("@9".into()),
            HostError::SessionNotFound("$9".into()),
            HostError::NoClient("@9".into()),
            HostError::ClientNotFound("/dev/pts/9".into()),
            HostError::BadDirectory("/nope".into()),
            HostError::InvalidArgument("bad".into()),
            HostError::Tmux {
                command: "split-window".into(),
                message: "no space".into(),
            },
            HostError::Spawn(io()),
            HostError::Parse("x".into()),
        ] {
            assert_eq!(err.localized(), err.to_string());
        }
    }
}
