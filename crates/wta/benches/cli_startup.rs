//! `wta list-panes --json` against `tmux list-panes -a -F <the same fields>` on
//! the same private server, interleaved in one run; prints medians and their ratio.
//! Budget (DESIGN §7): wta within 2.0× of tmux's own time.
//!
//! Run: `cargo bench -p wta --bench cli_startup` (WTA_BENCH_RUNS to change the count).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wta_testkit::TmuxServer;

fn time(cmd: &mut Command) -> Duration {
    let start = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(status.success(), "{cmd:?} failed");
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("WTA_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let server = TmuxServer::start();
    for _ in 0..5 {
        server.tmux(&["split-window", "-d", "bash --norc"]);
        server.tmux(&["select-layout", "tiled"]);
    }
    // The same fields wta asks for, so both sides do the same work in the server.
    let format = wta_host::tmux::format::pane_format();
    let mut wta = Vec::with_capacity(runs);
    let mut tmux = Vec::with_capacity(runs);
    for _ in 0..runs {
        tmux.push(time(Command::new("tmux").args([
            "-L",
            server.name(),
            "list-panes",
            "-a",
            "-F",
            &format,
        ])));
        wta.push(time(
            Command::new(env!("CARGO_BIN_EXE_wta"))
                .args(["-L", server.name(), "list-panes", "-a", "--json"])
                .env_remove("TMUX"),
        ));
    }
    let (w, t) = (median(wta), median(tmux));
    let ratio = w.as_secs_f64() / t.as_secs_f64();
    println!(
        "cli_startup: runs={runs} wta list-panes --json median={w:?} tmux list-panes median={t:?} ratio={ratio:.2}x (budget 2.00x) {}",
        if ratio <= 2.0 { "OK" } else { "OVER BUDGET" }
    );
}
