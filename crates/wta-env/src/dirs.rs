//! The directories and socket names every role agrees on.
//!
//! Runtime dir (sockets): [`crate::private_dir::runtime_dir`]. State dir
//! (logs): `$XDG_STATE_HOME/wta`, else `~/.local/state/wta`. The master
//! socket: one per tmux server, in the runtime dir ([`socket_for_tmux`]).

use std::path::{Path, PathBuf};

use crate::private_dir;

fn non_empty_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `$XDG_RUNTIME_DIR/wta` or `/tmp/wta-<uid>` (not created; check it with
/// [`private_dir::ensure_private_dir`] before use).
pub fn runtime_dir() -> PathBuf {
    private_dir::runtime_dir()
}

/// `$XDG_STATE_HOME/wta` or `~/.local/state/wta` (not created).
pub fn state_dir() -> PathBuf {
    non_empty_env("XDG_STATE_HOME")
        .or_else(|| non_empty_env("HOME").map(|h| h.join(".local/state")))
        .unwrap_or_else(|| PathBuf::from(".local/state"))
        .join("wta")
}

/// The default master socket: the one for the tmux server `$TMUX` names, or
/// for tmux's default server outside tmux.
pub fn default_socket_path() -> PathBuf {
    let tmux_socket = std::env::var("TMUX")
        .ok()
        .and_then(|t| t.split(',').next().map(PathBuf::from))
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| {
            let base = non_empty_env("TMUX_TMPDIR").unwrap_or_else(|| PathBuf::from("/tmp"));
            base.join(format!("tmux-{}", nix::unistd::getuid()))
                .join("default")
        });
    socket_for_tmux(&tmux_socket)
}

/// One master per tmux server: `<runtime dir>/master-<server name>-<hash>.sock`,
/// where the name is the tmux socket's file name (made filename-safe, cut to
/// 24 characters) and the hash (FNV-1a of the full path) tells apart servers
/// with the same name in different directories.
pub fn socket_for_tmux(tmux_socket: &Path) -> PathBuf {
    let name = tmux_socket
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(24)
        .collect();
    let mut hash: u32 = 0x811c_9dc5;
    for b in tmux_socket.as_os_str().as_encoded_bytes() {
        hash = (hash ^ u32::from(*b)).wrapping_mul(0x0100_0193);
    }
    runtime_dir().join(format!("master-{safe}-{hash:08x}.sock"))
}

#[cfg(test)]
mod socket_name_tests {
    use super::*;

    #[test]
    fn one_socket_per_tmux_server() {
        let a = socket_for_tmux(Path::new("/tmp/tmux-0/default"));
        let b = socket_for_tmux(Path::new("/other/tmux-0/default"));
        assert_ne!(a, b);
        assert_eq!(a, socket_for_tmux(Path::new("/tmp/tmux-0/default")));
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("master-default-") && name.ends_with(".sock"),
            "{name}"
        );
        let odd = socket_for_tmux(Path::new(
            "/tmp/we ird;name/with a very long socket file name indeed",
        ));
        let odd = odd.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            odd.len() <= "master-".len() + 24 + 1 + 8 + ".sock".len(),
            "{odd}"
        );
        assert!(!odd.contains(' ') && !odd.contains(';'));
    }
}
