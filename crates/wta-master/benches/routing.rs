//! Master routing benchmark (DESIGN §7).
//!
//! 1. Added latency: the scripted test agent reached directly (its stdio) and
//!    through a real master (its Unix socket), interleaved. One sample is
//!    `session/prompt "echo"` written → its first `session/update` read, so the
//!    master's share counts both hops: an upper bound on what it adds to one update.
//! 2. Throughput, in rounds, each round running back to back:
//!    - *direct*: the scripted agent streaming 8 × N updates to one client on its stdio;
//!    - *scripted*: 8 helpers × N updates from one scripted agent through a master;
//!    - *minimal*: the same from a minimal agent (pre-built lines, several turns
//!      interleaved), so the master is what limits the rate. It runs at the lowest
//!      CPU priority (`nice 19`): on 2 cores it would otherwise write faster than 8
//!      clients can read, and a client more than a queue (4,096 lines) behind is
//!      dropped from, by design; this way it writes only as fast as the master and
//!      the clients take its lines, and the rate is theirs.
//!
//!    Every client checks every line: its own session only (cross-talk), its own
//!    tag with consecutive numbers (loss and order), no `_wta/lagged`, and the
//!    count at the prompt's answer; each round delivers 8 × N, and the master
//!    reports nothing dropped. Any failure panics: the bench exits non-zero.
//!    Rates are medians over rounds; the scripted/direct ratio is the median of
//!    the per-round ratios (both halves of a ratio ran under the same load).
//! 3. Where the time goes: CPU time per notification of each process (the
//!    kernel's per-thread run time, `/proc/<pid>/task/*/schedstat`), and the
//!    master's own breakdown by stage ([`wta_master::RelayStats`]).
//!
//! The bench binary plays every role: run without arguments it re-executes
//! itself as `--serve-test-agent` (the scripted agent on stdio),
//! `--serve-raw-agent` and `--master <socket>` (`wta_master::run` in its own
//! process, like `wta --master`, printing its relay counters when it stops).
//! Run: `cargo bench -p wta-master --bench routing`
//! (`WTA_BENCH_RUNS` latency samples, `WTA_BENCH_CHUNKS` per helper, `WTA_BENCH_ROUNDS`);
//! a figure past its budget (added latency, rate, ratio) fails the run.
//! `cargo test -p wta-master --bench routing` is the quick run (20 samples,
//! 1 round of 8 × 200 updates, every check on, budgets not enforced).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "routing/procs.rs"]
mod procs;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use procs::{Proc, child_with, process_cpu_ns, thread_cpu_ns};
use serde_json::{Value, json};
use wta_master::RelayStatsSnapshot;
use wta_testkit::bench::{Budgets, Mode};

const HELPERS: usize = 8;
const ADDED_BUDGET: Duration = Duration::from_millis(1);
/// DESIGN §7: the minimal agent through the master, over 8 helpers.
const RATE_TARGET: f64 = 50_000.0;
/// DESIGN §7: the scripted agent through the master against its direct rate.
const RATIO_TARGET: f64 = 0.9;

/// One JSON-RPC line peer: the agent's stdio or a master socket.
struct Peer {
    writer: Box<dyn Write + Send>,
    reader: BufReader<Box<dyn Read + Send>>,
    next_id: u64,
    session: String,
    line: String,
}

impl Peer {
    fn new(writer: Box<dyn Write + Send>, reader: Box<dyn Read + Send>) -> Self {
        Self {
            writer,
            reader: BufReader::with_capacity(256 * 1024, reader),
            next_id: 0,
            session: String::new(),
            line: String::new(),
        }
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.writer, "{line}").unwrap();
        self.writer.flush().unwrap();
        id
    }

    fn read_line(&mut self) -> &str {
        self.line.clear();
        let n = self.reader.read_line(&mut self.line).unwrap();
        assert!(n > 0, "peer closed the connection");
        &self.line
    }

    fn read(&mut self) -> Value {
        serde_json::from_str(self.read_line()).unwrap()
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

    /// Streams `count` chunks tagged `tag` and checks every line: this
    /// session only, `tag:0;` … `tag:<count-1>;` in order, no lag report, all
    /// of them before the answer. Cheap per line (substring checks, no JSON
    /// parse, no allocation) so the clients do not starve the master of CPU.
    /// Returns the count and this thread's CPU time.
    fn stream_checked(&mut self, count: u64, tag: &str) -> (u64, u64) {
        let cpu = thread_cpu_ns();
        let id = self.prompt(&format!("stream {count} {tag}"));
        let answer = format!("\"id\":{id},");
        let session = format!("\"sessionId\":\"{}\"", self.session);
        let text = format!("\"text\":\"{tag}:");
        let mut next = 0;
        loop {
            let line = self.read_line();
            if line.contains("session/update") {
                assert!(line.contains(&session), "cross-talk: {line}");
                let n = line
                    .split_once(&text)
                    .and_then(|(_, rest)| rest.split_once(';'))
                    .and_then(|(n, _)| n.parse::<u64>().ok());
                assert_eq!(n, Some(next), "{tag}: loss or disorder at {next}: {line}");
                next += 1;
            } else if line.contains("wta/lagged") {
                panic!("{tag}: the master dropped updates: {line}");
            } else if line.contains(&answer) && !line.contains("\"method\"") {
                assert_eq!(next, count, "{tag}: lost updates");
                return (next, thread_cpu_ns() - cpu);
            }
        }
    }
}

