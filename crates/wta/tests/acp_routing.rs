//! Black-box routing tests: real `wta --master`, real headless helpers, the
//! scripted test agent, real Unix sockets, temp HOME/XDG dirs.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::collections::HashSet;
use std::time::Duration;

use acp_common::{Env, Helper};

const T: Duration = Duration::from_secs(20);

fn assert_only_own_session(h: &Helper) {
    for e in &h.seen {
        if let Some(s) = e["sessionId"].as_str() {
            assert_eq!(s, h.session, "cross-talk: {e}");
        }
    }
}

#[test]
fn helpers_see_only_their_own_updates_and_permission_requests() {
    let env = Env::new();
    let _master = env.start_master();
    let mut a = env.helper("custom:test");
    let mut b = env.helper("custom:test");
    let mut c = env.helper("custom:other");
    let (pa, pb, pc) = (a.agent_pid(), b.agent_pid(), c.agent_pid());
    assert_eq!(pa, pb, "helpers selecting the same agent share one process");
    assert_ne!(pa, pc, "another agent key is another process");

    // Interleave: all three stream, then all three ask for permission at once.
    for (h, tag) in [(&mut a, "A"), (&mut b, "B"), (&mut c, "C")] {
        h.send(&format!("prompt stream 200 {tag}"));
    }
    for (h, tag) in [(&mut a, "A"), (&mut b, "B"), (&mut c, "C")] {
        h.expect(T, |e| e["event"] == "prompt_done");
        let chunks = Helper::chunks(&h.seen);
        let mine: Vec<String> = (0..200).map(|i| format!("{tag}:{i};")).collect();
        let streamed: Vec<String> = chunks
            .into_iter()
            .filter(|c| c.contains(':') && !c.starts_with("pid"))
            .collect();
        assert_eq!(
            streamed, mine,
            "helper {tag} got exactly its own chunks in order"
        );
    }
    for h in [&mut a, &mut b, &mut c] {
        h.send("prompt permission allow_once reject_once");
    }
    for (h, answer) in [
        (&mut a, "opt-0-allow_once"),
        (&mut b, "opt-1-reject_once"),
        (&mut c, "opt-0-allow_once"),
    ] {
        let p = h.expect(T, |e| e["event"] == "permission");
        assert_eq!(p["sessionId"], h.session.as_str());
        h.send(&format!("allow {answer}"));
        h.expect(T, |e| e["event"] == "prompt_done");
        let text = Helper::chunks(&h.seen).join("|");
        assert!(
            text.contains(&format!("permission: selected {answer}")),
            "{text}"
        );
        let asks = h.seen.iter().filter(|e| e["event"] == "permission").count();
        assert_eq!(
            asks, 1,
            "each helper sees exactly its own permission request"
        );
    }
    for h in [&a, &b, &c] {
        assert_only_own_session(h);
    }
}

#[test]
fn eight_helpers_stream_a_thousand_chunks_each_without_loss_or_crosstalk() {
    let env = Env::new();
    let _master = env.start_master();
    let mut helpers: Vec<Helper> = (0..8).map(|_| env.helper("custom:test")).collect();
    for (i, h) in helpers.iter_mut().enumerate() {
        h.send(&format!("prompt stream 1000 h{i}"));
    }
    for (i, h) in helpers.iter_mut().enumerate() {
        let done = h.expect(Duration::from_secs(60), |e| {
            e["event"] == "prompt_done" || e["event"] == "error"
        });
        assert_eq!(done["stopReason"], "end_turn", "{done}");
        let expected: Vec<String> = (0..1000).map(|n| format!("h{i}:{n};")).collect();
        assert_eq!(
            Helper::chunks(&h.seen),
            expected,
            "helper {i}: zero loss, zero cross-talk, order kept"
        );
        assert!(
            !h.seen.iter().any(|e| e["event"] == "lagged"),
            "a reading helper never lags"
        );
        assert_only_own_session(h);
    }
}

