//! Which tmux server to talk to, and whether the caller sits inside it.

use std::path::PathBuf;

use wta_protocol::PaneId;

use crate::HostError;

/// How to reach a tmux server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerLocation {
    /// `tmux -S PATH`.
    Socket(PathBuf),
    /// `tmux -L NAME` (a socket named NAME in tmux's socket directory).
    Name(String),
}

impl ServerLocation {
    /// The global tmux arguments that select this server.
    pub fn args(&self) -> [&str; 2] {
        match self {
            Self::Socket(path) => ["-S", path.to_str().unwrap_or_default()],
            Self::Name(name) => ["-L", name],
        }
    }

    /// The socket file, as tmux would compute it.
    pub fn socket_path(&self) -> PathBuf {
        match self {
            Self::Socket(path) => path.clone(),
            Self::Name(name) => socket_dir().join(name),
        }
    }
}

/// tmux's socket directory: `$TMUX_TMPDIR` (else `/tmp`) + `/tmux-<uid>`.
pub fn socket_dir() -> PathBuf {
    let base = std::env::var("TMUX_TMPDIR")
        .ok()
        .filter(|s| s.starts_with('/'))
        .unwrap_or_else(|| "/tmp".into());
    PathBuf::from(base).join(format!("tmux-{}", uid()))
}

fn uid() -> u32 {
    // SAFETY-free: getuid cannot fail.
    #[allow(unsafe_code)]
    unsafe {
        libc::getuid()
    }
}

/// Decides the server and the caller's pane from flags and environment.
/// Flags win; `$TMUX` (its first comma field is the socket) comes next; a
/// running default server is used last. `$TMUX_PANE` names the caller's pane
/// only when the chosen server is the one `$TMUX` points at.
pub fn locate(
    socket: Option<PathBuf>,
    name: Option<String>,
    env_tmux: Option<&str>,
    env_pane: Option<&str>,
) -> Result<(ServerLocation, Option<PaneId>), HostError> {
    let env_socket = env_tmux
        .and_then(|t| t.split(',').next())
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    let location = match (socket, name, &env_socket) {
        (Some(path), None, _) => ServerLocation::Socket(path),
        (None, Some(name), _) => ServerLocation::Name(name),
        (Some(_), Some(_), _) => {
            return Err(HostError::InvalidArgument(
                "give either --socket or -L, not both".into(),
            ));
        }
        (None, None, Some(path)) => ServerLocation::Socket(path.clone()),
        (None, None, None) => {
            let default = socket_dir().join("default");
            if default.exists() {
                ServerLocation::Socket(default)
            } else {
                return Err(HostError::NoServerNamed);
            }
        }
    };
    let same_server = env_socket.is_some_and(|s| s == location.socket_path());
    let caller = if same_server {
        env_pane.and_then(|p| PaneId::parse(p).ok())
    } else {
        None
    };
    Ok((location, caller))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_tmux_gives_server_and_caller() {
        let (loc, caller) = locate(None, None, Some("/tmp/tmux-0/x,123,0"), Some("%4")).unwrap();
        assert_eq!(loc, ServerLocation::Socket("/tmp/tmux-0/x".into()));
        assert_eq!(caller.unwrap().as_str(), "%4");
    }

    #[test]
    fn another_server_ignores_the_callers_pane() {
        let (loc, caller) = locate(
            Some("/tmp/other".into()),
            None,
            Some("/tmp/tmux-0/x,123,0"),
            Some("%4"),
        )
        .unwrap();
        assert_eq!(loc, ServerLocation::Socket("/tmp/other".into()));
        assert!(caller.is_none());
        let (_, caller) = locate(
            None,
            Some("named".into()),
            Some("/tmp/tmux-0/x,1,0"),
            Some("%4"),
        )
        .unwrap();
        assert!(caller.is_none());
    }

    #[test]
    fn explicit_socket_matching_env_keeps_caller() {
        let (_, caller) = locate(
            Some("/tmp/tmux-0/x".into()),
            None,
            Some("/tmp/tmux-0/x,1,0"),
            Some("%4"),
        )
        .unwrap();
        assert_eq!(caller.unwrap().as_str(), "%4");
    }

    #[test]
    fn both_flags_is_an_error() {
        assert!(matches!(
            locate(Some("/a".into()), Some("b".into()), None, None),
            Err(HostError::InvalidArgument(_))
        ));
    }

    #[test]
    fn garbage_pane_env_is_ignored() {
        let (_, caller) = locate(None, None, Some("/s,1,0"), Some("not-a-pane")).unwrap();
        assert!(caller.is_none());
    }
}
