//! The session MCP endpoint end to end (issue 16): real tmux, master and
//! helper TUI, bash with WTA's integration, and the scripted test agent
//! calling the endpoint's tools with the official rmcp client, as a real
//! agent does with the server it was given in `session/new`. A terminal
//! tool's proposal comes as the same card as the CLI's, runs only once
//! confirmed, and the tool result carries the decision and the exit code;
//! a question is answered, dismissed, or typed; a result that took longer
//! than the call's wait comes from `get_proposal_result`.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod pane_tui_common;

use pane_tui_common::{Card, Pane, integrated_pane_in};
use wta_testkit::squeezed;

/// Sends `mcp <tool> <args>` and waits for the tool's result line.
fn call(pane: &Pane, tool: &str, args: &str) {
    pane.submit(&format!("mcp {tool} {args}"));
}

/// Waits for the question card asking `question` and for it to take keys.
fn wait_question(pane: &Pane, question: &str) {
    let card = pane.wait_for_card(&Card::Question);
    assert!(squeezed(&card).contains(&squeezed(question)), "{card}");
}

fn result_of(pane: &Pane, tool: &str, contains: &[&str]) -> String {
    let head = format!("mcp {tool}:");
    let mut needles = vec![head.as_str()];
    needles.extend_from_slice(contains);
    let screen = pane.wait_squeezed(contains.last().copied().unwrap_or(&head));
    let flat = squeezed(&screen);
    for n in needles {
        assert!(flat.contains(&squeezed(n)), "{n} in:\n{screen}");
    }
    flat
}

#[test]
fn a_terminal_tool_runs_only_when_confirmed_and_reports_the_exit() {
    let pane = integrated_pane_in("bash");
    call(
        &pane,
        "run_command_in_current_shell",
        r#"{"command":"echo mcp-4\"\"2","explanation":"check the endpoint"}"#,
    );
    let card = pane.wait_armed_card(" Run ");
    assert!(card.contains("check the endpoint"), "{card}");
    assert!(
        !pane.shell_screen().contains("mcp-42"),
        "nothing ran before the card"
    );
    // The transcript row reads as what it proposes, not the raw MCP name.
    assert!(
        squeezed(&card).contains(&squeezed("Propose: Run `echo mcp-4\"\"2`")),
        "{card}"
    );
    assert!(!card.contains("mcp__wta_"), "{card}");
    pane.keys(&["Enter"]);
    pane.tmux
        .wait_for_text(&pane.shell, "mcp-42", pane_tui_common::T);
    result_of(
        &pane,
        "run_command_in_current_shell",
        &[
            r#""state":"done""#,
            r#""status":"confirmed""#,
            r#""exit_code":0"#,
            // The session tools share the turn's proposal budget.
            r#""remaining":9"#,
        ],
    );
}

/// The report's forgery: a shell command that carries this session's real
/// server name and a tool name in its text. It is the agent's own tool,
/// so the user decides on a permission card; nothing answers it alone.
#[test]
fn a_tool_call_that_only_mentions_the_sessions_tools_asks_the_user() {
    let pane = integrated_pane_in("bash");
    pane.submit(
        r#"permission-call {"title":"Run a shell command","kind":"execute","rawInput":{"command":"touch /tmp/P # {server} run_command_in_current_shell"}}"#,
    );
    let screen = pane.wait_for_all(&["Run a shell command", "Reject"]);
    assert!(
        !screen.contains("permission: selected"),
        "answered without the user:\n{screen}"
    );
}

/// A WTA tool's bare name (copilot's spelling) on a call that acts by
/// itself: a permission card too.
#[test]
fn a_bare_tool_name_on_a_call_that_acts_asks_the_user() {
    let pane = integrated_pane_in("bash");
    pane.submit(
        r#"permission-call {"title":"run_command_in_current_shell","kind":"execute","rawInput":{"command":"ls"}}"#,
    );
    let screen = pane.wait_for_all(&["run_command_in_current_shell", "Reject"]);
    assert!(
        !screen.contains("permission: selected"),
        "answered without the user:\n{screen}"
    );
}

