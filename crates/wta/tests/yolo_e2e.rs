//! Yolo mode end to end (issue 8): real tmux, real master and helper TUI, the
//! scripted test agent in several shapes (Copilot-like with `allow_all`,
//! without it, one that refuses to turn it off, one whose sessions start
//! with it on, and one that does both).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "pane_tui_common/mod.rs"]
mod pane_tui_common;

use pane_tui_common::{Card, Env, Pane, T, card};
use wta_state::CARD_GRACE;
use wta_testkit::{TmuxServer, holds_for, squeezed, wait_until};

fn env() -> Env {
    let agent = wta_testkit::acp::agent_path();
    let a = agent.to_string_lossy();
    Env::with_config(&format!(
        "[custom_agents.noall]\nargv = [{a:?}, \"--no-allow-all\"]\n\n\
         [custom_agents.stubborn]\nargv = [{a:?}, \"--refuse-allow-all-off\"]\n\n\
         [custom_agents.starts_on]\nargv = [{a:?}, \"--allow-all-starts-on\"]\n\n\
         [custom_agents.stuck_on]\nargv = [{a:?}, \"--allow-all-starts-on\", \"--refuse-allow-all-off\"]\n"
    ))
}

/// The agent process's pid, asked on a cleared transcript.
fn agent_pid(pane: &Pane) -> u32 {
    say(pane, "/clear");
    wait_until("a cleared transcript", T, || {
        !pane.screen().contains("› pid")
    })
    .unwrap();
    say(pane, "pid");
    // The reply is `pid <digits>`; the prompt echo `› pid` has none.
    let reply = |screen: &str| {
        screen.lines().find_map(|line| {
            let digits: String = line
                .split("pid ")
                .nth(1)?
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<u32>().ok()
        })
    };
    let mut pid = None;
    wait_until("the agent's pid", T, || {
        pid = reply(&pane.screen());
        pid.is_some()
    })
    .unwrap();
    pid.unwrap()
}

/// A ready agent pane started with `--auto-approve-tools` (yolo by default).
fn global_yolo_pane(env: Env) -> Pane {
    let pane = Pane::open_with(
        env,
        "custom:test",
        TmuxServer::start(),
        &["--auto-approve-tools"],
    );
    pane.wait_ready();
    pane
}

/// Waits until the status line says the pane is ready for a prompt (a prompt
/// typed while a turn runs is refused by design).
fn ready(pane: &Pane) {
    wait_until("the pane to be ready", T, || {
        last_line_with(&pane.screen(), "yolo").is_some_and(|l| l.contains("Ready"))
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", pane.screen()));
}

/// Submits a prompt once the pane is ready.
fn say(pane: &Pane, text: &str) {
    ready(pane);
    pane.submit(text);
}

/// Asks the agent for this session's `allow_all` on a cleared transcript and
/// waits for the answer.
fn allow_all(pane: &Pane, expect: &str) {
    say(pane, "/clear");
    wait_until("a cleared transcript", T, || {
        !pane.screen().contains("state: allow_all")
    })
    .unwrap();
    say(pane, "state");
    pane.wait_for(&format!("state: allow_all={expect}"));
    ready(pane);
}

fn last_line_with<'a>(screen: &'a str, needle: &str) -> Option<&'a str> {
    screen.lines().rev().find(|l| l.contains(needle))
}

/// Yolo is off for the pane's session: the agent's `allow_all` is off, the
/// status line says so, and a tool permission shows the card again.
fn asks_again(pane: &Pane) {
    allow_all(pane, "off");
    assert!(last_line_with(&pane.screen(), "yolo").is_some_and(|l| l.contains("yolo off")));
    say(pane, "permission");
    answer_card(pane, "n");
    pane.wait_for("permission: selected opt-1-reject_once");
}

/// Waits for the permission card to take keys, then answers it with `key`.
fn answer_card(pane: &Pane, key: &str) {
    let card = pane.wait_for_card(&Card::Permission);
    assert!(card.contains("reject_once"), "{card}");
    pane.keys(&[key]);
}

