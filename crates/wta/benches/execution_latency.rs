//! Benchmark (DESIGN §7): command end (the shell's `D` mark) → the execution
//! line printed by the real `wta propose-terminal-actions` process, median
//! over 100 confirmed commands on a private tmux server with integrated
//! bash. Budget: ≤ 5 ms (tmux's own pipe-pane delivery is about 0.5 ms).
//!
//! It also prints where the time goes, as medians of each stage:
//! - pipe-pane: `D` printed → the sink (this bench re-run) read it;
//! - tracker: → the watcher stepped the tracker to the run's end;
//! - executor: → the executor reported the action's result;
//! - socket: → the proposal server wrote the execution line;
//! - CLI: → the CLI printed it (read here from its stdout).
//!
//! The tracker and socket stages are `wta::latency` trace events of the
//! watcher and the proposal server, recorded by this bench's subscriber.
//!
//! Each run is the whole path: a fresh turn's channel, the CLI process
//! sending the proposal to a live proposal socket, the card accepted and
//! confirmed through `ProposalService`, the executor submitting to the pane
//! and following the run (pipe-pane → sink → watcher → tracker → follower →
//! render → line), the line through the socket to the CLI, and the CLI
//! printing it to its stdout, read here.
//!
//! The start time is taken inside the shell by the confirmed command's last
//! statement (`echo $EPOCHREALTIME > file`, no fork), just before the
//! integration's precmd prints `D`: the measure errs long, never short. The
//! end time is taken when this process reads the execution line from the
//! CLI's stdout.
//!
//! Every run checks the CLI's whole answer, parsed as the protocol's lines:
//! validation `accepted` for this card, final `confirmed` (choice 1), the
//! execution line `completed` (exit 0, the command's output), then `next`
//! or `end`, and the CLI's exit 0.
//!
//! The measurement is `latency_common`'s (shared with `ssh_latency`).
//! The CLI is this package's `wta` binary, which cargo builds with the
//! bench in the same profile. Full run (100 commands, the budget fails the
//! bench when over): `cargo bench -p wta --bench execution_latency`.
//! Quick run (5 commands, budget not enforced; `scripts/test` runs it):
//! `cargo test -p wta --bench execution_latency`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod latency_common;

use std::process::ExitCode;

use latency_common::{Rig, Stages};
use wta_testkit::bench::Budgets;

const BUDGET_MS: f64 = 5.0;

fn main() -> ExitCode {
    latency_common::main("execution_latency", bench)
}

async fn bench(stages: Stages, mut budgets: Budgets) -> ExitCode {
    let runs = budgets.mode().count_usize("WTA_BENCH_RUNS", 5, 100);
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::start(dir.path());
    let target = rig.integrated_bash().await;
    let mut samples = rig.measure(&target, runs, &stages).await;
    let latencies = &mut samples.latencies;
    latencies.sort_by(f64::total_cmp);
    let median = latencies[runs / 2];
    let p90 = latencies[runs * 9 / 10];
    let verdict = budgets.check(
        median <= BUDGET_MS,
        format_args!("median {median:.2} ms > {BUDGET_MS} ms"),
    );
    println!(
        "execution_latency: D mark -> execution line printed by `wta propose-terminal-actions`: \
         median {median:.2} ms ({:.2}x the {BUDGET_MS} ms budget), p90 {p90:.2} ms, \
         min {:.2} ms, max {:.2} ms over {runs} runs: {verdict}",
        median / BUDGET_MS,
        latencies[0],
        latencies[runs - 1],
    );
    println!(
        "execution_latency: where the time goes (medians): {} (pipe-pane includes the shell \
         printing D after the command's last statement)",
        samples.stage_medians().join(", ")
    );
    rig.shutdown().await;
    budgets.finish()
}
