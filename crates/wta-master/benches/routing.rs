//! Master routing benchmark (DESIGN §7, issue 4).
//!
//! 1. Added latency: the same scripted test agent reached directly (its stdio)
//!    and through a real master (its Unix socket), interleaved in one run. One
//!    sample is `session/prompt "echo"` written → its first `session/update` read,
//!    so the master's share counts both hops (helper → agent and agent → helper):
//!    an upper bound on what it adds to one agent → helper update.
//! 2. Throughput: 8 helpers on one agent stream concurrently through the master;
//!    notifications/s over all of them, checked for zero loss, zero cross-talk,
//!    order kept and no `_wta/lagged`. The agent's own rate (one direct client
//!    streaming the same total) is printed next to it: it is the ceiling.
//!
//! The bench binary plays every role: run without arguments it re-executes
//! itself as `--serve-test-agent` (the scripted agent on stdio) and as
//! `--master <socket>` (`wta_master::run` in its own process, like `wta --master`).
//! Run: `cargo bench -p wta-master --bench routing` (`WTA_BENCH_RUNS`, `WTA_BENCH_CHUNKS`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

const HELPERS: usize = 8;
const ADDED_BUDGET: Duration = Duration::from_millis(1);
const RATE_BUDGET: f64 = 20_000.0;

/// One JSON-RPC line peer: the agent's stdio or a master socket.
struct Peer {
    writer: Box<dyn Write + Send>,
    reader: Box<dyn BufRead + Send>,
    next_id: u64,
    session: String,
}

impl Peer {
    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.writer, "{line}").unwrap();
        self.writer.flush().unwrap();
        id
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).unwrap();
        assert!(n > 0, "peer closed the connection");
        serde_json::from_str(&line).unwrap()
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        loop {
            let msg = self.read();
            if msg.get("method").is_none() && msg["id"] == id {
                assert!(msg.get("error").is_none(), "{method} failed: {msg}");
                return msg["result"].clone();
            }
        }
    }

    fn open(mut self, meta: Value) -> Self {
        self.call(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}, "_meta": meta}),
        );
        let new = self.call(
            "session/new",
            json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
        );
        self.session = new["sessionId"].as_str().unwrap().to_owned();
        self
    }

    fn prompt(&mut self, text: &str) -> u64 {
        let session = self.session.clone();
        self.send(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        )
    }

    /// Time from writing an echo prompt to reading its first update.
    fn echo_latency(&mut self) -> Duration {
        let start = Instant::now();
        let id = self.prompt("echo x");
        let mut first = None;
        loop {
            let msg = self.read();
            if first.is_none() && msg["method"] == "session/update" {
                first = Some(start.elapsed());
            }
            if msg.get("method").is_none() && msg["id"] == id {
                return first.expect("an update before the answer");
            }
        }
    }

    /// Streams `count` chunks tagged `tag`; checks them all and returns the count.
    fn stream(&mut self, count: u64, tag: &str) -> u64 {
        let id = self.prompt(&format!("stream {count} {tag}"));
        let mut next = 0;
        loop {
            let msg = self.read();
            if msg.get("method").is_none() && msg["id"] == id {
                assert_eq!(next, count, "{tag}: lost updates");
                return next;
            }
            let method = msg["method"].as_str().unwrap_or_default();
            assert!(
                !method.ends_with("wta/lagged"),
                "{tag}: the master dropped updates"
            );
            if method == "session/update" {
                assert_eq!(
                    msg["params"]["sessionId"],
                    self.session.as_str(),
                    "cross-talk"
                );
                let text = msg["params"]["update"]["content"]["text"].as_str().unwrap();
                assert_eq!(text, format!("{tag}:{next};"), "{tag}: order");
                next += 1;
            }
        }
    }

    /// Like [`Peer::stream`] with a cheaper check per line (a substring instead
    /// of a JSON parse), so the readers do not starve the master of CPU.
    fn stream_fast(&mut self, count: u64, tag: &str) -> u64 {
        let id = self.prompt(&format!("stream {count} {tag}"));
        let answer = format!("\"id\":{id},");
        let session = format!("\"sessionId\":\"{}\"", self.session);
        let mut next = 0;
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.reader.read_line(&mut line).unwrap() > 0, "closed");
            if line.contains("session/update") {
                assert!(line.contains(&session), "cross-talk: {line}");
                assert!(
                    line.contains(&format!("\"{tag}:{next};\"")),
                    "{tag}: order/loss at {next}: {line}"
                );
                next += 1;
            } else if line.contains("wta/lagged") {
                panic!("{tag}: the master dropped updates");
            } else if line.contains(&answer) && !line.contains("\"method\"") {
                assert_eq!(next, count, "{tag}: lost updates");
                return next;
            }
        }
    }
}

/// A minimal ACP agent on stdio for the throughput run: it answers
/// `initialize`/`session/new` and streams `stream <n> <tag>` from pre-built
/// lines, so the agent is not what limits the measured rate.
fn serve_raw_agent() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut sessions = 0u64;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let result = match msg["method"].as_str().unwrap_or_default() {
            "initialize" => {
                json!({"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []})
            }
            "session/new" => {
                sessions += 1;
                json!({"sessionId": format!("raw-{sessions}")})
            }
            "session/prompt" => {
                let session = msg["params"]["sessionId"].as_str().unwrap_or_default();
                let text = msg["params"]["prompt"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                let mut words = text.split_whitespace().skip(1);
                let n: u64 = words.next().and_then(|n| n.parse().ok()).unwrap_or(1);
                let tag = words.next().unwrap_or("x");
                for i in 0..n {
                    writeln!(
                        out,
                        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{tag}:{i};"}}}}}}}}"#
                    )
                    .unwrap();
                }
                json!({"stopReason": "end_turn"})
            }
            _ => json!({}),
        };
        writeln!(
            out,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        )
        .unwrap();
        out.flush().unwrap();
    }
}

fn direct_agent() -> (Child, Peer) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .arg("--serve-test-agent")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let peer = Peer {
        writer: Box::new(child.stdin.take().unwrap()),
        reader: Box::new(BufReader::new(child.stdout.take().unwrap())),
        next_id: 0,
        session: String::new(),
    };
    (child, peer.open(json!({})))
}

