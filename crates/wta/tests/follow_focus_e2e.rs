//! Follow focus (issue 30), end to end: real tmux, master and helper TUI,
//! two bash panes with WTA's integration, the scripted test agent and
//! `[pane] follow_focus = true`. Focusing the other shell makes it the
//! target (the status line names it) and later turns' cards run there, while
//! a card proposed before the switch still runs in the pane it was proposed
//! for. (Focus on the agent pane, a program that is not a shell, and the
//! setting off leave the target: `machine::focus` and
//! `runtime::follow_focus` unit tests.)

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod pane_tui_common;

use pane_tui_common::{Env, Pane, T, integrated_pane_on, integrated_shell};
use wta_testkit::wait_until;

/// A second integrated bash in the target's tab, not focused; its id once
/// it announced its integration.
fn second_shell(pane: &Pane) -> String {
    let command = integrated_shell(&pane.env, "bash");
    let id = pane
        .tmux
        .tmux(&[
            "split-window",
            "-d",
            "-v",
            "-t",
            &pane.shell,
            "-P",
            "-F",
            "#{pane_id}",
            &command,
        ])
        .trim()
        .to_owned();
    wait_until("the second shell announces its integration", T, || {
        pane.tmux
            .try_tmux(&["show-options", "-p", "-v", "-t", &id, "@wta_integration"])
            .is_some_and(|v| !v.trim().is_empty())
    })
    .unwrap_or_else(|e| panic!("{e}; screen:\n{}", pane.tmux.capture(&id)));
    id
}

/// The agent pane's status line (its last line).
fn status_line(pane: &Pane) -> String {
    let screen = pane.screen();
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_owned()
}

fn wait_target(pane: &Pane, target: &str) {
    let want = format!("{target} ");
    wait_until(&format!("the status line names {target}"), T, || {
        status_line(pane).contains(&want)
    })
    .unwrap_or_else(|e| panic!("{e}; screen:\n{}", pane.screen()));
}

fn confirm(pane: &Pane) {
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
}

#[test]
fn the_target_follows_the_focus_and_a_card_stays_with_its_pane() {
    let env = Env::with_config("[pane]\nfollow_focus = true\n");
    let pane = integrated_pane_on(env, "bash", "custom:test");
    let first = pane.shell.clone();
    let second = second_shell(&pane);
    wait_target(&pane, &first);
    // A card for the first shell, then the focus moves before it is confirmed.
    pane.submit("propose-run echo old-p\"\"ane");
    pane.wait_armed_card(" Run ");
    pane.tmux.tmux(&["select-pane", "-t", &second]);
    wait_target(&pane, &second);
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&first, "old-pane", T);
    pane.wait_squeezed("action 1: the command succeeded");
    assert!(
        !pane.tmux.capture(&second).contains("old-pane"),
        "the card ran in the pane it was proposed for"
    );
    // The next turn's card goes to the focused shell.
    pane.submit("propose-run echo new-p\"\"ane");
    confirm(&pane);
    pane.tmux.wait_for_text(&second, "new-pane", T);
    assert!(!pane.tmux.capture(&first).contains("new-pane"));
}
