//! Long-running commands still report (issue 30), end to end: real tmux,
//! master and helper TUI, bash with WTA's integration, the scripted test
//! agent, and `[execution] timeout_secs = 1` with a command that takes
//! three seconds. The agent gets the timed-out answer at the limit (still
//! running, will be reported), the status line shows `▶ command · time`
//! while it runs, and once it ended its exit code and output reach the
//! agent: in the next turn's context (once) for an agent on the CLI path,
//! and from `get_proposal_result` for an agent on the session MCP endpoint.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod pane_tui_common;

use pane_tui_common::{Env, Pane, T, integrated_pane_on};
use wta_testkit::{squeezed, wait_until};

const CONFIG: &str = "[execution]\ntimeout_secs = 1\n";

fn pane() -> Pane {
    integrated_pane_on(Env::with_config(CONFIG), "bash", "custom:test")
}

/// Waits until the status line shows `▶ <command>` with an elapsed time.
fn wait_running(pane: &Pane, command: &str) -> String {
    let want = format!("▶ {command}");
    let mut seen = String::new();
    wait_until(&format!("{want:?} on the status line"), T, || {
        seen = pane.status_line();
        seen.contains(&want) && seen.contains(" · ")
    })
    .unwrap_or_else(|e| panic!("{e}; screen:\n{}", pane.screen()));
    seen
}

/// Waits until no command shows as running.
fn wait_not_running(pane: &Pane) {
    wait_until("no ▶ on the status line", T, || {
        !pane.status_line().contains('▶')
    })
    .unwrap_or_else(|e| panic!("{e}; screen:\n{}", pane.screen()));
}

#[test]
fn the_next_turn_gets_the_exit_code_of_a_command_that_outlived_its_limit() {
    let pane = pane();
    pane.submit("propose-run sleep 3; echo long-d\"\"one; false");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    // At the limit: the agent's answer says it still runs and will be told.
    pane.wait_squeezed(
        "action 1: timed_out: still running when the proposal's execution time limit",
    );
    pane.wait_squeezed("WTA keeps following it and reports its exit code and output when it ends");
    let status = wait_running(&pane, "sleep 3");
    assert!(status.contains(" · "), "{status}");
    // It ends: the transcript says so, the status line clears.
    pane.tmux.wait_for_text(&pane.shell, "long-done", T);
    pane.wait_squeezed("Still-running command ended");
    wait_not_running(&pane);
    // The next turn's context carries it, with exit code and output.
    pane.submit("context /untrusted/long_running");
    let screen = pane.wait_squeezed("context /untrusted/long_running: [{");
    let flat = squeezed(&screen);
    for want in [
        r#""status":"failed""#,
        r#""exit_code":1"#,
        r#""output":"long-done""#,
        // (The transcript's markdown shows `\"` as `"`.)
        r#""command":"sleep3;echolong-d""one;false""#,
    ] {
        assert!(flat.contains(want), "{want} in:\n{screen}");
    }
    // Once: the turn after has nothing more.
    pane.submit("context /untrusted/long_running");
    pane.wait_squeezed("context /untrusted/long_running: absent");
}

#[test]
fn get_proposal_result_gives_the_final_result_instead_of_the_timeout() {
    let pane = pane();
    pane.submit(r#"mcp run_command_in_current_shell {"command":"sleep 3; echo mcp-l\"\"ong","wait_secs":30}"#);
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    // The tool answers at the limit: done, the command still running.
    let screen = pane.wait_squeezed(r#""still_running":true"#);
    let flat = squeezed(&screen);
    assert!(flat.contains(r#""status":"timed_out""#), "{screen}");
    let id: String = flat
        .split(r#""proposal_id":""#)
        .nth(1)
        .unwrap()
        .chars()
        .take(32)
        .collect();
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    wait_running(&pane, "sleep 3");
    // Asked while it runs, the call waits for its end and gives it.
    pane.submit(&format!(
        r#"mcp get_proposal_result {{"proposal_id":"{id}","wait_secs":20}}"#
    ));
    let screen = pane.wait_squeezed(r#""exit_code":0"#);
    let flat = squeezed(&screen);
    let answer = flat
        .rsplit("mcpget_proposal_result:")
        .next()
        .unwrap_or_default();
    for want in [
        r#""status":"completed""#,
        r#""output":"mcp-long""#,
        r#""state":"done""#,
    ] {
        assert!(answer.contains(want), "{want} in:\n{screen}");
    }
    assert!(!answer.contains(r#""still_running":true"#), "{screen}");
    assert!(pane.shell_screen().contains("mcp-long"));
    wait_not_running(&pane);
}
