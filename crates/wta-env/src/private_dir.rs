//! The private runtime directory every WTA socket lives in, and its checks.
//!
//! `$WTA_RUNTIME_DIR` when WTA set it for a process it started (agents and
//! their terminals, so they reach the same sockets as the pane that runs
//! them, whatever `XDG_RUNTIME_DIR` their own environment has), else
//! `$XDG_RUNTIME_DIR/wta` (an empty or relative value counts as unset), else
//! `/tmp/wta-<uid>`. In `/tmp` another user can create that name first, so a
//! directory is only used when it is a real directory (`lstat`: a planted
//! symlink is refused), owned by our effective uid, with mode exactly 0700,
//! and no ancestor lets another user swap it (owned by us or root, and not
//! writable by others unless sticky, like `/tmp`). A refusal names the path
//! and the reason; nothing is changed on disk then.
//!
//! This is the one check for every side: the master, the helper's proposal
//! server, the shell watcher and `wta listen`.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A directory that is not safe to keep sockets in, or cannot be made.
#[derive(Debug, thiserror::Error)]
#[error(
    "refusing to use {path} for WTA's sockets: {reason} (remove it, or point XDG_RUNTIME_DIR at a private directory)"
)]
pub struct UnsafeDir {
    pub path: PathBuf,
    pub reason: String,
}

/// The variable through which WTA hands its runtime dir to the processes it
/// starts (absolute; anything else counts as unset).
pub const RUNTIME_DIR_ENV: &str = "WTA_RUNTIME_DIR";

/// `$WTA_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/wta`, else `/tmp/wta-<uid>`
/// (not created).
pub fn runtime_dir() -> PathBuf {
    runtime_dir_given(
        std::env::var_os(RUNTIME_DIR_ENV).as_deref(),
        std::env::var_os("XDG_RUNTIME_DIR").as_deref(),
    )
}

/// [`runtime_dir`] for given `WTA_RUNTIME_DIR` and `XDG_RUNTIME_DIR` values.
pub fn runtime_dir_given(
    wta_runtime_dir: Option<&std::ffi::OsStr>,
    xdg_runtime_dir: Option<&std::ffi::OsStr>,
) -> PathBuf {
    match wta_runtime_dir.map(Path::new) {
        Some(dir) if dir.is_absolute() => dir.to_path_buf(),
        _ => runtime_dir_from(xdg_runtime_dir),
    }
}

/// [`runtime_dir`] for a given `XDG_RUNTIME_DIR` value: empty or relative
/// counts as unset (an empty value once put a directory at `/`).
pub fn runtime_dir_from(xdg_runtime_dir: Option<&std::ffi::OsStr>) -> PathBuf {
    match xdg_runtime_dir.map(Path::new) {
        Some(dir) if dir.is_absolute() => dir.join("wta"),
        _ => PathBuf::from(format!("/tmp/wta-{}", nix::unistd::geteuid())),
    }
}

/// [`runtime_dir`], created and checked with [`ensure_private_dir`].
pub fn private_runtime_dir() -> Result<PathBuf, UnsafeDir> {
    let dir = runtime_dir();
    ensure_private_dir(&dir)?;
    Ok(dir)
}

/// Creates `dir` (and missing parents) with mode 0700, then checks it with
/// [`check_private_dir`]. An existing directory is never chmod-ed: if it is
/// not already private, this refuses.
pub fn ensure_private_dir(dir: &Path) -> Result<(), UnsafeDir> {
    let fail = |reason: String| UnsafeDir {
        path: dir.to_path_buf(),
        reason,
    };
    if !dir.is_absolute() {
        return Err(fail("it is not an absolute path".into()));
    }
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        // Something is in the way (a file, a symlink): the check names it.
        Err(_) if std::fs::symlink_metadata(dir).is_ok() => {}
        Err(e) => return Err(fail(format!("it cannot be created: {e}"))),
    }
    check_private_dir(dir)
}

