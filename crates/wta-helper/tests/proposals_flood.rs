//! Floods of a helper's proposal socket, against a real bound
//! `ProposalServer` in its own process (this test binary run again with
//! [`SERVE`], see [`serve_proposals`]) so its memory can be read from
//! `/proc`:
//!
//! - while [`IDLE_FLOOD`] idle connections are held, a real proposal on a
//!   new connection gets its validation line: the newest idle ones are still
//!   open after it (held, not yet timed out), the oldest were closed without
//!   a word to make room; one log line for the evictions;
//! - an idle connection is closed once [`REQUEST_TIMEOUT`] has passed since
//!   it connected, not before, and a served one is not; one log line for
//!   the burst;
//! - a request line over the cap ends its connection, one log line each;
//! - afterwards the process's RSS comes back to within 2× of its idle RSS.
//!
//! The binary has its own `main` (`harness = false`): with [`SERVE`] it is
//! the server, else it runs the test through `wta_testkit::harness`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use wta_helper::proposals::server::{MAX_UNPROVEN_CONNECTIONS, REQUEST_TIMEOUT};
use wta_helper::proposals::{ProposalServer, ProposalService, TurnContext};
use wta_protocol::limits::MAX_REQUEST_LINE_BYTES;
use wta_protocol::{Channel, HelperId, PaneId, ProposalRequest, TurnNonce};
use wta_testkit::procs::still_open;

/// The argument that makes this binary the proposal server (then its dir).
const SERVE: &str = "--serve-proposals";
const GOOD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","actions":[{"type":"send","input":"ls"}]}]}"#;
const T: Duration = Duration::from_secs(10);
/// Idle connections held open at once (over three times the unproven pool).
const IDLE_FLOOD: usize = 200;
/// Unterminated over-long lines, and how long each is.
const LONG_LINES: usize = 8;
const LONG_LINE_BYTES: usize = MAX_REQUEST_LINE_BYTES + (1 << 20);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, dir] = args.as_slice()
        && flag == SERVE
    {
        return serve_proposals(PathBuf::from(dir));
    }
    wta_testkit::harness::run(&[(
        "idle_floods_do_not_starve_a_proposal_and_the_memory_comes_back",
        idle_floods_do_not_starve_a_proposal_and_the_memory_comes_back,
    )]);
}

/// The server role: a helper's proposal socket with a live turn, in its own
/// process. Writes `<socket>\n<channel>\n` to `<dir>/ready` and serves until
/// its stdin closes; logs go to `<dir>/log`.
fn serve_proposals(dir: PathBuf) {
    let log = std::fs::File::create(dir.join("log")).unwrap();
    tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(log))
        .with_ansi(false)
        .init();
    // Like the helper: a two-worker runtime.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let service = ProposalService::with_random_id().unwrap();
        let mut cards = service.attach_ui();
        tokio::spawn(async move { while cards.recv().await.is_some() {} });
        let server = ProposalServer::bind(service.clone(), &dir.join("wta")).unwrap();
        let channel = service
            .issue_turn(TurnContext::agent_turn(Some(PaneId::from_number(1)), None))
            .unwrap();
        let ready = format!("{}\n{channel}\n", server.path().display());
        std::fs::write(dir.join("ready.tmp"), ready).unwrap();
        std::fs::rename(dir.join("ready.tmp"), dir.join("ready")).unwrap();
        tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink()))
            .await
            .unwrap()
            .unwrap();
        drop(server);
    });
    std::process::exit(0);
}

/// The server process; killed on drop.
struct ServerProcess {
    child: Child,
    dir: tempfile::TempDir,
    socket: PathBuf,
    channel: Channel,
}

impl ServerProcess {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        // The server role reads no HOME: the scrubbed base is all it gets.
        let child = wta_testkit::env::clean(std::env::current_exe().unwrap())
            .arg(SERVE)
            .arg(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let ready = dir.path().join("ready");
        let text = wta_testkit::wait_for_value("the proposal server", T, || {
            std::fs::read_to_string(&ready).ok()
        })
        .unwrap();
        let mut lines = text.lines();
        let socket = PathBuf::from(lines.next().unwrap());
        let channel = Channel::parse(lines.next().unwrap()).unwrap();
        Self {
            child,
            dir,
            socket,
            channel,
        }
    }

