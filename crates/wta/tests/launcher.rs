//! End-to-end tests of the launcher (`wta up`, `wta pane open|toggle|close`)
//! on a private tmux server whose environment points at temp HOME/XDG dirs,
//! with the scripted test agent as `custom:test`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::path::PathBuf;
use std::time::Duration;

use launch_common::{Env, Launch, stop_master, user_env};
use serde_json::Value;
use wta_testkit::{wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);

/// Asks the test agent in `pane` for its pid.
fn agent_pid(l: &Launch, pane: &str) -> i32 {
    l.say(pane, "pid");
    wait_for_value("agent pid", T, || {
        let screen = l.tmux.capture(pane);
        screen.lines().rev().find_map(|line| {
            line.trim()
                .trim_start_matches('•')
                .trim()
                .strip_prefix("pid ")?
                .trim()
                .parse()
                .ok()
        })
    })
    .unwrap()
}

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

#[test]
fn up_opens_an_integrated_shell_and_a_working_agent_pane() {
    let mut l = Launch::new();
    let up = l.up(&["--agent", "custom:test", "--session", "work"]);
    assert_eq!(up["created"], true);
    assert_eq!(up["session_name"], "work");
    let (shell, agent) = (
        up["shell_pane"].as_str().unwrap(),
        up["agent_pane"].as_str().unwrap(),
    );
    // The shell announced integration for its own pid.
    let shell_pid = l.pane_pid(shell);
    wait_until("shell integration announced", T, || {
        l.tmux.display(shell, "#{@wta_integration}") == format!("bash {shell_pid}")
    })
    .unwrap();
    // The agent pane sits beside it and answers.
    assert_eq!(
        l.tmux.display(agent, "#{window_id}"),
        l.tmux.display(shell, "#{window_id}")
    );
    assert_ne!(l.tmux.display(agent, "#{pane_left}"), "0");
    l.tmux.wait_for_text(agent, "Ready", T);
    l.say(agent, "echo hello from the launcher test");
    l.tmux
        .wait_for_text(agent, "hello from the launcher test", T);
    // A second `up` reuses the session and its agent pane.
    let again = l.up(&["--agent", "custom:test", "--session", "work"]);
    assert_eq!(again["created"], false);
    assert_eq!(again["agent_pane"], agent);
    assert_eq!(again["shell_pane"], shell);
    // Asked for another agent, it reports the one the reused pane runs and
    // says how to switch.
    let out = l.wta(&[
        "up",
        "--detach",
        "--json",
        "--agent",
        "demo",
        "--session",
        "work",
    ]);
    assert!(out.status.success());
    let reused: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reused["agent"], "custom:test", "{reused}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/agent demo"), "{stderr}");
}

/// Issue 3 item 8 for `wta up`: the shell starts behind a readiness gate that
/// the agent pane's helper releases once its watcher follows the shell, so
/// the helper sees the first prompt's marks (and records `present`) without
/// any key being pressed.
fn up_shell_first_prompt_is_seen_by_the_agent_pane(shell: &str) {
    let mut l = Launch::new();
    let up = l.up_with_shell(shell, &["--agent", "custom:test", "--session", "gated"]);
    let pane = up["shell_pane"].as_str().unwrap().to_owned();
    wait_until("the helper saw the first prompt's marks", T, || {
        l.tmux.display(&pane, "#{@wta_integration_state}") == "present"
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&pane)));
    // The helper took the gate (the fallback would leave no watcher) and
    // still follows the pane.
    assert_eq!(l.tmux.display(&pane, "#{@wta_gate}"), "");
    assert_eq!(l.tmux.display(&pane, "#{pane_pipe}"), "1");
    let name = std::path::Path::new(shell)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    assert_eq!(l.tmux.display(&pane, "#{pane_current_command}"), name);
}

#[test]
fn up_bash_first_prompt_is_seen_by_the_agent_pane() {
    up_shell_first_prompt_is_seen_by_the_agent_pane("/bin/bash");
}

#[test]
fn up_zsh_first_prompt_is_seen_by_the_agent_pane() {
    up_shell_first_prompt_is_seen_by_the_agent_pane("/usr/bin/zsh");
}

