//! The agent pane's machine and runtime (what the chat TUI drives) against a
//! real master: `/restart` moves only this
//! pane to a fresh agent process, and after that agent dies the next prompt
//! opens a new session first, says so, and runs.
//!
//! The runtime reads the environment (registry, runtime dir for its proposal
//! socket), so it runs in a child copy of this test binary (started with
//! [`RUNTIME`], see [`runtime_entry`]) with the temp HOME/XDG env of
//! [`Env::command`]; the parent owns the master and a headless helper
//! sharing the agent. The binary has its own `main` (`harness = false`), so
//! the child's role is not a test.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::process::Stdio;
use std::time::Duration;

use acp_common::{Env, Helper};
use std::time::Instant;

use wta_helper::machine::{Input, Machine};
use wta_helper::runtime::{Runtime, RuntimeConfig};
use wta_state::{Event, Item, Scripted, SystemLevel};

const T: Duration = Duration::from_secs(20);
/// The argument that makes this binary the child running the runtime; then
/// the shared agent's pid and the master's socket.
const RUNTIME: &str = "--runtime-entry";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, shared, socket] = args.as_slice()
        && flag == RUNTIME
    {
        return runtime_entry(shared.parse().expect("shared pid"), socket.into());
    }
    wta_testkit::harness::run(&[(
        "restart_and_respawn_through_the_pane_runtime",
        restart_and_respawn_through_the_pane_runtime,
    )]);
}

fn restart_and_respawn_through_the_pane_runtime() {
    let env = Env::new();
    let _master = env.start_master();
    let mut other = env.helper("custom:test");
    let shared = other.agent_pid();

    let exe = std::env::current_exe().expect("test binary");
    // The same env `wta` gets, for a copy of this test binary: the scrub,
    // then every variable `Env::command` sets.
    let mut child = wta_testkit::env::clean(exe);
    for (k, v) in env.command().get_envs() {
        match v {
            Some(v) => child.env(k, v),
            None => child.env_remove(k),
        };
    }
    let out = child
        .arg(RUNTIME)
        .arg(shared.to_string())
        .arg(&env.socket)
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

/// Feeds the runtime's inputs through the machine until `pred` holds.
async fn until(rt: &mut Runtime, m: &mut Machine, what: &str, pred: impl Fn(&Machine) -> bool) {
    let deadline = tokio::time::Instant::now() + T;
    while !pred(m) {
        let input = tokio::time::timeout_at(deadline, rt.next())
            .await
            .unwrap_or_else(|_| panic!("no {what} within {T:?}; transcript {:#?}", items(m, 0)));
        rt.apply(m, input, Instant::now());
    }
}

/// The transcript's items from the `from`th on.
fn items(m: &Machine, from: usize) -> Vec<Item> {
    m.app.transcript.entries()[from..]
        .iter()
        .map(|e| e.item.clone())
        .collect()
}

fn agent_text(items: &[Item]) -> String {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Agent(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn system_lines(items: &[Item], level: SystemLevel) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::System { level: l, text } if *l == level => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Sends `text` as the user would and waits for the end of its turn;
/// returns what the turn added to the transcript.
async fn prompt(rt: &mut Runtime, m: &mut Machine, text: &str) -> Vec<Item> {
    let from = m.app.transcript.entries().len();
    let submit = Input::App(Event::Script(Scripted::Submit(text.to_owned())));
    rt.apply(m, submit, Instant::now());
    assert!(m.app.transcript.turn_running(), "{:#?}", items(m, from));
    until(rt, m, "the end of the turn", |m| {
        !m.app.transcript.turn_running()
    })
    .await;
    items(m, from)
}

async fn agent_pid(rt: &mut Runtime, m: &mut Machine) -> i32 {
    let items = prompt(rt, m, "pid").await;
    let text = agent_text(&items);
    text.trim_start_matches("pid ")
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("no pid in {items:#?}"))
}

/// The child's role, started by the test above: this pane's runtime on
/// the master at `socket`, whose other pane runs the agent `shared`.
fn runtime_entry(shared: i32, socket: std::path::PathBuf) {
    let tokio = tokio::runtime::Runtime::new().expect("tokio");
    tokio.block_on(async move {
        let config = RuntimeConfig {
            socket,
            agent: Some("custom:test".into()),
            cwd: std::env::current_dir().expect("cwd"),
            cards: true,
            ..RuntimeConfig::default()
        };
        let mut rt = Runtime::new(config, None);
        let mut m = rt.start(Instant::now());
        until(&mut rt, &mut m, "a session", |m| m.pane.session.is_some()).await;
        assert_eq!(
            agent_pid(&mut rt, &mut m).await,
            shared,
            "panes share the agent"
        );

        // /restart: a fresh process for this pane only.
        let first = m.pane.session.clone();
        let restart = Input::App(Event::Script(Scripted::Submit("/restart".into())));
        rt.apply(&mut m, restart, Instant::now());
        until(&mut rt, &mut m, "the restarted session", |m| {
            m.pane.session.is_some() && m.pane.session != first
        })
        .await;
        let fresh = agent_pid(&mut rt, &mut m).await;
        assert_ne!(fresh, shared, "restart gives this pane a new agent process");

        // That agent dies between turns: the pane is told, and the next prompt
        // opens a new session (starting the agent again), says so, and runs.
        let from = m.app.transcript.entries().len();
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(fresh),
            nix::sys::signal::Signal::SIGKILL,
        )
        .expect("kill the fresh agent");
        until(&mut rt, &mut m, "the exit notice", |m| {
            system_lines(&items(m, from), SystemLevel::Error)
                .iter()
                .any(|t| t.contains("exited"))
        })
        .await;
        let notice = system_lines(&items(&m, from), SystemLevel::Error).join("\n");
        assert!(notice.contains("next prompt"), "{notice}");

        let turn = prompt(&mut rt, &mut m, "echo back again").await;
        assert!(
            system_lines(&turn, SystemLevel::Info)
                .iter()
                .any(|t| t.contains("new session")),
            "{turn:#?}"
        );
        assert_eq!(agent_text(&turn), "back again", "{turn:#?}");
        let respawned = agent_pid(&mut rt, &mut m).await;
        assert_ne!(respawned, fresh);
        assert_ne!(
            respawned, shared,
            "the pane's private agent respawns private"
        );
    });
    println!("runtime entry passed");
}
