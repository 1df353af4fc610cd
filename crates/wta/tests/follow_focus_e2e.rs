//! Follow focus (issue 30), end to end: real tmux, master and helper TUI,
//! two bash panes with WTA's integration, the scripted test agent and
//! `[pane] follow_focus = true`. Focusing the other shell makes it the
//! target (the status line names it) and later turns' cards run there (and
//! the agent's terminals split below it), while a card proposed before the
//! switch still runs in the pane it was proposed for. (Focus on the agent pane, a program that is not a shell, and the
//! setting off leave the target: `machine::focus` and
//! `runtime::follow_focus` unit tests.)

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod pane_tui_common;

use pane_tui_common::{Env, Pane, T, integrated_pane_on};
use wta_testkit::{wait_for_value, wait_until};

fn wait_target(pane: &Pane, target: &str) {
    let want = format!("{target} ");
    wait_until(&format!("the status line names {target}"), T, || {
        pane.status_line().contains(&want)
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
    let second = pane.split_integrated_shell("bash");
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
    // An agent terminal made now goes below the new target, not the old.
    let tops = |p: &str| pane.tmux.display(p, "#{pane_top} #{pane_left}");
    let before: Vec<String> = panes(&pane);
    pane.submit(r#"terminal-ops {"create": {"command": "echo term-here; exec sleep 30"}, "ops": ["output"]}"#);
    let made = wait_for_value("the agent's terminal pane", T, || {
        panes(&pane).into_iter().find(|p| !before.contains(p))
    })
    .unwrap();
    pane.tmux.wait_for_text(&made, "term-here", T);
    let (made_at, second_at) = (tops(&made), tops(&second));
    let top = |at: &str| at.split(' ').next().unwrap().parse::<u32>().unwrap();
    let left = |at: &str| at.split(' ').nth(1).unwrap().to_owned();
    assert!(
        top(&made_at) > top(&second_at) && left(&made_at) == left(&second_at),
        "the terminal {made} (top, left: {made_at}) goes below the new target {second} ({second_at})"
    );
}

/// The ids of the panes of the agent pane's window.
fn panes(pane: &Pane) -> Vec<String> {
    pane.tmux
        .tmux(&["list-panes", "-t", &pane.pane, "-F", "#{pane_id}"])
        .lines()
        .map(str::to_owned)
        .collect()
}
