//! A real agent CLI that runs its shell tool through the client's
//! `terminal/*`: `@zed-industries/claude-code-acp` (installed by
//! `scripts/install-test-peers.sh`), offline against `peers/fake_anthropic.py`,
//! which only makes the model's decisions (one `Bash` call, then an answer
//! quoting its result). The command runs in a tmux pane through a real
//! master and helper, and its output reaches the model.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod acp_common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use acp_common::{Env, Helper};
use wta_testkit::{TmuxServer, wait_for_value};

const T: Duration = Duration::from_secs(60);

fn claude_code_acp() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/test-peers/claude-code-acp/node_modules/.bin/claude-code-acp");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing: run scripts/install-test-peers.sh",
        path.display()
    );
    eprintln!("claude-code-acp not installed (scripts/install-test-peers.sh); skipped outside CI");
    None
}

/// The fake model server, ended on drop.
struct FakeModel {
    child: Child,
    port: u16,
}

impl FakeModel {
    fn start(dir: &Path, command: &str) -> Self {
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/fake_anthropic.py");
        let portfile = dir.join("fake-model.port");
        let child = Command::new("python3")
            .arg(script)
            .arg(&portfile)
            .arg(command)
            .spawn()
            .expect("python3 for the fake model");
        let port = wait_for_value("the fake model's port", T, || {
            std::fs::read_to_string(&portfile).ok()?.trim().parse().ok()
        })
        .unwrap();
        Self { child, port }
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn claude_code_acp_runs_its_bash_tool_in_a_pane_and_reads_the_result() {
    let Some(agent) = claude_code_acp() else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let model = FakeModel::start(scratch.path(), "echo made-in-a-pane-$((6*7))");
    let home = scratch.path().join("claude-home");
    std::fs::create_dir_all(&home).unwrap();
    // Kept after the command, so the test sees the pane it ran in.
    let env = Env::with_config(&format!(
        "[terminals]\nkeep_after_exit = true\n\n[custom_agents.claude]\nargv = [{agent:?}]\nenv = {{ IS_SANDBOX = \"1\", ANTHROPIC_BASE_URL = \"http://127.0.0.1:{port}\", ANTHROPIC_API_KEY = \"dummy\", HOME = {home:?} }}\n",
        agent = agent.to_string_lossy(),
        port = model.port,
        home = home.to_string_lossy(),
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
