//! `wta popup` end to end (issue 30): a private tmux server with WTA's
//! key bindings (`wta tmux-config`) and a real terminal attached to it (a
//! client running in a pane of a second private server, whose screen is
//! what the user sees), `wta up` with the scripted test agent:
//!
//! - `prefix P` in the shell shows the tab's agent pane (the same helper,
//!   its transcript) in a popup over the shell; a prompt typed there is
//!   answered by the same session; `prefix P` in the popup closes it and
//!   the pane is back beside the shell at its size, the shell still
//!   focused;
//! - from another pane of the tab, a hidden agent pane is shown and stays
//!   hidden after; a card that arrives while it is hidden stays unarmed
//!   and marks the tab; in the popup it arms and Enter there confirms it;
//!   `wta popup --json` from outside closes the popup.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::time::Duration;

use launch_common::Launch;
use launch_common::card::{self, Card, Seen};
use serde_json::Value;
use wta_testkit::{TmuxServer, holds_for, squeezed, wait_until};

const T: Duration = Duration::from_secs(20);
/// Longer than the agent pane's status probe (2 s) plus a card's grace
/// (300 ms): a card the probe wrongly found seen would be armed by then.
const HIDDEN_FOR: Duration = Duration::from_millis(2600);

/// `l`'s server with WTA's bindings, seen through a terminal attached to
/// `session` (in a pane of a second server); returns it and its pane.
fn terminal(l: &Launch, session: &str) -> (TmuxServer, String) {
    let conf = l.wta(&["tmux-config"]);
    assert!(conf.status.success(), "{conf:?}");
    let file = l.env.path("wta.tmux.conf");
    std::fs::write(&file, &conf.stdout).unwrap();
    l.tmux.tmux(&["source-file", file.to_str().unwrap()]);
    let viewer = TmuxServer::start_with(&format!(
        "env -u TMUX tmux -S '{}' attach -t '{session}'",
        l.tmux.socket().display()
    ));
    let screen = viewer.first_pane().to_owned();
    wait_until("the terminal to attach", T, || {
        l.tmux.display(session, "#{session_attached}") == "1"
    })
    .unwrap();
    (viewer, screen)
}

/// `prefix P` in the terminal.
fn press_popup_key(viewer: &TmuxServer, screen: &str) {
    viewer.tmux(&["send-keys", "-t", screen, "C-b", "P"]);
}

/// Waits until the terminal shows a popup (its top border) holding `text`.
fn wait_popup(viewer: &TmuxServer, screen: &str, text: &str) -> String {
    let mut last = String::new();
    wait_until("the popup in the terminal", T, || {
        last = viewer.capture(screen);
        last.contains('┌') && squeezed(&last).contains(&squeezed(text))
    })
    .unwrap_or_else(|e| panic!("{e}:\n{last}"));
    last
}

