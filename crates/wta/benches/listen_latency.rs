//! Command end → `wta listen` event latency (issue 3; target ≤ 20 ms median).
//!
//! A real bash with WTA shell integration runs in a gated pane on a private tmux
//! server, followed by `wta listen --json`. Each command is
//! `echo $EPOCHREALTIME >> <file>`: a builtin, so the time it writes is taken
//! just before the shell emits its `D` mark. The latency of one command is the
//! wall-clock time at which its `finished` line was read from `wta listen`
//! minus that time (so bash's own prompt hook is included: an upper bound).
//!
//! Every command must give one `finished` event with exit code 0.
//!
//! Run: `cargo bench -p wta --bench listen_latency` (WTA_BENCH_RUNS, default
//! 100; a median over the target fails it). `cargo test -p wta --bench
//! listen_latency` is the quick run (3 commands, target not enforced).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::process::{ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use support::integrated_bash_window;
use wta_testkit::bench::{Budgets, Mode};
use wta_testkit::{TmuxServer, wait_until};

const WTA: &str = env!("CARGO_BIN_EXE_wta");
const TARGET_MS: f64 = 20.0;
const T: Duration = Duration::from_secs(15);

fn now_us() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1e6
}

fn main() -> ExitCode {
    let mut budgets = Budgets::new("listen_latency", Mode::from_env());
    let runs = budgets.mode().count_usize("WTA_BENCH_RUNS", 3, 100);
    let warm_up = if budgets.mode().is_quick() { 1 } else { 5 };
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let gate = "wta-bench-gate";
    let pane = integrated_bash_window(&server, dir.path(), gate);
    let socket = server.socket().to_string_lossy().into_owned();

    let mut listen = server
        .sandbox()
        .command(WTA)
        .args(["-S", &socket, "listen", "-t", &pane, "--json"])
        .env("XDG_RUNTIME_DIR", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = listen.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<(f64, serde_json::Value)>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let at = now_us();
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send((at, v));
            }
        }
    });
    wait_until("listen attached", T, || {
        server.display(&pane, "#{pane_pipe}") == "1"
    })
    .unwrap();
    server.tmux(&["wait-for", "-S", gate]);
    server.wait_for_text(&pane, "$", T);

    let times = dir.path().join("ends.txt");
    let line = format!("echo $EPOCHREALTIME >> {}", times.to_string_lossy());
    let mut latencies = Vec::with_capacity(runs);
    for i in 0..runs + warm_up {
        server.type_line(&pane, &line);
        let at = loop {
            let (at, v) = rx.recv_timeout(T).expect("a finished event");
            if v["event"] == "finished" {
                assert_eq!(v["exit_code"], 0, "{v}");
                break at;
            }
        };
        let ends = std::fs::read_to_string(&times).unwrap();
        let end: f64 = ends.lines().last().unwrap().trim().parse::<f64>().unwrap() * 1e6;
        if i >= warm_up {
            // The first few warm up the shell and the watcher.
            latencies.push((at - end) / 1e3);
        }
    }
    assert_eq!(latencies.len(), runs, "one finished event per command");
    latencies.sort_by(f64::total_cmp);
    let median = latencies[latencies.len() / 2];
    let p90 = latencies[latencies.len() * 9 / 10];
    let verdict = budgets.check(
        median <= TARGET_MS,
        format_args!("median {median:.2} ms > {TARGET_MS} ms"),
    );
    println!("command end (D mark) -> `wta listen` finished event, {runs} commands:");
    println!(
        "  median {median:.2} ms, p90 {p90:.2} ms, min {:.2} ms, max {:.2} ms (target <= {TARGET_MS} ms median: {verdict})",
        latencies[0],
        latencies[latencies.len() - 1],
    );
    let _ = listen.kill();
    let _ = listen.wait();
    budgets.finish()
}