/// The checks alone: `dir` is a directory (not a symlink) owned by our
/// effective uid with mode 0700, and each ancestor is owned by us or root
/// and not writable by group or others unless it has the sticky bit.
pub fn check_private_dir(dir: &Path) -> Result<(), UnsafeDir> {
    let fail = |reason: String| UnsafeDir {
        path: dir.to_path_buf(),
        reason,
    };
    let uid = nix::unistd::geteuid().as_raw();
    let meta =
        std::fs::symlink_metadata(dir).map_err(|e| fail(format!("it cannot be inspected: {e}")))?;
    if meta.file_type().is_symlink() {
        return Err(fail("it is a symlink".into()));
    }
    if !meta.is_dir() {
        return Err(fail("it is not a directory".into()));
    }
    if meta.uid() != uid {
        return Err(fail(format!(
            "it is owned by uid {}, not {uid}",
            meta.uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode != 0o700 {
        return Err(fail(format!("its mode is {mode:o}; it must be 700")));
    }
    for ancestor in dir.ancestors().skip(1) {
        let Ok(meta) = std::fs::metadata(ancestor) else {
            continue;
        };
        let mode = meta.permissions().mode();
        if meta.uid() != uid && meta.uid() != 0 {
            return Err(fail(format!(
                "its parent {} is owned by uid {}",
                ancestor.display(),
                meta.uid()
            )));
        }
        if mode & 0o002 != 0 && mode & 0o1000 == 0 {
            return Err(fail(format!(
                "its parent {} is writable by everyone without the sticky bit",
                ancestor.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_dir_wta_handed_on_comes_before_xdg() {
        use std::ffi::OsStr;
        let given = |wta: Option<&str>, xdg: Option<&str>| {
            runtime_dir_given(wta.map(OsStr::new), xdg.map(OsStr::new))
        };
        assert_eq!(
            given(Some("/run/u/wta"), Some("/x")),
            PathBuf::from("/run/u/wta")
        );
        assert_eq!(given(Some("relative"), Some("/x")), PathBuf::from("/x/wta"));
        assert_eq!(given(Some(""), Some("/x")), PathBuf::from("/x/wta"));
        assert_eq!(given(None, Some("/x")), PathBuf::from("/x/wta"));
    }
    use std::ffi::OsStr;

    #[test]
    fn empty_or_relative_xdg_runtime_dir_counts_as_unset() {
        let uid = nix::unistd::geteuid();
        let tmp = PathBuf::from(format!("/tmp/wta-{uid}"));
        assert_eq!(runtime_dir_from(None), tmp);
        assert_eq!(runtime_dir_from(Some(OsStr::new(""))), tmp);
        assert_eq!(runtime_dir_from(Some(OsStr::new("run/user"))), tmp);
        assert_eq!(
            runtime_dir_from(Some(OsStr::new("/run/user/7"))),
            PathBuf::from("/run/user/7/wta")
        );
    }

    #[test]
    fn creates_missing_dirs_private() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("wta").join("watch");
        ensure_private_dir(&dir).unwrap();
        for d in [&dir, &base.path().join("wta")] {
            let mode = std::fs::metadata(d).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", d.display());
        }
        ensure_private_dir(&dir).unwrap();
    }

    #[test]
    fn refuses_a_loose_mode_a_file_and_a_symlink_without_changing_them() {
        let base = tempfile::tempdir().unwrap();
        let loose = base.path().join("loose");
        std::fs::create_dir(&loose).unwrap();
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = ensure_private_dir(&loose).unwrap_err();
        assert!(err.to_string().contains("mode is 755"), "{err}");
        let mode = std::fs::metadata(&loose).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755, "a refused directory is left alone");

        let file = base.path().join("file");
        std::fs::write(&file, "").unwrap();
        let err = ensure_private_dir(&file).unwrap_err();
        assert!(err.to_string().contains("not a directory"), "{err}");

        let target = base.path().join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = base.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = ensure_private_dir(&link).unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        assert!(err.to_string().contains(&*link.to_string_lossy()), "{err}");
    }

    #[test]
    fn refuses_a_directory_owned_by_another_user() {
        let base = tempfile::tempdir().unwrap();
        let theirs = base.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
        let (dir, owner) = if nix::unistd::geteuid().is_root() {
            let nobody = nix::unistd::Uid::from_raw(65534);
            nix::unistd::chown(&theirs, Some(nobody), None).unwrap();
            (theirs.clone(), 65534)
        } else {
            // Not root: a root-owned directory is someone else's.
            (PathBuf::from("/usr"), 0)
        };
        let err = ensure_private_dir(&dir).unwrap_err();
        assert!(
            err.to_string().contains(&format!("owned by uid {owner}")),
            "{err}"
        );
    }

    #[test]
    fn refuses_a_private_dir_inside_a_world_writable_parent() {
        let base = tempfile::tempdir().unwrap();
        let open = base.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = ensure_private_dir(&open.join("wta")).unwrap_err();
        assert!(err.to_string().contains("writable by everyone"), "{err}");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        ensure_private_dir(&open.join("wta")).unwrap();
    }
}
