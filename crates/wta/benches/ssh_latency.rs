//! Benchmark (issue 29): command end (the shell's `D` mark) → the execution
//! line printed by the real `wta propose-terminal-actions` process, for a
//! remote bash over `wta ssh` to a real sshd on loopback, against the same
//! measurement for a local bash in the same run (`latency_common`, the
//! measurement `execution_latency` makes). Budget: the over-ssh median at
//! most 5 ms above the local one.
//!
//! Both panes are followed by one executor on one private tmux server; the
//! runs alternate (local, remote) so both see the same machine. The remote
//! command stamps its end with the remote bash's `$EPOCHREALTIME`: on
//! loopback that is this machine's clock.
//!
//! It prints both figures, their ratio and the remote run's split, as
//! medians:
//! - ssh transport: what the hop adds between `D` printed and the sink
//!   reading it (the remote pipe-pane stage minus the local one: sshd, the
//!   network, ssh, `wta ssh`'s proxy);
//! - tracker: → the watcher stepped the tracker to the run's end;
//! - executor: → the executor reported the action's result;
//!
//! and both runs' whole stage lists.
//!
//! Full run (100 commands each, the budget fails the bench when over):
//! `cargo bench -p wta --bench ssh_latency`. Quick run (5 each, budget not
//! enforced; `scripts/test` runs it): `cargo test -p wta --bench ssh_latency`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod latency_common;
#[path = "../tests/ssh_common/mod.rs"]
mod ssh_common;

use std::process::ExitCode;

use latency_common::{Rig, Samples, Stages, T, median_of};
use ssh_common::{HOST, Sshd};
use wta_testkit::bench::Budgets;
use wta_testkit::wait_until;

/// How much slower than the local shell the remote one may be (median, ms).
const BUDGET_MS: f64 = 5.0;

fn main() -> ExitCode {
    latency_common::main("ssh_latency", bench)
}

/// Whether `pane`'s followed shell is the remote one (`wta ssh`'s host),
/// as the watcher names it.
fn followed_remotely(server: &wta_testkit::TmuxServer, pane: &str) -> bool {
    server
        .try_tmux(&["show-options", "-p", "-v", "-t", pane, "@wta_remote_shell"])
        .is_some_and(|v| v.contains("\"host\":\"lab\""))
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Appends `more`'s samples to `all`'s.
fn extend(all: &mut Samples, more: Samples) {
    all.latencies.extend(more.latencies);
    for (stage, values) in all.stages.iter_mut().zip(more.stages) {
        stage.extend(values);
    }
}

async fn bench(stages: Stages, mut budgets: Budgets) -> ExitCode {
    let runs = budgets.mode().count_usize("WTA_BENCH_RUNS", 5, 100);
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::start(dir.path());
    let local = rig.integrated_bash().await;
    let remote = rig.integrated_bash().await;

    // `wta ssh` to a remote bash, typed in the second pane's local shell.
    let sshd = Sshd::start("/bin/bash");
    let line = format!(
        "{} ssh -F {} {HOST}",
        quote(env!("CARGO_BIN_EXE_wta")),
        quote(&sshd.client_config().to_string_lossy())
    );
    rig.server.type_line(remote.as_str(), &line);
    wait_until("the watcher follows the remote shell", T, || {
        followed_remotely(&rig.server, remote.as_str())
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}; pane:\n{}\nsshd log:\n{}",
            rig.server.capture(remote.as_str()),
            sshd.log()
        )
    });
    rig.wait_idle(&remote);

    // One of each first (a cold shell, watcher and ssh), then alternating.
    rig.measure(&local, 1, &stages).await;
    rig.measure(&remote, 1, &stages).await;
    let (mut here, mut there) = (Samples::default(), Samples::default());
    for _ in 0..runs {
        extend(&mut here, rig.measure(&local, 1, &stages).await);
        extend(&mut there, rig.measure(&remote, 1, &stages).await);
    }
    assert_eq!(
        (here.latencies.len(), there.latencies.len()),
        (runs, runs),
        "one execution line per command in each shell"
    );
    // Every remote run really went through the hop: still followed there.
    assert!(
        followed_remotely(&rig.server, remote.as_str()),
        "the remote shell is still the one followed"
    );

    let local_median = median_of(&mut here.latencies);
    let remote_median = median_of(&mut there.latencies);
    let over = remote_median - local_median;
    let verdict = budgets.check(
        over <= BUDGET_MS,
        format_args!("over ssh {over:.2} ms above local > {BUDGET_MS} ms"),
    );
    println!(
        "ssh_latency: D mark -> execution line, median over {runs} runs each: local {local_median:.2} ms, \
         over wta ssh {remote_median:.2} ms ({:.2}x local), {over:.2} ms above local \
         (budget <= {BUDGET_MS} ms): {verdict}",
        remote_median / local_median.max(f64::EPSILON),
    );
    let transport = median_of(&mut there.stages[0]) - median_of(&mut here.stages[0]);
    println!(
        "ssh_latency: over wta ssh, the split (medians): ssh transport {transport:.2} ms, \
         tracker {:.2} ms, executor {:.2} ms",
        median_of(&mut there.stages[1]),
        median_of(&mut there.stages[2]),
    );
    println!(
        "ssh_latency: every stage, local: {}",
        here.stage_medians().join(", ")
    );
    println!(
        "ssh_latency: every stage, over wta ssh: {}",
        there.stage_medians().join(", ")
    );
    rig.server.type_line(remote.as_str(), "exit");
    rig.shutdown().await;
    drop(sshd);
    budgets.finish()
}