fn direct_agent() -> (Proc, Peer) {
    let mut child = wta_testkit::env::clean(std::env::current_exe().unwrap())
        .arg("--serve-test-agent")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let peer = Peer::new(
        Box::new(child.stdin.take().unwrap()),
        Box::new(child.stdout.take().unwrap()),
    );
    (Proc(child), peer.open(json!({})))
}

fn via_master(socket: &Path, agent: &str) -> Peer {
    let stream = UnixStream::connect(socket).unwrap();
    let peer = Peer::new(Box::new(stream.try_clone().unwrap()), Box::new(stream));
    peer.open(json!({"wta": {"agentId": agent}}))
}

fn start_master(tmp: &Path, name: &str) -> (Proc, PathBuf) {
    let dir = tmp.join(name);
    for d in ["home", "config/wta", "state"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let me = std::env::current_exe().unwrap();
    std::fs::write(
        dir.join("config/wta/config.toml"),
        format!(
            "[custom_agents.bench]\nargv = [{me:?}, \"--serve-test-agent\"]\n\n\
             [custom_agents.raw]\nargv = [\"nice\", \"-n\", \"19\", {me:?}, \"--serve-raw-agent\"]\n",
            me = me.to_string_lossy()
        ),
    )
    .unwrap();
    let socket = dir.join("run/master.sock");
    let child = wta_testkit::Sandbox::in_dir(&dir)
        .command(&me)
        .arg("--master")
        .arg(&socket)
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("WTA_POLICY_FILE", dir.join("policy.toml"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the master did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    (Proc(child), socket)
}

/// One measured run: notifications delivered, wall time, CPU time per process.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    notes: u64,
    secs: f64,
    agent_ns: u64,
    master_ns: u64,
    readers_ns: u64,
}

impl Sample {
    fn rate(&self) -> f64 {
        self.notes as f64 / self.secs
    }
}

/// A master with its agent and helpers, ready to stream.
struct Routed {
    master: Proc,
    agent_pid: u32,
    helpers: Vec<Peer>,
}

impl Routed {
    fn new(tmp: &Path, name: &str, agent: &str, agent_flag: &str) -> Self {
        let (master, socket) = start_master(tmp, name);
        let helpers: Vec<Peer> = (0..HELPERS).map(|_| via_master(&socket, agent)).collect();
        let agent_pid = child_with(master.pid(), agent_flag);
        Self {
            master,
            agent_pid,
            helpers,
        }
    }

    /// `chunks` updates to every helper at once; checked line by line.
    fn round(&mut self, chunks: u64, round: usize, phase: char) -> Sample {
        let barrier = Arc::new(Barrier::new(HELPERS + 1));
        let helpers = std::mem::take(&mut self.helpers);
        let threads: Vec<_> = helpers
            .into_iter()
            .enumerate()
            .map(|(i, mut h)| {
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    let got = h.stream_checked(chunks, &format!("{phase}{i}r{round}"));
                    (h, got)
                })
            })
            .collect();
        let (agent0, master0) = (
            process_cpu_ns(self.agent_pid),
            process_cpu_ns(self.master.pid()),
        );
        barrier.wait();
        let start = Instant::now();
        let mut sample = Sample::default();
        for t in threads {
            let (h, (notes, cpu)) = t.join().expect("a helper's check failed");
            self.helpers.push(h);
            sample.notes += notes;
            sample.readers_ns += cpu;
        }
        sample.secs = start.elapsed().as_secs_f64();
        sample.agent_ns = process_cpu_ns(self.agent_pid) - agent0;
        sample.master_ns = process_cpu_ns(self.master.pid()) - master0;
        sample
    }

    /// Stops the master; returns its relay counters, which must count
    /// `delivered` updates relayed and none dropped.
    fn finish(self, delivered: u64) -> RelayStatsSnapshot {
        drop(self.helpers);
        let out = self.master.stop();
        let stats: RelayStatsSnapshot = out
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .expect("the master printed its relay counters");
        assert_eq!(stats.dropped, 0, "the master dropped updates: {stats:?}");
        assert!(
            stats.relayed + stats.via_crate >= delivered,
            "the master relayed {} + {} lines, {delivered} were delivered",
            stats.relayed,
            stats.via_crate
        );
        stats
    }
}

