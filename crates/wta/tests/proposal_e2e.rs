//! Terminal-action proposals end to end (issues 6 and 7): real tmux on a
//! private server, real master and helper TUI in a pane, real bash with WTA
//! shell integration in the target pane, and the scripted test agent
//! standing in for the model. The agent asks permission for the canonical
//! invocation (silently allowed: no permission card), runs the CLI, the
//! card appears, keys go in with send-keys, and the agent's follow-up is
//! read back from the pane.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

#[path = "pane_tui_common/card_tests.rs"]
mod card_tests;
mod pane_tui_common;

use pane_tui_common::{Pane, T, UNARMED_NOTE, integrated_pane_in};
use wta_testkit::{squeezed, wait_for_value, wait_until};

/// A private server whose first pane runs bash with PS1 `$ ` and WTA's
/// integration, plus master and helper for the scripted agent.
fn integrated_pane() -> Pane {
    integrated_pane_in("bash")
}

#[test]
fn run_that_succeeds_reports_completed_and_the_agent_says_so() {
    let pane = integrated_pane();
    pane.submit("propose-run echo wta-ok-$((40+2))");
    let card = pane.wait_armed_card(" Run ");
    assert!(card.contains("echo wta-ok-$((40+2))"), "{card}");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "wta-ok-42", T);
    let screen = pane.wait_squeezed("action 1: the command succeeded");
    pane.wait_squeezed("[CLI: validation accepted, final confirmed, execution completed; exit 0]");
    assert!(
        squeezed(&screen).contains(&squeezed(r#""status":"completed""#)),
        "{screen}"
    );
}

#[test]
fn run_that_exits_2_reports_failed_with_exactly_its_error_output() {
    let pane = integrated_pane();
    pane.tmux.type_line(&pane.shell, "echo before-the-run");
    pane.tmux.wait_for_text(&pane.shell, "before-the-run\n$", T);
    pane.submit("propose-run (echo boom-$((1+1)) >&2; echo second >&2; exit 2)");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "second", T);
    pane.wait_squeezed("action 1: it failed with exit 2: boom-2.");
    let screen =
        pane.wait_squeezed("[CLI: validation accepted, final confirmed, execution failed; exit 0]");
    // The execution line as the CLI printed it: exit code and exactly the
    // run's output (not the text on the screen before it, not the prompt).
    assert!(
        squeezed(&screen).contains(&squeezed(
            r#""exit_code":2,"output":"boom-2\nsecond","truncated":false"#
        )),
        "{screen}"
    );
    assert!(!screen.contains("the command succeeded"), "{screen}");
}

#[test]
fn a_codex_shaped_request_is_armed_too() {
    let pane = integrated_pane();
    pane.submit("propose-run-codex echo codex-$((2+3))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "codex-5", T);
    pane.wait_squeezed("action 1: the command succeeded");
}

/// An agent that runs its shell through the client (claude-code-acp's
/// way): the canonical invocation runs in an agent terminal, a tmux pane
/// the helper opens, and its output comes back through `terminal/output`.
#[test]
fn an_agent_whose_shell_is_the_clients_terminal_proposes_too() {
    let pane = integrated_pane();
    pane.submit("propose-run-terminal echo via-terminal-$((6*7))");
    let card = pane.wait_armed_card(" Run ");
    assert!(card.contains("echo via-terminal-$((6*7))"), "{card}");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "via-terminal-42", T);
    pane.wait_squeezed("action 1: the command succeeded");
}

/// The card knows the pane: while a command runs there, Run waits (the
/// card says why, Enter does nothing); once it ends, Run works.
#[test]
fn a_busy_pane_holds_run_back_until_its_command_ends() {
    let pane = integrated_pane();
    pane.tmux.type_line(&pane.shell, "sleep 300");
    pane.submit("propose-run echo after-the-sleep");
    pane.wait_squeezed(&format!("{} is running `sleep 300`", pane.shell));
    pane.keys(&["Enter"]);
    // Enter on the held-back Run: nothing is typed into the busy pane.
    let screen = pane.wait_squeezed("available once it ends");
    assert!(!pane.shell_screen().contains("after-the-sleep"), "{screen}");
    pane.tmux
        .tmux(&["send-keys", "-t", pane.shell.as_str(), "C-c"]);
    wait_until("the card hears the pane is free", T, || {
        !squeezed(&pane.screen()).contains("isrunning")
    })
    .unwrap();
    // Run is back: the card is read again for the grace period first.
    pane.wait_armed_card("[ Run ]");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "\nafter-the-sleep", T);
    pane.wait_squeezed("action 1: the command succeeded");
}

