//! Black-box trust-boundary tests of the master: singleton, modes, peer uid,
//! argv smuggling, allowlist, and `wta sessions list`.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use acp_common::Env;
use serde_json::{Value, json};

/// Sends one JSON-RPC request on a raw socket and returns the reply with that id.
fn raw_request(socket: &std::path::Path, id: i64, method: &str, params: Value) -> Value {
    let mut stream = UnixStream::connect(socket).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    writeln!(stream, "{line}").expect("write");
    let mut reader = BufReader::new(stream);
    loop {
        let mut reply = String::new();
        let n = reader.read_line(&mut reply).expect("read reply");
        assert!(n > 0, "master closed without answering");
        let value: Value = serde_json::from_str(&reply).expect("json reply");
        if value["id"] == json!(id) {
            return value;
        }
    }
}

#[test]
fn second_master_on_the_same_socket_is_refused() {
    let env = Env::new();
    let _master = env.start_master();
    let out = env
        .command()
        .arg("--master")
        .arg(&env.socket)
        .output()
        .expect("run second master");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("already serving"), "{stderr}");
    assert!(out.stdout.is_empty());
    // The first master still serves.
    let mut h = env.helper("custom:test");
    assert_eq!(
        acp_common::Helper::chunks(&h.turn("echo ok", Duration::from_secs(10))),
        ["ok"]
    );
}

