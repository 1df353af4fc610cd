//! The CLI's behaviour on bad input and missing pieces: clear messages,
//! documented exit statuses, no panics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::os::unix::fs::PermissionsExt;

use support::*;
use wta_testkit::TmuxServer;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bare_wta_names_what_to_run_instead() {
    let dir = tempfile::tempdir().unwrap();
    let out = wta_clean(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("wta up") && err.contains("wta --help"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn help_lists_every_command_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = wta_clean(dir.path()).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for cmd in [
        "list-windows",
        "list-tabs",
        "list-panes",
        "active-pane",
        "new-tab",
        "split-pane",
        "capture-pane",
        "kill-pane",
        "pane-status",
        "wait-for",
        "info",
    ] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(cmd))
            .unwrap_or_else(|| panic!("{cmd} missing:\n{help}"));
        assert!(
            line.len() > cmd.len() + 10,
            "{cmd} has no description: {line:?}"
        );
    }
    // -h stays help everywhere: split-pane uses -H/-V.
    let split = wta_clean(dir.path())
        .args(["split-pane", "-h"])
        .output()
        .unwrap();
    assert!(split.status.success());
    assert!(String::from_utf8_lossy(&split.stdout).contains("-H, --horizontal"));
}

#[test]
fn outside_tmux_with_no_server_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = wta_clean(dir.path()).arg("list-panes").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("not inside tmux") && err.contains("-L NAME"),
        "{err}"
    );

    let named = wta_clean(dir.path())
        .args(["-L", "wta-test-no-such-server", "lsw"])
        .output()
        .unwrap();
    assert_eq!(named.status.code(), Some(2));
    assert!(
        stderr(&named).contains("no tmux server is running"),
        "{}",
        stderr(&named)
    );
}

#[test]
fn unknown_pane_is_named_and_bad_ids_are_usage_errors() {
    let server = TmuxServer::start();
    for args in [
        &["capture-pane", "-t", "%99"][..],
        &["capture-pane", "--last-command", "-t", "%99"],
        &["listen", "-t", "%99"],
        &["kill-pane", "-t", "%99"],
        &["pane-status", "-t", "%99"],
    ] {
        let out = wta_named(&server, args);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("pane %99 does not exist"),
            "{}",
            stderr(&out)
        );
    }
    let bad = wta_named(&server, &["kill-pane", "-t", "@3"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("is not a tmux pane id"),
        "{}",
        stderr(&bad)
    );
    let missing_dir = wta_named(&server, &["new-tab", "-d", "/no/such/dir"]);
    assert_eq!(missing_dir.status.code(), Some(1));
    assert!(stderr(&missing_dir).contains("/no/such/dir does not exist"));
    for timeout in ["1e20", "-1", "NaN", "inf"] {
        let pane = server.first_pane().to_owned();
        let flag = format!("--timeout={timeout}");
        let out = wta_named(&server, &["wait-for", "-t", &pane, &flag]);
        assert_eq!(out.status.code(), Some(2), "{timeout}: {}", stderr(&out));
        assert!(stderr(&out).contains("--timeout"), "{}", stderr(&out));
    }
    let no_caller = wta_named(&server, &["kill-pane"]);
    assert!(
        stderr(&no_caller).contains("not inside a tmux pane"),
        "{}",
        stderr(&no_caller)
    );
    // Nothing was created or killed by the failures above.
    assert_eq!(
        server
            .tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
            .lines()
            .count(),
        1
    );
}

#[test]
fn missing_tmux_gives_the_install_hint() {
    let dir = tempfile::tempdir().unwrap();
    let out = wta_clean(dir.path())
        .env("PATH", dir.path())
        .args(["--socket", "/tmp/nowhere", "list-panes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("tmux is not installed") && err.contains("apt-get install tmux"),
        "{err}"
    );
}

#[test]
fn tmux_older_than_3_2_is_reported_as_such() {
    // An old tmux cannot be installed here; this stand-in answers `-V` like
    // tmux 3.1c and fails every command like an old tmux meeting new flags.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("tmux");
    std::fs::write(&fake, "#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'tmux 3.1c'; exit 0; fi\necho 'unknown flag -p' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = wta_clean(dir.path())
        .env("PATH", format!("{}:/usr/bin:/bin", dir.path().display()))
        .args(["--socket", "/tmp/nowhere", "list-panes"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(
        err.contains("tmux 3.1c is too old") && err.contains("3.2"),
        "{err}"
    );
}

#[test]
fn tabs_and_windows_are_named_by_id_or_name_and_bad_ones_say_what_is_accepted() {
    let server = TmuxServer::start();
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "other",
        "-n",
        "logs",
        "sleep 600",
    ]);
    // list-panes -t: a tab's name as well as @N and %N.
    let by_name = ok_json(wta_named(&server, &["lsp", "-t", "logs", "--json"]));
    assert_eq!(by_name["panes"].as_array().unwrap().len(), 1, "{by_name}");
    assert_eq!(by_name["panes"][0]["tab_name"], "logs");
    let bad = wta_named(&server, &["list-panes", "-t", "foo"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = stderr(&bad);
    assert_eq!(err.lines().count(), 1, "{err}");
    for form in ["`@N`", "`%N`", "a tab's name", "\"foo\""] {
        assert!(err.contains(form), "{form} missing: {err}");
    }
    // new-tab -w takes a window (session) name, as list-tabs -w does.
    let opened = ok_json(wta_named(
        &server,
        &["new-tab", "-w", "other", "-c", "sleep 600", "--json"],
    ));
    let other_id = server.tmux(&["display", "-p", "-t", "other:", "#{session_id}"]);
    assert_eq!(opened["session"], other_id.trim(), "{opened}");
    let tabs = ok_json(wta_named(&server, &["lst", "-w", "other", "--json"]));
    assert_eq!(tabs["tabs"].as_array().unwrap().len(), 2, "{tabs}");
    let missing = wta_named(&server, &["new-tab", "-w", "nosuch", "-c", "true"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("session nosuch does not exist"),
        "{}",
        stderr(&missing)
    );
}
