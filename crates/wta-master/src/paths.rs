//! Where the master keeps its socket, lock and logs, and the checks on them.
//!
//! Runtime dir: `$XDG_RUNTIME_DIR/wta/` (an empty value counts as unset), else
//! `/tmp/wta-<uid>/`. It must be a real directory (checked with `lstat`, so a
//! symlink planted by another user is refused), owned by us, mode 0700.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::MasterError;

fn non_empty_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `$XDG_RUNTIME_DIR/wta` or `/tmp/wta-<uid>` (not created).
pub fn runtime_dir() -> PathBuf {
    match non_empty_env("XDG_RUNTIME_DIR") {
        Some(dir) => dir.join("wta"),
        None => PathBuf::from(format!("/tmp/wta-{}", nix::unistd::getuid())),
    }
}

/// `$XDG_STATE_HOME/wta` or `~/.local/state/wta` (not created).
pub fn state_dir() -> PathBuf {
    non_empty_env("XDG_STATE_HOME")
        .or_else(|| non_empty_env("HOME").map(|h| h.join(".local/state")))
        .unwrap_or_else(|| PathBuf::from(".local/state"))
        .join("wta")
}

/// The default master socket: `<runtime dir>/master-<tmux server name>.sock`, where the
/// name is the last component of `$TMUX`'s socket path (`default` outside tmux).
pub fn default_socket_path() -> PathBuf {
    let server = std::env::var("TMUX")
        .ok()
        .and_then(|t| t.split(',').next().map(str::to_owned))
        .and_then(|p| {
            Path::new(&p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_owned());
    let safe: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    runtime_dir().join(format!("master-{safe}.sock"))
}

/// Creates `dir` (mode 0700) if missing, then insists it is a private directory of ours.
pub fn ensure_private_dir(dir: &Path) -> Result<(), MasterError> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(MasterError::io("cannot create", dir, err)),
    }
    check_private_dir(dir)
}

/// The `lstat` check alone: a directory, not a symlink, owned by our uid, no group/other bits.
pub fn check_private_dir(dir: &Path) -> Result<(), MasterError> {
    let meta =
        std::fs::symlink_metadata(dir).map_err(|e| MasterError::io("cannot inspect", dir, e))?;
    let unsafe_dir = |reason: String| MasterError::UnsafeDir {
        path: dir.to_path_buf(),
        reason,
    };
    if meta.file_type().is_symlink() {
        return Err(unsafe_dir("it is a symlink".into()));
    }
    if !meta.is_dir() {
        return Err(unsafe_dir("it is not a directory".into()));
    }
    let uid = nix::unistd::getuid().as_raw();
    if meta.uid() != uid {
        return Err(unsafe_dir(format!(
            "it is owned by uid {}, not {uid}",
            meta.uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(unsafe_dir(format!("its mode is {mode:o}; it must be 700")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_0700_and_refuses_loose_or_symlinked_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("wta");
        ensure_private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);

        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = ensure_private_dir(&dir).unwrap_err().to_string();
        assert!(err.contains("must be 700"), "{err}");

        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        let err = check_private_dir(&link).unwrap_err().to_string();
        assert!(err.contains("symlink"), "{err}");
    }
}
