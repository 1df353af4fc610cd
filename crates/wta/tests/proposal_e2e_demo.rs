//! `wta up --agent demo` shows the whole proposal loop: asked `run echo hi`,
//! the demo agent proposes the command through the real path (permission
//! for the canonical invocation, the CLI via `sh -c`), the card appears, Run
//! runs it in the launcher's integrated shell, and the demo reports the
//! result from the execution line. Private tmux server, temp HOME/XDG env.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "acp_common/mod.rs"]
mod acp_common;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use acp_common::Env;
use wta_helper::app::permission::PERMISSION_GRACE;
use wta_testkit::{TmuxServer, wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);

/// Ends the master our `wta up` started, by its pid (from its lock file).
struct MasterGuard(Option<PathBuf>);

impl Drop for MasterGuard {
    fn drop(&mut self) {
        if let Some(pid) = self
            .0
            .as_ref()
            .and_then(|l| std::fs::read_to_string(l).ok())
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }
}

fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn demo_agent_runs_a_command_through_the_card_and_reports_its_result() {
    let env = Env::new();
    let vars: Vec<(&str, OsString)> = vec![
        ("HOME", env.path("home").into()),
        ("XDG_CONFIG_HOME", env.path("config").into()),
        ("XDG_STATE_HOME", env.path("state").into()),
        ("XDG_RUNTIME_DIR", env.path("runtime").into()),
        ("WTA_POLICY_FILE", env.policy.clone().into()),
        ("SHELL", "/bin/bash".into()),
    ];
    let refs: Vec<(&str, &std::ffi::OsStr)> =
        vars.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let tmux = TmuxServer::start_with_env("bash --norc --noprofile", &refs);
    let mut guard = MasterGuard(None);
    let out = env
        .command()
        .env("SHELL", "/bin/bash")
        .args([
            "-L",
            tmux.name(),
            "up",
            "--detach",
            "--json",
            "--agent",
            "demo",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "wta up failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let up: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    guard.0 = Some(PathBuf::from(up["master_socket"].as_str().unwrap()).with_extension("lock"));
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    let shell = up["shell_pane"].as_str().unwrap().to_owned();
    tmux.wait_for_text(&agent, "Ready", T);

    tmux.type_line(&agent, "run echo hi-from-$((20+1))");
    let card = tmux.wait_for_text(&agent, " Run ", T);
    assert!(card.contains("echo hi-from-$((20+1))"), "{card}");
    assert!(
        !card.contains("Reject"),
        "the canonical command is allowed without a permission card:\n{card}"
    );
    let shown = Instant::now();
    wait_until("the card accepts keys", T, || {
        shown.elapsed() > PERMISSION_GRACE * 2
    })
    .unwrap();
    tmux.tmux(&["send-keys", "-t", &agent, "Enter"]);

    tmux.wait_for_text(&shell, "hi-from-21", T);
    // Markdown renders the backticks as a code span.
    let want = squeezed("echo hi-from-$((20+1)) completed with exit code 0.");
    let screen = wait_for_value("the demo's completion message", T, || {
        let screen = tmux.capture(&agent);
        squeezed(&screen).contains(&want).then_some(screen)
    })
    .unwrap_or_else(|e| panic!("{e}; screen was:\n{}", tmux.capture(&agent)));
    assert!(
        screen.contains("hi-from-21"),
        "the reply shows the output's tail:\n{screen}"
    );
}
