//! Floods of the master socket, against the real `wta --master` with a real
//! headless helper and its agent:
//!
//! - connections beyond `MAX_CONNECTIONS` are closed at once, with one log line
//!   for the whole burst, while the ones within keep working (a CLI-style
//!   `initialize` is answered and the helper runs a turn during the flood);
//! - unterminated lines over `MAX_LINE_BYTES` (8 × 15 MiB, as measured in the
//!   issue) each end their connection, with one log line each, before the
//!   master has read them whole, and the master keeps serving the helper;
//! - lines just under the cap are served (real traffic fits);
//! - afterwards the master's RSS comes back to within 2× of its idle RSS.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use acp_common::{Env, Helper};
use serde_json::{Value, json};
use wta_master::{MAX_CONNECTIONS, MAX_LINE_BYTES};
use wta_testkit::procs::still_open;

const T: Duration = Duration::from_secs(20);
/// Connections beyond the limit.
const FLOOD: usize = 1500;
const LONG_LINES: usize = 8;
const LONG_LINE_BYTES: usize = 15 << 20;

fn rss_kib(pid: i32) -> u64 {
    wta_testkit::procs::rss_kib(u32::try_from(pid).unwrap()).unwrap()
}

/// A connection the master serves: it answered `initialize` from a one-shot
/// CLI client (no agent is started). `None`: the master closed it unanswered.
fn served(socket: &Path) -> Option<UnixStream> {
    let mut stream = UnixStream::connect(socket).unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {},
                   "_meta": {"wta": {"client": "cli"}}}});
    // A refused connection may already be closed when we write.
    writeln!(stream, "{init}").ok()?;
    stream.set_read_timeout(Some(T)).unwrap();
    let mut line = String::new();
    match BufReader::new(&stream).read_line(&mut line) {
        Ok(0) => None,
        Ok(_) => {
            let reply: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(reply["id"], 1, "{reply}");
            assert!(reply.get("result").is_some(), "{reply}");
            Some(stream)
        }
        Err(e) if e.kind() == ErrorKind::ConnectionReset => None,
        Err(e) => panic!("no answer to initialize: {e}"),
    }
}

/// `n` connections the master serves. The places of connections dropped just
/// before free up as the master notices their end: until then a new one may
/// be refused, and is replaced.
fn served_connections(socket: &Path, n: usize) -> Vec<UnixStream> {
    let mut streams = Vec::new();
    wta_testkit::wait_until(&format!("{n} served connections"), T, || {
        while streams.len() < n {
            match served(socket) {
                Some(stream) => streams.push(stream),
                None => return false,
            }
        }
        true
    })
    .unwrap();
    streams
}

/// Whether the master closed `stream` (EOF or reset) within [`T`].
fn closed_by_master(stream: &mut UnixStream) -> bool {
    wta_testkit::procs::read_until_closed(stream, T).is_some()
}

/// The helper still gets its turn through the master.
fn helper_works(helper: &mut Helper) {
    let events = helper.turn("echo still here", T);
    assert!(
        Helper::chunks(&events).concat().contains("still here"),
        "{events:#?}"
    );
}

