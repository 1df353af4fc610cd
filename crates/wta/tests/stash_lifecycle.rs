//! A stashed agent pane (issue 12): the private stash session is WTA's own,
//! so no listing shows it; and when the tab the pane belongs to closes while
//! it is stashed, the pane and its helper end (with them its sessions)
//! instead of running on unseen.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::time::Duration;

use launch_common::Launch;
use serde_json::Value;
use wta_testkit::wait_until;

const T: Duration = Duration::from_secs(20);

fn json(l: &Launch, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = l.wta(&all);
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_stashed_pane_is_unlisted_and_ends_with_its_tab() {
    let mut l = Launch::new();
    let (_, shell, agent) = l.up_ready("demo");
    let helper = l.pane_pid(&agent);
    let window = l.tmux.display(&shell, "#{window_id}");
    let stashed = l.pane(&["toggle", "-t", &shell]);
    assert_eq!(stashed["action"], "stashed", "{stashed}");
    assert_eq!(l.tmux.display(&agent, "#{session_name}"), "_wta_stash");

    let sessions = json(&l, &["list-windows"]);
    assert!(
        sessions["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["session_name"] != "_wta_stash"),
        "{sessions}"
    );
    let tabs = json(&l, &["list-tabs", "-a"]);
    assert!(
        tabs["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["tab_name"] != "wta-stash" && t["tab_name"] != "keep"),
        "{tabs}"
    );
    let panes = json(&l, &["list-panes", "-a"]);
    assert!(
        panes["panes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["pane"] != agent),
        "{panes}"
    );

    // The user closes the tab the agent pane belonged to.
    l.tmux.tmux(&["kill-window", "-t", &window]);
    wait_until("the stashed agent pane to end", T, || {
        l.tmux
            .try_tmux(&["display", "-p", "-t", &agent, "#{pane_id}"])
            .is_none_or(|id| id.trim() != agent)
    })
    .unwrap();
    wait_until("its helper to exit", T, || {
        !wta_testkit::procs::running(helper)
    })
    .unwrap();
}