#[test]
fn up_fish_first_prompt_is_seen_by_the_agent_pane() {
    up_shell_first_prompt_is_seen_by_the_agent_pane("/usr/bin/fish");
}

#[test]
fn up_with_the_demo_agent_works_offline() {
    let mut l = Launch::new();
    let up = l.up(&["--agent", "demo"]);
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    l.tmux.wait_for_text(&agent, "Ready", T);
    l.say(&agent, "hello");
    let screen = l.tmux.wait_for_text(&agent, "You said", T);
    assert!(
        screen.contains("demo agent"),
        "it says it is a demo:\n{screen}"
    );
}

#[test]
fn toggle_hides_and_restores_the_same_helper_with_its_transcript() {
    let mut l = Launch::new();
    let (_, shell, agent) = l.up_ready("custom:test");
    l.say(&agent, "echo remember this line");
    l.tmux.wait_for_text(&agent, "remember this line", T);
    let helper = l.pane_pid(&agent);
    let width = l.tmux.display(&agent, "#{pane_width}");
    let window = l.tmux.display(&shell, "#{window_id}");

    let hidden = l.pane(&["toggle", "-t", &shell]);
    assert_eq!(
        hidden,
        serde_json::json!({"schema_version": 2, "action": "stashed", "pane": agent})
    );
    assert_ne!(
        l.tmux.display(&agent, "#{window_id}"),
        window,
        "hidden from the tab"
    );
    assert_eq!(l.tmux.display(&shell, "#{window_panes}"), "1");
    assert!(alive(helper), "the helper keeps running while hidden");

    let shown = l.pane(&["toggle", "-t", &shell]);
    assert_eq!(
        shown,
        serde_json::json!({"schema_version": 2, "action": "restored", "pane": agent})
    );
    assert_eq!(l.tmux.display(&agent, "#{window_id}"), window);
    assert_eq!(l.pane_pid(&agent), helper, "same helper process");
    assert_eq!(l.tmux.display(&agent, "#{pane_width}"), width, "same size");
    assert_ne!(l.tmux.display(&agent, "#{pane_left}"), "0", "same side");
    l.tmux.wait_for_text(&agent, "remember this line", T);
    // A second open focuses the existing pane instead of adding one.
    let again = l.pane(&["open", "-t", &shell]);
    assert_eq!(again["action"], "focused");
    assert_eq!(l.tmux.display(&shell, "#{window_panes}"), "2");
}

#[test]
fn close_leaves_no_helper_or_agent_process() {
    let mut l = Launch::new();
    let (_, shell, agent) = l.up_ready("custom:test");
    let helper = l.pane_pid(&agent);
    let agent_pid = agent_pid(&l, &agent);
    let closed = l.pane(&["close", "-t", &shell]);
    assert_eq!(
        closed,
        serde_json::json!({"schema_version": 2, "action": "closed", "pane": agent})
    );
    wait_until("helper gone", T, || !alive(helper)).unwrap();
    wait_until("agent process gone", T, || !alive(agent_pid)).unwrap();
    assert!(alive(l.master_pid()), "the master stays for other panes");
    assert_eq!(
        l.pane(&["close", "-t", &shell]),
        serde_json::json!({"schema_version": 2, "action": "nothing_to_close", "pane": null})
    );
}