#[test]
fn a_dismissed_card_is_reported_and_nothing_runs() {
    let pane = integrated_pane_in("bash");
    call(
        &pane,
        "run_command_in_current_shell",
        r#"{"command":"touch /tmp/never-$$"}"#,
    );
    pane.wait_armed_card(" Run ");
    pane.keys(&["Escape"]);
    result_of(
        &pane,
        "run_command_in_current_shell",
        &[r#""state":"done""#, r#""status":"cancelled""#],
    );
    assert!(!pane.shell_screen().contains("touch"), "nothing typed");
}

#[test]
fn a_question_is_answered_dismissed_or_typed() {
    let pane = integrated_pane_in("bash");
    call(
        &pane,
        "request_user_input",
        r#"{"question":"Which branch?","choices":["main","dev"]}"#,
    );
    wait_question(&pane, "Which branch?");
    pane.keys(&["Down", "Enter"]);
    result_of(
        &pane,
        "request_user_input",
        &[
            r#""outcome":"answered""#,
            r#""answer":"dev""#,
            r#""selected_index":1"#,
        ],
    );

    call(
        &pane,
        "request_user_input",
        r#"{"question":"Go on?","choices":["yes"]}"#,
    );
    wait_question(&pane, "Go on?");
    pane.keys(&["Escape"]);
    result_of(&pane, "request_user_input", &[r#""outcome":"cancelled""#]);

    call(
        &pane,
        "request_user_input",
        r#"{"question":"Name the release","allow_freeform":true}"#,
    );
    wait_question(&pane, "Name the release");
    pane.tmux
        .tmux(&["send-keys", "-t", &pane.pane, "-l", "v2.1"]);
    pane.keys(&["Enter"]);
    result_of(&pane, "request_user_input", &[r#""answer":"v2.1""#]);
}

#[test]
fn a_slow_decision_is_pending_then_fetched() {
    let pane = integrated_pane_in("bash");
    call(
        &pane,
        "run_command_in_current_shell",
        r#"{"command":"echo la-t\"\"er","wait_secs":1}"#,
    );
    pane.wait_armed_card(" Run ");
    let flat = result_of(
        &pane,
        "run_command_in_current_shell",
        &[r#""state":"pending""#],
    );
    let id: String = flat
        .split(r#""proposal_id":""#)
        .nth(1)
        .unwrap()
        .chars()
        .take(32)
        .collect();
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    // The card is still up: the user decides after the call returned.
    pane.keys(&["Enter"]);
    pane.tmux
        .wait_for_text(&pane.shell, "la-ter", pane_tui_common::T);
    call(
        &pane,
        "get_proposal_result",
        &format!(r#"{{"proposal_id":"{id}","wait_secs":10}}"#),
    );
    result_of(
        &pane,
        "get_proposal_result",
        &[r#""state":"done""#, r#""exit_code":0"#],
    );
}

/// `create_workspace` opens a panel of the target's tab, once confirmed.
#[test]
fn create_workspace_opens_a_panel_once_confirmed() {
    let pane = integrated_pane_in("bash");
    let panes = |p: &Pane| {
        p.tmux
            .tmux(&["list-panes", "-t", &p.shell, "-F", "#{pane_id}"])
            .lines()
            .count()
    };
    let before = panes(&pane);
    call(
        &pane,
        "create_workspace",
        r#"{"target":"panel","direction":"down"}"#,
    );
    pane.wait_armed_card(" Open ");
    assert_eq!(panes(&pane), before, "nothing opened before the card");
    pane.keys(&["Enter"]);
    result_of(
        &pane,
        "create_workspace",
        &[r#""status":"confirmed""#, r#""state":"done""#],
    );
    assert_eq!(panes(&pane), before + 1);
}

/// `delegate_task_in_new_workspace` starts the configured delegate agent
/// with the task in a new tab, once confirmed.
#[test]
fn delegate_task_starts_the_delegate_in_a_new_tab() {
    let env = pane_tui_common::Env::with_config(
        // `sh -c` takes no end of options: the task is its `$0`.
        "[delegate]\nname = \"fake-delegate\"\nargv = [\"/bin/sh\", \"-c\", \"echo delegated: \\\"$0\\\"; exec sleep 600\"]\nend_of_options = \"\"\n",
    );
    let pane = pane_tui_common::integrated_pane_on(env, "bash", "custom:test");
    call(
        &pane,
        "delegate_task_in_new_workspace",
        r#"{"task":"fix the flaky tests"}"#,
    );
    let card = pane.wait_card("Run");
    assert!(squeezed(&card).contains("fake-delegate"), "{card}");
    pane.keys(&["Enter"]);
    wta_testkit::wait_for_value("a tab running the delegate", pane_tui_common::T, || {
        let panes = pane.tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
        panes
            .lines()
            .find(|p| {
                pane.tmux
                    .capture(p)
                    .contains("delegated: fix the flaky tests")
            })
            .map(str::to_owned)
    })
    .unwrap_or_else(|e| panic!("{e}; agent pane:\n{}", pane.screen()));
    result_of(
        &pane,
        "delegate_task_in_new_workspace",
        &[r#""status":"confirmed""#],
    );
}
