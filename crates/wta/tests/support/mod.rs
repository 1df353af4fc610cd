//! Shared helpers for black-box tests of the `wta` binary. Every command
//! built here starts from the testkit's scrubbed environment
//! (`wta_testkit::env`): nothing of the runner's `WTA_*`, `TMUX*` or locale.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use wta_testkit::{Sandbox, TmuxServer};

/// A user of their own: HOME, the XDG dirs and a runtime dir (0700) in a
/// temp dir, `bin/` as the whole PATH, no tmux, no locale variables.
pub struct User {
    tmp: tempfile::TempDir,
}

impl User {
    /// The usual dirs, and `extra` ones beside them.
    pub fn new(extra: &[&str]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        Sandbox::in_dir(tmp.path());
        for d in ["bin", "tmux"].iter().chain(extra) {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        Self { tmp }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// The temp dir all of it is in.
    pub fn root(&self) -> &Path {
        self.tmp.path()
    }

    /// `wta` as this user runs it.
    pub fn command(&self) -> Command {
        let mut c = Sandbox::in_dir(self.tmp.path()).command(wta_bin());
        c.env("PATH", self.path("bin"))
            .env("TMUX_TMPDIR", self.path("tmux"))
            // This user has no locale at all (the scrub sets one).
            .env_remove("LANG");
        c.stdin(std::process::Stdio::null());
        c
    }
}

/// The built `wta` binary.
pub fn wta_bin() -> &'static str {
    env!("CARGO_BIN_EXE_wta")
}

/// The visible commands `wta --help` lists.
pub fn commands() -> Vec<String> {
    let help = wta_testkit::Sandbox::new()
        .command(wta_bin())
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // A wrapped description continues further indented.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .map(|c| c.trim_end_matches(',').to_owned())
        .collect()
}

/// A `wta` command with a clean environment: the scrubbed one with its
/// HOME and XDG dirs in `tmpdir`, which is also `TMUX_TMPDIR`, so no
/// default server of the user's is ever found.
pub fn wta_clean(tmpdir: &Path) -> Command {
    let mut cmd = Sandbox::in_dir(tmpdir).command(wta_bin());
    cmd.env("TMUX_TMPDIR", tmpdir);
    cmd
}

/// `wta -L <server> args…`, as a user outside tmux naming the server (the
/// server's private HOME and XDG dirs).
pub fn wta_named(server: &TmuxServer, args: &[&str]) -> Output {
    let mut cmd = server.sandbox().command(wta_bin());
    cmd.arg("-L").arg(server.name()).args(args);
    cmd.output().expect("run wta")
}

/// `wta args…` as if run inside `pane` of `server` (`$TMUX`, `$TMUX_PANE`
/// set, the server's private HOME and XDG dirs).
pub fn wta_in_pane(server: &TmuxServer, pane: &str, args: &[&str]) -> Output {
    let mut cmd = server.sandbox().command(wta_bin());
    cmd.env("TMUX", server.tmux_env())
        .env("TMUX_PANE", pane)
        .args(args);
    cmd.output().expect("run wta")
}

/// Stdout of a successful run; panics with stderr otherwise.
pub fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "wta failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// Parsed JSON stdout of a successful run.
pub fn ok_json(out: Output) -> Value {
    let text = ok(out);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Replaces values that differ between runs (pids, paths, versions, host
/// names) with placeholders, recursively.
pub fn normalize(mut value: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    match k.as_str() {
                        "pid" if v.is_number() => *v = Value::from(0),
                        "waited_ms" => *v = Value::from(0),
                        "title" | "socket" | "tmux_version" | "cwd" if v.is_string() => {
                            *v = Value::from(format!("<{k}>"))
                        }
                        _ => walk(v),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// Compares `value` with `tests/golden/<name>.json`; `UPDATE_GOLDEN=1` rewrites it.
pub fn assert_golden(name: &str, value: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"));
    let actual = serde_json::to_string_pretty(value).expect("serialize") + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {}; run with UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert_eq!(actual, expected, "golden {name} differs");
}

/// A window on `server` running an interactive bash (prompt `$ `) with WTA's
/// shell integration from `wta shell-integration bash`, its rc file in
/// `dir`, held behind the readiness gate `gate` until someone releases it
/// (a watcher attaching, or `tmux wait-for -S gate`). Returns its pane.
pub fn integrated_bash_window(server: &TmuxServer, dir: &Path, gate: &str) -> String {
    let script = server
        .sandbox()
        .command(wta_bin())
        .args(["shell-integration", "bash"])
        .output()
        .unwrap()
        .stdout;
    let rc = dir.join("bashrc");
    let mut content = b"PS1='$ '\n".to_vec();
    content.extend_from_slice(&script);
    std::fs::write(&rc, content).unwrap();
    let rc = rc.to_string_lossy().into_owned();
    let cmd = wta_shell::gated_command(gate, &["bash", "--noprofile", "--rcfile", &rc, "-i"]);
    server.new_window(&cmd)
}
