//! Every agent session of the tmux server (issue 18), end to end: an agent
//! pane's session is listed with what it does and kept as resumable history
//! when it ends, `wta sessions resume` loads it into a new agent pane (the
//! agent replays it there), and an agent CLI in a shell pane is tracked from
//! its hook events until its pane closes; `wta sessions close` closes a live
//! agent pane, drops an ended row and leaves a shell pane's CLI alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::path::PathBuf;
use std::time::Duration;

use launch_common::Launch;
use launch_common::acp_common::raw::RawHelper;
use serde_json::{Value, json};
use wta_testkit::{wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);

fn all(l: &Launch) -> Vec<Value> {
    let out = l.wta(&["--json", "sessions", "all"]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sessions"].as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [Value], key: &str) -> Option<&'a Value> {
    rows.iter().find(|r| r["key"] == key)
}

#[test]
fn an_ended_agent_pane_session_is_resumed_into_a_new_pane() {
    let agent = wta_testkit::acp::agent_path();
    let mut l = Launch::with_config(&format!(
        "[custom_agents.loads]\nargv = [{:?}, \"--load-session\"]\n",
        agent.to_string_lossy()
    ));
    let (_, _, pane) = l.up_ready("custom:loads");
    l.say(&pane, "echo remember-this-7");
    l.tmux.wait_for_text(&pane, "remember-this-7", T);
    // The reply is on screen a moment before the turn's end reaches the
    // registry: wait for the row to settle to idle.
    let live = wait_for_value("the live session listed idle", T, || {
        all(&l).into_iter().find(|r| {
            r["source"] == "agent_pane" && r["agent"] == "custom:loads" && r["state"] == "idle"
        })
    })
    .unwrap();
    assert_eq!(
        live["resumable"], false,
        "a live session is gone to, not resumed"
    );
    let key = live["key"].as_str().unwrap().to_owned();

    // `/new` ends it: it stays, ended and resumable.
    l.say(&pane, "/new");
    let ended = wait_for_value("the ended session", T, || {
        row(&all(&l), &key)
            .filter(|r| r["state"] == "ended")
            .cloned()
    })
    .unwrap();
    assert_eq!(ended["resumable"], true, "{ended}");
    let focus = l.wta(&["sessions", "focus", &key]);
    assert_eq!(focus.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&focus.stderr).contains("resume it"),
        "{focus:?}"
    );

    let out = l.wta(&["--json", "sessions", "resume", &key]);
    assert!(out.status.success(), "{out:?}");
    let resumed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let new_pane = resumed["pane"].as_str().unwrap();
    assert_ne!(new_pane, pane);
    // The agent replayed the conversation into the new pane.
    l.tmux.wait_for_text(new_pane, "remember-this-7", T);
    // And the loaded session has its session MCP server, like a new one.
    l.say(new_pane, "mcp-servers");
    let screen = l.tmux.wait_for_text(new_pane, "mcp servers:", T);
    let listed = wta_testkit::squeezed(&screen);
    assert!(listed.contains("\"name\":\"wta_"), "{screen}");
}

#[test]
fn an_agent_cli_in_a_shell_pane_is_tracked_from_its_hooks() {
    let mut l = Launch::new();
    let up = l.up(&["--agent", "custom:test"]);
    let socket = PathBuf::from(up["master_socket"].as_str().unwrap());
    let shell = l.tmux.new_window("sleep 600");
    let mut cli = RawHelper::open(&socket);
    let init = cli.call(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}, "_meta": {"wta": {"client": "cli"}}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    let mut hook = |event: &str, extra: Value| {
        let mut params = json!({"cli": "claude", "event": event, "pane": shell, "sessionId": "abc-123", "cwd": "/src"});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let answer = cli.call("_wta/hook_event", params);
        assert!(answer.get("result").is_some(), "{answer}");
    };
    hook("session_start", json!({}));
    hook("prompt_submit", json!({}));
    hook("tool_starting", json!({"tool": "Bash"}));
    let rows = all(&l);
    let tracked = row(&rows, "claude:abc-123").expect("the CLI's session");
    assert_eq!(tracked["source"], "shell_pane");
    assert_eq!(tracked["state"], "working");
    assert_eq!(tracked["current_tool"], "Bash");
    assert_eq!(tracked["pane"], shell.as_str());
    assert_eq!(
        tracked["tab"],
        l.tmux.display(&shell, "#{window_id}").as_str()
    );
    // Closing it is refused: the CLI runs in the user's own shell pane.
    let refused = l.wta(&["sessions", "close", "claude:abc-123"]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("end it there"),
        "{refused:?}"
    );
    hook(
        "notification",
        json!({"message": "Claude needs your permission"}),
    );
    assert_eq!(
        row(&all(&l), "claude:abc-123").unwrap()["state"],
        "attention"
    );
    // Searching finds it by its directory.
    let out = l.wta(&["--json", "sessions", "all", "--search", "/SRC"]);
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["sessions"].as_array().unwrap().len(), 1, "{found}");

    // Between hook events, the CLI's own session log moves the row.
    let log_dir = l.env.path("home/.claude/projects/-src");
    std::fs::create_dir_all(&log_dir).unwrap();
    let log = log_dir.join("abc-123.jsonl");
    std::fs::write(&log, "").unwrap();
    // The master finds the log, then follows it from its end.
    let append = |line: &str| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        writeln!(f, "{line}").unwrap();
    };
    let done = r#"{"type":"assistant","sessionId":"abc-123","message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"done"}]}}"#;
    wait_until("the log to say the CLI is idle", T, || {
        append(done);
        row(&all(&l), "claude:abc-123").is_some_and(|r| r["state"] == "idle")
    })
    .unwrap();

    // Its pane closes without an end hook: it ends, resumable by its CLI.
    l.tmux.tmux(&["kill-pane", "-t", &shell]);
    wait_until("the closed pane's session to end", T, || {
        row(&all(&l), "claude:abc-123").is_some_and(|r| r["state"] == "ended")
    })
    .unwrap();
    assert_eq!(row(&all(&l), "claude:abc-123").unwrap()["resumable"], true);
    let bad = cli.call(
        "_wta/hook_event",
        json!({"cli": "claude", "event": "bogus"}),
    );
    assert!(bad.get("error").is_some(), "{bad}");
}

