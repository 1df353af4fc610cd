//! The long-run registry and the tracker reading (pure parts).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use wta_protocol::{ExecutionId, PaneId, ProposalId};
use wta_shell::CappedOutput;
use wta_shell::tracker::{EndReason, Run, RunId, Tracker, TrackerConfig};

use super::*;

fn key(action: u64) -> LongRunKey {
    LongRunKey {
        proposal: ProposalId::from_bytes([1; 16]),
        execution: ExecutionId::from_bytes([action as u8; 16]),
        action,
        pane: PaneId::from_number(3),
        command: "sleep 3".into(),
    }
}

fn run(id: u64, exit: Option<i32>, out: &str) -> Run {
    let mut output = CappedOutput::new(4096, 4096);
    output.push(out.as_bytes());
    Run {
        id: RunId(id),
        aid: None,
        cmdline: Some("sleep 3".into()),
        submitted: Some("sleep 3".into()),
        cmdline_matches: true,
        started_at: 100,
        ended_at: exit.map(|_| 3100),
        exit,
        end_reason: exit.map(|_| EndReason::Mark),
        output,
        alt_screen: false,
        width: 80,
    }
}

fn finished(report: &LateResult) -> &RunReport {
    match &report.outcome {
        ActionOutcome::Finished(r) => r,
        other => panic!("not finished: {other:?}"),
    }
}

#[test]
fn a_running_run_is_running_until_the_tracker_finishes_it() {
    let mut t = Tracker::new(80, TrackerConfig::default());
    t.current = Some(run(4, None, "zz"));
    assert_eq!(look(&t, RunId(4), "%3", 1000), Seen::Running);
    t.current = None;
    t.last = Some(run(4, Some(2), "done\n"));
    let Seen::Ended(report) = look(&t, RunId(4), "%3", 1000) else {
        panic!("not ended");
    };
    assert_eq!((report.exit, report.output.as_str()), (Some(2), "done"));
    assert_eq!(report.duration_ms, Some(3000));
    // One of the earlier runs the tracker keeps is found too.
    t.last = Some(run(5, Some(0), ""));
    t.earlier.push_back(run(4, Some(1), "x"));
    assert!(matches!(look(&t, RunId(4), "%3", 1000), Seen::Ended(r) if r.exit == Some(1)));
    // Neither running nor kept: gone.
    assert_eq!(look(&t, RunId(9), "%3", 1000), Seen::Gone);
    // Another run in progress is not ours.
    t.current = Some(run(6, None, ""));
    assert_eq!(look(&t, RunId(9), "%3", 1000), Seen::Gone);
}

#[test]
fn ended_results_are_given_out_once_and_published() {
    let runs = LongRuns::default();
    let mut news = runs.news();
    let since = Instant::now();
    runs.started(key(1), since);
    assert_eq!(
        news.try_recv().unwrap(),
        LongRunNews::Running(vec![Running { key: key(1), since }])
    );
    assert_eq!(runs.running().len(), 1);
    let mut r = run(4, Some(0), "ok");
    r.ended_at = Some(3100);
    let result = LateResult {
        key: key(1),
        outcome: ActionOutcome::Finished(RunReport::from_run("%3", &r, None, 100)),
    };
    runs.ended(result.clone());
    assert_eq!(news.try_recv().unwrap(), LongRunNews::Running(Vec::new()));
    assert_eq!(
        news.try_recv().unwrap(),
        LongRunNews::Ended(Box::new(result.clone()))
    );
    assert!(runs.running().is_empty());
    let taken = runs.take_ended();
    assert_eq!(taken, std::slice::from_ref(&result));
    assert_eq!(finished(&taken[0]).exit, Some(0));
    assert!(runs.take_ended().is_empty(), "once");
    // The final line replaces the timed-out one: same ids and action.
    let line = result.execution_line().unwrap();
    assert_eq!(
        (line.proposal_id, line.execution_id, line.action),
        (key(1).proposal, key(1).execution, 1)
    );
    assert_eq!(
        (line.status, line.exit_code, line.still_running),
        (wta_protocol::ExecutionStatus::Completed, Some(0), None)
    );
}

#[test]
fn only_the_oldest_run_ticks_and_the_kept_results_are_bounded() {
    let runs = LongRuns::default();
    let mut news = runs.news();
    runs.started(key(1), Instant::now());
    runs.started(key(2), Instant::now());
    while news.try_recv().is_ok() {}
    runs.tick(&key(2));
    assert!(news.try_recv().is_err(), "not the oldest: silent");
    runs.tick(&key(1));
    assert!(matches!(news.try_recv().unwrap(), LongRunNews::Running(l) if l.len() == 2));
    for n in 0..(MAX_KEPT_ENDED as u64 + 3) {
        runs.started(key(n + 10), Instant::now());
        runs.ended(LateResult {
            key: key(n + 10),
            outcome: ActionOutcome::Unavailable { reason: "x".into() },
        });
    }
    let kept = runs.take_ended();
    assert_eq!(kept.len(), MAX_KEPT_ENDED);
    assert_eq!(kept[0].key.action, 13, "the oldest went first");
    assert_eq!(runs.running().len(), 2);
}

#[test]
fn the_command_shown_is_its_first_line() {
    assert_eq!(command_of("cargo build"), "cargo build");
    assert_eq!(command_of("  make\nmake install\n"), "make …");
    assert_eq!(command_of("ls\n"), "ls");
}

#[test]
fn a_replaced_session_gets_no_ends_of_its_predecessors_runs() {
    let runs = LongRuns::default();
    let mut news = runs.news();
    runs.started(key(1), Instant::now());
    runs.started(key(2), Instant::now());
    let end = |n| LateResult {
        key: key(n),
        outcome: ActionOutcome::Unavailable { reason: "x".into() },
    };
    runs.ended(end(1));
    runs.session_replaced();
    assert!(runs.take_ended().is_empty(), "what waited is dropped");
    runs.ended(end(2));
    assert!(runs.take_ended().is_empty(), "a run of the old session");
    // The pane still hears of it.
    let heard: Vec<LongRunNews> = std::iter::from_fn(|| news.try_recv().ok()).collect();
    assert!(heard.contains(&LongRunNews::Ended(Box::new(end(2)))));
    assert!(runs.running().is_empty());
    runs.started(key(3), Instant::now());
    runs.ended(end(3));
    assert_eq!(runs.take_ended(), [end(3)]);
}