fn wait_no_popup(viewer: &TmuxServer, screen: &str) {
    wait_until("the popup to close", T, || {
        !viewer.capture(screen).contains('┌')
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", viewer.capture(screen)));
}

fn type_in(viewer: &TmuxServer, screen: &str, text: &str) {
    viewer.tmux(&["send-keys", "-t", screen, "-l", text]);
    viewer.tmux(&["send-keys", "-t", screen, "Enter"]);
}

fn card_mark(l: &Launch, tab: &str) -> String {
    l.tmux
        .try_tmux(&["show-options", "-w", "-v", "-t", tab, "@wta_card_waiting"])
        .unwrap_or_default()
        .trim()
        .to_owned()
}

fn size(l: &Launch, pane: &str) -> String {
    l.tmux.display(pane, "#{pane_width}x#{pane_height}")
}

#[test]
fn the_agent_pane_moves_into_the_popup_and_back_beside_the_shell() {
    let mut l = Launch::new();
    let (up, shell, agent) = l.up_ready("custom:test");
    let session = up["session_name"].as_str().unwrap().to_owned();
    let tab = l.tmux.display(&shell, "#{window_id}");
    let helper = l.pane_pid(&agent);
    l.say(&agent, "stream 2 before");
    l.tmux.wait_for_text(&agent, "before:1;", T);
    let (viewer, screen) = terminal(&l, &session);
    // The tab takes the terminal's size (160x40, less the status line).
    wait_until("the tab at the terminal's size", T, || {
        l.tmux.display(&shell, "#{window_width}x#{window_height}") == "160x39"
    })
    .unwrap();
    let beside = size(&l, &agent);
    l.tmux.tmux(&["select-pane", "-t", &shell]);

    // prefix P over the shell: the agent pane, with what it said before.
    press_popup_key(&viewer, &screen);
    wait_popup(&viewer, &screen, "before:1;");
    assert_ne!(l.tmux.display(&agent, "#{window_id}"), tab, "stashed");
    assert_eq!(l.tmux.display(&agent, "#{window_active_clients}"), "1");
    // 80% (the default) of the 160x40 terminal, less the border.
    wait_until("the popup's size", T, || size(&l, &agent) == "126x30")
        .unwrap_or_else(|e| panic!("{e}: {}", size(&l, &agent)));

    // A prompt typed in the popup: the same helper and session answer.
    wait_until("the pane to be ready", T, || {
        l.tmux.capture(&agent).contains("Ready")
    })
    .unwrap();
    type_in(&viewer, &screen, "stream 3 popup");
    wait_popup(&viewer, &screen, "popup:2;");
    assert_eq!(l.pane_pid(&agent), helper, "the same helper");
    let screen_text = viewer.capture(&screen);
    assert!(screen_text.contains("before:1;"), "{screen_text}");

    // prefix P in the popup closes it: back beside the shell, at its size.
    press_popup_key(&viewer, &screen);
    wait_no_popup(&viewer, &screen);
    wait_until("the pane beside the shell", T, || {
        l.tmux.display(&agent, "#{window_id}") == tab
    })
    .unwrap();
    assert_eq!(size(&l, &agent), beside, "its size beside the shell");
    assert_eq!(l.tmux.display(&shell, "#{pane_active}"), "1", "focus kept");
    assert_eq!(l.pane_pid(&agent), helper);
    let left = l.tmux.tmux(&["list-sessions", "-F", "#{session_name}"]);
    assert!(!left.contains("_wta_popup_"), "{left}");
    wait_until(
        "the user's terminal to show the pane beside the shell",
        T,
        || viewer.capture(&screen).contains("popup:2;"),
    )
    .unwrap();
}

#[test]
fn a_hidden_pane_shows_from_any_pane_and_its_card_arms_only_in_the_popup() {
    let mut l = Launch::new();
    let (up, shell, agent) = l.up_ready("custom:test");
    let session = up["session_name"].as_str().unwrap().to_owned();
    let tab = l.tmux.display(&shell, "#{window_id}");
    // Hidden before any terminal ever showed it: the popup is the only
    // place it is seen.
    assert_eq!(l.pane(&["toggle", "-t", &shell])["action"], "stashed");
    let hidden = size(&l, &agent);
    let (viewer, screen) = terminal(&l, &session);
    // Another pane of the tab has the keyboard.
    let other = l
        .tmux
        .tmux(&[
            "split-window",
            "-v",
            "-t",
            &shell,
            "-P",
            "-F",
            "#{pane_id}",
            "bash --norc --noprofile",
        ])
        .trim()
        .to_owned();
    assert_eq!(l.tmux.display(&other, "#{pane_active}"), "1");

    press_popup_key(&viewer, &screen);
    wait_popup(&viewer, &screen, "Ready");
    // The pane's status probe runs while the popup shows it, and finds it
    // on screen: only a pane a probe has seen hides its cards later
    // (before, nobody could tell a pane nobody looks at from a server no
    // terminal is attached to). The shell's new directory in the pane's
    // status line says a probe ran.
    let dir = l.env.path("popup-cwd");
    std::fs::create_dir_all(&dir).unwrap();
    l.tmux
        .type_line(&shell, &format!("cd '{}'", dir.to_str().unwrap()));
    wait_until("a status probe during the popup", T, || {
        l.tmux.capture(&agent).contains("popup-cwd")
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&agent)));
    press_popup_key(&viewer, &screen);
    wait_no_popup(&viewer, &screen);
    wait_until("the pane back in the stash at its size", T, || {
        size(&l, &agent) == hidden
    })
    .unwrap_or_else(|e| panic!("{e}: {}", size(&l, &agent)));
    assert_eq!(l.tmux.display(&agent, "#{session_name}"), "_wta_stash");

    // A card while the popup is closed: it waits unarmed, the tab marked.
    l.tmux.type_line(&shell, "false");
    let pill = squeezed(&format!("✗ exit 1 in {shell}"));
    wait_until("the failure in the hidden pane", T, || {
        squeezed(&l.tmux.capture(&agent)).contains(&pill)
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&agent)));
    let out = l.wta(&[
        "fix",
        "-t",
        &shell,
        "--hint",
        "propose-run echo popup-fix-4\"\"2",
    ]);
    assert!(out.status.success(), "{out:?}");
    wait_until("the tab's mark", T, || card_mark(&l, &tab) == "proposal").unwrap();
    let run = Card::proposal("Run");
    holds_for("the hidden card to stay unarmed", HIDDEN_FOR, || {
        card::seen(&l.tmux.capture(&agent), &run) == Seen::Unarmed
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&agent)));
    assert!(!l.tmux.capture(&shell).contains("popup-fix-42"));

    // In the popup (opened from the other pane) it arms, the mark goes,
    // and Enter typed there confirms it.
    l.tmux.tmux(&["select-pane", "-t", &other]);
    press_popup_key(&viewer, &screen);
    wait_popup(&viewer, &screen, "Run");
    l.wait_card(&agent, &run);
    wait_until("the mark to go", T, || card_mark(&l, &tab).is_empty()).unwrap();
    viewer.tmux(&["send-keys", "-t", &screen, "Enter"]);
    l.tmux.wait_for_text(&shell, "popup-fix-42", T);

    // Closed from outside, by the command: the pane stays hidden.
    let out = l.wta(&["popup", "-t", &shell, "--json"]);
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (done["action"].as_str(), done["pane"].as_str()),
        (Some("closed"), Some(agent.as_str())),
        "{done}"
    );
    wait_no_popup(&viewer, &screen);
    wait_until("the pane back in the stash at its size", T, || {
        size(&l, &agent) == hidden
    })
    .unwrap();
    assert_eq!(l.tmux.display(&agent, "#{session_name}"), "_wta_stash");
}
