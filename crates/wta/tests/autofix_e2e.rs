//! Autofix end to end in real tmux with bash, zsh and fish: a second
//! integrated shell in the agent pane's tab fails a command, the agent pane
//! shows the pill (Ctrl+C does not), `wta fix` starts the fix turn, the
//! scripted agent (its "model" decision given as the hint) proposes one
//! `send`, the card is bound to the failing pane, not the target pane, and
//! nothing runs until it is confirmed; the execution lines go back to the
//! agent.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod pane_tui_common;

use pane_tui_common::{
    Env, Pane, T, WTA, integrated_pane_for, integrated_pane_in, integrated_pane_on,
};
use wta_testkit::wait_until;

/// A second integrated shell in the agent pane's tab, below the target.
fn second_shell(pane: &Pane, shell: &str) -> String {
    let other = pane.split_integrated_shell(shell);
    // The agent pane follows it once its tab scan saw it (the pipe is on).
    wait_until("the agent pane to follow the second shell", T, || {
        pane.tmux.display(&other, "#{pane_pipe}") == "1"
    })
    .unwrap();
    other
}

fn last_exit(pane: &Pane, target: &str) -> Option<i64> {
    let record = pane.tmux.try_tmux(&[
        "show-options",
        "-p",
        "-v",
        "-t",
        target,
        "@wta_last_command",
    ])?;
    let record: serde_json::Value = serde_json::from_str(record.trim()).ok()?;
    record["exit_code"].as_i64()
}

fn wta(pane: &Pane, args: &[&str]) -> std::process::Output {
    pane.env
        .command()
        .arg("-L")
        .arg(pane.tmux.name())
        .args(args)
        .output()
        .unwrap()
}

fn a_failure_offers_a_fix_bound_to_the_failing_pane(shell: &str) {
    let pane = integrated_pane_in(shell);
    // The tab knows its agent pane (as `wta pane open` records it).
    pane.tmux.tmux(&[
        "set-option",
        "-w",
        "-t",
        &pane.shell,
        "@wta_agent_pane",
        &pane.pane,
    ]);
    let other = second_shell(&pane, shell);

    // Ctrl+C is the user's choice, not a failure.
    pane.tmux.type_line(&other, "sleep 30");
    wait_until("sleep to run", T, || {
        pane.tmux.display(&other, "#{pane_current_command}") == "sleep"
    })
    .unwrap();
    pane.tmux.tmux(&["send-keys", "-t", &other, "C-c"]);
    wait_until("the interrupted command recorded", T, || {
        last_exit(&pane, &other) == Some(130)
    })
    .unwrap();
    pane.submit("echo after ctrl-c");
    pane.wait_for("• after ctrl-c");
    assert!(!pane.screen().contains("Ctrl+F fix"), "{}", pane.screen());

    // A failure: the pill says what, where, and the key.
    pane.tmux.type_line(&other, "false");
    let screen = pane.wait_squeezed(&format!("✗ exit 1 in {other} · Ctrl+F fix"));
    assert!(!screen.contains(&format!("in {}", pane.shell)), "{screen}");

    // `wta fix` for that pane; the hint is the scripted "model's" decision.
    let out = wta(
        &pane,
        &[
            "fix",
            "-t",
            &other,
            "--hint",
            "propose-run echo fixed-4\"\"2",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    pane.wait_squeezed(&format!("Fix: `false` failed (exit 1) in {other}"));
    let card = pane.wait_armed_card(" Run ");
    assert!(
        card.contains(&other),
        "the card names the failing pane:\n{card}"
    );
    // Nothing ran before the confirmation.
    assert!(!pane.tmux.capture(&other).contains("fixed-42"));
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&other, "fixed-42", T);
    assert!(
        !pane.tmux.capture(&pane.shell).contains("fixed-42"),
        "never the target pane"
    );
    pane.wait_squeezed("[CLI: validation accepted, final confirmed, execution completed; exit 0]");
}

#[test]
fn bash_a_failure_offers_a_fix_bound_to_the_failing_pane() {
    a_failure_offers_a_fix_bound_to_the_failing_pane("bash");
}

#[test]
fn zsh_a_failure_offers_a_fix_bound_to_the_failing_pane() {
    a_failure_offers_a_fix_bound_to_the_failing_pane("zsh");
}

#[test]
fn fish_a_failure_offers_a_fix_bound_to_the_failing_pane() {
    a_failure_offers_a_fix_bound_to_the_failing_pane("fish");
}

/// The offline demo agent answers a command not found with the nearest
/// name WTA's lookup found, on a card bound to the failing pane.
#[test]
fn the_demo_agent_corrects_a_command_not_found() {
    let pane = integrated_pane_for("bash", "demo");
    pane.tmux.tmux(&[
        "set-option",
        "-w",
        "-t",
        &pane.shell,
        "@wta_agent_pane",
        &pane.pane,
    ]);
    let other = second_shell(&pane, "bash");
    pane.tmux.type_line(&other, "ehco fixed-by-demo");
    wait_until("the failure recorded", T, || {
        last_exit(&pane, &other) == Some(127)
    })
    .unwrap();
    pane.wait_squeezed(&format!("✗ exit 127 in {other}"));
    pane.keys(&["C-f"]);
    let card = pane.wait_armed_card(" Run ");
    assert!(card.contains("echo fixed-by-demo"), "{card}");
    assert!(card.contains(&other), "{card}");
    pane.keys(&["Enter"]);
    wait_until("the corrected command ran", T, || {
        pane.tmux
            .capture(&other)
            .lines()
            .any(|l| l.trim() == "fixed-by-demo")
    })
    .unwrap();
    pane.wait_squeezed("exit 0");
}

/// `[autofix] mode = "auto"` starts the fix turn at once, and with yolo on
/// the card still waits: a fix never runs unconfirmed. Declining it leaves
/// the pane as it was.
#[test]
fn auto_mode_with_yolo_still_waits_for_the_card() {
    let env = Env::with_config("[autofix]\nmode = \"auto\"\n");
    let pane = integrated_pane_on(env, "bash", "custom:test");
    pane.submit("/yolo on");
    pane.wait_for("yolo on");
    let other = second_shell(&pane, "bash");
    // The scripted "model" proposes what the failed command line says.
    pane.tmux
        .type_line(&other, "false # propose-run echo auto-4\"\"2");
    let card = pane.wait_armed_card(" Run ");
    assert!(card.contains(&other), "{card}");
    assert!(!pane.tmux.capture(&other).contains("auto-42"));
    pane.keys(&["Escape"]);
    pane.wait_squeezed("final cancelled");
    assert!(
        !pane.tmux.capture(&other).contains("auto-42"),
        "declined: nothing ran"
    );
}

#[test]
fn wta_fix_without_an_agent_pane_says_how_to_get_one() {
    let tmux = wta_testkit::TmuxServer::start();
    let out = tmux
        .sandbox()
        .command(WTA)
        .args(["-L", tmux.name(), "fix", "-t", tmux.first_pane()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no agent pane") && err.contains("wta pane open"),
        "{err}"
    );
}
