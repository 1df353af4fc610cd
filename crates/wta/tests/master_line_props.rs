//! The master's JSON-RPC line handling, fuzzed over its real socket: random
//! lines (valid JSON-RPC with random methods, ids and params, `_wta/` methods
//! with junk params, responses nobody asked for, truncated lines, huge and
//! odd ids, wrong types, deep nesting, batches, non-UTF-8, lines over the
//! cap) from a raw client, each case followed by a valid `initialize`.
//!
//! Properties: the master never panics and stays up; every line it sends is
//! JSON; the probe `initialize` is answered on the same connection unless a
//! line was over the cap or not UTF-8 (which end that connection), and then
//! on a new one; afterwards a real helper still runs a turn.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acp_common::{Env, Helper};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use wta_master::MAX_LINE_BYTES;

const T: Duration = Duration::from_secs(20);

const METHODS: [&str; 21] = [
    "initialize",
    "session/new",
    "session/load",
    "session/prompt",
    "session/cancel",
    "session/set_mode",
    "session/set_model",
    "session/set_config_option",
    "session/close",
    "session/request_permission",
    "fs/read_text_file",
    "terminal/create",
    "_wta/sessions",
    "wta/sessions",
    "_wta/session_state",
    "wta/session_state",
    "_wta/lagged",
    "_wta/unknown",
    "$/cancel_request",
    "",
    "initialize/",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "\\PC{0,20}".prop_map(Value::String),
        proptest::sample::select(vec!["sess-1", "custom:test", "cli", "helper", "@1", "%2"])
            .prop_map(|s| json!(s)),
    ];
    let key = proptest::sample::select(vec![
        "sessionId",
        "_meta",
        "wta",
        "agentId",
        "client",
        "yolo",
        "prompt",
        "cwd",
        "mcpServers",
        "protocolVersion",
        "clientCapabilities",
        "requestId",
        "x",
    ]);
    leaf.prop_recursive(4, 32, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(key.clone(), inner, 0..4).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// An id as written on the wire: any JSON, including numbers no integer
/// type holds.
fn id_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        Just("18446744073709551616".to_owned()),
        Just("-99999999999999999999999999999".to_owned()),
        Just("1e400".to_owned()),
        Just("0.5".to_owned()),
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("{}".to_owned()),
        Just("[1]".to_owned()),
        "\\PC{0,12}".prop_map(|s| json!(s).to_string()),
    ]
}

/// A JSON-RPC request or notification with a random method, id and params.
fn request() -> BoxedStrategy<Vec<u8>> {
    let method = prop_oneof![
        4 => proptest::sample::select(METHODS.to_vec()).prop_map(str::to_owned),
        1 => "\\PC{0,16}",
    ];
    (
        any::<bool>(),
        proptest::option::of(id_text()),
        method,
        json_value(),
    )
        .prop_map(|(jsonrpc, id, method, params)| {
            let mut text = String::from("{");
            if jsonrpc {
                text.push_str("\"jsonrpc\":\"2.0\",");
            }
            if let Some(id) = id {
                text.push_str(&format!("\"id\":{id},"));
            }
            text.push_str(&format!(
                "\"method\":{},\"params\":{params}}}",
                json!(method)
            ));
            text.into_bytes()
        })
        .boxed()
}

/// One line's bytes (without its terminator).
fn line() -> impl Strategy<Value = Vec<u8>> {
    let response = (id_text(), json_value(), any::<bool>()).prop_map(|(id, v, ok)| {
        let body = if ok {
            format!("\"result\":{v}")
        } else {
            format!("\"error\":{{\"code\":-1,\"message\":\"x\",\"data\":{v}}}")
        };
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},{body}}}").into_bytes()
    });
    prop_oneof![
        6 => request(),
        2 => response,
        2 => (request(), any::<prop::sample::Index>()).prop_map(|(bytes, cut)| {
            bytes[..cut.index(bytes.len() + 1)].to_vec()
        }),
        1 => (0usize..3000, any::<bool>()).prop_map(|(depth, arrays)| {
            let (open, close) = if arrays { ("[", "]") } else { ("{\"a\":", "}") };
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}0{}}}",
                open.repeat(depth), close.repeat(depth)).into_bytes()
        }),
        1 => proptest::collection::vec(json_value(), 0..3)
            .prop_map(|items| Value::Array(items).to_string().into_bytes()),
        1 => proptest::collection::vec(any::<u8>(), 0..200)
            .prop_map(|bytes| bytes.into_iter().filter(|&b| b != b'\n').collect()),
        1 => proptest::collection::vec(128u8..=255, 1..20).prop_map(|junk| {
            let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":{\"x\":\"".to_vec();
            line.extend(junk);
            line.extend_from_slice(b"\"}}");
            line
        }),
        1 => Just(Vec::new()),
        1 => (1usize..1024).prop_map(|extra| vec![b' '; MAX_LINE_BYTES + extra]),
    ]
}

