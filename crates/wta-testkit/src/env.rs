//! The one environment every test process starts from.
//!
//! A test run from inside a WTA session (or a tmux pane, or a shell with a
//! German locale) must not hand that to the programs it starts: a pane
//! that lacked `WTA_CLI_PATH` once went unnoticed because the runner's own
//! leaked in. So every command a test starts (tmux servers and their panes,
//! `wta` itself, the `nobody` runs) begins here: the environment cleared,
//! then
//! - `PATH`: the runner's, without empty or relative entries and without
//!   any directory holding a `wta` (a WTA session puts its own first; tests
//!   name the binary under test by its path);
//! - `LANG` = [`LANG`], `TERM` = [`TERM`], `SHELL` = [`SHELL`]; `USER` and
//!   `LOGNAME` from the real uid; `TMPDIR` and `RUST_BACKTRACE` kept when
//!   set (where temp files go is the machine's, not the session's);
//! - a private `HOME` and XDG base dirs ([`Sandbox`]), which a test may
//!   override with its own after.
//!
//! Nothing named `WTA_*`, `TMUX*`, `LC_*` or `XDG_*` gets through unless the
//! test sets it itself. This module must not read anything else of the
//! runner's environment into a child.
//!
//! Which to use (the `spawns_scrubbed` test holds every test and bench to
//! one of them):
//! - [`clean`] for a tool that reads no HOME or XDG dir: `tmux` on a server
//!   a test already runs, `groff`, `man`, `setsid`, `python3`, `sh`. It gets
//!   [`base`] and nothing else.
//! - [`Sandbox::command`] for a program that reads HOME or XDG dirs: `wta`
//!   (its config, state and runtime dirs), the master, a helper; or a
//!   fixture built on it (`TmuxServer::sandbox()`, wta's `Env::command()`,
//!   `support::wta_clean`).
//! - A test's own variables go on after either (`.env(…)` wins over the
//!   scrub).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The locale every test process gets (exists on every glibc system).
pub const LANG: &str = "C.UTF-8";
/// The terminal type every test process gets (tmux sets its own in panes).
pub const TERM: &str = "xterm-256color";
/// The login shell every test process gets (the shell the fixtures use).
pub const SHELL: &str = "/bin/bash";

/// The subdirectories of a [`Sandbox`] and the variables naming them.
const DIRS: [(&str, &str); 6] = [
    ("HOME", "home"),
    ("XDG_CONFIG_HOME", "config"),
    ("XDG_DATA_HOME", "data"),
    ("XDG_STATE_HOME", "state"),
    ("XDG_CACHE_HOME", "cache"),
    ("XDG_RUNTIME_DIR", "runtime"),
];

/// A private `HOME` and XDG base dirs under one root: `home/`, `config/`,
/// `data/`, `state/`, `cache/`, `runtime/` (mode 0700, as a runtime dir
/// must be).
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    /// Set when the sandbox made its root: removed on drop.
    _owned: Option<tempfile::TempDir>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    /// A sandbox in a new temp dir, removed on drop.
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("wta-test-env-")
            .tempdir()
            .unwrap_or_else(|e| panic!("a temp dir for a test's HOME: {e}"));
        let mut sandbox = Self::in_dir(dir.path());
        sandbox._owned = Some(dir);
        sandbox
    }

    /// A sandbox in `root`, a dir the caller owns (and removes): the
    /// subdirectories that are missing are made (`runtime/` 0700); the
    /// ones there are left as they are (a test may have changed their mode
    /// on purpose).
    pub fn in_dir(root: &Path) -> Self {
        use std::os::unix::fs::PermissionsExt;
        for (_, sub) in DIRS {
            let dir = root.join(sub);
            if dir.exists() {
                continue;
            }
            std::fs::create_dir_all(&dir)
                .unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
            if sub == "runtime" {
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                    .unwrap_or_else(|e| panic!("cannot chmod {}: {e}", dir.display()));
            }
        }
        // fish, started for the first time with a data dir, generates its
        // completions from every man page in the background, minutes of CPU
        // that outlive the test (reparented to init). It skips that when the
        // directory is there.
        for data in ["data", "home/.local/share"] {
            let generated = root.join(data).join("fish/generated_completions");
            std::fs::create_dir_all(&generated)
                .unwrap_or_else(|e| panic!("cannot make {}: {e}", generated.display()));
        }
        Self {
            root: root.to_path_buf(),
            _owned: None,
        }
    }

    /// The dir everything is in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `rel` under the root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// `HOME` and the XDG base dirs, pointing into the sandbox.
    pub fn dirs(&self) -> Vec<(&'static str, OsString)> {
        DIRS.iter()
            .map(|(var, sub)| (*var, self.root.join(sub).into_os_string()))
            .collect()
    }

    /// The whole environment of a test process: [`base`] plus [`Sandbox::dirs`].
    pub fn vars(&self) -> Vec<(&'static str, OsString)> {
        let mut vars = base();
        vars.extend(self.dirs());
        vars
    }

    /// `cmd` with its environment replaced by [`Sandbox::vars`]; set a
    /// test's own variables after this.
    pub fn apply<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        cmd.env_clear().envs(self.vars())
    }

    /// `program` with [`Sandbox::apply`]'s environment.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        self.apply(&mut cmd);
        cmd
    }
}

