//! Black-box tests of what the master passes between helpers and agents: string
//! request ids, `session/load` binding, `fs/*` and `terminal/*` requests reaching
//! only the owning helper, what the agent is sent when a helper leaves, how an
//! agent that ignores stdin EOF and SIGTERM is stopped, and the runtime dir when
//! `XDG_RUNTIME_DIR` is empty.
//!
//! Real `wta --master`, raw JSON-RPC helpers over the master socket (so ids and
//! answers are exactly what the test writes), the scripted test agent with
//! per-entry argv switches (`--record`, `--load-session`, `--ignore-eof`, …).

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use acp_common::raw::{RawHelper, chunk_text, listed_sessions};
use acp_common::{Env, group_exists, group_members};
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(20);

/// An env whose config adds `custom:<name>` = the test agent with `switches`
/// and `--record <file>`; returns the env and that file.
fn env_with_agent(name: &str, switches: &[&str]) -> (Env, PathBuf) {
    let env = Env::new();
    let record = env.path(&format!("{name}.log"));
    let mut argv = vec![
        wta_testkit::acp::agent_path()
            .to_string_lossy()
            .into_owned(),
    ];
    argv.extend(switches.iter().map(|s| (*s).to_owned()));
    argv.extend(["--record".to_owned(), record.to_string_lossy().into_owned()]);
    let config = env.path("config/wta/config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(&format!("\n[custom_agents.{name}]\nargv = {argv:?}\n"));
    std::fs::write(&config, text).expect("write config");
    (env, record)
}

fn recorded(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn wait_recorded(path: &Path, line: &str) {
    wta_testkit::wait_until(line, T, || recorded(path).iter().any(|l| l == line)).unwrap_or_else(
        |e| {
            panic!(
                "the agent never got `{line}`: {e}; got {:?}",
                recorded(path)
            )
        },
    );
}

fn prompt_params(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

#[test]
fn string_request_ids_are_answered_with_the_same_ids() {
    let env = Env::new();
    let _master = env.start_master();
    let mut raw = RawHelper::open(&env.socket);
    // The int 0 (falsy in many JSON-RPC stacks) is a valid id too.
    raw.send_with_id(
        &json!(0),
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {},
               "_meta": {"wta": {"agentId": "custom:test"}}}),
    );
    let (zero, _) = raw.response(0, T);
    assert_eq!(zero["id"], json!(0));
    assert!(zero.get("result").is_some(), "{zero}");
    let init = json!("init-é");
    raw.send_with_id(
        &init,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {},
               "_meta": {"wta": {"agentId": "custom:test"}}}),
    );
    let (reply, _) = raw.response(init.clone(), T);
    assert_eq!(reply["id"], init);
    assert!(reply.get("result").is_some(), "{reply}");

    let new = json!("0");
    raw.send_with_id(
        &new,
        "session/new",
        json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
    );
    let (reply, _) = raw.response(new, T);
    let session = reply["result"]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("session/new failed: {reply}"))
        .to_owned();

    // The int 7 and the string "7" are two requests, each answered as itself.
    raw.send_with_id(
        &json!(7),
        "session/prompt",
        prompt_params(&session, "echo int"),
    );
    raw.send_with_id(
        &json!("7"),
        "session/prompt",
        prompt_params(&session, "echo string"),
    );
    // Both answers, in whatever order the turns end.
    let (first, before) = raw.response("7", T);
    let mut seen = before;
    let second = match seen
        .iter()
        .position(|m| m.get("method").is_none() && m["id"] == 7)
    {
        Some(i) => seen.remove(i),
        None => {
            let (reply, between) = raw.response(7, T);
            seen.extend(between);
            reply
        }
    };
    assert_eq!(first["id"], json!("7"), "{first}");
    assert_eq!(second["id"], json!(7), "{second}");
    for reply in [&first, &second] {
        assert_eq!(reply["result"]["stopReason"], "end_turn", "{reply}");
    }
    let chunks: Vec<&str> = seen.iter().filter_map(chunk_text).collect();
    let mut sorted = chunks.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["int", "string"], "{chunks:?}");
}

