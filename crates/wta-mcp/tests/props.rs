//! A property test over whole HTTP requests against a live endpoint:
//! random methods, paths, header sets and bodies never crash it, always
//! get an answer from the expected set, and never reach the backend
//! without the session's bearer (nor on any answer but 200).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;
use support::{Fixture, raw};
use wta_mcp::Limits;
use wta_protocol::session_tools::UserInputOutcome;

#[derive(Debug, Clone)]
enum Auth {
    Good,
    Wrong,
    Malformed,
    Missing,
    Twice,
}

#[derive(Debug, Clone)]
struct Case {
    method: String,
    path: String,
    host: u8,
    origin: u8,
    auth: Auth,
    content_type: u8,
    accept: bool,
    transfer_encoding: bool,
    extra: Vec<(String, String)>,
    body: String,
}

fn body() -> impl Strategy<Value = String> {
    let tool_call = |name: &str, arguments: serde_json::Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}).to_string()
    };
    prop_oneof![
        Just(tool_call("run_command_in_current_shell", json!({"command": "ls"}))),
        Just(tool_call("create_workspace", json!({"target": "tab"}))),
        Just(tool_call("request_user_input", json!({"question": "q", "allow_freeform": true}))),
        Just(tool_call("get_proposal_result", json!({"proposal_id": "ab".repeat(16)}))),
        Just(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string()),
        Just(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()),
        Just(json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}}}).to_string()),
        Just("[]".to_owned()),
        Just("{}".to_owned()),
        "[ -~]{0,64}",
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![
            6 => Just("POST".to_owned()),
            1 => Just("GET".to_owned()),
            1 => Just("DELETE".to_owned()),
            1 => "[A-Z]{1,7}"
        ],
        prop_oneof![
            6 => Just("/mcp".to_owned()),
            1 => Just("/".to_owned()),
            1 => "/[a-z0-9/?=&.-]{0,16}"
        ],
        0u8..4,
        0u8..4,
        prop_oneof![
            6 => Just(Auth::Good),
            1 => Just(Auth::Wrong),
            1 => Just(Auth::Malformed),
            1 => Just(Auth::Missing),
            1 => Just(Auth::Twice)
        ],
        0u8..4,
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.1),
        prop::collection::vec(("x-[a-z]{1,8}", "[ -~]{0,24}"), 0..3),
        body(),
    )
        .prop_map(
            |(
                method,
                path,
                host,
                origin,
                auth,
                content_type,
                accept,
                transfer_encoding,
                extra,
                body,
            )| Case {
                method,
                path,
                host,
                origin,
                auth,
                content_type,
                accept,
                transfer_encoding,
                extra,
                body,
            },
        )
}

fn request(case: &Case, port: u16, token: &str) -> Vec<u8> {
    let mut head = format!("{} {} HTTP/1.1\r\n", case.method, case.path);
    match case.host {
        0 | 1 => head.push_str(&format!("host: 127.0.0.1:{port}\r\n")),
        2 => head.push_str(&format!("host: localhost:{port}\r\n")),
        _ => head.push_str(&format!("host: evil.example:{port}\r\n")),
    }
    match case.origin {
        1 => head.push_str("origin: http://localhost:3000\r\n"),
        2 => head.push_str("origin: http://evil.example\r\n"),
        _ => {}
    }
    let bearer = format!("authorization: Bearer {token}\r\n");
    match case.auth {
        Auth::Good => head.push_str(&bearer),
        Auth::Wrong => head.push_str(&format!("authorization: Bearer {}\r\n", "0".repeat(32))),
        Auth::Malformed => head.push_str(&format!("authorization: {token}\r\n")),
        Auth::Missing => {}
        Auth::Twice => {
            head.push_str(&bearer);
            head.push_str(&bearer);
        }
    }
    match case.content_type {
        0 | 1 => head.push_str("content-type: application/json\r\n"),
        2 => head.push_str("content-type: text/plain\r\n"),
        _ => {}
    }
    if case.accept {
        head.push_str("accept: application/json, text/event-stream\r\n");
    }
    for (name, value) in &case.extra {
        head.push_str(&format!("{name}: {}\r\n", value.trim()));
    }
    if case.transfer_encoding {
        head.push_str("transfer-encoding: chunked\r\n");
    }
    head.push_str(&format!(
        "content-length: {}\r\n\r\n{}",
        case.body.len(),
        case.body
    ));
    head.into_bytes()
}

const EXPECTED: [u16; 11] = [200, 202, 400, 401, 403, 404, 405, 406, 413, 415, 431];

#[test]
fn any_request_gets_an_expected_status_and_only_a_bearer_reaches_the_backend() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let fx = runtime.block_on(Fixture::start(Limits::default()));
    fx.backend.auto_answer(UserInputOutcome::Cancelled);
    let (_grant, token) = fx.grant("A", "agent-1");
    let port = fx.addr().port();
    let addr = fx.addr();
    let fx = std::cell::RefCell::new(fx);
    let reached_ever = std::cell::Cell::new(0usize);
    let mut runner = TestRunner::new(Config {
        cases: 512,
        ..Config::default()
    });
    runner
        .run(&case(), |case| {
            let bytes = request(&case, port, &token);
            let status = runtime.block_on(raw(addr, &bytes));
            let status = status.ok_or_else(|| TestCaseError::fail("closed without an answer"))?;
            prop_assert!(
                EXPECTED.contains(&status),
                "status {} for {:?}",
                status,
                case
            );
            // Every call is recorded before the endpoint answers.
            let mut reached = 0;
            while !fx.borrow_mut().no_calls() {
                reached += 1;
            }
            reached_ever.set(reached_ever.get() + reached);
            let reached = reached > 0;
            if reached {
                prop_assert!(
                    matches!(case.auth, Auth::Good),
                    "reached without the bearer: {:?}",
                    case
                );
                prop_assert_eq!(status, 200, "reached on {} for {:?}", status, case);
            }
            Ok(())
        })
        .unwrap();
    // The generator does make requests that get through.
    assert!(reached_ever.get() > 0);
}
