//! A config file with mistakes, as the user meets it: the agent pane (the
//! scripted test agent, started by `wta up`) says every problem once as it
//! starts, with its line, and still works with the defaults; `wta doctor`
//! then lists the same problems, finds the master `wta up` started (its
//! socket, pid and this wta's version) and exits 1 for the config.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::time::Duration;

use launch_common::Launch;
use serde_json::Value;

const T: Duration = Duration::from_secs(20);

/// Prepended to the fixture's config (its `[custom_agents.*]` come after).
const MISTAKES: &str =
    "language = \"xx\"\n[autofix]\nmode = \"always\"\n[execution]\ntimeout_secs = \"x\"\n";

#[test]
fn the_pane_says_the_config_problems_once_and_doctor_lists_them() {
    let mut l = Launch::with_config(MISTAKES);
    let (up, _shell, pane) = l.up_ready("custom:test");
    let screen = l
        .tmux
        .wait_for_texts(&pane, &["problems", "always", "timeout_secs", "xx"], T);
    // Said once, not once per problem or per reconnect.
    assert_eq!(screen.matches("always").count(), 1, "{screen}");
    assert!(screen.contains("config.toml:1:"), "{screen}");
    // The pane works on with the defaults: a prompt gets its answer.
    l.say(&pane, "echo hello from the test agent");
    l.tmux.wait_for_text(&pane, "hello from the test agent", T);

    let out = l.wta(&["doctor", "--json", "--version-timeout", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks = report["checks"].as_array().unwrap();
    let check = |id: &str| checks.iter().find(|c| c["id"] == id).unwrap();
    let config = check("config");
    assert_eq!(config["status"], "fail");
    let lines: Vec<u64> = config["data"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [1, 3, 5]);
    let master = check("master");
    assert_eq!(master["status"], "ok", "{master:#}");
    assert_eq!(master["data"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        master["data"]["pid"].as_i64().unwrap(),
        i64::from(l.master_pid())
    );
    assert_eq!(master["data"]["socket"], up["master_socket"]);
    // The custom agent is installed; whether it is signed in WTA cannot tell.
    let agent = check("agent:custom:test");
    assert_eq!(agent["data"]["installed"], true);
    assert_eq!(agent["data"]["sign_in"], "unknown");
}
