//! Commands run from a plain terminal (issue 26 item 4): no `$TMUX`, the
//! server named with `-L`, no session named. New tabs (`new-tab`,
//! `delegate`) and `active-pane` go to the session attached last, and say
//! which on stderr; when that cannot be told they ask for the flag the
//! command takes. Never to WTA's hidden `_wta_stash`, which tmux itself
//! would pick when it is the session active last.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::ffi::OsString;
use std::process::Output;
use std::time::Duration;

use launch_common::Launch;
use serde_json::Value;
use wta_testkit::{TmuxServer, wait_until};

const T: Duration = Duration::from_secs(10);
const STASH: &str = "_wta_stash";

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "wta failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not only JSON ({e}): {out:?}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A session `name` on `l`'s server, created now (so active last).
fn session(l: &Launch, name: &str) -> String {
    l.tmux
        .tmux(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-P",
            "-F",
            "#{session_id}",
            "bash --norc --noprofile",
        ])
        .trim()
        .to_owned()
}

/// `wta --json delegate --agent gemini TASK` where gemini is not installed:
/// a tab that says how to install it (no agent CLI runs).
fn delegate(l: &Launch, task: &str) -> Output {
    let mut path = OsString::from(l.env.path("no-clis-here"));
    path.push(":/usr/local/bin:/usr/bin:/bin");
    l.env
        .command()
        .env("PATH", path)
        .arg("-L")
        .arg(l.tmux.name())
        .args(["--json", "delegate", "--agent", "gemini", task])
        .output()
        .unwrap()
}

fn session_of(l: &Launch, target: &str) -> String {
    l.tmux.display(target, "#{session_name}")
}

fn windows_of(l: &Launch, session: &str) -> usize {
    l.tmux
        .tmux(&["list-windows", "-t", &format!("={session}")])
        .lines()
        .count()
}

#[test]
fn new_tabs_and_the_active_pane_are_the_session_attached_last_never_the_stash() {
    let l = Launch::new();
    // A terminal attached to `main` (a client in a pane of an outer server).
    let _terminal = TmuxServer::start_with(&format!(
        "env -u TMUX -u TMUX_PANE tmux -S {} attach -t main",
        wta_host::sh_quote(&l.tmux.socket().to_string_lossy())
    ));
    wait_until("the terminal attached", T, || {
        l.tmux
            .tmux(&["list-clients", "-F", "#{client_session}"])
            .trim()
            == "main"
    })
    .unwrap();
    let main = l.tmux.display(l.tmux.first_pane(), "#{session_id}");
    session(&l, "other");
    session(&l, STASH);
    // What tmux picks for a command without a target: the stash (the
    // session active last), where a tab would open out of sight.
    assert_eq!(
        l.tmux.tmux(&["display", "-p", "#{session_name}"]).trim(),
        STASH
    );

    let out = l.wta(&["--json", "new-tab"]);
    let opened = json(&out);
    assert_eq!(opened["session"], main.as_str(), "{opened}");
    let mut keys: Vec<&String> = opened.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["pane", "schema_version", "session", "tab"],
        "the choice is said on stderr, not in the JSON"
    );
    let said = stderr(&out);
    assert!(
        said.contains("main") && said.contains("attached last"),
        "{said}"
    );
    assert_eq!(session_of(&l, opened["pane"].as_str().unwrap()), "main");

    let out = delegate(&l, "explain the build");
    let done = json(&out);
    assert_eq!(
        session_of(&l, done["tab"].as_str().unwrap()),
        "main",
        "{done}"
    );
    assert!(stderr(&out).contains("attached last"), "{}", stderr(&out));

    let out = l.wta(&["--json", "active-pane"]);
    let pane = json(&out);
    assert_eq!(pane["session_name"], "main", "{pane}");
    assert!(stderr(&out).contains("main"), "{}", stderr(&out));
    assert_eq!(windows_of(&l, STASH), 1, "nothing opened in the stash");
}

#[test]
fn with_several_sessions_none_ever_attached_each_command_asks_for_its_flag() {
    let l = Launch::new();
    session(&l, "other");
    session(&l, STASH);
    let before = l.tmux.tmux(&["list-windows", "-a"]).lines().count();
    for (out, flag) in [
        (l.wta(&["new-tab"]), "-w SESSION"),
        (delegate(&l, "explain"), "-t %N"),
        (l.wta(&["active-pane"]), "run it in a tmux pane"),
    ] {
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let said = stderr(&out);
        assert!(
            said.contains("cannot tell which session") && said.contains(flag),
            "{said}"
        );
        assert!(out.stdout.is_empty(), "{out:?}");
    }
    assert_eq!(
        l.tmux.tmux(&["list-windows", "-a"]).lines().count(),
        before,
        "no tab opened anywhere"
    );
    // Named, it works.
    let opened = json(&l.wta(&["--json", "new-tab", "-w", "other"]));
    assert_eq!(session_of(&l, opened["pane"].as_str().unwrap()), "other");
}

#[test]
fn the_only_session_besides_the_stash_is_the_one_even_never_attached() {
    let l = Launch::new();
    session(&l, STASH);
    assert_eq!(
        l.tmux.tmux(&["display", "-p", "#{session_name}"]).trim(),
        STASH
    );
    let out = l.wta(&["--json", "new-tab"]);
    let opened = json(&out);
    assert_eq!(session_of(&l, opened["pane"].as_str().unwrap()), "main");
    assert!(stderr(&out).contains("the only one"), "{}", stderr(&out));
    let pane = json(&l.wta(&["--json", "active-pane"]));
    assert_eq!(pane["session_name"], "main", "{pane}");
    assert_eq!(windows_of(&l, STASH), 1, "nothing opened in the stash");
}