fn direct_round(agent: &Proc, peer: &mut Peer, total: u64, round: usize) -> Sample {
    let agent0 = process_cpu_ns(agent.pid());
    let start = Instant::now();
    let (notes, readers_ns) = peer.stream_checked(total, &format!("d{round}"));
    Sample {
        notes,
        secs: start.elapsed().as_secs_f64(),
        agent_ns: process_cpu_ns(agent.pid()) - agent0,
        master_ns: 0,
        readers_ns,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn median_duration(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One row of the table: median rate and CPU ns per notification.
fn row(name: &str, samples: &[Sample]) {
    let per = |f: fn(&Sample) -> u64| {
        median(
            samples
                .iter()
                .map(|s| f(s) as f64 / s.notes as f64)
                .collect(),
        )
    };
    let master = per(|s| s.master_ns);
    println!(
        "  {name:<36}{:>10.0}{:>10.0}{:>10}{:>10.0}",
        median(samples.iter().map(Sample::rate).collect()),
        per(|s| s.agent_ns),
        if master > 0.0 {
            format!("{master:.0}")
        } else {
            "-".into()
        },
        per(|s| s.readers_ns),
    );
}

/// Where one master's time went, per relayed notification.
fn breakdown(name: &str, stats: &RelayStatsSnapshot, samples: &[Sample]) {
    let relayed = stats.relayed.max(1) as f64;
    let sampled = stats.sampled.max(1) as f64;
    let total = median(
        samples
            .iter()
            .map(|s| s.master_ns as f64 / s.notes as f64)
            .collect(),
    );
    let stages = [
        (
            "read (agent pipe, read calls)",
            stats.read_ns as f64 / relayed,
            format!(
                "{} calls, {:.0} lines each; {} pauses of {} us",
                stats.reads,
                relayed / stats.reads.max(1) as f64,
                stats.pauses,
                wta_master::BATCH_PAUSE.as_micros()
            ),
        ),
        (
            "frame + UTF-8 check",
            stats.frame_ns as f64 / sampled,
            String::new(),
        ),
        (
            "parse (method, id, sessionId)",
            stats.parse_ns as f64 / sampled,
            String::new(),
        ),
        (
            "route lookup",
            stats.route_ns as f64 / sampled,
            String::new(),
        ),
        (
            "stage (into its helper's batch)",
            stats.queue_ns as f64 / sampled,
            String::new(),
        ),
        (
            "admit + write at once, or queue",
            stats.flush_ns as f64 / relayed,
            format!(
                "{} batches, {:.1} lines each; {} lines written at once",
                stats.flushes,
                relayed / stats.flushes.max(1) as f64,
                stats.written_through
            ),
        ),
        (
            "write (queued lines, writer tasks)",
            stats.write_ns as f64 / relayed,
            format!(
                "{} calls, {:.0} lines each",
                stats.writes,
                stats.written_lines as f64 / stats.writes.max(1) as f64
            ),
        ),
    ];
    let staged: f64 = stages.iter().map(|(_, ns, _)| ns).sum();
    println!("  {name}: {total:.0} ns of master CPU per notification");
    for (stage, ns, note) in &stages {
        println!(
            "    {stage:<38}{ns:>7.0} ns {:>4.0}%  {note}",
            100.0 * ns / total
        );
    }
    if staged <= total {
        println!(
            "    {:<38}{:>7.0} ns {:>4.0}%  (runtime, wake-ups, kernel, the ACP connection's own lines)",
            "other",
            total - staged,
            100.0 * (total - staged) / total
        );
    } else {
        println!(
            "    (stages are timed on the wall clock: a write that wakes a client can be preempted, so they may add up to more than the CPU time)"
        );
    }
    println!(
        "    lines: {} relayed as written, {} through the ACP connection, {} fences, {} waited, {} dropped (stages timed on {})",
        stats.relayed, stats.via_crate, stats.fences, stats.held, stats.dropped, stats.sampled
    );
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--serve-test-agent") => procs::serve_test_agent(),
        Some("--serve-raw-agent") => procs::serve_raw_agent(),
        Some("--master") => procs::serve_master(PathBuf::from(&args[2])),
        _ => return bench(Budgets::new("routing", Mode::from_env())),
    }
    ExitCode::SUCCESS
}

fn bench(mut budgets: Budgets) -> ExitCode {
    let mode = budgets.mode();
    let runs = mode.count("WTA_BENCH_RUNS", 20, 500);
    let chunks = mode.count("WTA_BENCH_CHUNKS", 200, 5_000);
    let rounds = mode.count_usize("WTA_BENCH_ROUNDS", 1, 5).max(1);
    let warm_up = if mode.is_quick() { 2 } else { 20 };
    let tmp = tempfile::tempdir().unwrap();
    println!(
        "machine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );

    // Latency, interleaved so both paths see the same machine state.
    let (agent, mut direct) = direct_agent();
    {
        let (_master, socket) = start_master(tmp.path(), "latency");
        let mut routed = via_master(&socket, "custom:bench");
        for _ in 0..warm_up {
            direct.echo_latency();
            routed.echo_latency();
        }
        let (mut d, mut r) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            d.push(direct.echo_latency());
            r.push(routed.echo_latency());
        }
        let (d, r) = (median_duration(d), median_duration(r));
        let added = r.saturating_sub(d);
        println!("echo prompt -> first session/update, median of {runs}:");
        println!("  direct agent      {:>9.1} us", d.as_secs_f64() * 1e6);
        println!("  through master    {:>9.1} us", r.as_secs_f64() * 1e6);
        let verdict = budgets.check(
            added <= ADDED_BUDGET,
            format_args!("added latency {added:?} > {ADDED_BUDGET:?}"),
        );
        println!(
            "  added by master   {:>9.1} us  (both hops; budget {} us for one update: {verdict})",
            added.as_secs_f64() * 1e6,
            ADDED_BUDGET.as_micros(),
        );
    }

    // Throughput rounds: direct, scripted through the master, minimal through the master.
    let total = chunks * HELPERS as u64;
    let mut scripted = Routed::new(tmp.path(), "scripted", "custom:bench", "--serve-test-agent");
    let mut minimal = Routed::new(tmp.path(), "minimal", "custom:raw", "--serve-raw-agent");
    let (mut d, mut s, mut m) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        d.push(direct_round(&agent, &mut direct, total, round));
        s.push(scripted.round(chunks, round, 's'));
        m.push(minimal.round(chunks, round, 'm'));
        for sample in [&d[round], &s[round], &m[round]] {
            assert_eq!(sample.notes, total, "every update delivered, round {round}");
        }
    }
    let delivered = total * rounds as u64;
    let scripted_stats = scripted.finish(delivered);
    let minimal_stats = minimal.finish(delivered);
    drop(direct);
    drop(agent);

    println!(
        "{HELPERS} helpers x {chunks} updates, {rounds} rounds; every line checked: zero loss, no cross-talk, order kept, no lag"
    );
    println!(
        "  {:<36}{:>10}{:>10}{:>10}{:>10}",
        "(median)", "notes/s", "agent", "master", "clients"
    );
    println!("  {:<36}{:>10}{:>30}", "", "", "CPU ns per notification");
    row("scripted agent, direct (1 client)", &d);
    row("scripted agent through the master", &s);
    row("minimal agent through the master", &m);
    let ratio = median(d.iter().zip(&s).map(|(d, s)| s.rate() / d.rate()).collect());
    let rate = median(m.iter().map(Sample::rate).collect());
    let per_round = |samples: &[Sample]| {
        samples
            .iter()
            .map(|s| format!("{:.0}", s.rate()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!("  per round, notes/s: direct {}", per_round(&d));
    println!("                      scripted {}", per_round(&s));
    println!("                      minimal {}", per_round(&m));
    let verdict = budgets.check(
        ratio >= RATIO_TARGET,
        format_args!("scripted through the master / direct {ratio:.2} < {RATIO_TARGET}"),
    );
    println!(
        "  scripted through the master / direct: {ratio:.2} (target >= {RATIO_TARGET}: {verdict})"
    );
    let verdict = budgets.check(
        rate >= RATE_TARGET,
        format_args!("minimal agent through the master {rate:.0}/s < {RATE_TARGET:.0}/s"),
    );
    println!(
        "  minimal agent through the master: {rate:.0}/s = {:.2}x the target {RATE_TARGET:.0}/s: {verdict}",
        rate / RATE_TARGET,
    );
    println!(
        "where the master's time goes (stages timed on 1 line in {}):",
        wta_master::stats::SAMPLE_EVERY
    );
    breakdown("minimal agent", &minimal_stats, &m);
    breakdown("scripted agent", &scripted_stats, &s);
    budgets.finish()
}