#[test]
fn runtime_dir_is_0700_and_socket_0600_and_loose_dirs_are_refused() {
    let env = Env::new();
    {
        let _master = env.start_master();
        let dir = env.socket.parent().expect("dir");
        let dir_mode = std::fs::symlink_metadata(dir)
            .expect("dir meta")
            .permissions()
            .mode()
            & 0o777;
        let sock_mode = std::fs::symlink_metadata(&env.socket)
            .expect("sock meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
        assert_eq!(sock_mode, 0o600);
    }
    let dir = env.socket.parent().expect("dir").to_path_buf();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = env
        .command()
        .arg("--master")
        .arg(&env.socket)
        .output()
        .expect("run master");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be 700"));
}

#[test]
fn connection_from_another_uid_is_rejected() {
    if wta_testkit::as_nobody(acp_common::WTA).is_none() {
        return;
    }
    let env = Env::new();
    let _master = env.start_master();
    // Open the path up so only SO_PEERCRED stands between `nobody` and the master.
    let mut dir = env.socket.parent();
    while let Some(d) = dir {
        let mode = std::fs::metadata(d).expect("meta").permissions().mode();
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(mode | 0o711)).expect("chmod");
        if d == env.tmp.path() {
            break;
        }
        dir = d.parent();
    }
    std::fs::set_permissions(&env.socket, std::fs::Permissions::from_mode(0o666))
        .expect("chmod socket");
    let as_nobody = |args: &[&str]| {
        wta_testkit::as_nobody(acp_common::WTA)
            .expect("root")
            .args(args)
            .env("HOME", "/nonexistent")
            .env("XDG_RUNTIME_DIR", "")
            .output()
            .expect("setpriv")
    };
    let socket = env.socket.to_string_lossy().into_owned();
    let out = as_nobody(&["sessions", "list", "--json", "--master-socket", &socket]);
    assert!(
        !out.status.success(),
        "nobody must be refused: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The same command as the owner works.
    let ok = env
        .command()
        .args(["sessions", "list", "--json", "--master-socket", &socket])
        .output()
        .expect("run");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // The log is written by a background thread: wait for the line.
    let log_path = env.path("state/wta/master.log");
    wta_testkit::wait_until(
        "the refusal in the master log",
        Duration::from_secs(10),
        || {
            std::fs::read_to_string(&log_path)
                .is_ok_and(|log| log.contains("refused a connection from another user"))
        },
    )
    .unwrap_or_else(|e| {
        panic!(
            "{e}: {}",
            std::fs::read_to_string(&log_path).unwrap_or_default()
        )
    });
}

#[test]
fn a_command_in_meta_is_never_executed() {
    let env = Env::new();
    let _master = env.start_master();
    let marker = env.path("pwned");
    let cmd = format!("touch {}", marker.display());
    let attempts = [
        json!({"agentId": "custom:test", "argv": ["sh", "-c", cmd]}),
        json!({"agentId": "custom:test", "agentCmd": cmd}),
        json!({"agentId": format!("sh -c '{cmd}'")}),
        json!({"agentId": "custom:../../bin/sh"}),
    ];
    for (i, meta) in attempts.iter().enumerate() {
        let params =
            json!({"protocolVersion": 1, "clientCapabilities": {}, "_meta": {"wta": meta}});
        let reply = raw_request(&env.socket, i as i64, "initialize", params);
        let code = reply["error"]["code"].as_i64();
        assert_eq!(
            code,
            Some(wta_protocol::helper_master::codes::BAD_META as i64),
            "refused: {reply}"
        );
    }
    // session/new carrying a command is refused the same way.
    let mut h = env.helper("custom:test");
    h.send("sessions");
    h.expect(Duration::from_secs(10), |e| e["event"] == "sessions");
    let reply = raw_request(
        &env.socket,
        9,
        "session/new",
        json!({"cwd": "/", "mcpServers": [], "_meta": {"wta": {"argv": ["sh"]}}}),
    );
    assert_eq!(
        reply["error"]["code"].as_i64(),
        Some(wta_protocol::helper_master::codes::BAD_META as i64),
        "{reply}"
    );
    assert!(!marker.exists(), "a helper-supplied command was executed");
}

#[test]
fn agents_outside_the_policy_allowlist_are_refused() {
    let env = Env::new();
    std::fs::write(&env.policy, "allowed_agents = [\"custom:test\"]\n").expect("policy");
    let _master = env.start_master();
    let params = json!({"protocolVersion": 1, "clientCapabilities": {}, "_meta": {"wta": {"agentId": "custom:other"}}});
    let reply = raw_request(&env.socket, 0, "initialize", params);
    assert_eq!(
        reply["error"]["code"].as_i64(),
        Some(wta_protocol::helper_master::codes::AGENT_NOT_ALLOWED as i64),
        "{reply}"
    );
    assert_eq!(reply["error"]["data"]["wta"]["kind"], "agent_not_allowed");
    let params = json!({"protocolVersion": 1, "clientCapabilities": {}, "_meta": {"wta": {"agentId": "custom:test"}}});
    let ok = raw_request(&env.socket, 0, "initialize", params);
    assert_eq!(
        ok["result"]["_meta"]["wta"]["agentId"], "custom:test",
        "{ok}"
    );
    assert_eq!(
        ok["result"]["agentInfo"]["name"], "wta-test-agent",
        "cached agent initialize is relayed"
    );
}

#[test]
fn sessions_list_reports_live_sessions_with_owner() {
    let env = Env::new();
    let _master = env.start_master();
    let a = env.helper("custom:test");
    let b = env.helper("custom:other");
    let socket = env.socket.to_string_lossy().into_owned();
    let out = env
        .command()
        .args(["sessions", "list", "--json", "--master-socket", &socket])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).expect("json");
    let rows = list["sessions"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "{list}");
    for (h, agent) in [(&a, "custom:test"), (&b, "custom:other")] {
        let row = rows
            .iter()
            .find(|r| r["session_id"] == h.session.as_str())
            .expect("row for helper");
        assert_eq!(row["agent"], agent);
        assert_eq!(row["tab"], "@1");
        assert_eq!(row["pane"], "%2");
        assert_eq!(row["helper_pid"], h.proc.pid());
        assert_eq!(row["state"], "active");
    }
    let table = env
        .command()
        .args(["sessions", "list", "--master-socket", &socket])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("custom:other") && text.contains(&a.session),
        "{text}"
    );
}