#[test]
fn yolo_on_sets_allow_all_and_no_card_reaches_the_ui_then_off_asks_again() {
    let pane = Pane::open_in(env(), "custom:test");
    pane.wait_ready();
    assert!(pane.screen().contains("yolo off"));
    allow_all(&pane, "off");

    say(&pane, "/yolo on");
    pane.wait_for("yolo on");
    allow_all(&pane, "on");
    say(&pane, "permission");
    let screen = pane.wait_for("permission: selected opt-0-allow_once");
    assert!(
        screen.contains("Yolo approved"),
        "a visible line says what was approved:\n{screen}"
    );

    say(&pane, "/yolo off");
    pane.wait_for("yolo off");
    asks_again(&pane);
}

#[test]
fn without_allow_all_the_fallback_approves_allow_once_but_never_allow_always() {
    let pane = Pane::open_in(env(), "custom:noall");
    pane.wait_ready();
    say(&pane, "/yolo on");
    pane.wait_for("yolo on");
    say(&pane, "permission");
    pane.wait_for_all(&["permission: selected opt-0-allow_once", "Yolo approved"]);
    // Only AllowAlways offered: yolo must not pick it, the card shows.
    say(&pane, "permission allow_always reject_once");
    answer_card(&pane, "y");
    pane.wait_for("permission: selected opt-0-allow_always");
}

#[test]
fn a_failed_disable_fails_closed_with_a_fresh_agent() {
    let pane = Pane::open_in(env(), "custom:stubborn");
    pane.wait_ready();
    let before = agent_pid(&pane);
    say(&pane, "/yolo on");
    allow_all(&pane, "on");
    say(&pane, "/yolo off");
    pane.wait_for_all(&["did not turn off", "Restarting this pane's agent"]);
    // A fresh agent process, whose session never had allow_all on; the pane asks again.
    ready(&pane);
    assert_ne!(agent_pid(&pane), before, "the agent stack was restarted");
    asks_again(&pane);
}

#[test]
fn a_failed_disable_stays_off_even_when_yolo_is_on_by_default() {
    let pane = Pane::open_with(
        env(),
        "custom:stubborn",
        TmuxServer::start(),
        &["--auto-approve-tools"],
    );
    pane.wait_ready();
    pane.wait_for("yolo on");
    allow_all(&pane, "on");
    say(&pane, "/yolo off");
    pane.wait_for("did not turn off");
    // The replacement keeps the user's "off" instead of the global default.
    asks_again(&pane);
}

#[test]
fn an_agent_starting_with_allow_all_on_is_turned_off_unless_yolo_is_on() {
    // Yolo off: reconciled to off when the session opens.
    let pane = Pane::open_in(env(), "custom:starts_on");
    pane.wait_ready();
    asks_again(&pane);
    // Blocked by policy, even with the global default on: off as well.
    let blocked = env();
    std::fs::write(&blocked.policy, "allow_yolo_mode = false\n").unwrap();
    let pane = Pane::open_with(
        blocked,
        "custom:starts_on",
        TmuxServer::start(),
        &["--auto-approve-tools"],
    );
    pane.wait_ready();
    pane.wait_for("yolo blocked by policy");
    allow_all(&pane, "off");
}

#[test]
fn an_agent_that_keeps_allow_all_on_loses_its_session_after_one_restart() {
    let pane = Pane::open_in(env(), "custom:stuck_on");
    let screen = pane.wait_for_all(&["closed its session", "did not turn off"]);
    assert_eq!(
        screen.matches("did not turn off").count(),
        1,
        "one restart, not a loop:\n{screen}"
    );
    pane.wait_for("Disconnected");
    // Nothing reaches the agent without a session.
    pane.submit("permission");
    pane.wait_for("Not connected");
}

#[test]
fn the_global_default_applies_to_new_sessions_and_new_clears_the_override() {
    let pane = global_yolo_pane(env());
    pane.wait_for("yolo on");
    allow_all(&pane, "on");
    say(&pane, "/yolo off");
    pane.wait_for("yolo off");
    allow_all(&pane, "off");
    // /new drops the session override: the global default is back.
    say(&pane, "/new");
    pane.wait_for("yolo on");
    allow_all(&pane, "on");
    say(&pane, "permission");
    pane.wait_for("permission: selected opt-0-allow_once");
}