fn via_master(socket: &Path) -> Peer {
    via_master_to(socket, "custom:bench")
}

fn via_master_to(socket: &Path, agent: &str) -> Peer {
    let stream = UnixStream::connect(socket).unwrap();
    let peer = Peer {
        reader: Box::new(BufReader::new(stream.try_clone().unwrap())),
        writer: Box::new(stream),
        next_id: 0,
        session: String::new(),
    };
    peer.open(json!({"wta": {"agentId": agent}}))
}

fn start_master(tmp: &Path) -> (Child, PathBuf) {
    for d in ["home", "config/wta", "state"] {
        std::fs::create_dir_all(tmp.join(d)).unwrap();
    }
    let me = std::env::current_exe().unwrap();
    std::fs::write(
        tmp.join("config/wta/config.toml"),
        format!(
            "[custom_agents.bench]\nargv = [{me:?}, \"--serve-test-agent\"]\n\n\
             [custom_agents.raw]\nargv = [{me:?}, \"--serve-raw-agent\"]\n",
            me = me.to_string_lossy()
        ),
    )
    .unwrap();
    let socket = tmp.join("run/master.sock");
    let child = Command::new(&me)
        .arg("--master")
        .arg(&socket)
        .env("HOME", tmp.join("home"))
        .env("XDG_CONFIG_HOME", tmp.join("config"))
        .env("XDG_STATE_HOME", tmp.join("state"))
        .env("WTA_POLICY_FILE", tmp.join("policy.toml"))
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the master did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    (child, socket)
}

/// Notifications/s delivered to `HELPERS` concurrent helpers on `agent`.
fn throughput(socket: &Path, agent: &str, chunks: u64) -> f64 {
    let helpers: Vec<Peer> = (0..HELPERS).map(|_| via_master_to(socket, agent)).collect();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(HELPERS + 1));
    let threads: Vec<_> = helpers
        .into_iter()
        .enumerate()
        .map(|(i, mut h)| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                h.stream_fast(chunks, &format!("h{i}"))
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    let delivered: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    delivered as f64 / start.elapsed().as_secs_f64()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn serve_test_agent() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _ = rt.block_on(wta_testkit::acp::serve(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    ));
}

fn serve_master(socket: PathBuf) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(wta_master::run(wta_master::MasterConfig::new(socket)))
        .unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--serve-test-agent") => return serve_test_agent(),
        Some("--serve-raw-agent") => return serve_raw_agent(),
        Some("--master") => return serve_master(PathBuf::from(&args[2])),
        _ => {}
    }
    let runs = env_num("WTA_BENCH_RUNS", 500);
    let chunks = env_num("WTA_BENCH_CHUNKS", 5_000);
    let tmp = tempfile::tempdir().unwrap();
    let (mut master, socket) = start_master(tmp.path());
    let (mut agent, mut direct) = direct_agent();
    let mut routed = via_master(&socket);

    // Latency, interleaved so both paths see the same machine state.
    for _ in 0..20 {
        direct.echo_latency();
        routed.echo_latency();
    }
    let (mut d, mut r) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        d.push(direct.echo_latency());
        r.push(routed.echo_latency());
    }
    let (d, r) = (median(d), median(r));
    let added = r.saturating_sub(d);
    println!("echo prompt -> first session/update, median of {runs}:");
    println!("  direct agent      {:>9.1} us", d.as_secs_f64() * 1e6);
    println!("  through master    {:>9.1} us", r.as_secs_f64() * 1e6);
    println!(
        "  added by master   {:>9.1} us  (both hops; budget {} us for one update: {})",
        added.as_secs_f64() * 1e6,
        ADDED_BUDGET.as_micros(),
        if added <= ADDED_BUDGET { "ok" } else { "OVER" }
    );
    println!(
        "  ratio             {:>9.2}x",
        r.as_secs_f64() / d.as_secs_f64()
    );

    // Throughput: 8 helpers through the master, against the scripted agent and
    // against a minimal agent that is not the bottleneck.
    let total = chunks * HELPERS as u64;
    let start = Instant::now();
    direct.stream(total, "d");
    let direct_rate = total as f64 / start.elapsed().as_secs_f64();
    let scripted = throughput(&socket, "custom:bench", chunks);
    let raw = throughput(&socket, "custom:raw", chunks);
    println!(
        "{HELPERS} helpers x {chunks} updates through the master (zero loss, order kept, no cross-talk, no lag):"
    );
    println!("  scripted test agent alone (1 direct client): {direct_rate:>8.0} notifications/s");
    println!(
        "  scripted test agent through the master:      {scripted:>8.0} notifications/s (ratio {:.2})",
        scripted / direct_rate
    );
    println!(
        "  minimal agent through the master:            {raw:>8.0} notifications/s (budget >= {RATE_BUDGET:.0}: {})",
        if raw >= RATE_BUDGET { "ok" } else { "UNDER" }
    );

    drop(direct);
    let _ = agent.wait();
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(master.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = master.wait();
}
