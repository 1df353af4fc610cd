//! Floods of the master socket, against the real `wta --master` with a real
//! headless helper and its agent:
//!
//! - while [`IDLE_FLOOD`] idle connections are held, a new connection's
//!   `initialize` is answered: the newest idle ones are still open after it
//!   (held, not yet timed out), the oldest were closed without a word to
//!   make room; one log line for the evictions;
//! - an idle connection is closed once `FIRST_LINE_TIMEOUT` has passed since
//!   it connected, not before, and a served one is not; one log line for the
//!   burst;
//! - connections beyond `MAX_CONNECTIONS` served ones are closed after their
//!   first line, unanswered, with one log line for the whole burst, while the
//!   ones within keep working (a CLI-style `initialize` is answered and the
//!   helper runs a turn);
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
use wta_master::{FIRST_LINE_TIMEOUT, MAX_CONNECTIONS, MAX_LINE_BYTES, MAX_UNPROVEN_CONNECTIONS};
use wta_testkit::procs::still_open;

const T: Duration = Duration::from_secs(20);
/// Idle connections held open at once (over three times the unproven pool).
const IDLE_FLOOD: usize = 200;
/// Connections that send their first line beyond the limit of served ones.
const REFUSED: usize = 200;
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

/// Connects, with the moment just before: the master accepted it later, so
/// its deadline is at least [`FIRST_LINE_TIMEOUT`] after that moment.
fn connect(socket: &Path) -> (UnixStream, Instant) {
    let before = Instant::now();
    (UnixStream::connect(socket).unwrap(), before)
}

/// Closed by the master without a word, within [`T`].
fn closed_silently(stream: &mut UnixStream, what: &str) {
    let data = wta_testkit::procs::read_until_closed(stream, T)
        .unwrap_or_else(|| panic!("{what} stayed open"));
    assert!(data.is_empty(), "{what} was answered: {data:?}");
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
fn floods_do_not_starve_helpers_and_the_memory_comes_back() {
    let env = Env::new();
    let master = env.start_master();
    let mut helper = env.helper("custom:test");
    helper_works(&mut helper);
    drop(served(&env.socket).expect("a CLI connection is served"));
    let idle = rss_kib(master.pid());

    // 1. An idle flood is held, and a new connection is served meanwhile.
    let started = Instant::now();
    let mut flood: Vec<(UnixStream, Instant)> =
        (0..IDLE_FLOOD).map(|_| connect(&env.socket)).collect();
    let mut newcomer =
        served(&env.socket).expect("a new connection is served during the idle flood");
    let answered_in = started.elapsed();
    // Accepted in connect order, the newcomer last: it took the place of the
    // oldest of the pool, and the newest MAX_UNPROVEN_CONNECTIONS - 1 are
    // still there. They stay open only until FIRST_LINE_TIMEOUT (3 s) after
    // their connect, and this step takes milliseconds: still open now means
    // the newcomer was answered while they were held.
    let evicted = IDLE_FLOOD - (MAX_UNPROVEN_CONNECTIONS - 1);
    for (i, (stream, _)) in flood.iter_mut().enumerate().skip(evicted) {
        assert!(
            still_open(stream),
            "idle connection {i} was closed before the newcomer was answered ({answered_in:?} after the flood began)"
        );
    }
    let during = rss_kib(master.pid());
    // The oldest made room, closed before their deadline: evicted.
    for (i, (stream, connected)) in flood.iter_mut().enumerate().take(evicted) {
        closed_silently(stream, &format!("evicted connection {i}"));
        assert!(
            connected.elapsed() < FIRST_LINE_TIMEOUT,
            "connection {i} was not evicted but timed out"
        );
    }
    helper_works(&mut helper);

    // 2. The rest time out: not before FIRST_LINE_TIMEOUT after their connect.
    for (i, (stream, connected)) in flood.iter_mut().enumerate().skip(evicted) {
        closed_silently(stream, &format!("idle connection {i}"));
        assert!(
            connected.elapsed() >= FIRST_LINE_TIMEOUT,
            "idle connection {i} was closed after {:?}",
            connected.elapsed()
        );
    }
    // A connection that came after the newcomer's times out later than the
    // newcomer's own deadline would have: the served newcomer stays open.
    let (mut witness, connected) = connect(&env.socket);
    closed_silently(&mut witness, "the idle witness");
    assert!(connected.elapsed() >= FIRST_LINE_TIMEOUT);
    assert!(
        still_open(&mut newcomer),
        "a served connection was closed by the idle timeout"
    );
    drop((flood, newcomer));

    // 3. Served connections: fill every place (the helper holds one); every
    //    later connection is closed after its first line, unanswered.
    let mut held = served_connections(&env.socket, MAX_CONNECTIONS - 1);
    let refusing = Instant::now();
    for i in 0..REFUSED {
        assert!(
            served(&env.socket).is_none(),
            "connection {i} beyond the limit was served"
        );
    }
    let refused_in = refusing.elapsed();
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

    // 4. Unterminated lines over the cap, each on a connection the master
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

    // 5. Lines just under the cap are real traffic: each is answered (the
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

    // 6. Memory comes back.
    let after = wta_testkit::wait_for_value("RSS back within 2x of idle", T, || {
        let now = rss_kib(master.pid());
        (now <= 2 * idle).then_some(now)
    })
    .unwrap_or_else(|e| panic!("{e}: idle {idle} KiB, now {} KiB", rss_kib(master.pid())));
    eprintln!(
        "master RSS: idle {idle} KiB, during the idle flood {during} KiB, just after the long lines {after_lines} KiB, after everything {after} KiB; the newcomer was answered {answered_in:?} after the idle flood began; {REFUSED} refusals took {refused_in:?}"
    );

    // One log line for the evictions, one for the timeouts, one for the
    // burst of refusals, one per over-long line.
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
    assert_eq!(log_lines(&env, "closing the oldest"), 1);
    assert_eq!(log_lines(&env, "no complete first request"), 1);
    assert_eq!(log_lines(&env, "refusing connections"), 1);
    assert_eq!(log_lines(&env, &over), LONG_LINES);
}