fn log_lines(env: &Env, what: &str) -> usize {
    std::fs::read_to_string(env.path("state/wta/master.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(what))
        .count()
}

#[test]
fn floods_are_refused_and_the_memory_comes_back() {
    let env = Env::new();
    let master = env.start_master();
    let mut helper = env.helper("custom:test");
    helper_works(&mut helper);
    drop(served(&env.socket).expect("a CLI connection is served"));
    let idle = rss_kib(master.pid());

    // 1. Connections: fill every place (the helper holds one), then every
    //    later connection is closed at once, unanswered.
    let mut held = served_connections(&env.socket, MAX_CONNECTIONS - 1);
    let started = Instant::now();
    for batch in 0..FLOOD / 100 {
        let mut refused: Vec<UnixStream> = (0..100)
            .map(|_| UnixStream::connect(&env.socket).unwrap())
            .collect();
        for (i, stream) in refused.iter_mut().enumerate() {
            assert!(
                closed_by_master(stream),
                "connection {} beyond the limit stayed open",
                batch * 100 + i
            );
        }
    }
    let refused_in = started.elapsed();
    let during = rss_kib(master.pid());
    for (i, stream) in held.iter_mut().enumerate() {
        assert!(
            still_open(stream),
            "connection {i} within the limit was closed"
        );
    }
    helper_works(&mut helper);
    let again = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {},
                   "_meta": {"wta": {"client": "cli"}}}});
    writeln!(held[0], "{again}").unwrap();
    let mut line = String::new();
    BufReader::new(&held[0]).read_line(&mut line).unwrap();
    assert!(
        line.contains("\"id\":2") && line.contains("result"),
        "{line}"
    );
    drop(held);

    // 2. Unterminated lines over the cap, each on a connection the master
    //    serves: each ends its connection before the master read it whole.
    let writers: Vec<_> = served_connections(&env.socket, LONG_LINES)
        .into_iter()
        .map(|stream| {
            let mut writer = stream.try_clone().unwrap();
            let thread = std::thread::spawn(move || {
                let chunk = vec![b'x'; 1 << 20];
                let mut sent = 0;
                while sent < LONG_LINE_BYTES && writer.write_all(&chunk).is_ok() {
                    sent += chunk.len();
                }
                sent
            });
            (stream, thread)
        })
        .collect();
    for (i, (mut stream, thread)) in writers.into_iter().enumerate() {
        assert!(
            closed_by_master(&mut stream),
            "over-long line {i} did not end its connection"
        );
        let sent = thread.join().unwrap();
        assert!(sent < LONG_LINE_BYTES, "the master read all {sent} bytes");
    }
    let after_lines = rss_kib(master.pid());
    helper_works(&mut helper);

    // 3. Lines just under the cap are real traffic: each is answered (the
    //    session does not exist), and their memory comes back too.
    let mut big = served_connections(&env.socket, LONG_LINES);
    let text = "y".repeat(MAX_LINE_BYTES - 200);
    let prompt = json!({"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
        "params": {"sessionId": "none", "prompt": [{"type": "text", "text": text}]}});
    let prompt = format!("{prompt}\n");
    assert!(prompt.len() - 1 <= MAX_LINE_BYTES);
    for stream in &mut big {
        stream.write_all(prompt.as_bytes()).unwrap();
    }
    for stream in &big {
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], 7, "{reply}");
        assert!(
            reply["error"]["message"].as_str().unwrap().contains("none"),
            "{reply}"
        );
    }
    drop(big);

    // 4. Memory comes back.
    let after = wta_testkit::wait_for_value("RSS back within 2x of idle", T, || {
        let now = rss_kib(master.pid());
        (now <= 2 * idle).then_some(now)
    })
    .unwrap_or_else(|e| panic!("{e}: idle {idle} KiB, now {} KiB", rss_kib(master.pid())));
    eprintln!(
        "master RSS: idle {idle} KiB, during the connection flood {during} KiB, just after the long lines {after_lines} KiB, after everything {after} KiB; {FLOOD} refusals took {refused_in:?}"
    );

    // One log line for the burst of refusals, one per over-long line.
    let over = format!("line over {MAX_LINE_BYTES} bytes");
    wta_testkit::wait_until("the log lines", T, || log_lines(&env, &over) >= LONG_LINES)
        .unwrap_or_else(|e| {
            let log = std::fs::read_to_string(env.path("state/wta/master.log")).unwrap_or_default();
            panic!(
                "{e}: {}",
                log.lines()
                    .filter(|l| !l.contains("helper disconnected"))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
    assert_eq!(log_lines(&env, "refusing connections"), 1);
    assert_eq!(log_lines(&env, &over), LONG_LINES);
}
