//! Idle CPU and memory of an open agent pane (DESIGN §7, issue 5): a real
//! master and helper in a private tmux server with an attached client (so
//! the pane is visible and its status line keeps refreshing), one finished
//! turn in the transcript, then 10 s of idling. CPU = utime+stime from /proc
//! before and after; memory = VmRSS after. Budgets: helper < 1 % CPU,
//! helper RSS ≤ 12 MiB (DESIGN §7; the first budget was 20 MiB, then 15),
//! master RSS ≤ 30 MiB. Exits non-zero over budget.
//!
//! Run: `cargo bench -p wta --bench pane_idle_cpu` (WTA_BENCH_IDLE_SECS to
//! change 10 s). `cargo test -p wta --bench pane_idle_cpu` is the quick run
//! (1 s of a debug build, budgets not enforced): the turn, the attached
//! client, the CPU counters and both resident sizes are still checked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/pane_tui_common/mod.rs"]
mod pane_tui_common;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use pane_tui_common::{Pane, T, cpu_ticks};
use wta_testkit::bench::{Budgets, Mode};
use wta_testkit::procs::rss_kib;
use wta_testkit::{TmuxServer, wait_until};

const BUDGET_PERCENT: f64 = 1.0;
const HELPER_RSS_MIB: f64 = 12.0;
const MASTER_RSS_MIB: f64 = 30.0;

/// Resident set size of `pid` in MiB; the process must still run.
fn rss_mib(pid: i32) -> f64 {
    let kib = rss_kib(pid as u32).unwrap_or_else(|| panic!("no VmRSS for {pid}: it exited"));
    assert!(kib > 0, "VmRSS of {pid} read as 0");
    kib as f64 / 1024.0
}

fn percent(ticks_before: u64, ticks_after: u64, wall: Duration) -> f64 {
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .unwrap_or(100) as f64;
    (ticks_after - ticks_before) as f64 / hz / wall.as_secs_f64() * 100.0
}

fn main() -> ExitCode {
    let mut budgets = Budgets::new("pane_idle_cpu", Mode::from_env());
    let secs = budgets.mode().count("WTA_BENCH_IDLE_SECS", 1, 10);
    let pane = Pane::open("custom:test");
    // A client attached through a second private server makes the pane visible.
    let _client = TmuxServer::start_with(&format!(
        "env -u TMUX tmux -L {} -f /dev/null attach -t main",
        pane.tmux.name()
    ));
    pane.wait_ready();
    pane.submit("echo **idle** bench `reply`");
    pane.wait_for("idle bench");
    wait_until("an attached client", T, || {
        pane.tmux.display(&pane.pane, "#{session_attached}") != "0"
    })
    .unwrap();
    let attached = pane.tmux.display(&pane.pane, "#{session_attached}");
    let helper = pane.helper_pid();
    let master = pane.master.pid();

    let (h0, m0) = (cpu_ticks(helper).unwrap(), cpu_ticks(master).unwrap());
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs(secs));
    let wall = start.elapsed();
    let (h1, m1) = (cpu_ticks(helper).unwrap(), cpu_ticks(master).unwrap());

    let helper_pct = percent(h0, h1, wall);
    let master_pct = percent(m0, m1, wall);
    let verdict = budgets.check(
        helper_pct < BUDGET_PERCENT,
        format_args!("helper CPU {helper_pct:.2}% >= {BUDGET_PERCENT}%"),
    );
    println!(
        "pane_idle_cpu: helper {helper_pct:.2}% ({} ticks), master {master_pct:.2}% ({} ticks) over {:.1}s idle; clients attached: {attached}; budget < {BUDGET_PERCENT}% (helper): {verdict}",
        h1 - h0,
        m1 - m0,
        wall.as_secs_f64()
    );
    let (helper_rss, master_rss) = (rss_mib(helper), rss_mib(master));
    let helper_verdict = budgets.check(
        helper_rss <= HELPER_RSS_MIB,
        format_args!("helper RSS {helper_rss:.1} MiB > {HELPER_RSS_MIB} MiB"),
    );
    let master_verdict = budgets.check(
        master_rss <= MASTER_RSS_MIB,
        format_args!("master RSS {master_rss:.1} MiB > {MASTER_RSS_MIB} MiB"),
    );
    println!(
        "pane_idle_rss: helper {helper_rss:.1} MiB ({:.2}x of {HELPER_RSS_MIB} MiB): {helper_verdict}, master {master_rss:.1} MiB ({:.2}x of {MASTER_RSS_MIB} MiB): {master_verdict}",
        helper_rss / HELPER_RSS_MIB,
        master_rss / MASTER_RSS_MIB
    );
    assert!(
        pane.screen().contains("Ready"),
        "the pane stayed up:\n{}",
        pane.screen()
    );
    budgets.finish()
}