/// The lines of one case, each with `\n` or `\r\n`.
fn case() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec((line(), any::<bool>()), 1..5).prop_map(|lines| {
        let mut bytes = Vec::new();
        for (line, crlf) in lines {
            bytes.extend_from_slice(&line);
            bytes.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        bytes
    })
}

/// Whether the master must end the connection for these bytes: a line over
/// the cap or one that is not UTF-8 (the `\n` and one `\r` before it are not
/// part of a line).
fn ends_the_connection(bytes: &[u8]) -> bool {
    bytes.split(|&b| b == b'\n').any(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        line.len() > MAX_LINE_BYTES || std::str::from_utf8(line).is_err()
    })
}

fn probe(id: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {},
                   "_meta": {"wta": {"client": "cli"}}}});
    format!("{init}\n")
}

/// Reads lines until the response to `id` (true) or the end of the
/// connection (false). Every line must be JSON.
fn answered(stream: &UnixStream, id: &str) -> bool {
    let deadline = Instant::now() + T;
    let mut reader = BufReader::new(stream);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "no answer to {id} and no close within {T:?}"
        );
        stream.set_read_timeout(Some(left)).unwrap();
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return false,
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return false,
            Err(e) => panic!("reading the master: {e}"),
        }
        let msg: Value = serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("the master sent a line that is not JSON ({e}): {line:?}"));
        if msg["id"] == id && msg.get("method").is_none() {
            assert!(msg.get("result").is_some(), "{msg}");
            return true;
        }
    }
}

/// Sends `bytes` from one thread (the master may stop reading) and the probe
/// after them; whether the probe was answered on this connection.
fn run_case(socket: &Path, bytes: Vec<u8>, id: &str) -> bool {
    let stream = UnixStream::connect(socket).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let probe = probe(id);
    let sender = std::thread::spawn(move || {
        let _ = writer
            .write_all(&bytes)
            .and_then(|()| writer.write_all(probe.as_bytes()));
    });
    let answered = answered(&stream, id);
    drop(stream);
    sender.join().unwrap();
    answered
}

#[test]
fn random_lines_never_bring_the_master_down() {
    let env = Env::with_config("default_agent = \"custom:test\"");
    let master = std::cell::RefCell::new(env.start_master());
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let mut pipe = master.borrow_mut().child.stderr.take().unwrap();
    let collected = stderr.clone();
    let drain = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            collected.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let mut helper = env.helper("custom:test");

    let mut runner = TestRunner::new(Config::with_cases(128));
    let count = std::cell::Cell::new(0u32);
    runner
        .run(&case(), |bytes| {
            count.set(count.get() + 1);
            let id = format!("probe-{}", count.get());
            let ends = ends_the_connection(&bytes);
            let answered = run_case(&env.socket, bytes, &id);
            prop_assert_eq!(answered, !ends, "answered on the same connection");
            if ends {
                // A fresh connection is served.
                let again = format!("{id}-again");
                prop_assert!(run_case(&env.socket, Vec::new(), &again));
            }
            let exited = master.borrow_mut().child.try_wait().unwrap();
            prop_assert!(exited.is_none(), "the master exited");
            Ok(())
        })
        .unwrap();

    let events = helper.turn("echo still here", T);
    assert!(
        Helper::chunks(&events).concat().contains("still here"),
        "{events:#?}"
    );
    assert!(run_case(&env.socket, Vec::new(), "last"));
    let mut master = master.into_inner();
    assert!(master.child.try_wait().unwrap().is_none());
    drop(helper);
    master.kill9();
    drain.join().unwrap();
    let stderr = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let log = std::fs::read_to_string(env.path("state/wta/master.log")).unwrap_or_default();
    assert!(!log.contains("panicked"), "{log}");
}