#[test]
fn two_tabs_get_two_independent_agent_panes_on_one_master() {
    let mut l = Launch::new();
    let up = l.up(&["--agent", "custom:test"]);
    let first = up["agent_pane"].as_str().unwrap().to_owned();
    let other_shell = l
        .tmux
        .tmux(&[
            "new-window",
            "-t",
            "wta:",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "bash --norc",
        ])
        .trim()
        .to_owned();
    let opened = l.pane(&["open", "-t", &other_shell, "--agent", "custom:test"]);
    assert_eq!(opened["action"], "opened");
    let second = opened["pane"].as_str().unwrap().to_owned();
    assert_ne!(first, second);
    l.tmux.wait_for_text(&first, "Ready", T);
    l.tmux.wait_for_text(&second, "Ready", T);
    l.say(&first, "echo only-in-the-first");
    l.say(&second, "echo only-in-the-second");
    l.tmux.wait_for_text(&first, "only-in-the-first", T);
    l.tmux.wait_for_text(&second, "only-in-the-second", T);
    assert!(!l.tmux.capture(&first).contains("only-in-the-second"));
    assert!(!l.tmux.capture(&second).contains("only-in-the-first"));
    // One master serves both: same agent process, two sessions, two owner tabs.
    assert_eq!(agent_pid(&l, &first), agent_pid(&l, &second));
    let out = l
        .env
        .command()
        .args([
            "sessions",
            "list",
            "--json",
            "--master-socket",
            up["master_socket"].as_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sessions: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = sessions.to_string();
    let tabs = [
        l.tmux.display(&first, "#{window_id}"),
        l.tmux.display(&second, "#{window_id}"),
    ];
    assert!(tabs.iter().all(|t| text.contains(t.as_str())), "{text}");
}

#[test]
fn a_stale_socket_of_a_dead_master_is_replaced_and_panes_work_again() {
    let mut l = Launch::new();
    let up = l.up(&["--agent", "custom:test"]);
    let first_agent = up["agent_pane"].as_str().unwrap().to_owned();
    l.tmux.wait_for_text(&first_agent, "Ready", T);
    let socket = PathBuf::from(up["master_socket"].as_str().unwrap());
    let old = l.master_pid();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(old),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_until("the old master is gone", T, || !alive(old)).unwrap();
    assert!(
        socket.exists(),
        "a killed master leaves its socket file behind"
    );
    // Its agent pane stays, says so, and waits for the user.
    l.tmux.wait_for_text(&first_agent, "Master gone", T);
    let again = l.up(&["--agent", "custom:test"]);
    assert_eq!(again["created"], false);
    let agent = again["agent_pane"].as_str().unwrap().to_owned();
    assert_eq!(agent, first_agent, "the pane that stayed is reused");
    assert_ne!(l.master_pid(), old, "a new master owns the socket");
    // Enter in the pane connects it to that master.
    l.tmux.tmux(&["send-keys", "-t", &agent, "Enter"]);
    l.tmux
        .wait_for_text(&agent, "reconnected to a new master", T);
    l.say(&agent, "echo after the restart");
    l.tmux.wait_for_text(&agent, "after the restart", T);
}

#[test]
fn the_tmux_config_bindings_load_and_toggle_the_agent_pane() {
    let mut l = Launch::new();
    let (_, shell, agent) = l.up_ready("custom:test");
    let out = l.wta(&["tmux-config"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let file = l.env.path("wta.tmux.conf");
    std::fs::write(&file, &text).unwrap();
    l.tmux.tmux(&["source-file", file.to_str().unwrap()]);
    let keys = l.tmux.tmux(&["list-keys", "-T", "prefix", "a"]);
    assert!(keys.contains("pane toggle"), "{keys}");
    // Run exactly what the binding runs, with formats expanded for the shell pane.
    let line = text.lines().find(|l| l.starts_with("bind-key a ")).unwrap();
    let command = line
        .split_once("run-shell -b ")
        .unwrap()
        .1
        .trim()
        .trim_matches('"')
        .replace("\\\"", "\"");
    let window = l.tmux.display(&shell, "#{window_id}");
    l.tmux.tmux(&["run-shell", "-t", &shell, &command]);
    assert_ne!(l.tmux.display(&agent, "#{window_id}"), window, "hidden");
    l.tmux.tmux(&["run-shell", "-t", &shell, &command]);
    assert_eq!(l.tmux.display(&agent, "#{window_id}"), window, "back");
}

#[test]
fn a_command_for_a_shell_still_loading_its_rc_is_refused_not_typed_blind() {
    let mut l = Launch::new();
    // The user's rc takes its time (think pyenv or nvm): no prompt yet.
    std::fs::write(l.env.path("home/.bashrc"), "sleep 600\n").unwrap();
    let (_, shell, agent) = l.up_ready("custom:test");
    l.say(&agent, "propose-run echo typed-too-early");
    l.wait_card(&agent, &launch_common::card::Card::proposal("Run"));
    l.tmux.tmux(&["send-keys", "-t", &agent, "Enter"]);
    let squeezed = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    wait_until("the refusal", T, || {
        squeezed(&l.tmux.capture(&agent)).contains("isstillstarting")
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&agent)));
    assert!(
        !l.tmux.capture(&shell).contains("typed-too-early"),
        "nothing was typed into the starting shell"
    );
}

/// Ends what `wta up` started on the default server of a private
/// `TMUX_TMPDIR`: the tmux server (by its socket) and any master whose lock
/// is in the test's runtime dir (by the pid it holds).
struct DefaultServer {
    socket: PathBuf,
    runtime: PathBuf,
}

impl DefaultServer {
    fn tmux(&self, args: &[&str]) -> String {
        let out = wta_testkit::env::clean("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for DefaultServer {
    fn drop(&mut self) {
        let locks = std::fs::read_dir(self.runtime.join("wta"))
            .into_iter()
            .flatten();
        for lock in locks.flatten().map(|e| e.path()) {
            if lock.extension().is_some_and(|x| x == "lock") {
                stop_master(&lock);
            }
        }
        self.tmux(&["kill-server"]);
    }
}

/// A fresh machine: no tmux server ever ran, so tmux's socket directory does
/// not exist. `wta up` (no -L, no $TMUX) starts the default server itself.
/// `TMUX_TMPDIR` points at an empty temp dir, so that default server is ours.
#[test]
fn up_starts_the_default_server_where_tmux_never_ran() {
    let env = Env::new();
    let tmpdir = tempfile::tempdir().unwrap();
    let uid = nix::unistd::getuid();
    let server = DefaultServer {
        socket: tmpdir.path().join(format!("tmux-{uid}/default")),
        runtime: env.path("runtime"),
    };
    assert!(!server.socket.parent().unwrap().exists());
    let out = env
        .command()
        .envs(user_env(&env))
        .env("TMUX_TMPDIR", tmpdir.path())
        .env_remove("TMUX_PANE")
        .args(["up", "--detach", "--json", "--agent", "demo"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "wta up failed: {stderr}");
    let up: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(up["tmux_socket"], server.socket.to_string_lossy().as_ref());
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    wait_until("the demo agent pane to be ready", T, || {
        server
            .tmux(&["capture-pane", "-p", "-t", &agent])
            .contains("Ready")
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}:\n{}",
            server.tmux(&["capture-pane", "-p", "-t", &agent])
        )
    });
}

/// An agent id that cannot work is refused before anything is created; an
/// agent that is only not installed still opens (its pane says how to install it).
#[test]
fn up_refuses_a_bad_agent_id_before_creating_anything() {
    let l = Launch::new();
    for (agent, says) in [
        ("bogus", "not a valid agent id"),
        ("custom:nope", "unknown agent `custom:nope`"),
    ] {
        let out = l.wta(&["up", "--detach", "--json", "--agent", agent]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{agent}");
        assert!(stderr.contains(says), "{agent}: {stderr}");
        assert!(
            l.tmux.try_tmux(&["has-session", "-t", "=wta"]).is_none(),
            "{agent}: no session was created"
        );
    }
}

/// Issue 26 item 1: an `up` that fails after creating its session (here the
/// agent pane's split: the terminal is 2x2) removes that session, so no
/// shell is left waiting at its gate and the next `up` builds a whole one
/// instead of reusing a broken one.
#[test]
fn a_failing_up_leaves_no_session_behind() {
    let mut l = Launch::new();
    let out = l
        .env
        .command()
        .envs(user_env(&l.env))
        .env("COLUMNS", "2")
        .env("LINES", "2")
        .arg("-L")
        .arg(l.tmux.name())
        .args(["up", "--detach", "--json", "--agent", "custom:test"])
        .args(["--session", "tiny"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no space for new pane"), "{stderr}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(
        l.tmux.try_tmux(&["has-session", "-t", "=tiny"]).is_none(),
        "the half-built session was removed: {}",
        l.tmux.tmux(&["list-sessions"])
    );
    assert_eq!(
        l.tmux
            .tmux(&["list-sessions", "-F", "#{session_name}"])
            .trim(),
        "main"
    );
    let again = l.up(&["--agent", "custom:test", "--session", "tiny"]);
    assert_eq!(again["created"], true, "{again}");
}