#[test]
fn close_ends_a_live_agent_pane_then_forgets_its_history() {
    let mut l = Launch::new();
    let (_, shell, pane) = l.up_ready("custom:test");
    let live = wait_for_value("the live session listed", T, || {
        all(&l)
            .into_iter()
            .find(|r| r["source"] == "agent_pane" && r["state"] == "idle")
    })
    .unwrap();
    let key = live["key"].as_str().unwrap().to_owned();

    // Going to it selects the agent pane itself (its chat), not its shell.
    l.tmux.tmux(&["select-pane", "-t", &shell]);
    let out = l.wta(&["--json", "sessions", "focus", &key]);
    assert!(out.status.success(), "{out:?}");
    let focused: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(focused["pane"], pane.as_str(), "{focused}");
    assert_eq!(l.tmux.display(&pane, "#{pane_active}"), "1");

    let out = l.wta(&["--json", "sessions", "close", &key]);
    assert!(out.status.success(), "{out:?}");
    let closed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(closed["action"], "closed", "{closed}");
    assert_eq!(closed["pane"], pane.as_str(), "{closed}");
    wait_until("the agent pane to close and its session to end", T, || {
        let panes = l.tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
        !panes.lines().any(|p| p == pane)
            && row(&all(&l), &key).is_some_and(|r| r["state"] == "ended")
    })
    .unwrap();
    let panes = l.tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
    assert!(
        panes.lines().any(|p| p == shell),
        "the shell stays: {panes}"
    );

    // Closing the ended row drops it from the history, once.
    let out = l.wta(&["--json", "sessions", "close", &key]);
    assert!(out.status.success(), "{out:?}");
    let forgot: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(forgot["action"], "forgot", "{forgot}");
    assert!(row(&all(&l), &key).is_none());
    let again = l.wta(&["sessions", "close", &key]);
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("no session"),
        "{again:?}"
    );
}

/// `wta sessions pick` (what `prefix S` opens) in a real terminal: it
/// searches as you type, Ctrl+D closes the agent pane's session, Enter on an
/// ended session that cannot be resumed says so, Esc leaves.
#[test]
fn the_pick_list_searches_and_closes_sessions() {
    let mut l = Launch::new();
    let (_, _, pane) = l.up_ready("custom:test");
    wait_until("the live session listed", T, || {
        all(&l).iter().any(|r| r["source"] == "agent_pane")
    })
    .unwrap();
    let list = l
        .tmux
        .new_window(&format!("{} sessions pick", env!("CARGO_BIN_EXE_wta")));
    l.tmux.wait_for_text(&list, "● custom:test · idle", T);
    l.tmux.tmux(&["send-keys", "-t", &list, "-l", "zzz"]);
    l.tmux.wait_for_text(&list, "No session matches.", T);
    l.tmux
        .tmux(&["send-keys", "-t", &list, "BSpace", "BSpace", "BSpace"]);
    l.tmux.wait_for_text(&list, "1 of 1", T);

    l.tmux.tmux(&["send-keys", "-t", &list, "C-d"]);
    l.tmux
        .wait_for_text(&list, "closed custom:test's agent pane", T);
    wait_until("the agent pane to close", T, || {
        let panes = l.tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
        !panes.lines().any(|p| p == pane)
    })
    .unwrap();
    l.tmux.wait_for_text(&list, "custom:test · ended", T);
    l.tmux.tmux(&["send-keys", "-t", &list, "Enter"]);
    l.tmux
        .wait_for_text(&list, "custom:test cannot resume this session", T);
    l.tmux.tmux(&["send-keys", "-t", &list, "Escape"]);
    assert_eq!(l.tmux.wait_dead(&list, T), "0", "Esc leaves cleanly");
}

/// `/sessions` in the agent pane closes the highlighted session with
/// Ctrl+D: here the pane's own, so the pane closes and its session ends.
#[test]
fn ctrl_d_in_the_sessions_picker_closes_a_session() {
    let mut l = Launch::new();
    let (_, shell, pane) = l.up_ready("custom:test");
    l.say(&pane, "/sessions");
    l.tmux.wait_for_text(&pane, "(this pane)", T);
    l.tmux.tmux(&["send-keys", "-t", &pane, "C-d"]);
    wait_until("the agent pane to close", T, || {
        let panes = l.tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
        !panes.lines().any(|p| p == pane) && panes.lines().any(|p| p == shell)
    })
    .unwrap();
    wait_until("its session to end", T, || {
        all(&l)
            .iter()
            .any(|r| r["source"] == "agent_pane" && r["state"] == "ended")
    })
    .unwrap();
}
