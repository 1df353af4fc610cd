//! The canonical proposal invocation through a real agent's own shell tool:
//! `@zed-industries/claude-code-acp` (installed by
//! `scripts/install-test-peers.sh`), offline against `peers/fake_anthropic.py`,
//! which only makes the model's decisions. The model reads this turn's
//! channel from WTA's prompt context and runs `"$WTA_CLI_PATH"
//! propose-terminal-actions …` with its Bash tool, which claude-code-acp
//! runs through the client's `terminal/create` in a tmux pane; the card
//! shows in the agent pane, the command runs in the user's shell once
//! confirmed, and its exit code reaches the model, which quotes it. For a
//! single proposal, a multi-step turn (the `next` line's channel) and an
//! autofix turn.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod claude_common;
mod pane_tui_common;

use claude_common::{FakeModel, claude_code_acp};
use pane_tui_common::{Env, Pane, integrated_shell};
use wta_testkit::{TmuxServer, squeezed, wait_until};

/// An agent pane on claude-code-acp beside an integrated bash, its model
/// proposing `steps`.
fn claude_pane(steps: &str) -> Option<(Pane, FakeModel, tempfile::TempDir)> {
    let agent = claude_code_acp()?;
    let scratch = tempfile::tempdir().unwrap();
    let model = FakeModel::start(scratch.path(), steps);
    let env = Env::with_config(&model.claude_config(&agent, scratch.path()));
    let command = integrated_shell(&env, "bash");
    let home = env.path("shell-home");
    let tmux = TmuxServer::start_with_env(&command, &[("HOME", home.as_os_str())]);
    let first = tmux.first_pane().to_owned();
    wait_until("the shell's integration", pane_tui_common::T, || {
        tmux.try_tmux(&["show-options", "-p", "-v", "-t", &first, "@wta_integration"])
            .is_some_and(|v| !v.trim().is_empty())
    })
    .unwrap();
    let pane = Pane::open_on(env, "custom:claude", tmux);
    pane.wait_ready();
    Some((pane, model, scratch))
}

/// Confirms the armed card showing `command` and waits for `output` in the
/// user's shell.
fn confirm(pane: &Pane, command: &str, output: &str) {
    // The card's button row (the transcript row also reads "Run …").
    let card = pane.wait_armed_card("[ Run ]");
    assert!(squeezed(&card).contains(&squeezed(command)), "{card}");
    assert!(
        !pane.shell_screen().contains(output),
        "nothing ran before the card"
    );
    pane.keys(&["Enter"]);
    let ran = wta_testkit::wait_until("the command ran in the shell", claude_common::T, || {
        pane.shell_screen().contains(output)
    });
    assert!(ran.is_ok(), "{ran:?}; agent pane:\n{}", pane.screen());
}

/// The model's last answer quotes the proposal CLI's lines.
fn model_read(pane: &Pane, needles: &[&str]) -> String {
    let screen = pane.wait_squeezed("TOOL_DONE:");
    let flat = squeezed(&screen);
    for needle in needles {
        assert!(flat.contains(&squeezed(needle)), "{needle} in:\n{screen}");
    }
    flat
}

#[test]
fn claude_proposes_through_its_own_bash_tool_and_reads_the_exit_code() {
    let Some((pane, _model, _dir)) = claude_pane("echo via-bash-$((6*7))") else {
        return;
    };
    // claude-code-acp runs every Bash call through `terminal/create`: the
    // card can only come if `"$WTA_CLI_PATH"` resolves in that pane.
    pane.submit("Please RUN_PROPOSAL now");
    confirm(&pane, "echo via-bash-$((6*7))", "via-bash-42");
    model_read(
        &pane,
        &[
            r#""status":"confirmed""#,
            r#""exit_code":0"#,
            r#""phase":"next""#,
        ],
    );
}

#[test]
fn a_multi_step_turn_goes_on_with_the_next_lines_channel() {
    let Some((pane, _model, _dir)) =
        claude_pane("echo step-$((1+1)) ;; sh -c 'echo step-$((2+1)); exit 3'")
    else {
        return;
    };
    pane.submit("Please RUN_PROPOSAL now");
    confirm(&pane, "echo step-$((1+1))", "step-2");
    confirm(&pane, "echo step-$((2+1)); exit 3", "step-3");
    model_read(&pane, &[r#""status":"failed""#, r#""exit_code":3"#]);
}

#[test]
fn an_autofix_turn_proposes_the_fix_through_the_bash_tool() {
    let Some((pane, _model, _dir)) = claude_pane("echo fixed-$((6*7))") else {
        return;
    };
    pane.tmux
        .type_line(&pane.shell, "ls /nonexistent-wta-autofix");
    pane.wait_squeezed("Ctrl+F fix");
    pane.keys(&["C-f"]);
    confirm(&pane, "echo fixed-$((6*7))", "fixed-42");
    model_read(&pane, &[r#""status":"confirmed""#, r#""exit_code":0"#]);
}
