//! Black-box lifecycle tests of the master's agent pool and outbound queues: idle
//! agents are stopped (no process left behind once nothing uses them),
//! `session/close` unbinds, a helper that stops reading neither blocks another
//! helper on the same agent nor loses count of what it missed (`_wta/lagged`),
//! and `/restart` gives one pane a fresh agent without disturbing the others.
//!
//! Real `wta --master`, real headless helpers, a raw JSON-RPC client over the
//! master socket (so "stops reading" really means nobody reads the socket), the
//! scripted test agent.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::time::{Duration, Instant};

use acp_common::raw::{RawHelper, chunk_text, listed_sessions};
use acp_common::{Env, Helper, group_exists};
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(20);

fn is_lagged(msg: &Value) -> bool {
    matches!(msg["method"].as_str(), Some("_wta/lagged" | "wta/lagged"))
}

fn wait_group_gone(pgid: i32, what: &str) {
    wta_testkit::wait_until(what, Duration::from_secs(6), || !group_exists(pgid))
        .unwrap_or_else(|e| panic!("agent group {pgid} still runs: {e}"));
}

#[test]
fn an_agent_lives_while_a_helper_uses_it_and_stops_after_the_last_one_leaves() {
    let env = Env::new();
    let _master = env.start_master();
    let mut a = env.helper("custom:test");
    let mut b = env.helper("custom:test");
    let shared = a.agent_pid();
    assert_eq!(
        b.agent_pid(),
        shared,
        "both helpers share one agent process"
    );

    a.proc.kill9();
    // A later helper on another agent comes and goes; once its agent is reaped,
    // the master has long handled `a`'s departure, yet `b` keeps `shared` alive.
    let mut c = env.helper("custom:other");
    let other = c.agent_pid();
    c.proc.kill9();
    wait_group_gone(other, "the other agent, unused, is stopped");
    assert!(group_exists(shared), "an agent still used by b was stopped");
    assert_eq!(b.agent_pid(), shared, "b still talks to the same process");

    // The last helper leaves: the agent's whole process group goes.
    b.proc.kill9();
    wait_group_gone(shared, "the shared agent is stopped after its last helper");
    assert!(
        listed_sessions(&env).is_empty(),
        "no session outlives its helper"
    );

    // The next helper respawns it cleanly.
    let mut d = env.helper("custom:test");
    let fresh = d.agent_pid();
    assert_ne!(fresh, shared);
    let events = d.turn("echo again", T);
    assert_eq!(Helper::chunks(&events), ["again"]);
}

#[test]
fn session_close_unbinds_the_session_from_the_master() {
    let env = Env::new();
    let _master = env.start_master();
    let (mut raw, first) = RawHelper::connect(&env.socket, "custom:test");
    let second = raw.call(
        "session/new",
        json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
    )["result"]["sessionId"]
        .as_str()
        .expect("second session")
        .to_owned();
    let mut listed = listed_sessions(&env);
    listed.sort();
    let mut both = vec![first.clone(), second.clone()];
    both.sort();
    assert_eq!(listed, both);

    let closed = raw.call("session/close", json!({"sessionId": first}));
    assert!(closed.get("result").is_some(), "{closed}");
    assert_eq!(listed_sessions(&env), std::slice::from_ref(&second));
    // The closed session is no longer this helper's to address.
    let id = raw.prompt(&first, "echo hi");
    let (answer, _) = raw.response(id, T);
    assert!(answer.get("error").is_some(), "{answer}");
    let id = raw.prompt(&second, "echo still here");
    let (answer, _) = raw.response(id, T);
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
}

#[test]
fn a_helper_that_stops_reading_blocks_no_one_and_later_learns_how_much_it_missed() {
    const N: u64 = 20_000;
    let env = Env::new();
    let _master = env.start_master();
    let mut reader = env.helper("custom:test");
    let (mut stalled, session) = RawHelper::connect(&env.socket, "custom:test");

    // Far more than the per-helper queue (4,096) plus the socket buffers hold.
    let streaming = stalled.prompt(&session, &format!("stream {N} S"));
    let log = env.path("state/wta/master.log");
    wta_testkit::wait_until("the master starts dropping", T, || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("helper is not reading"))
    })
    .expect("stall logged");

    // The other helper on the same agent process is served while `stalled` is stuck.
    let events = reader.turn("stream 300 R", T);
    let mine: Vec<String> = (0..300).map(|i| format!("R:{i};")).collect();
    assert_eq!(Helper::chunks(&events), mine);

    // Resume reading: the stream's answer arrives, and the lag report comes as
    // soon as the queue has room, although the stream has ended and nothing
    // else is sent to this helper.
    let (done, mut seen) = stalled.response(streaming, Duration::from_secs(60));
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    let deadline = Instant::now() + T;
    while !seen.iter().any(is_lagged) {
        let msg = stalled.next_before(deadline, "_wta/lagged after the stream ended");
        seen.push(msg);
    }
    let echo = stalled.prompt(&session, "echo after");
    let (done, after) = stalled.response(echo, T);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    seen.extend(after);

    let dropped: u64 = seen
        .iter()
        .filter(|m| is_lagged(m))
        .map(|m| m["params"]["dropped"].as_u64().expect("dropped count"))
        .sum();
    let received: Vec<u64> = seen
        .iter()
        .filter_map(chunk_text)
        .filter_map(|t| t.strip_prefix("S:")?.strip_suffix(';')?.parse().ok())
        .collect();
    assert!(dropped > 0, "a stalled helper is told it lagged");
    assert_eq!(
        received.len() as u64 + dropped,
        N,
        "every update was either delivered or counted as dropped"
    );
    assert!(
        received.windows(2).all(|w| w[0] < w[1]),
        "what was delivered kept its order"
    );
    assert_eq!(
        seen.iter().rev().find_map(chunk_text),
        Some("after"),
        "updates flow again after the lag report"
    );
    for m in &seen {
        if let Some(s) = m["params"]["sessionId"].as_str() {
            assert_eq!(s, session, "cross-talk: {m}");
        }
    }
}

