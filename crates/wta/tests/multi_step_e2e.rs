//! Multi-step turns end to end (issue 19): after each confirmed exchange the
//! CLI's last line is a fresh channel for the same turn, so the agent goes
//! on (the scripted agent's `propose-chain`, the demo's `run A, then B`),
//! every step still on a card; the turn's budget ends the chain with a
//! reason, and stopping the turn ends it at once.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod pane_tui_common;

use pane_tui_common::{Env, Pane, integrated_pane_for, integrated_pane_in, integrated_pane_on};

/// Confirms the card that is up, once it takes keys, and waits for `output`
/// in the shell.
fn confirm(pane: &Pane, output: &str) {
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.tmux
        .wait_for_text(&pane.shell, output, pane_tui_common::T);
}

#[test]
fn one_turn_runs_three_confirmed_steps() {
    let pane = integrated_pane_in("bash");
    pane.submit("propose-chain echo step-1-o\"\"k ;; false ;; echo step-3-o\"\"k");
    confirm(&pane, "step-1-ok");
    pane.wait_squeezed("step 1: the user confirmed choice 1; action 1: the command succeeded");
    // A failed step does not end the turn: the agent goes on.
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.wait_squeezed("step 2: the user confirmed choice 1; action 1: it failed with exit 1");
    confirm(&pane, "step-3-ok");
    pane.wait_squeezed("chain done");
}

#[test]
fn the_budget_ends_the_chain_and_says_why() {
    let env = Env::with_config("[proposals]\nper_turn = 2\n");
    let pane = integrated_pane_on(env, "bash", "custom:test");
    pane.submit("propose-chain echo b-1-o\"\"k ;; echo b-2-o\"\"k ;; echo b-3-o\"\"k");
    confirm(&pane, "b-1-ok");
    confirm(&pane, "b-2-ok");
    pane.wait_squeezed("chain ended: this turn's 2 proposals are spent");
    assert!(!pane.shell_screen().contains("b-3-ok"));
}

#[test]
fn stopping_the_turn_ends_the_chain_at_once() {
    let pane = integrated_pane_in("bash");
    pane.submit("propose-chain echo s-1-o\"\"k ;; echo s-2-o\"\"k");
    confirm(&pane, "s-1-ok");
    pane.wait_armed_card(" Run ");
    // Ctrl+C stops the turn (the card owns Enter and Esc, so `/stop` typed
    // now would not reach the prompt); the second card goes with it.
    pane.keys(&["C-c"]);
    pane.wait_squeezed("step 2: the proposal ended: cancelled");
    assert!(
        !pane.shell_screen().contains("s-2-ok"),
        "nothing of step 2 ran"
    );
}

#[test]
fn the_demo_agent_runs_a_two_step_task() {
    let pane = integrated_pane_for("bash", "demo");
    pane.submit("run echo d-1-o\"\"k, then echo d-2-o\"\"k");
    confirm(&pane, "d-1-ok");
    pane.wait_squeezed("Next step: echo d-2-o\"\"k.");
    confirm(&pane, "d-2-ok");
    pane.wait_squeezed("echo d-2-o\"\"k completed with exit code 0.");
}
