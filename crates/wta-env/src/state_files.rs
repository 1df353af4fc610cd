//! Files WTA keeps in its state dir (logs, the session history): the dir is
//! the user's alone (0700) and every file in it is created 0600, since logs
//! hold paths, command lines and agent names other users have no business
//! reading. A dir or file that already exists with looser modes is tightened
//! when WTA opens it (only when the user owns it; another user's dir is left
//! alone and the open fails on its own).

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of the state dir.
pub const STATE_DIR_MODE: u32 = 0o700;
/// Mode of every file WTA writes in it.
pub const STATE_FILE_MODE: u32 = 0o600;

/// Creates `dir` (and its parents) for WTA's state; the last part is made
/// 0700, or tightened to 0700 when it exists with looser modes.
pub fn ensure_state_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match DirBuilder::new().mode(STATE_DIR_MODE).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => tighten(dir, STATE_DIR_MODE),
        Err(e) => Err(e),
    }
}

/// Opens `path` for appending, creating it 0600 (and tightening an existing
/// file to 0600); its dir is made as [`ensure_state_dir`] makes it.
pub fn open_append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        ensure_state_dir(dir)?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(STATE_FILE_MODE)
        .open(path)?;
    tighten(path, STATE_FILE_MODE)?;
    Ok(file)
}

/// Removes the group and other bits of `path` when the user owns it.
fn tighten(path: &Path, mode: u32) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    let ours = meta.uid() == nix::unistd::geteuid().as_raw();
    if ours && meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(
            path,
            Permissions::from_mode(meta.mode() & 0o7700 & !0o077 | mode),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().mode() & 0o7777
    }

    #[test]
    fn a_new_state_dir_and_log_are_the_users_alone() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("state/wta");
        let log = dir.join("master.log");
        drop(open_append(&log).unwrap());
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&log), 0o600);
    }

    #[test]
    fn loose_modes_left_by_an_older_version_are_tightened() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("wta");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, Permissions::from_mode(0o755)).unwrap();
        let log = dir.join("helper-1.log");
        std::fs::write(&log, "old line\n").unwrap();
        std::fs::set_permissions(&log, Permissions::from_mode(0o644)).unwrap();
        drop(open_append(&log).unwrap());
        assert_eq!((mode(&dir), mode(&log)), (0o700, 0o600));
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "old line\n",
            "appended, not truncated"
        );
    }
}