/// `program` with its environment replaced by [`base`] alone: no HOME and
/// no XDG dirs, for a tool that reads neither (see the module docs; a
/// program that reads them takes [`Sandbox::command`]). Set a test's own
/// variables after this.
pub fn clean(program: impl AsRef<OsStr>) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear().envs(base());
    cmd
}

/// What every test process gets besides its dirs (see the module docs).
pub fn base() -> Vec<(&'static str, OsString)> {
    let mut vars = vec![
        ("PATH", clean_path(std::env::var_os("PATH").as_deref())),
        ("LANG", LANG.into()),
        ("TERM", TERM.into()),
        ("SHELL", SHELL.into()),
    ];
    let uid = nix::unistd::getuid();
    let name = nix::unistd::User::from_uid(uid)
        .ok()
        .flatten()
        .map_or_else(|| uid.to_string(), |u| u.name);
    vars.push(("USER", name.clone().into()));
    vars.push(("LOGNAME", name.into()));
    for kept in ["TMPDIR", "RUST_BACKTRACE"] {
        if let Some(value) = std::env::var_os(kept) {
            vars.push((kept, value));
        }
    }
    vars
}

/// `path` without empty or relative entries and without directories that
/// hold a `wta` (see the module docs); the usual system dirs when unset.
pub fn clean_path(path: Option<&OsStr>) -> OsString {
    let Some(path) = path else {
        return "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin".into();
    };
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|dir| dir.is_absolute() && !dir.join("wta").exists())
        .collect();
    std::env::join_paths(kept).unwrap_or_else(|e| panic!("PATH: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_keeps_absolute_dirs_without_a_wta() {
        let with_wta = tempfile::tempdir().unwrap();
        std::fs::write(with_wta.path().join("wta"), "").unwrap();
        let plain = tempfile::tempdir().unwrap();
        let joined = std::env::join_paths([
            with_wta.path(),
            Path::new("relative/bin"),
            Path::new(""),
            plain.path(),
        ])
        .unwrap();
        let kept: Vec<PathBuf> = std::env::split_paths(&clean_path(Some(&joined))).collect();
        assert_eq!(kept, vec![plain.path().to_path_buf()]);
    }

    /// The names of the variables `cmd` running `env` prints, sorted.
    fn names_seen(mut cmd: Command) -> (Vec<String>, String) {
        let out = cmd.output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let mut names: Vec<String> = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, _)| k.to_owned())
            .collect();
        names.sort_unstable();
        (names, text)
    }

    #[test]
    fn a_clean_command_sees_only_the_base() {
        let (names, text) = names_seen(clean("env"));
        let mut expected: Vec<String> = base().iter().map(|(k, _)| (*k).to_owned()).collect();
        expected.sort_unstable();
        assert_eq!(names, expected, "{text}");
        assert!(!names.iter().any(|n| n == "HOME"), "{text}");
        assert!(text.lines().any(|l| l == "LANG=C.UTF-8"), "{text}");
    }

    #[test]
    fn a_command_sees_only_the_sandbox_and_the_base() {
        let sandbox = Sandbox::new();
        let out = sandbox.command("env").output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let mut names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, _)| k)
            .collect();
        names.sort_unstable();
        let mut expected: Vec<&str> = sandbox.vars().iter().map(|(k, _)| *k).collect();
        expected.sort_unstable();
        assert_eq!(names, expected, "{text}");
        let home = format!("HOME={}", sandbox.path("home").display());
        assert!(text.lines().any(|l| l == home), "{text}");
        assert!(text.lines().any(|l| l == "LANG=C.UTF-8"), "{text}");
    }
}
