//! A real agent CLI through the session MCP endpoint (issue 16):
//! `@zed-industries/claude-code-acp` offline, given WTA's server in
//! `session/new`, calls `run_command_in_current_shell` when the fake model
//! decides so; the proposal is a card in the agent pane, the command runs
//! in the user's shell once confirmed, and the tool result (decision and
//! exit code) reaches the model, which quotes it.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod claude_common;
mod pane_tui_common;

use claude_common::{FakeModel, claude_code_acp};
use pane_tui_common::{Env, Pane, integrated_shell};
use wta_testkit::{TmuxServer, squeezed, wait_until};

#[test]
fn claude_code_acp_proposes_through_the_endpoint_and_reads_the_result() {
    let Some(agent) = claude_code_acp() else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let model = FakeModel::start(scratch.path(), "echo via-mcp-$((6*7))");
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

    pane.submit("Please RUN_MCP now");
    let card = pane.wait_armed_card(" Run ");
    assert!(
        squeezed(&card).contains(&squeezed("echo via-mcp-$((6*7))")),
        "{card}"
    );
    assert!(
        !pane.shell_screen().contains("via-mcp-42"),
        "nothing ran before the card"
    );
    pane.keys(&["Enter"]);
    pane.tmux
        .wait_for_text(&pane.shell, "via-mcp-42", claude_common::T);
    let screen = pane.wait_squeezed("TOOL_DONE:");
    let flat = squeezed(&screen);
    assert!(
        flat.contains("confirmed") && flat.contains("exit0"),
        "{screen}"
    );
}
