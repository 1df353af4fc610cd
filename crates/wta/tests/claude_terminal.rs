//! A real agent CLI that runs its shell tool through the client's
//! `terminal/*`: `@zed-industries/claude-code-acp` (installed by
//! `scripts/install-test-peers.sh`), offline against `peers/fake_anthropic.py`,
//! which only makes the model's decisions (one `Bash` call, then an answer
//! quoting its result). The command runs in a tmux pane through a real
//! master and helper, and its output reaches the model.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod acp_common;
mod claude_common;

use acp_common::{Env, Helper};
use claude_common::{FakeModel, T, claude_code_acp};
use wta_testkit::TmuxServer;

#[test]
fn claude_code_acp_runs_its_bash_tool_in_a_pane_and_reads_the_result() {
    let Some(agent) = claude_code_acp() else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let model = FakeModel::start(scratch.path(), "echo made-in-a-pane-$((6*7))");
    // Kept after the command, so the test sees the pane it ran in.
    let env = Env::with_config(&format!(
        "[terminals]\nkeep_after_exit = true\n\n{}",
        model.claude_config(&agent, scratch.path())
    ));
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let before = tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
    let mut h = env.helper_in_tmux("custom:claude", &tmux, &shell);
    h.send("prompt Please RUN_TOOL now");
    let asked = h.expect(T, |e| {
        e["event"] == "permission" || e["event"] == "prompt_done"
    });
    assert_eq!(asked["event"], "permission", "{:#?}", h.seen);
    let allow = asked["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o.as_str())
        .find(|o| *o == "allow")
        .expect("an allow-once option");
    h.send(&format!("allow {allow}"));
    let done = h.expect(T, |e| e["event"] == "prompt_done" || e["event"] == "error");
    assert_eq!(done["event"], "prompt_done", "{:#?}", h.seen);
    let methods: Vec<String> = h
        .seen
        .iter()
        .filter(|e| e["event"] == "client_request")
        .map(|e| e["method"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        methods.iter().any(|m| m == "terminal/create")
            && methods.iter().any(|m| m == "terminal/release"),
        "{methods:?} {:#?}",
        h.seen
    );
    // The command ran in the shell (the arithmetic expanded) and its output
    // went back to the model, which quoted it.
    let text = Helper::chunks(&h.seen).join("");
    assert!(
        text.contains("TOOL_DONE:") && text.contains("made-in-a-pane-42"),
        "{text}"
    );
    // In a pane beside the shell, where the user saw it run.
    let after = tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
    let pane = after
        .lines()
        .find(|p| !before.lines().any(|b| b == *p))
        .expect("the terminal's pane");
    let screen = tmux.tmux(&["capture-pane", "-p", "-J", "-S", "-50", "-t", pane]);
    assert!(screen.contains("made-in-a-pane-42"), "{screen}");
    assert_eq!(
        tmux.display(pane, "#{window_id}"),
        tmux.display(&shell, "#{window_id}")
    );
}