#[test]
fn session_load_binds_the_loaded_session_to_the_loading_helper() {
    let (env, record) = env_with_agent("loader", &["--load-session"]);
    let _master = env.start_master();

    // `b` keeps the agent in use while `a` comes and goes.
    let (mut b, _own) = RawHelper::connect(&env.socket, "custom:loader");
    let (mut a, first) = RawHelper::connect(&env.socket, "custom:loader");
    let id = a.prompt(&first, "echo remember me");
    let (done, _) = a.response(id, T);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    drop(a);
    wait_recorded(&record, &format!("session/close {first}"));
    assert!(!listed_sessions(&env).contains(&first));

    // `b` loads `a`'s old session: the replay reaches `b` before the answer.
    let id = b.send(
        "session/load",
        json!({"sessionId": first, "cwd": std::env::temp_dir(), "mcpServers": []}),
    );
    let (loaded, replay) = b.response(id, T);
    assert!(loaded.get("result").is_some(), "{loaded}");
    let replayed: Vec<&Value> = replay
        .iter()
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "user_message_chunk")
        .collect();
    assert_eq!(replayed.len(), 1, "{replay:?}");
    assert_eq!(replayed[0]["params"]["sessionId"], first.as_str());
    assert_eq!(
        replayed[0]["params"]["update"]["content"]["text"],
        "echo remember me"
    );
    assert!(listed_sessions(&env).contains(&first));

    // The loaded session is `b`'s now, and only `b`'s.
    let id = b.prompt(&first, "echo loaded");
    let (done, before) = b.response(id, T);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert_eq!(
        before.iter().filter_map(chunk_text).collect::<Vec<_>>(),
        ["loaded"]
    );
    let (mut c, _) = RawHelper::connect(&env.socket, "custom:loader");
    let id = c.prompt(&first, "echo not mine");
    let (refused, _) = c.response(id, T);
    assert_eq!(
        refused["error"]["code"],
        wta_protocol::helper_master::codes::UNKNOWN_SESSION,
        "{refused}"
    );
}

#[test]
fn fs_and_terminal_requests_reach_the_owning_helper_only() {
    let env = Env::new();
    let _master = env.start_master();
    let (mut a, session) = RawHelper::connect(&env.socket, "custom:test");
    let (mut b, other) = RawHelper::connect(&env.socket, "custom:test");
    let mut asked: Vec<Value> = Vec::new();
    let mut answer = |req: &Value| {
        asked.push(req.clone());
        match req["method"].as_str().unwrap_or_default() {
            "fs/read_text_file" => json!({"content": "text from a"}),
            "terminal/create" => json!({"terminalId": "term-a"}),
            "terminal/wait_for_exit" => json!({"exitCode": 0}),
            "terminal/output" => json!({"output": "hi from a", "truncated": false}),
            _ => json!({}),
        }
    };
    let id = a.prompt(&session, "read /etc/hostname");
    let (done, before) = a.serve_until(id, T, &mut answer);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert_eq!(
        before.iter().filter_map(chunk_text).collect::<Vec<_>>(),
        ["read: text from a"]
    );
    let id = a.prompt(&session, "terminal echo hi");
    let (done, before) = a.serve_until(id, T, &mut answer);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert_eq!(
        before.iter().filter_map(chunk_text).collect::<Vec<_>>(),
        ["terminal exit 0: hi from a"]
    );
    let methods: Vec<&str> = asked.iter().filter_map(|r| r["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "fs/read_text_file",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release"
        ]
    );
    assert!(
        asked
            .iter()
            .all(|r| r["params"]["sessionId"] == session.as_str())
    );

    // `b` shares the agent process but was asked nothing and heard nothing of `a`.
    let id = b.prompt(&other, "echo b");
    let (done, before) = b.response(id, T);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    for msg in &before {
        assert!(msg.get("id").is_none(), "b got a request: {msg}");
        assert_eq!(
            msg["params"]["sessionId"],
            other.as_str(),
            "cross-talk: {msg}"
        );
    }
}

