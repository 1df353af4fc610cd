//! An agent that does not start says why, end to end: custom agents that
//! fail on purpose (one prints to stderr and exits 3, one hangs before
//! answering `initialize`) behind a real master, shown by a real helper in
//! a private tmux server's pane and headless; the pane and the master log
//! must name the exit status (or the timeout), the exact command line and
//! the agent's last stderr lines, colours removed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pane_tui_common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use pane_tui_common::{Env, Pane, Proc, T};
use wta_testkit::{TmuxServer, wait_for_value, wait_until};

/// An executable script at `dir/name` running `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A test env whose config has `custom:NAME` = `argv` for each entry.
fn env_with(agents: &[(&str, Vec<String>)]) -> Env {
    let extra: String = agents
        .iter()
        .map(|(name, argv)| format!("[custom_agents.{name}]\nargv = {argv:?}\n\n"))
        .collect();
    Env::with_config(&extra)
}

fn master_log(env: &Env) -> String {
    std::fs::read_to_string(env.path("state/wta/master.log")).unwrap_or_default()
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            (cmd.contains(marker) && wta_testkit::procs::running(pid)).then_some(pid)
        })
        .collect()
}

#[test]
fn an_agent_that_exits_at_once_shows_its_stderr_status_and_command_in_the_pane() {
    let dir = tempfile::tempdir().unwrap();
    let boom = script(
        dir.path(),
        "boom-agent",
        "echo 'starting up' >&2\nprintf '\\033[1;31mboom\\033[0m: missing API key\\n' >&2\nexit 3",
    );
    let argv = vec![
        boom.to_string_lossy().into_owned(),
        "--acp".into(),
        "a b".into(),
    ];
    let command = format!("{} --acp 'a b'", boom.display());
    let env = env_with(&[("boom", argv)]);
    let pane = Pane::open_on(env, "custom:boom", TmuxServer::start());
    let screen = pane.wait_for_all(&["boom: missing API key", "status 3"]);
    for needle in [
        "agent `custom:boom` exited with status 3 before it was ready",
        "Type /restart",
        "its last lines on stderr:",
        "starting up",
    ] {
        assert!(
            screen.contains(needle),
            "{needle:?} not on screen:\n{screen}"
        );
    }
    // The command, whole (the pane may wrap it: compared without breaks).
    let joined = pane
        .tmux
        .tmux(&["capture-pane", "-p", "-J", "-t", &pane.pane]);
    let flat: String = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("command: {command}")),
        "{command:?} not in:\n{joined}"
    );
    assert!(
        !joined.contains("[1;31m"),
        "colours came through:\n{joined}"
    );
    assert!(!screen.contains("Incoming transport closed"), "{screen}");

    let log = wait_for_value("the failure in the master log", T, || {
        let log = master_log(&pane.env);
        log.contains("agent did not start").then_some(log)
    })
    .unwrap();
    let line = log
        .lines()
        .position(|l| l.contains("agent did not start"))
        .unwrap();
    let entry = log
        .lines()
        .skip(line)
        .take(4)
        .collect::<Vec<_>>()
        .join("\n");
    for needle in [
        "exited with status 3 before answering initialize",
        command.as_str(),
        "starting up",
        "boom: missing API key",
    ] {
        assert!(
            entry.contains(needle),
            "{needle:?} not in the log:\n{entry}"
        );
    }
    assert!(!entry.contains('\u{1b}'), "{entry:?}");
}

/// A master whose agents have `secs` to answer `initialize`.
fn master_with_timeout(env: &Env, secs: &str) -> Proc {
    let child = env
        .command()
        .env("WTA_AGENT_INIT_TIMEOUT_SECS", secs)
        .arg("--master")
        .arg(&env.socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let socket = env.socket.clone();
    wait_until("master socket", Duration::from_secs(10), || socket.exists()).unwrap();
    Proc { child }
}

/// What a headless helper for `agent` says when it cannot start its
/// session: it exits 1 with the error on stderr (never `ready`).
fn headless_failure(env: &Env, agent: &str) -> String {
    let child = env
        .command()
        .arg("--connect-master")
        .arg(&env.socket)
        .args([
            "--agent",
            agent,
            "--headless",
            "--owner-tab",
            "@1",
            "--target-pane",
            "%2",
        ])
        .current_dir(env.path(""))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut helper = Proc { child };
    assert_eq!(helper.wait_exit(T), Some(1), "the helper should fail");
    let mut out = String::new();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut helper.child.stdout.take().unwrap(), &mut out).unwrap();
    std::io::Read::read_to_string(&mut helper.child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(!out.contains("\"ready\""), "{out}");
    err.strip_prefix("wta: ")
        .unwrap_or(&err)
        .trim_end()
        .to_owned()
}

#[test]
fn an_agent_that_never_answers_initialize_is_stopped_and_says_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let hang = script(
        dir.path(),
        "hang-agent",
        "echo 'waiting for a token from the keyring' >&2\nexec sleep 311.75",
    );
    let env = env_with(&[("hang", vec![hang.to_string_lossy().into_owned()])]);
    let _master = master_with_timeout(&env, "2");
    let message = headless_failure(&env, "custom:hang");
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "agent `custom:hang` did not answer within 2 s, so WTA stopped it",
            format!("command: {}", hang.display()).as_str(),
            "its last lines on stderr:",
            "  waiting for a token from the keyring",
        ],
        "{message}"
    );
    // Stopped, as it says.
    wait_until("the hung agent to be stopped", T, || {
        processes_with("sleep 311.75").is_empty()
    })
    .unwrap();
    let log = wait_for_value("the failure in the master log", T, || {
        let log = master_log(&env);
        log.contains("agent did not start").then_some(log)
    })
    .unwrap();
    assert!(
        log.contains("did not answer initialize within 2 s and was stopped")
            && log.contains("waiting for a token from the keyring"),
        "{log}"
    );
}

#[test]
fn an_agent_that_exits_silently_says_it_wrote_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let quiet = script(dir.path(), "quiet-agent", "kill -SEGV $$");
    let env = env_with(&[("quiet", vec![quiet.to_string_lossy().into_owned()])]);
    let _master = env.start_master();
    let message = headless_failure(&env, "custom:quiet");
    assert!(
        message.starts_with("agent `custom:quiet` was killed by SIGSEGV before it was ready"),
        "{message}"
    );
    assert!(message.ends_with("it wrote nothing on stderr"), "{message}");
}