#[test]
fn restart_gives_the_pane_a_fresh_agent_and_leaves_other_panes_on_the_old_one() {
    let env = Env::new();
    let _master = env.start_master();
    let mut a = env.helper("custom:test");
    let mut b = env.helper("custom:test");
    let old = a.agent_pid();
    assert_eq!(b.agent_pid(), old, "both panes share one agent process");
    let old_session = a.session.clone();

    // `a`'s turn hangs; /restart must not wait for the hung agent.
    a.send("prompt stall");
    a.expect(T, |e| e["update"]["content"]["text"] == "stalling");
    a.send("restart");
    let ready = a.expect(T, |e| e["event"] == "ready" || e["event"] == "error");
    assert_eq!(ready["event"], "ready", "{ready}");
    a.session = ready["sessionId"].as_str().expect("sessionId").to_owned();
    assert_ne!(a.session, old_session);
    // The hung turn ends (cancelled by the master closing the old session).
    let old_turn_done = |e: &Value| {
        e["event"] == "prompt_done"
            && e["sessionId"] == old_session.as_str()
            && e["stopReason"] == "cancelled"
    };
    if !a.seen.iter().any(old_turn_done) {
        a.expect(T, old_turn_done);
    }
    let fresh = a.agent_pid();
    assert_ne!(
        fresh, old,
        "restart starts a new agent process for this pane"
    );
    let events = a.turn("echo on the fresh agent", T);
    assert_eq!(Helper::chunks(&events), ["on the fresh agent"]);

    // The other pane keeps its session on the old process, undisturbed.
    assert_eq!(b.agent_pid(), old);
    let events = b.turn("echo still here", T);
    assert_eq!(Helper::chunks(&events), ["still here"]);
    assert!(
        b.seen
            .iter()
            .all(|e| e["event"] != "error" && e["event"] != "agent_exited"),
        "{:?}",
        b.seen
    );
    // `a`'s session on the old agent was closed for it.
    let listed = listed_sessions(&env);
    assert!(!listed.contains(&old_session), "{listed:?}");
    assert!(listed.contains(&a.session) && listed.contains(&b.session));

    // A second helper selecting the agent still gets the shared instance.
    let mut c = env.helper("custom:test");
    assert_eq!(
        c.agent_pid(),
        old,
        "a restart does not replace the shared agent"
    );
    c.proc.kill9();

    // Once no pane uses the old process, it is stopped; `a`'s keeps running.
    b.proc.kill9();
    wait_group_gone(old, "the old agent is stopped once unused");
    assert!(
        group_exists(fresh),
        "the restarted pane's agent was stopped"
    );
    assert_eq!(a.agent_pid(), fresh);
}

/// A pane closing a session the agent cannot close (the demo) still ends it:
/// the master answers, cancels it on the agent and forgets it, so `sessions
/// list` shows only what is live.
#[test]
fn a_session_closed_on_an_agent_that_cannot_close_is_forgotten() {
    let env = Env::new();
    let _master = env.start_master();
    let (mut raw, first) = RawHelper::connect(&env.socket, "demo");
    let new = raw.call(
        "session/new",
        json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
    );
    let second = new["result"]["sessionId"].as_str().unwrap().to_owned();
    let closed = raw.call("session/close", json!({"sessionId": first}));
    assert!(closed.get("result").is_some(), "{closed}");
    let listed = listed_sessions(&env);
    assert!(listed.contains(&second), "{listed:?}");
    assert!(!listed.contains(&first), "{listed:?}");
}

/// Logs stay bounded on disk: a master log over the limit is moved aside
/// when the master opens it, and helper logs nobody wrote to for a week go.
#[test]
fn a_starting_master_rotates_its_log_and_removes_stale_helper_logs() {
    let env = Env::new();
    let state = env.path("state/wta");
    std::fs::create_dir_all(&state).unwrap();
    let big = wta_env::logging::ROTATE_AT as usize + 1;
    std::fs::write(state.join("master.log"), "x".repeat(big)).unwrap();
    let stale = state.join("helper-999999999.log");
    let fresh = state.join("helper-999999998.log");
    std::fs::write(&stale, "gone helper\n").unwrap();
    std::fs::write(&fresh, "recent helper\n").unwrap();
    let eight_days = Duration::from_secs(8 * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - eight_days)
        .unwrap();

    let _master = env.start_master();
    let old = std::fs::metadata(state.join("master.log.1")).expect("the big log moved aside");
    assert_eq!(old.len(), big as u64);
    let now = std::fs::metadata(state.join("master.log")).expect("a fresh log");
    assert!(now.len() < 1 << 20, "{} bytes", now.len());
    assert!(!stale.exists(), "a week-old helper log is removed");
    assert!(fresh.exists(), "a recent helper log stays");
}