#[test]
fn yolo_in_one_pane_never_leaks_into_another() {
    let first = Pane::open_in(env(), "custom:test");
    first.wait_ready();
    let second = first.add_helper("custom:test", &[]);
    first.tmux.wait_for_text(&second, "Ready", T);
    say(&first, "/yolo on");
    allow_all(&first, "on");
    // Same agent process, other session: still asks.
    first.tmux.type_line(&second, "state");
    first.tmux.wait_for_text(&second, "state: allow_all=off", T);
    wait_until("the second pane to be ready", T, || {
        last_line_with(&first.tmux.capture(&second), "yolo").is_some_and(|l| l.contains("Ready"))
    })
    .unwrap();
    first.tmux.type_line(&second, "permission");
    let screen = card::wait_armed(&first.tmux, &second, &Card::Permission, T);
    assert!(!screen.contains("Yolo approved"), "{screen}");
    // The card is the user's to answer: the agent records what was picked.
    first.tmux.tmux(&["send-keys", "-t", &second, "n"]);
    first
        .tmux
        .wait_for_text(&second, "permission: selected opt-1-reject_once", T);
    // Read the status line once Ready: while a card waits, the longer
    // activity text can leave no room for the low-priority "yolo off".
    wait_until("the second pane to say yolo off", T, || {
        last_line_with(&first.tmux.capture(&second), "Ready")
            .is_some_and(|l| l.contains("yolo off"))
    })
    .unwrap();
    // The first pane kept its own override.
    assert!(last_line_with(&first.screen(), "yolo").is_some_and(|l| l.contains("yolo on")));
}

#[test]
fn the_policy_file_blocks_both_paths() {
    let env = env();
    std::fs::write(&env.policy, "allow_yolo_mode = false\n").unwrap();
    let pane = global_yolo_pane(env);
    pane.wait_for("yolo blocked");
    allow_all(&pane, "off");
    say(&pane, "/yolo on");
    pane.wait_for("disabled by your organization's policy");
    allow_all(&pane, "off");
    say(&pane, "permission");
    answer_card(&pane, "y");
    pane.wait_for("permission: selected opt-0-allow_once");
    assert!(!pane.screen().contains("Yolo approved"));
}

#[test]
fn sessions_list_reports_yolo() {
    let pane = Pane::open_in(env(), "custom:test");
    pane.wait_ready();
    say(&pane, "/yolo on");
    allow_all(&pane, "on");
    let sessions = wta_testkit::wait_for_value("yolo in sessions list", T, || {
        let out = pane
            .env
            .command()
            .args(["sessions", "list", "--json", "--master-socket"])
            .arg(&pane.env.socket)
            .output()
            .ok()?;
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        (v["sessions"][0]["yolo"]["on"] == true).then_some(v)
    })
    .unwrap();
    assert_eq!(sessions["sessions"][0]["yolo"]["blocked_by_policy"], false);
}

#[test]
fn yolo_never_bypasses_a_terminal_action_card_or_the_silent_cancel() {
    let pane = global_yolo_pane(env());
    pane.wait_for("yolo on");
    // The card still waits for the user; nothing runs until then.
    say(&pane, "propose-run echo yolo-$((6*7))");
    let screen = pane.wait_card(" Run ");
    let cwd = pane.tmux.display(&pane.shell, "#{pane_current_path}");
    assert!(
        squeezed(&screen).contains(&squeezed(&format!("cwd {cwd}"))),
        "the card says where the command runs ({cwd}):\n{screen}"
    );
    // Armed is the state in which an approval could run it: yolo may not.
    // From there on, for three grace periods (ticks of the view and the
    // guard included), the card stays up and nothing runs.
    let run = Card::proposal("Run");
    holds_for(
        "the armed card stays up, nothing runs",
        CARD_GRACE * 3,
        || {
            card::still_armed(&pane.tmux, &pane.pane, &run)
                && !pane.tmux.capture(&pane.shell).contains("yolo-42")
        },
    )
    .unwrap_or_else(|e| panic!("{e}:\n{}", pane.screen()));
    pane.keys(&["Escape"]);
    wait_until("the agent hears cancelled", T, || {
        squeezed(&pane.screen()).contains(&squeezed("the proposal ended: cancelled"))
    })
    .unwrap();
    // A non-canonical proposal command is still cancelled, not yolo-approved.
    say(&pane, "propose-run-piped echo piped-$((4*4))");
    wait_until("the silent cancel", T, || {
        squeezed(&pane.screen()).contains(&squeezed("permission not granted (cancelled)"))
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", pane.screen()));
    assert!(!pane.screen().contains("Yolo approved"));
}