/// What the user had half-typed in the pane is named on the card, kept,
/// and back at the prompt after the command.
#[test]
fn half_typed_text_is_kept_and_comes_back() {
    let pane = integrated_pane();
    // The agent pane follows the shell and has seen its prompt, so it can
    // tell text typed at it.
    wait_until("the agent pane follows the shell", T, || {
        pane.tmux.display(&pane.shell, "#{pane_pipe}") == "1"
    })
    .unwrap();
    pane.tmux.type_line(&pane.shell, "echo prompt-seen");
    pane.tmux.wait_for_text(&pane.shell, "\nprompt-seen\n$", T);
    pane.tmux.tmux(&[
        "send-keys",
        "-t",
        pane.shell.as_str(),
        "-l",
        "git commit -m \"half",
    ]);
    pane.tmux
        .wait_for_text(&pane.shell, "git commit -m \"half", T);
    pane.submit("propose-run echo card-$((2*3))");
    let card = pane.wait_squeezed("is kept and comes back after the command");
    assert!(card.contains("[ Run ]"), "{card}");
    pane.wait_armed_card("[ Run ]");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "card-6", T);
    pane.wait_squeezed("action 1: the command succeeded");
    wait_until("the half-typed text back at the prompt", T, || {
        let screen = pane.shell_screen();
        screen
            .lines()
            .last()
            .is_some_and(|l| l.ends_with("git commit -m \"half"))
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", pane.shell_screen()));
}

#[test]
fn insert_types_without_running_and_reports_inserted() {
    let pane = integrated_pane();
    pane.submit("propose-run echo ins-$((5+5))");
    pane.wait_armed_card(" Insert ");
    pane.keys(&["Right"]);
    pane.keys(&["Enter"]);
    pane.wait_squeezed("action 1: inserted; nothing ran.");
    pane.wait_squeezed("execution inserted; exit 0]");
    // The shell echoes the pasted text on its own time.
    wait_until("the text on the shell's line", T, || {
        pane.shell_screen().ends_with("$ echo ins-$((5+5))")
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", pane.shell_screen()));
    let shell = pane.shell_screen();
    assert!(!shell.contains("ins-10"), "nothing ran:\n{shell}");
}

#[test]
fn open_tab_opens_a_window_and_the_agent_sees_confirmed() {
    let pane = integrated_pane();
    let windows = || {
        pane.tmux
            .tmux(&["list-windows", "-a", "-F", "#{window_id}"])
    };
    assert_eq!(windows().lines().count(), 1);
    pane.submit("propose-open tab");
    pane.wait_armed_card(" Open ");
    pane.keys(&["Enter"]);
    let screen = pane.wait_squeezed(
        "the user confirmed choice 1. [CLI: validation accepted, final confirmed; exit 0]",
    );
    assert_eq!(windows().lines().count(), 2, "{screen}");
    pane.wait_squeezed("Action 1: opened %");
    // The tab's shell started behind the readiness gate with a watcher: its
    // first prompt marks were seen, so its integration verdict is on the
    // pane without anyone pressing a key there.
    let window = pane.tmux.display(&pane.shell, "#{window_id}");
    let tab = pane
        .tmux
        .tmux(&["list-panes", "-a", "-F", "#{window_id} #{pane_id}"])
        .lines()
        .find_map(|l| {
            l.split_once(' ')
                .filter(|(w, _)| *w != window)
                .map(|(_, p)| p.to_owned())
        })
        .unwrap();
    wait_until(
        "the new tab's shell is followed from its first prompt",
        T,
        || pane.tmux.display(&tab, "#{@wta_integration_state}") == "present",
    )
    .unwrap_or_else(|e| panic!("{e}: {}", pane.tmux.capture(&tab)));
}

#[test]
fn an_action_after_a_failed_one_is_reported_cancelled() {
    let pane = integrated_pane();
    let payload = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Panel then run","rationale":"two actions","actions":[{"type":"open","target":"panel","cwd":"/nonexistent-wta-dir"},{"type":"send","input":"echo never-$((2*5))"}]}]}"#;
    pane.submit(&format!("propose {payload}"));
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    let screen = pane.wait_squeezed(
        "action 2: cancelled: not run because action 1 failed: cannot open a new panel",
    );
    pane.wait_squeezed(
        "[CLI: validation accepted, final confirmed, execution unavailable, execution cancelled; exit 0]",
    );
    assert!(
        squeezed(&screen).contains(r#""status":"cancelled""#),
        "{screen}"
    );
    assert!(!pane.shell_screen().contains("never-10"));
}

#[test]
fn open_panel_with_cwd_splits_the_target_in_that_directory() {
    let pane = integrated_pane();
    let dir = pane.env.path("panel-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    pane.submit(&format!("propose-open panel {}", dir.display()));
    let card = pane.wait_armed_card(" Open ");
    assert!(
        squeezed(&card).contains(&squeezed(&dir.display().to_string())),
        "{card}"
    );
    pane.keys(&["Enter"]);
    pane.wait_squeezed("final confirmed; exit 0]");
    let window = pane.tmux.display(&pane.shell, "#{window_id}");
    let panes = wait_for_value("a third pane in the window", T, || {
        let list = pane.tmux.tmux(&[
            "list-panes",
            "-t",
            &window,
            "-F",
            "#{pane_id} #{pane_current_path}",
        ]);
        (list.lines().count() == 3).then_some(list)
    })
    .unwrap();
    let new = panes
        .lines()
        .find(|l| {
            !l.starts_with(&format!("{} ", pane.shell))
                && !l.starts_with(&format!("{} ", pane.pane))
        })
        .unwrap();
    let path = new.split_once(' ').unwrap().1;
    wait_until("the panel's shell is in the directory", T, || {
        let id = new.split_once(' ').unwrap().0;
        pane.tmux.display(id, "#{pane_current_path}") == dir.display().to_string()
    })
    .unwrap_or_else(|e| panic!("{e}: {path} vs {}", dir.display()));
}

#[test]
fn esc_cancels_and_nothing_is_sent() {
    let pane = integrated_pane();
    pane.submit("propose-run echo never-$((3*3))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Escape"]);
    pane.wait_squeezed(
        "the proposal ended: cancelled. [CLI: validation accepted, final cancelled; exit 0]",
    );
    let shell = pane.shell_screen();
    assert!(!shell.contains("never-"), "{shell}");
}

#[test]
fn a_non_canonical_command_is_cancelled_silently_without_a_card() {
    let pane = integrated_pane();
    pane.submit("propose-run-piped echo piped-$((4*4))");
    let screen =
        pane.wait_squeezed("permission not granted (cancelled); the proposal command did not run");
    for card in [" Run ", " Insert ", "Always Allow", "Reject"] {
        assert!(
            !screen.contains(card),
            "no card may appear ({card}):\n{screen}"
        );
    }
    assert!(!pane.shell_screen().contains("piped-"));
}

#[test]
fn an_unarmed_proposal_still_gets_a_card_and_runs() {
    let pane = integrated_pane();
    pane.submit("propose-run-unarmed echo unarmed-$((6*7))");
    let card = pane.wait_card(" Run ");
    assert!(squeezed(&card).contains(UNARMED_NOTE), "{card}");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "unarmed-42", T);
    pane.wait_squeezed("action 1: the command succeeded");
}

#[test]
fn a_multi_action_choice_reports_per_action() {
    let pane = integrated_pane();
    let payload = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Panel then run","rationale":"two actions","actions":[{"type":"open","target":"panel","direction":"down"},{"type":"send","input":"echo multi-$((2*5))"}]}]}"#;
    pane.submit(&format!("propose {payload}"));
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "multi-10", T);
    let screen = pane.wait_squeezed(
        "the user confirmed choice 1; action 2: the command succeeded. \
         [CLI: validation accepted, final confirmed, execution completed; exit 0]",
    );
    assert!(squeezed(&screen).contains("Action1:opened%"), "{screen}");
    assert!(squeezed(&screen).contains(r#""action":2"#), "{screen}");
}

#[test]
fn each_turn_gets_its_own_channel_and_result() {
    let pane = integrated_pane();
    pane.submit("propose-run echo first-$((1+1))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "first-2", T);
    pane.wait_squeezed("action 1: the command succeeded");
    pane.submit("propose-run (echo second-fails >&2; exit 3)");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.wait_squeezed("action 1: it failed with exit 3: second-fails.");
    let shell = pane.shell_screen();
    assert!(
        shell.contains("first-2") && shell.contains("second-fails"),
        "{shell}"
    );
}

/// Success then failure in one pane running `shell`; the commands run
/// through `sh -c` so they mean the same in every shell, and their single
/// quotes go through the canonical `'\''` escape.
fn success_then_failure_in(shell: &str) {
    let pane = integrated_pane_in(shell);
    pane.submit("propose-run sh -c 'echo ok-$((40+2))'");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "ok-42", T);
    pane.wait_squeezed("action 1: the command succeeded.");
    pane.submit("propose-run sh -c 'echo bad-$((1+1)) >&2; exit 2'");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    let screen = pane.wait_squeezed("action 1: it failed with exit 2: bad-2.");
    assert!(
        squeezed(&screen).contains(&squeezed(
            r#""exit_code":2,"output":"bad-2","truncated":false"#
        )),
        "{shell}:\n{screen}"
    );
}

#[test]
fn zsh_target_reports_success_and_failure() {
    success_then_failure_in("zsh");
}

#[test]
fn fish_target_reports_success_and_failure() {
    success_then_failure_in("fish");
}

/// Waits until the target pane runs `command` in the foreground.
fn wait_foreground(pane: &Pane, command: &str) {
    wait_until(&format!("{command} in the foreground"), T, || {
        pane.tmux.display(&pane.shell, "#{pane_current_command}") == command
    })
    .unwrap();
}

#[test]
fn ctrl_c_in_the_target_is_reported_as_failed_130_interrupted() {
    let pane = integrated_pane();
    pane.submit("propose-run sleep 30");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    wait_foreground(&pane, "sleep");
    pane.tmux.tmux(&["send-keys", "-t", &pane.shell, "C-c"]);
    let screen = pane.wait_squeezed("action 1: it failed with exit 130:");
    assert!(
        squeezed(&screen).contains(r#""exit_code":130"#)
            && squeezed(&screen).contains(r#""interrupted":true"#),
        "{screen}"
    );
}

#[test]
fn killing_the_target_mid_run_reports_unavailable() {
    let pane = integrated_pane();
    pane.submit("propose-run sleep 30");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    wait_foreground(&pane, "sleep");
    pane.tmux.tmux(&["kill-pane", "-t", &pane.shell]);
    // The transcript says why too.
    pane.wait_squeezed(&format!(
        "Action 1: {} unavailable: the pane closed while the command ran",
        pane.shell
    ));
    // The agent's closing line comes after its tool row: wait for it.
    pane.wait_squeezed(
        "the pane closed while the command ran. [CLI: validation accepted, final confirmed, execution unavailable; exit 0]",
    );
}

#[test]
fn cancelling_the_turn_makes_the_card_stale_and_nothing_runs() {
    let pane = integrated_pane();
    pane.submit("propose-run echo after-cancel-$((7*7))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["C-c"]);
    pane.wait_for("cannot run: the proposal was cancelled");
    pane.wait_squeezed(r#""status":"cancelled","proposal_id":"#);
    pane.wait_squeezed(
        "the proposal ended: cancelled. [CLI: validation accepted, final cancelled; exit 0]",
    );
    // Enter on the stale card only dismisses it; a later turn shows the
    // key was handled.
    pane.keys(&["Enter"]);
    pane.submit("echo marker-after-enter");
    let screen = pane.wait_for("marker-after-enter");
    assert!(!screen.contains("cannot run"), "dismissed:\n{screen}");
    assert!(
        !pane.shell_screen().contains("after-cancel-49"),
        "{}",
        pane.shell_screen()
    );
}
