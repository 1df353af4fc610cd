//! The file-system sources: an executable in the directory the command ran
//! in, and the executables on `PATH`.
//!
//! "Executable" means what a shell would try to run: a regular file (links
//! followed) with an execute bit. A directory on `PATH` that is missing or
//! unreadable is skipped, as a shell skips it. Relative `PATH` entries (and
//! the empty one, which means "here") are taken relative to the command's
//! directory, as the shell that ran it would.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::report::{Found, Lookup};

/// True for a regular file (after links) with any execute bit.
pub fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn found_file(path: &Path) -> Found {
    Found::File {
        path: path.to_string_lossy().into_owned(),
    }
}

/// `./NAME` in `cwd`, or NAME with a `/` taken relative to `cwd` (an
/// absolute NAME stays as it is).
pub fn check_cwd(name: &str, cwd: &Path) -> Lookup {
    if !cwd.is_dir() {
        return Lookup::unavailable(format!("{} is not a directory", cwd.display()));
    }
    let candidate = cwd.join(name);
    if is_executable_file(&candidate) {
        Lookup::checked(vec![found_file(&candidate)])
    } else {
        Lookup::checked(Vec::new())
    }
}

/// The directories of a `PATH` value, relative ones resolved against `cwd`,
/// each once, in order.
pub fn path_dirs(path_var: &OsStr, cwd: &Path) -> Vec<PathBuf> {
    let mut seen = BTreeSet::new();
    std::env::split_paths(path_var)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                cwd.to_path_buf()
            } else {
                cwd.join(dir)
            }
        })
        .filter(|dir| seen.insert(dir.clone()))
        .collect()
}

/// Every executable NAME on `PATH`, in `PATH` order (the first is what a
/// shell runs). A NAME with a `/` is never looked up on `PATH`.
pub fn check_path(name: &str, path_var: Option<&OsStr>, cwd: &Path) -> Lookup {
    if name.contains('/') {
        return Lookup::skipped("a name with a / runs as a path; PATH is not searched");
    }
    let Some(path_var) = path_var else {
        return Lookup::unavailable("PATH is not set");
    };
    let found = path_dirs(path_var, cwd)
        .into_iter()
        .map(|dir| dir.join(name))
        .filter(|candidate| is_executable_file(candidate))
        .map(|candidate| found_file(&candidate))
        .collect();
    Lookup::checked(found)
}

/// The names of every executable on `PATH` (for near matches), sorted.
/// Names that are not UTF-8 cannot be typed as a near match and are left out.
pub fn path_executables(path_var: Option<&OsStr>, cwd: &Path) -> Vec<String> {
    let Some(path_var) = path_var else {
        return Vec::new();
    };
    let mut names = BTreeSet::new();
    for dir in path_dirs(path_var, cwd) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if !names.contains(&name) && is_executable_file(&entry.path()) {
                names.insert(name);
            }
        }
    }
    names.into_iter().collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::ffi::OsString;

    use super::*;

    fn touch(path: &Path, mode: u32) {
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn paths(lookup: &Lookup) -> Vec<String> {
        lookup
            .found
            .iter()
            .map(|f| match f {
                Found::File { path } => path.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn cwd_finds_executables_only() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        touch(&d.join("run.sh"), 0o755);
        touch(&d.join("notes"), 0o644);
        std::fs::create_dir(d.join("sub")).unwrap();
        touch(&d.join("sub/tool"), 0o700);
        std::os::unix::fs::symlink(d.join("run.sh"), d.join("link")).unwrap();
        let run = d.join("run.sh").to_string_lossy().into_owned();
        assert_eq!(paths(&check_cwd("run.sh", d)), std::slice::from_ref(&run));
        assert_eq!(paths(&check_cwd("link", d)).len(), 1);
        assert!(paths(&check_cwd("notes", d)).is_empty());
        assert!(paths(&check_cwd("sub", d)).is_empty(), "a directory");
        assert_eq!(paths(&check_cwd("sub/tool", d)).len(), 1);
        assert_eq!(paths(&check_cwd("./run.sh", d)).len(), 1);
        assert_eq!(paths(&check_cwd(&run, Path::new("/"))), [run]);
        let gone = check_cwd("x", &d.join("gone"));
        assert_eq!(gone.status, super::super::report::Status::Unavailable);
    }

    #[test]
    fn path_lists_every_match_in_order_each_dir_once() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        for d in [&a, &b, &c] {
            std::fs::create_dir(d).unwrap();
        }
        touch(&b.join("git"), 0o755);
        touch(&a.join("git"), 0o755);
        touch(&c.join("git"), 0o644);
        touch(&c.join("gitk"), 0o755);
        let var = std::env::join_paths([&b, &dir.path().join("missing"), &c, &a, &b]).unwrap();
        let found = paths(&check_path("git", Some(&var), dir.path()));
        assert_eq!(
            found,
            [
                b.join("git").to_string_lossy(),
                a.join("git").to_string_lossy()
            ]
        );
        assert!(paths(&check_path("nope", Some(&var), dir.path())).is_empty());
        assert_eq!(path_executables(Some(&var), dir.path()), ["git", "gitk"]);
        let skipped = check_path("./git", Some(&var), dir.path());
        assert_eq!(skipped.status, super::super::report::Status::Skipped);
        let unset = check_path("git", None, dir.path());
        assert_eq!(unset.status, super::super::report::Status::Unavailable);
        assert!(path_executables(None, dir.path()).is_empty());
    }

    #[test]
    fn relative_and_empty_path_entries_mean_the_command_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        touch(&dir.path().join("bin/tool"), 0o755);
        touch(&dir.path().join("here"), 0o755);
        let var = OsString::from("bin::/nonexistent");
        assert_eq!(
            path_dirs(&var, dir.path()),
            [
                dir.path().join("bin"),
                dir.path().to_path_buf(),
                PathBuf::from("/nonexistent")
            ]
        );
        assert_eq!(paths(&check_path("tool", Some(&var), dir.path())).len(), 1);
        assert_eq!(paths(&check_path("here", Some(&var), dir.path())).len(), 1);
    }
}
