//! Warm helpers (`[autofix] prewarm = true`): `wta up` gives the session a
//! hook, a tab created later gets a hidden agent pane at once, its helper
//! follows the tab's shell, and a failure there is told in the user's tmux
//! client (a real client, attached from a pane of a second private server)
//! before the pane was ever shown. `wta pane open` then shows the pane with
//! the failure's pill, and Ctrl+F starts the fix turn (the demo agent
//! explains it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::time::Duration;

use launch_common::Launch;
use wta_testkit::{TmuxServer, squeezed, wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);

/// A bash with WTA's integration and a plain prompt, as a pane command.
fn integrated_bash(l: &Launch) -> String {
    let script = l
        .env
        .command()
        .args(["shell-integration", "bash"])
        .output()
        .unwrap();
    let rc = l.env.path("home/warm-bashrc");
    let text = format!("PS1='$ '\n{}", String::from_utf8_lossy(&script.stdout));
    std::fs::write(&rc, text).unwrap();
    format!("bash --noprofile --rcfile '{}' -i", rc.display())
}

fn squeezed_screen(tmux: &TmuxServer, pane: &str) -> String {
    squeezed(&tmux.capture(pane))
}

#[test]
fn a_tab_created_later_is_prewarmed_and_its_failure_is_told_while_hidden() {
    let mut l = Launch::with_config("[autofix]\nprewarm = true\n");
    let (up, _, _) = l.up_ready("demo");
    let session = up["session_name"].as_str().unwrap().to_owned();

    // A new tab, created as the user would (the hook does the rest).
    let command = integrated_bash(&l);
    let window = l
        .tmux
        .tmux(&[
            "new-window",
            "-d",
            "-t",
            &format!("{session}:"),
            "-P",
            "-F",
            "#{window_id}",
            &command,
        ])
        .trim()
        .to_owned();
    let shell = l.tmux.display(&window, "#{pane_id}");
    let warm = wait_for_value("the new tab's hidden agent pane", T, || {
        let v = l
            .tmux
            .try_tmux(&["show-options", "-w", "-v", "-t", &window, "@wta_agent_pane"])?;
        Some(v.trim().to_owned()).filter(|v| !v.is_empty())
    })
    .unwrap();
    assert_eq!(l.tmux.display(&warm, "#{session_name}"), "_wta_stash");
    assert_eq!(
        l.tmux
            .tmux(&["list-panes", "-t", &window, "-F", "#{pane_id}"])
            .trim(),
        shell,
        "the user's tab is untouched"
    );
    wait_until("the hidden helper to follow the new shell", T, || {
        l.tmux.display(&shell, "#{pane_pipe}") == "1"
    })
    .unwrap();

    // The user's client, on that tab.
    let viewer = TmuxServer::start_with(&format!(
        "env -u TMUX tmux -S '{}' attach -t '{window}'",
        l.tmux.socket().display()
    ));
    let client = viewer.first_pane().to_owned();
    wait_until("the client to show the tab", T, || {
        viewer.capture(&client).contains('$')
    })
    .unwrap();

    l.tmux.type_line(&shell, "false");
    let told = format!("wta: `false` failed (exit 1) in {shell}");
    wait_until("tmux to tell the user", T, || {
        squeezed_screen(&viewer, &client).contains(&squeezed(&told))
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", viewer.capture(&client)));

    // Shown: the pill is there, and Ctrl+F asks for the fix.
    let opened = l.pane(&["open", "-t", &shell]);
    assert_eq!(opened["action"], "restored", "{opened}");
    assert_eq!(opened["pane"], warm.as_str());
    let pill = squeezed(&format!("✗ exit 1 in {shell} · Ctrl+F fix"));
    wait_until("the pill", T, || {
        squeezed_screen(&l.tmux, &warm).contains(&pill)
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&warm)));
    l.tmux.tmux(&["send-keys", "-t", &warm, "C-f"]);
    let asked = squeezed(&format!("Fix: `false` failed (exit 1) in {shell}"));
    wait_until("the fix turn", T, || {
        squeezed_screen(&l.tmux, &warm).contains(&asked)
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&warm)));
    drop(viewer);
}

#[test]
fn prewarm_reports_each_tab_and_is_idempotent() {
    let mut l = Launch::new();
    let (_, shell, agent) = l.up_ready("demo");
    let second = l
        .tmux
        .tmux(&[
            "new-window",
            "-d",
            "-t",
            &format!("{}:", l.tmux.display(&shell, "#{session_name}")),
            "-P",
            "-F",
            "#{window_id}",
        ])
        .trim()
        .to_owned();
    let out = l.wta(&[
        "--json", "pane", "prewarm", "--all", "-t", &shell, "--agent", "demo",
    ]);
    assert!(out.status.success(), "{out:?}");
    let tabs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tabs = tabs["tabs"].as_array().unwrap();
    assert_eq!(tabs.len(), 2, "{tabs:?}");
    let first = tabs.iter().find(|t| t["action"] == "present").unwrap();
    assert_eq!(first["pane"], agent.as_str());
    let started = tabs.iter().find(|t| t["action"] == "started").unwrap();
    assert_eq!(started["tab"], second.as_str());
    let warm = started["pane"].as_str().unwrap().to_owned();
    assert_eq!(l.tmux.display(&warm, "#{session_name}"), "_wta_stash");

    // Again: nothing new.
    let again = l.wta(&["pane", "prewarm", "--tab", &second]);
    assert!(again.status.success(), "{again:?}");
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(
        text.contains(&format!("already has agent pane {warm}")),
        "{text}"
    );
}