    fn rss_kib(&self) -> u64 {
        rss_kib(self.child.id())
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn rss_kib(pid: u32) -> u64 {
    wta_testkit::procs::rss_kib(pid).unwrap()
}

/// Reads one response line (the validation line) within [`T`].
fn read_line(stream: &UnixStream) -> serde_json::Value {
    stream.set_read_timeout(Some(T)).unwrap();
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

/// Whether the server closed `stream` (EOF or reset) within [`T`]; data
/// before the end is returned.
fn closed_by_server(stream: &mut UnixStream) -> Option<Vec<u8>> {
    wta_testkit::procs::read_until_closed(stream, T)
}

/// A request nobody can own: answered with a validation line, then closed.
fn answered_once(socket: &Path) -> serde_json::Value {
    let stranger = Channel::new(
        HelperId::from_bytes([7; 16]),
        TurnNonce::from_bytes([7; 16]),
    );
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .write_all(&ProposalRequest::new(stranger, GOOD).to_line().unwrap())
        .unwrap();
    let line = read_line(&stream);
    // The server frees the connection's place before it closes it, so once
    // this returns the place is free again.
    assert!(closed_by_server(&mut stream).is_some());
    line
}

/// Connects, with the moment just before: the server accepted it later, so
/// its deadline is at least [`REQUEST_TIMEOUT`] after that moment.
fn connect(socket: &Path) -> (UnixStream, Instant) {
    let before = Instant::now();
    (UnixStream::connect(socket).unwrap(), before)
}

/// Closed by the server without a word, within [`T`].
fn closed_silently(stream: &mut UnixStream, what: &str) {
    let data = closed_by_server(stream).unwrap_or_else(|| panic!("{what} stayed open"));
    assert!(data.is_empty(), "{what} was answered: {data:?}");
}

fn idle_floods_do_not_starve_a_proposal_and_the_memory_comes_back() {
    let server = ServerProcess::start();
    assert_eq!(answered_once(&server.socket)["status"], "helper_mismatch");
    let idle = server.rss_kib();

    // 1. An idle flood is held, and a real proposal is served meanwhile.
    let started = Instant::now();
    let mut flood: Vec<(UnixStream, Instant)> =
        (0..IDLE_FLOOD).map(|_| connect(&server.socket)).collect();
    let (mut proposal, _) = connect(&server.socket);
    proposal
        .write_all(
            &ProposalRequest::new(server.channel, GOOD)
                .to_line()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(read_line(&proposal)["status"], "accepted");
    let answered_in = started.elapsed();
    // Accepted in connect order, the proposal last: it took the place of the
    // oldest of the pool, and the newest MAX_UNPROVEN_CONNECTIONS - 1 are
    // still there. They stay open only until REQUEST_TIMEOUT (3 s) after
    // their connect, and this step takes milliseconds: still open now means
    // the proposal was answered while they were held.
    let evicted = IDLE_FLOOD - (MAX_UNPROVEN_CONNECTIONS - 1);
    for (i, (stream, _)) in flood.iter_mut().enumerate().skip(evicted) {
        assert!(
            still_open(stream),
            "idle connection {i} was closed before the proposal was answered ({answered_in:?} after the flood began)"
        );
    }
    let during = server.rss_kib();
    // The oldest made room, closed before their deadline: evicted.
    for (i, (stream, connected)) in flood.iter_mut().enumerate().take(evicted) {
        closed_silently(stream, &format!("evicted connection {i}"));
        assert!(
            connected.elapsed() < REQUEST_TIMEOUT,
            "connection {i} was not evicted but timed out"
        );
    }

    // 2. The rest time out: not before REQUEST_TIMEOUT after their connect.
    for (i, (stream, connected)) in flood.iter_mut().enumerate().skip(evicted) {
        closed_silently(stream, &format!("idle connection {i}"));
        assert!(
            connected.elapsed() >= REQUEST_TIMEOUT,
            "idle connection {i} was closed after {:?}",
            connected.elapsed()
        );
    }
    // A connection that came after the proposal's times out later than the
    // proposal's own deadline would have: the served proposal stays open.
    let (mut witness, connected) = connect(&server.socket);
    closed_silently(&mut witness, "the idle witness");
    assert!(connected.elapsed() >= REQUEST_TIMEOUT);
    assert!(
        still_open(&mut proposal),
        "the served proposal was closed by the idle timeout"
    );
    // Let it go; the server frees its place before its EOF reaches us.
    proposal.shutdown(std::net::Shutdown::Write).unwrap();
    assert!(closed_by_server(&mut proposal).is_some());
    drop(flood);

    // 3. Unterminated lines over the cap: each connection ends, with its
    //    reason when the client is still there to read it.
    let writers: Vec<_> = (0..LONG_LINES)
        .map(|_| {
            let stream = UnixStream::connect(&server.socket).unwrap();
            let mut writer = stream.try_clone().unwrap();
            let thread = std::thread::spawn(move || {
                let chunk = vec![b'x'; 64 * 1024];
                let mut sent = 0;
                while sent < LONG_LINE_BYTES && writer.write_all(&chunk).is_ok() {
                    sent += chunk.len();
                }
            });
            (stream, thread)
        })
        .collect();
    for (i, (mut stream, thread)) in writers.into_iter().enumerate() {
        let data = closed_by_server(&mut stream)
            .unwrap_or_else(|| panic!("over-long line {i} did not end its connection"));
        let text = String::from_utf8_lossy(&data);
        assert!(
            text.is_empty() || text.contains("\"phase\":\"validation\""),
            "{text}"
        );
        thread.join().unwrap();
    }

    // The server still answers.
    assert_eq!(answered_once(&server.socket)["status"], "helper_mismatch");

    // 4. Memory comes back.
    let after = wta_testkit::wait_for_value("RSS back within 2x of idle", T, || {
        let now = server.rss_kib();
        (now <= 2 * idle).then_some(now)
    })
    .unwrap_or_else(|e| panic!("{e}: idle {idle} KiB, now {} KiB", server.rss_kib()));
    eprintln!(
        "proposal socket RSS: idle {idle} KiB, during the idle flood {during} KiB, after {after} KiB; the proposal was answered {answered_in:?} after the flood began"
    );

    // One log line for the evictions, one for the timeouts, one per
    // over-long line; no served connection was refused.
    let count = |log: &str, what: &str| log.lines().filter(|l| l.contains(what)).count();
    let log = wta_testkit::wait_for_value("the log lines", T, || {
        let log = server.log();
        (count(&log, "line over") >= LONG_LINES).then_some(log)
    })
    .unwrap_or_else(|e| panic!("{e}: {}", server.log()));
    assert_eq!(count(&log, "closing the oldest"), 1, "{log}");
    assert_eq!(count(&log, "no complete first request"), 1, "{log}");
    assert_eq!(count(&log, "refusing connections"), 0, "{log}");
    assert_eq!(count(&log, "line over"), LONG_LINES, "{log}");
}
