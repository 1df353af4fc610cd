//! One target flag: every command that acts on a pane takes `-t/--target
//! PANE`; `--pane` (the old name of `pane …` and `delegate`) still works as
//! a hidden alias, and `--help` shows only `-t`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::*;
use wta_testkit::TmuxServer;

/// The commands that act on one pane (`-t PANE`).
const PANE_COMMANDS: &[&[&str]] = &[
    &["pane", "open"],
    &["pane", "toggle"],
    &["pane", "close"],
    &["pane", "prewarm"],
    &["delegate"],
    &["fix"],
    &["listen"],
    &["capture-pane"],
    &["kill-pane"],
    &["pane-status"],
    &["wait-for"],
    &["split-pane"],
];

/// `--pane` as a flag (not the start of `--panel`).
fn names_old_flag(text: &str) -> bool {
    text.match_indices("--pane")
        .any(|(at, _)| !text[at + 6..].starts_with(|c: char| c.is_ascii_alphanumeric()))
}

fn help(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.push("--help");
    ok(wta_clean(dir.path()).args(&all).output().unwrap())
}

#[test]
fn every_pane_command_shows_t_and_never_the_old_pane_flag() {
    for command in PANE_COMMANDS {
        let text = help(command);
        assert!(
            text.contains("-t, --target <PANE>"),
            "{command:?} --help:\n{text}"
        );
        assert!(!names_old_flag(&text), "{command:?} --help:\n{text}");
    }
    // A tab, named as the tables name it; `--window` is hidden too.
    let prewarm = help(&["pane", "prewarm"]);
    assert!(prewarm.contains("--tab <TAB>"), "{prewarm}");
    assert!(!prewarm.contains("--window"), "{prewarm}");
}

#[test]
fn the_hidden_pane_alias_still_names_the_pane() {
    let server = TmuxServer::start();
    let pane = server.first_pane();
    // The same pane whichever flag names it: no agent pane there to close.
    for flag in ["-t", "--target", "--pane"] {
        let out = ok_json(wta_named(&server, &["--json", "pane", "close", flag, pane]));
        assert_eq!(out["action"], "nothing_to_close", "{flag}: {out}");
    }
    // The value reaches the command: a pane that does not exist is named.
    for flag in ["-t", "--pane"] {
        let out = wta_named(&server, &["pane", "close", flag, "%99"]);
        assert_eq!(out.status.code(), Some(1), "{flag}: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("%99"), "{flag}: {said}");
    }
    // `delegate --pane` too: the task is refused after the pane was read.
    for flag in ["-t", "--pane"] {
        let out = wta_named(&server, &["delegate", flag, "%99", "x"]);
        assert_eq!(out.status.code(), Some(1), "{flag}: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("%99"), "{flag}: {said}");
    }
}

#[test]
fn outside_tmux_a_missing_pane_is_asked_for_with_t() {
    let server = TmuxServer::start();
    // No `$TMUX_PANE`: each command that needs a pane says to name it with -t.
    for command in [
        &["pane", "close"][..],
        &["pane", "toggle"],
        &["kill-pane"],
        &["fix"],
        &["delegate", "--panel", "x"],
    ] {
        let out = wta_named(&server, command);
        assert_eq!(out.status.code(), Some(1), "{command:?}: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("-t %N"), "{command:?}: {said}");
        assert!(!names_old_flag(&said), "{command:?}: {said}");
    }
}