#[test]
fn agent_killed_mid_turn_fails_typed_and_the_next_prompt_respawns_it() {
    let env = Env::new();
    let _master = env.start_master();
    let mut h = env.helper("custom:test");
    let mut other = env.helper("custom:other");
    let pid = h.agent_pid();
    let other_pid = other.agent_pid();
    h.send("prompt stall");
    // The turn is running (stalled) when the agent dies.
    h.expect(T, |e| e["update"]["content"]["text"] == "stalling");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill agent");
    // The turn fails because the agent exited (its kind says so), not on
    // some deadline: no clock to assert, and T is only there so a hang
    // fails instead of blocking (not a performance claim).
    let err = h.expect(T, |e| e["event"] == "error");
    assert_eq!(err["kind"], "agent_exited", "{err}");
    let note = h
        .seen
        .iter()
        .find(|e| e["event"] == "agent_exited")
        .cloned();
    let note = note.unwrap_or_else(|| h.expect(T, |e| e["event"] == "agent_exited"));
    assert_eq!(note["agentId"], "custom:test", "{note}");
    assert_eq!(note["sessionIds"][0], h.session.as_str(), "{note}");
    wta_testkit::wait_until("agent reaped (no zombie)", T, || {
        !acp_common::process_exists(pid)
    })
    .expect("agent reaped");

    // The next prompt opens a new session first (the agent starts again, the
    // helper says so), then runs on the new process.
    let old_session = h.session.clone();
    let events = h.turn("echo still there?", T);
    let restarted = events
        .iter()
        .find(|e| e["event"] == "agent_restarted")
        .unwrap_or_else(|| panic!("no agent_restarted line: {events:?}"));
    assert_eq!(restarted["agentId"], "custom:test", "{restarted}");
    h.session = restarted["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_ne!(h.session, old_session);
    assert_eq!(Helper::chunks(&events), ["still there?"], "{events:?}");
    assert_eq!(
        events.last().map(|e| e["event"].clone()),
        Some("prompt_done".into()),
        "{events:?}"
    );
    let new_pid = h.agent_pid();
    assert_ne!(new_pid, pid);
    // The other agent never noticed.
    assert_eq!(other.agent_pid(), other_pid);
    let events = h.turn("echo back", T);
    assert_eq!(Helper::chunks(&events), ["back"]);
    assert!(
        other
            .seen
            .iter()
            .all(|e| e["event"] != "agent_exited" && e["event"] != "error")
    );
}

#[test]
fn master_killed_makes_helpers_exit_and_leaves_no_agent_group() {
    let env = Env::new();
    let mut master = env.start_master();
    let mut a = env.helper("custom:test");
    let mut b = env.helper("custom:other");
    let pids: HashSet<i32> = [a.agent_pid(), b.agent_pid()].into_iter().collect();
    assert_eq!(pids.len(), 2);
    // `a`'s agent runs a shell command: its group holds `sh -c` and `sleep`,
    // grandchildren of the master that no parent-death signal reaches.
    let a_pid = a.agent_pid();
    a.send("prompt run sleep 313");
    wta_testkit::wait_until("the agent's command runs", T, || {
        acp_common::group_members(a_pid)
            .iter()
            .any(|(pid, cmd)| *pid != a_pid && cmd.contains("sleep 313"))
    })
    .expect("sleep 313 started in the agent's group");
    b.send("prompt stall");
    b.expect(T, |e| e["update"]["content"]["text"] == "stalling");
    master.kill9();
    for h in [&mut a, &mut b] {
        // The master's end (EOF) ends it, not a clock: T only stops a hang.
        let code = h.proc.wait_exit(T);
        assert_eq!(code, Some(3), "helper exits with the master-closed status");
    }
    for pid in pids {
        // Each agent leads its own process group (pgid == pid); the reaper
        // SIGTERMs what is left of it (SIGKILL after 2 s); T leaves a
        // loaded machine room for both.
        wta_testkit::wait_until("agent group gone", T, || !acp_common::group_exists(pid))
            .unwrap_or_else(|e| {
                panic!(
                    "agent group {pid} survived its master: {e}; left: {:?}",
                    acp_common::group_members(pid)
                )
            });
    }
}
