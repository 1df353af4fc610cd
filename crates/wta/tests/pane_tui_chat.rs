//! The agent pane end to end: real tmux (private server), real master and
//! helper binaries, the scripted test agent. Keys go in with send-keys, the
//! screen comes back with capture-pane.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;

use pane_tui_common::{Card, EXITED, Env, Pane, T};
use wta_testkit::wait_until;

#[test]
fn a_prompt_typed_in_the_pane_gets_the_agents_reply() {
    let pane = Pane::open("custom:test");
    let screen = pane.wait_ready();
    let shell = pane.shell.as_str();
    assert!(
        screen.contains(shell),
        "status line names the target pane:\n{screen}"
    );
    pane.submit("stream 3 zq");
    pane.wait_for("zq:0;zq:1;zq:2;");
}

#[test]
fn a_permission_answered_with_y_reaches_the_agent() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    pane.submit("permission");
    // Keys typed before the card is armed go nowhere: wait for it.
    let card = pane.wait_for_card(&Card::Permission);
    assert!(card.contains("reject_once"), "{card}");
    pane.keys(&["y"]);
    let screen = pane.wait_for("permission: selected opt-0-allow_once");
    assert!(
        !screen.contains("reject_once"),
        "the card is gone:\n{screen}"
    );
}

#[test]
fn ctrl_c_twice_closes_the_pane_and_restores_the_terminal() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    assert_eq!(pane.tmux.display(&pane.pane, "#{alternate_on}"), "1");
    pane.keys(&["C-c"]);
    pane.wait_for("Ctrl+C again");
    pane.keys(&["C-c"]);
    let screen = pane.wait_exit();
    assert!(screen.contains(&format!("{EXITED} 0")), "{screen}");
    let modes = pane.tmux.display(
        &pane.pane,
        "#{alternate_on} #{mouse_any_flag} #{mouse_button_flag} #{mouse_sgr_flag}",
    );
    assert_eq!(modes, "0 0 0 0", "alternate screen and mouse modes are off");
    assert!(!screen.contains("Ready"), "the TUI is gone:\n{screen}");
}

/// The master killed: the pane stays (its TUI, its transcript) and says
/// what happened; nothing reconnects on its own; Ctrl+C twice still closes
/// it. (Reconnecting is `pane_tui_reconnect.rs`.)
#[test]
fn master_exit_keeps_the_pane_with_a_clear_message() {
    let mut pane = Pane::open("custom:test");
    pane.wait_ready();
    pane.submit("echo before the master went");
    pane.wait_for("• before the master went");
    pane.master.kill9();
    pane.wait_for_all(&[
        "Master gone",
        "killed or crashed",
        "Enter: start a new master",
        "• before the master went",
    ]);
    assert_eq!(pane.tmux.display(&pane.pane, "#{alternate_on}"), "1");
    pane.keys(&["C-c"]);
    pane.wait_for("Ctrl+C again");
    pane.keys(&["C-c"]);
    let screen = pane.wait_exit();
    assert!(screen.contains(&format!("{EXITED} 0")), "{screen}");
}

#[test]
fn a_missing_agent_shows_the_setup_screen_and_agent_switches_away() {
    let env = Env::with_config("[custom_agents.missing]\nargv = [\"/nonexistent/wta-agent\"]\n");
    let pane = Pane::open_in(env, "custom:missing");
    pane.wait_for_all(&[
        "is not installed",
        "custom:missing",
        "custom_agents.missing.argv",
    ]);
    pane.submit("/agent custom:test");
    pane.wait_ready();
    pane.submit("echo switched fine");
    pane.wait_for("• switched fine");
}

#[test]
fn stop_cancels_a_running_turn_and_new_starts_a_working_session() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    pane.submit("stall");
    pane.wait_for("stalling");
    pane.submit("/stop");
    pane.wait_for_all(&["Ready", "Cancelling the turn"]);
    pane.submit("/sessions");
    pane.wait_for_all(&["(this pane)", "custom:test"]);
    pane.keys(&["Escape"]);
    // Typed at once, the `/` would follow the Esc as Alt+/ (a terminal sends
    // Alt as an Esc prefix): wait for the picker to close first.
    wait_until("the picker to close", T, || {
        !pane.screen().contains("(this pane)")
    })
    .unwrap();
    pane.submit("/new");
    pane.wait_for("Starting a new session");
    pane.wait_ready();
    pane.submit("echo after new");
    pane.wait_for("• after new");
}

#[test]
fn f12_shows_this_panes_acp_traffic() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    pane.submit("echo traffic check");
    pane.wait_for("• traffic check");
    pane.keys(&["F12"]);
    pane.wait_for("ACP traffic");
    // Long lines wrap whole, so the prompt's method name may sit above the
    // rows in view: PgUp scrolls back (the title's row range moves each
    // time) until each has been on screen.
    let title = |screen: &str| {
        screen
            .lines()
            .find(|l| l.contains("ACP traffic"))
            .unwrap_or_default()
            .to_owned()
    };
    let mut seen = Vec::new();
    for _ in 0..40 {
        let screen = pane.screen();
        seen.extend(
            ["agent_message_chunk", "session/prompt"]
                .into_iter()
                .filter(|m| screen.contains(m)),
        );
        if seen.contains(&"agent_message_chunk") && seen.contains(&"session/prompt") {
            return;
        }
        let before = title(&screen);
        assert!(
            !before.contains("rows 1–"),
            "at the top, not all seen:\n{screen}"
        );
        pane.keys(&["PageUp"]);
        wait_until("the panel to scroll", T, || title(&pane.screen()) != before).unwrap();
    }
    panic!("never on screen: {seen:?}\n{}", pane.screen());
}

/// Typed as a user types them (the popup open), slash commands run with one
/// Enter; `/new` says when its session is ready.
#[test]
fn slash_commands_run_with_one_enter_and_new_says_when_it_is_ready() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    pane.submit("/yolo");
    pane.wait_for("Yolo is off: every tool permission asks first.");
    pane.submit("/sessions");
    pane.wait_for("(this pane)");
    // Enter on a live session goes to its pane, asking this pane's master
    // (the test's master listens on a socket of its own).
    pane.keys(&["Enter"]);
    pane.wait_for("focused %");
    pane.submit("/new");
    pane.wait_for("New session with custom:test ready.");
}

/// `/agent` to an agent that is not installed says how to install it and
/// keeps the pane on its agent, which still answers; the picker lists it
/// with that line.
#[test]
fn switching_to_a_missing_agent_says_how_to_install_it_and_keeps_the_session() {
    let env = Env::with_config("[custom_agents.missing]\nargv = [\"/nonexistent/wta-agent\"]\n");
    let pane = Pane::open_in(env, "custom:test");
    pane.wait_ready();
    pane.submit("/agent custom:missing");
    let screen = pane.wait_for("custom:missing is not installed, so this pane stays");
    assert!(
        screen.contains("Fix custom_agents.missing.argv"),
        "{screen}"
    );
    pane.submit("echo still custom:test");
    pane.wait_for("• still custom:test");
    pane.submit("/agent");
    let screen = pane.wait_for("Switch agent");
    assert!(
        screen.contains("not installed · Fix custom_agents.missing.argv"),
        "{screen}"
    );
}
