//! The agent pane's runtime (`wta_helper::runtime::Runtime`, what the chat TUI
//! drives) against a real master: `/restart` (`Effect::Restart`) moves only this
//! pane to a fresh agent process, and after that agent dies the next prompt
//! opens a new session first, says so, and runs.
//!
//! The runtime reads the environment (registry, runtime dir for its proposal
//! socket), so it runs in a child copy of this test binary (`runtime_entry`)
//! with the temp HOME/XDG env of [`Env::command`]; the parent owns the master
//! and a headless helper sharing the agent.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::process::Stdio;
use std::time::Duration;

use acp_common::{Env, Helper};
use wta_helper::runtime::{Runtime, RuntimeConfig};
use wta_state::{DomainEvent, Effect};

const T: Duration = Duration::from_secs(20);
/// Set (to the shared agent's pid) only in the child that runs the runtime.
const ENTRY_ENV: &str = "WTA_TEST_RUNTIME_ENTRY";
const SOCKET_ENV: &str = "WTA_TEST_RUNTIME_SOCKET";

#[test]
fn restart_and_respawn_through_the_pane_runtime() {
    let env = Env::new();
    let _master = env.start_master();
    let mut other = env.helper("custom:test");
    let shared = other.agent_pid();

    let exe = std::env::current_exe().expect("test binary");
    // The same env `wta` gets, for a copy of this test binary.
    let mut child = std::process::Command::new(exe);
    for (k, v) in env.command().get_envs() {
        match v {
            Some(v) => child.env(k, v),
            None => child.env_remove(k),
        };
    }
    let out = child
        .args([
            "--exact",
            "runtime_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ENTRY_ENV, shared.to_string())
        .env(SOCKET_ENV, &env.socket)
        .current_dir(env.path(""))
        .stdin(Stdio::null())
        .output()
        .expect("run the runtime entry");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "runtime entry failed:\n{text}");
    assert!(text.contains("runtime entry passed"), "{text}");

    // The other pane never noticed and still runs on the shared process.
    assert_eq!(other.agent_pid(), shared);
    let events = other.turn("echo still here", T);
    assert_eq!(Helper::chunks(&events), ["still here"]);
    assert!(
        other
            .seen
            .iter()
            .all(|e| e["event"] != "error" && e["event"] != "agent_exited"),
        "{:?}",
        other.seen
    );
}

/// Feeds the runtime's inputs back into it until an event matches `pred`.
async fn until(
    rt: &mut Runtime,
    what: &str,
    pred: impl Fn(&DomainEvent) -> bool,
) -> Vec<DomainEvent> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let input = tokio::time::timeout_at(deadline, rt.next())
            .await
            .unwrap_or_else(|_| panic!("no {what} within {T:?}; seen {seen:#?}"));
        let events = rt.handle(input);
        let hit = events.iter().any(&pred);
        seen.extend(events);
        if hit {
            return seen;
        }
    }
}

fn chunks(events: &[DomainEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            DomainEvent::AgentMessageChunk(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

async fn prompt(rt: &mut Runtime, text: &str) -> Vec<DomainEvent> {
    let mut events = rt.execute(Effect::SendPrompt(text.to_owned()));
    events.extend(
        until(rt, "the end of the turn", |e| {
            matches!(e, DomainEvent::TurnEnded(_))
        })
        .await,
    );
    events
}

async fn agent_pid(rt: &mut Runtime) -> i32 {
    let events = prompt(rt, "pid").await;
    let text = chunks(&events);
    text.trim_start_matches("pid ")
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("no pid in {events:#?}"))
}

/// Runs only in the child started above.
#[test]
fn runtime_entry() {
    let Some(shared) = std::env::var(ENTRY_ENV).ok() else {
        return;
    };
    let shared: i32 = shared.parse().expect("shared pid");
    let socket = std::env::var_os(SOCKET_ENV).expect("socket").into();
    let tokio = tokio::runtime::Runtime::new().expect("tokio");
    tokio.block_on(async move {
        let config = RuntimeConfig {
            socket,
            agent: Some("custom:test".into()),
            cwd: std::env::current_dir().expect("cwd"),
            ..RuntimeConfig::default()
        };
        let mut rt = Runtime::new(config, None);
        rt.start();
        until(&mut rt, "a session", |e| {
            matches!(e, DomainEvent::SessionStarted { .. })
        })
        .await;
        assert_eq!(agent_pid(&mut rt).await, shared, "panes share the agent");

        // /restart: a fresh process for this pane only.
        let mut events = rt.execute(Effect::Restart);
        events.extend(
            until(&mut rt, "the restarted session", |e| {
                matches!(e, DomainEvent::SessionStarted { .. })
            })
            .await,
        );
        let fresh = agent_pid(&mut rt).await;
        assert_ne!(fresh, shared, "restart gives this pane a new agent process");

        // That agent dies between turns: the pane is told, and the next prompt
        // opens a new session (starting the agent again), says so, and runs.
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(fresh),
            nix::sys::signal::Signal::SIGKILL,
        )
        .expect("kill the fresh agent");
        let events = until(
            &mut rt,
            "the exit notice",
            |e| matches!(e, DomainEvent::Error(text) if text.contains("exited")),
        )
        .await;
        let notice = events
            .iter()
            .find_map(|e| match e {
                DomainEvent::Error(text) => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        assert!(notice.contains("next prompt"), "{notice}");

        let events = prompt(&mut rt, "echo back again").await;
        assert!(
            events
                .iter()
                .any(|e| matches!(e, DomainEvent::Notice(text) if text.contains("new session"))),
            "{events:#?}"
        );
        assert_eq!(chunks(&events), "back again", "{events:#?}");
        let respawned = agent_pid(&mut rt).await;
        assert_ne!(respawned, fresh);
        assert_ne!(
            respawned, shared,
            "the pane's private agent respawns private"
        );
    });
    println!("runtime entry passed");
}
