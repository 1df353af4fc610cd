//! `wta list-panes --json` against `tmux list-panes -a -F <the same fields>` on
//! the same private server, interleaved in one run; prints medians and their
//! ratio. Budget (docs/DESIGN.md §7): wta within 1.5× of tmux's own time.
//!
//! It also prints where wta's time goes: its own start-up (`wta --version`:
//! exec, loader, argument parsing), the rest (the command over the server's
//! socket, parsing, JSON), and what running the `tmux` binary for the
//! command instead (`WTA_TMUX_CLIENT=binary`) would cost.
//!
//! Before timing, wta's JSON is checked against tmux: the same six panes.
//!
//! Run: `cargo bench -p wta --bench cli_startup` (WTA_BENCH_RUNS to change
//! the count; a ratio over budget fails it). `cargo test -p wta --bench
//! cli_startup` is the quick run (5 rounds, budget not enforced).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use wta_testkit::TmuxServer;
use wta_testkit::bench::{Budgets, Mode};

const BUDGET: f64 = 1.5;

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

/// wta's `list-panes -a --json` names the panes tmux lists.
fn check_listing(server: &TmuxServer, wta_bin: &str) {
    let out = server
        .sandbox()
        .command(wta_bin)
        .args(["-L", server.name(), "list-panes", "-a", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "wta list-panes: {out:?}");
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut ids: Vec<String> = listed["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pane| pane["pane"].as_str().unwrap().to_owned())
        .collect();
    let mut expected: Vec<String> = server
        .tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
        .lines()
        .map(str::to_owned)
        .collect();
    ids.sort();
    expected.sort();
    assert_eq!(expected.len(), 6);
    assert_eq!(ids, expected, "wta lists the panes tmux lists");
}

fn main() -> ExitCode {
    let mut budgets = Budgets::new("cli_startup", Mode::from_env());
    let runs = budgets.mode().count_usize("WTA_BENCH_RUNS", 5, 200);
    let server = TmuxServer::start();
    for _ in 0..5 {
        server.tmux(&["split-window", "-d", "bash --norc"]);
        server.tmux(&["select-layout", "tiled"]);
    }
    // The same fields wta asks for, so both sides do the same work in the server.
    let format = wta_host::tmux::format::pane_format();
    let wta_bin = env!("CARGO_BIN_EXE_wta");
    check_listing(&server, wta_bin);
    let mut wta = Vec::with_capacity(runs);
    let mut tmux = Vec::with_capacity(runs);
    let mut startup = Vec::with_capacity(runs);
    let mut via_binary = Vec::with_capacity(runs);
    for _ in 0..runs {
        tmux.push(time(server.sandbox().command("tmux").args([
            "-L",
            server.name(),
            "list-panes",
            "-a",
            "-F",
            &format,
        ])));
        wta.push(time(server.sandbox().command(wta_bin).args([
            "-L",
            server.name(),
            "list-panes",
            "-a",
            "--json",
        ])));
        startup.push(time(server.sandbox().command(wta_bin).arg("--version")));
        via_binary.push(time(
            server
                .sandbox()
                .command(wta_bin)
                .args(["-L", server.name(), "list-panes", "-a", "--json"])
                .env("WTA_TMUX_CLIENT", "binary"),
        ));
    }
    let (w, t) = (median(wta), median(tmux));
    let (start, binary) = (median(startup), median(via_binary));
    let ratio = w.as_secs_f64() / t.as_secs_f64();
    let verdict = budgets.check(
        ratio <= BUDGET,
        format_args!("wta / tmux {ratio:.2}x > {BUDGET:.2}x"),
    );
    println!(
        "cli_startup: runs={runs} wta list-panes --json median={w:?} tmux list-panes median={t:?} ratio={ratio:.2}x (budget {BUDGET:.2}x) {verdict}"
    );
    println!(
        "cli_startup: where wta's time goes (medians): start-up (wta --version) {start:?}, \
         the command over tmux's socket + parsing + JSON {:?}; running the tmux binary for \
         it instead costs {binary:?} in all ({:.2}x tmux)",
        w.saturating_sub(start),
        binary.as_secs_f64() / t.as_secs_f64()
    );
    budgets.finish()
}
