//! The session MCP endpoint of a real master, black-box over HTTP (issue
//! 16): each session of a helper that asks for it gets a server of its own
//! with its own bearer; a call with one session's bearer reaches that
//! session's helper only (as `_wta/session_tool`, answered here by hand);
//! the HTTP rules hold against the real endpoint; and a bearer stops
//! working when its session's helper leaves.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp_common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use acp_common::Env;
use acp_common::raw::{RawHelper, chunk_text};
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(20);

/// A helper that asks for the endpoint's tools, with one session, and the
/// MCP server the test agent says that session was given.
fn helper_with_server(env: &Env) -> (RawHelper, String, Value) {
    let mut raw = RawHelper::open(&env.socket);
    let init = raw.call(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {},
               "_meta": {"wta": {"agentId": "custom:test", "proposalMcp": "http-v1"}}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    let new = raw.call(
        "session/new",
        json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
    );
    let session = new["result"]["sessionId"].as_str().unwrap().to_owned();
    let id = raw.prompt(&session, "mcp-servers");
    let (answer, before) = raw.response(id, T);
    assert!(answer.get("result").is_some(), "{answer}");
    let said: String = before.iter().filter_map(chunk_text).collect();
    let list: Value =
        serde_json::from_str(said.trim().strip_prefix("mcp servers: ").unwrap()).unwrap();
    let servers = list.as_array().unwrap();
    assert_eq!(servers.len(), 1, "{said}");
    (raw, session, servers[0].clone())
}

/// `http://127.0.0.1:PORT/mcp` → `127.0.0.1:PORT`.
fn authority(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// One raw HTTP/1.1 request; returns the status and the body.
fn http(addr: &str, head: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(T)).unwrap();
    // A refusal may come (and the socket close) before the whole body is
    // written: the answer is read either way.
    let _ = write!(
        stream,
        "{head}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut out = String::new();
    let _ = stream.read_to_string(&mut out);
    let status = out
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn post(addr: &str, extra: &str, body: &str) -> (u16, String) {
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}"
    );
    http(addr, &head, body)
}

fn bearer(server: &Value) -> String {
    format!(
        "Authorization: Bearer {}\r\n",
        server["bearer"].as_str().unwrap()
    )
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;

fn run_call(command: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "run_command_in_current_shell", "arguments": {"command": command, "wait_secs": 5}}})
    .to_string()
}

#[test]
fn each_session_has_its_own_bearer_and_reaches_only_its_helper() {
    let env = Env::new();
    let _master = env.start_master();
    let (mut a, session_a, server_a) = helper_with_server(&env);
    let (mut b, _session_b, server_b) = helper_with_server(&env);
    assert_ne!(server_a["name"], server_b["name"]);
    assert_ne!(server_a["bearer"], server_b["bearer"]);
    assert_eq!(server_a["url"], server_b["url"], "one endpoint");
    let addr = authority(server_a["url"].as_str().unwrap());

    let (status, body) = post(&addr, &bearer(&server_a), LIST);
    assert_eq!(status, 200, "{body}");
    for tool in [
        "run_command_in_current_shell",
        "create_workspace",
        "delegate_task_in_new_workspace",
        "get_proposal_result",
        "request_user_input",
    ] {
        assert!(body.contains(tool), "{tool} in {body}");
    }

    // A's bearer: the call reaches A's helper as `_wta/session_tool` for A's session.
    let call = std::thread::spawn({
        let (addr, auth) = (addr.clone(), bearer(&server_a));
        move || post(&addr, &auth, &run_call("make test"))
    });
    let msg = a.next_before(std::time::Instant::now() + T, "the forwarded tool call");
    assert_eq!(msg["method"], "_wta/session_tool", "{msg}");
    assert_eq!(msg["params"]["sessionId"], session_a.as_str());
    assert_eq!(msg["params"]["call"]["arguments"]["command"], "make test");
    assert_eq!(msg["params"]["waitMs"], 5000);
    let report = json!({"state": "refused",
        "validation": {"status": "stale", "reason": "no turn is running", "retryable": false}});
    a.write(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": report}));
    let (status, body) = call.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("no turn is running"), "{body}");
    assert!(body.contains(r#""isError":true"#), "{body}");

    // B saw nothing of it.
    b.write(&json!({"jsonrpc": "2.0", "id": 99, "method": "_wta/sessions", "params": {}}));
    let (_, before) = b.response(99, T);
    assert!(
        before.iter().all(|m| m["method"] != "_wta/session_tool"),
        "{before:?}"
    );

    // A leaves: its bearer opens nothing any more; B's still does.
    drop(a);
    wta_testkit::wait_until("A's bearer to be revoked", T, || {
        post(&addr, &bearer(&server_a), LIST).0 == 401
    })
    .unwrap();
    assert_eq!(post(&addr, &bearer(&server_b), LIST).0, 200);
}

#[test]
fn the_http_rules_hold_on_the_real_endpoint() {
    let env = Env::new();
    let _master = env.start_master();
    let (_a, _, server) = helper_with_server(&env);
    let addr = authority(server["url"].as_str().unwrap());
    let auth = bearer(&server);
    assert_eq!(post(&addr, "", LIST).0, 401, "no bearer");
    assert_eq!(
        post(&addr, "Authorization: Bearer 0123\r\n", LIST).0,
        401,
        "wrong bearer"
    );
    let wrong_host = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example:80\r\nContent-Type: application/json\r\n{auth}"
    );
    assert_eq!(http(&addr, &wrong_host, LIST).0, 403, "DNS rebinding");
    assert_eq!(
        post(
            &addr,
            &format!("{auth}Origin: http://evil.example\r\n"),
            LIST
        )
        .0,
        403
    );
    let get = format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\n{auth}");
    assert_eq!(http(&addr, &get, "").0, 405);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "x".repeat(2 << 20)
    );
    assert_eq!(post(&addr, &auth, &big).0, 413);
    let localhost = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}",
        addr.rsplit(':').next().unwrap()
    );
    assert_eq!(
        http(&addr, &localhost, LIST).0,
        200,
        "localhost:<port> is the same host"
    );
}

#[test]
fn a_helper_that_does_not_ask_gets_no_server() {
    let env = Env::new();
    let _master = env.start_master();
    let (mut raw, session) = RawHelper::connect(&env.socket, "custom:test");
    let id = raw.prompt(&session, "mcp-servers");
    let (_, before) = raw.response(id, T);
    let said: String = before.iter().filter_map(chunk_text).collect();
    assert_eq!(said.trim(), "mcp servers: []");
}
