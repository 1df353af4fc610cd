//! What `wta up` says about the agent it starts (issue 27, item 13): an
//! agent asked for with `--agent` that is not installed is named with its
//! install command and the default agent starts instead (exit 0, as the
//! README says); a second `up` reuses the agent pane that is there and
//! says so, instead of announcing an agent it does not start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::process::Output;
use std::time::Duration;

use launch_common::Launch;
use serde_json::Value;
use wta_testkit::wait_until;

const T: Duration = Duration::from_secs(20);

/// `wta up --detach --json ARGS` with `PATH` (no agent CLI on it).
fn up(l: &mut Launch, args: &[&str]) -> (Value, String) {
    let out: Output = l
        .env
        .command()
        .env("PATH", "/usr/bin:/bin")
        .env("SHELL", "/bin/bash")
        .args(["-L", l.tmux.name(), "up", "--detach", "--json"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    l.master_lock =
        Some(std::path::PathBuf::from(v["master_socket"].as_str().unwrap()).with_extension("lock"));
    (v, stderr)
}

#[test]
fn an_agent_that_is_not_installed_is_named_with_its_install_line_and_the_default_starts() {
    let mut l = Launch::new();
    let (v, stderr) = up(&mut l, &["--agent", "claude"]);
    let started = v["agent"].as_str().unwrap().to_owned();
    assert_ne!(started, "claude", "{v}");
    assert_eq!(
        stderr,
        format!(
            "wta: claude is not installed (install it with \
             `npm install -g @agentclientprotocol/claude-agent-acp`); starting {started} instead\n"
        )
    );
    // The pane runs the agent it said, and works.
    let pane = v["agent_pane"].as_str().unwrap();
    l.tmux.wait_for_text(pane, "Ready", T);
    wait_until("the pane to name its agent", T, || {
        l.tmux.display(pane, "#{@wta_agent}") == started
    })
    .unwrap();

    // Asked again while that pane is there: it is reused, still named.
    let (again, stderr) = up(&mut l, &["--agent", "claude"]);
    assert_eq!(again["created"], false, "{again}");
    assert_eq!(again["agent"], started.as_str(), "{again}");
    assert!(
        stderr.contains("claude is not installed (install it with `npm install -g")
            && stderr.contains(&format!(
                "reused the agent pane {pane} that was there, which keeps running {started}"
            )),
        "{stderr}"
    );

    // A custom agent whose program is missing points at its config entry.
    let mut l = Launch::with_config("[custom_agents.gone]\nargv = [\"/nonexistent/agent\"]\n");
    let (v, stderr) = up(&mut l, &["--agent", "custom:gone"]);
    assert!(
        stderr.contains("custom:gone is not installed (its program is not on PATH: fix custom_agents.gone.argv in ")
            && stderr.contains(&format!("starting {} instead", v["agent"].as_str().unwrap())),
        "{stderr}"
    );
}

#[test]
fn a_second_up_says_it_reused_the_agent_pane_and_starts_nothing() {
    let mut l = Launch::new();
    let (first, _, agent) = l.up_ready("custom:test");
    let (v, stderr) = up(&mut l, &[]);
    assert_eq!(v["created"], false, "{v}");
    assert_eq!(v["agent_pane"], first["agent_pane"], "{v}");
    assert_eq!(v["agent"], "custom:test", "{v}");
    assert!(!stderr.contains("demo"), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "wta: reused the agent pane {agent} that was there, running custom:test \
             (`/agent` in it switches agents); no agent was started\n"
        )
    );
    // Asking for another agent says how to switch instead.
    let (_, stderr) = up(&mut l, &["--agent", "custom:other"]);
    assert!(
        stderr.contains(&format!("the agent pane {agent} already runs custom:test"))
            && stderr.contains("/agent custom:other"),
        "{stderr}"
    );
}