#[test]
fn a_helper_leaving_makes_the_master_cancel_then_close_its_sessions() {
    let (env, record) = env_with_agent("rec", &[]);
    let _master = env.start_master();
    let (mut a, session) = RawHelper::connect(&env.socket, "custom:rec");
    let (mut keep, _) = RawHelper::connect(&env.socket, "custom:rec");
    a.prompt(&session, "stall");
    let deadline = std::time::Instant::now() + T;
    while chunk_text(&a.next_before(deadline, "the stalling chunk")) != Some("stalling") {}
    drop(a);
    wait_recorded(&record, &format!("session/close {session}"));
    let lines = recorded(&record);
    let at = |line: String| lines.iter().position(|l| *l == line);
    let cancel = at(format!("session/cancel {session}")).expect("cancel recorded");
    let close = at(format!("session/close {session}")).expect("close recorded");
    assert!(cancel < close, "{lines:?}");
    // Only the leaving helper's session was touched.
    assert!(
        lines
            .iter()
            .filter(|l| l.starts_with("session/c"))
            .all(|l| l.ends_with(&session)),
        "{lines:?}"
    );
    let id = keep.call(
        "session/new",
        json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
    );
    assert!(id.get("result").is_some(), "{id}");
}

#[test]
fn an_agent_ignoring_stdin_eof_and_sigterm_is_killed_with_its_group() {
    let (env, record) = env_with_agent("stubborn", &["--ignore-eof", "--ignore-sigterm"]);
    let _master = env.start_master();
    let mut h = env.helper("custom:stubborn");
    let pid = h.agent_pid();
    // A child in the agent's group that ignores SIGTERM as well.
    let events = h.turn("run (trap '' TERM; exec sleep 314) >/dev/null 2>&1 &", T);
    assert_eq!(events.last().unwrap()["event"], "prompt_done", "{events:?}");
    wta_testkit::wait_until("the TERM-proof child runs", T, || {
        group_members(pid)
            .iter()
            .any(|(p, cmd)| *p != pid && cmd.contains("sleep 314"))
    })
    .expect("sleep 314 in the agent's group");

    // The last helper leaves: the idle agent is stopped. stdin EOF and SIGTERM
    // are both ignored, so only SIGKILL to the group ends it.
    h.proc.kill9();
    wta_testkit::wait_until("the agent group is gone", T, || !group_exists(pid)).unwrap_or_else(
        |e| {
            panic!(
                "{e}; left: {:?}; recorded {:?}",
                group_members(pid),
                recorded(&record)
            )
        },
    );
    let lines = recorded(&record);
    let eof = lines.iter().position(|l| l == "stdin closed");
    let term = lines.iter().position(|l| l == "SIGTERM");
    assert!(
        matches!((eof, term), (Some(e), Some(t)) if e < t),
        "stdin closed first, then SIGTERM, then (SIGKILL) gone: {lines:?}"
    );
}

#[test]
fn an_empty_xdg_runtime_dir_counts_as_unset() {
    let env = Env::new();
    // A tmux server socket no other test uses; its master socket lives in
    // /tmp/wta-<uid>/ when XDG_RUNTIME_DIR is empty.
    let tmux_socket = env.path("tmux-sock");
    let name = wta_env::dirs::socket_for_tmux(&tmux_socket);
    let uid = nix::unistd::getuid();
    let socket = Path::new(&format!("/tmp/wta-{uid}")).join(name.file_name().unwrap());
    let mut master = env
        .command()
        .arg("--master")
        .arg(&socket)
        .env("XDG_RUNTIME_DIR", "")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn master");
    let started = wta_testkit::wait_until("master socket", T, || socket.exists());
    let listed = started.is_ok().then(|| {
        env.command()
            .args(["--json", "sessions", "list"])
            .env("XDG_RUNTIME_DIR", "")
            .env("TMUX", format!("{},1,0", tmux_socket.display()))
            .output()
            .expect("run wta sessions list")
    });
    // Stop the master gracefully so it removes its socket from the shared dir.
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(master.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = master.wait();
    let _ = std::fs::remove_file(socket.with_extension("lock"));
    started.expect("master up in /tmp/wta-<uid>");
    let out = listed.expect("listed");
    assert!(
        out.status.success(),
        "sessions list found no master at the /tmp/wta-<uid> socket: {out:?}"
    );
    let list: Value = serde_json::from_slice(&out.stdout).expect("sessions json");
    assert_eq!(list["sessions"], json!([]));
}
