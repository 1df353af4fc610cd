//! The recorder's records of a command that outlived its proposal's time
//! limit: written `timed_out` when the card's lines end, written again
//! with the final result when it comes (or once, with it, when it came
//! first), read back as one entry.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use wta_env::history::{Decision, HistoryRecord, Store};
use wta_protocol::{Action, Choice, ExecutionId, ExecutionLine, ExecutionStatus, ProposalId};
use wta_state::ConfirmMode;
use wta_testkit::wait_for_value;

use super::{MAX_FOLLOWED, Recorder};

const T: Duration = Duration::from_secs(10);

fn choice(commands: &[&str]) -> Choice {
    Choice {
        choice: 1,
        title: "Slow".into(),
        rationale: String::new(),
        actions: commands
            .iter()
            .map(|c| Action::Send {
                input: (*c).to_owned(),
            })
            .collect(),
    }
}

fn id(n: u8) -> ProposalId {
    ProposalId::from_bytes([n; 16])
}

fn line(proposal: ProposalId, action: u64, status: ExecutionStatus) -> ExecutionLine {
    let mut l = ExecutionLine::new(status, proposal, ExecutionId::from_bytes([2; 16]), action);
    match status {
        ExecutionStatus::TimedOut => {
            l.still_running = Some(true);
            l.duration_ms = Some(1000);
            l.output = Some(String::new());
        }
        ExecutionStatus::Failed => {
            l.exit_code = Some(1);
            l.duration_ms = Some(3010);
            l.output = Some("long-done".into());
        }
        _ => {}
    }
    l
}

/// The raw records in the file once it holds `n` lines.
fn raw(store: &Store, n: usize) -> Vec<HistoryRecord> {
    wait_for_value(&format!("{n} lines in the history"), T, || {
        let text = std::fs::read_to_string(store.path()).ok()?;
        let records: Vec<HistoryRecord> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (records.len() == n).then_some(records)
    })
    .unwrap()
}

fn setup() -> (tempfile::TempDir, Store, Recorder) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().to_path_buf());
    let recorder = Recorder::new(store.clone(), None, None);
    (dir, store, recorder)
}

#[test]
fn a_run_past_its_limit_is_recorded_again_with_its_final_result() {
    let (_dir, store, recorder) = setup();
    let mut pending = recorder.confirmed(id(1), &choice(&["sleep 3; false"]), ConfirmMode::Run);
    pending.result(&line(id(1), 1, ExecutionStatus::TimedOut));
    pending.finish();
    let first = raw(&store, 1).remove(0);
    assert_eq!(first.actions[0].result.as_deref(), Some("timed_out"));
    assert!(!first.actions[0].ended_after_limit);

    recorder.late_result(&line(id(1), 1, ExecutionStatus::Failed));
    let records = raw(&store, 2);
    assert_eq!(records[1].proposal_id, first.proposal_id);
    let listed = store.read().unwrap().records;
    assert_eq!(listed.len(), 1);
    let entry = &listed[0];
    assert_eq!(
        (entry.time.as_str(), entry.decision),
        (first.time.as_str(), Decision::Confirmed)
    );
    let action = &entry.actions[0];
    assert_eq!(action.result.as_deref(), Some("failed"));
    assert_eq!(action.exit_status, Some(1));
    assert_eq!(action.duration_ms, Some(3010));
    assert_eq!(
        action.output.as_ref().map(|o| o.head.as_str()),
        Some("long-done")
    );
    assert!(action.ended_after_limit);

    // It is no longer followed: another final result writes nothing; the
    // next card's record is the third line.
    recorder.late_result(&line(id(1), 1, ExecutionStatus::Failed));
    let mut other = recorder.confirmed(id(2), &choice(&["true"]), ConfirmMode::Run);
    other.result(&line(id(2), 1, ExecutionStatus::Completed));
    other.finish();
    let records = raw(&store, 3);
    assert_eq!(records[2].proposal_id, id(2).to_string());
}

#[test]
fn a_final_result_heard_before_the_record_is_finished_is_in_the_one_record() {
    let (_dir, store, recorder) = setup();
    let mut pending = recorder.confirmed(
        id(3),
        &choice(&["sleep 3; false", "echo next"]),
        ConfirmMode::Run,
    );
    pending.result(&line(id(3), 1, ExecutionStatus::TimedOut));
    // The follower saw the end before the card's lines did.
    recorder.late_result(&line(id(3), 1, ExecutionStatus::Failed));
    pending.result(&line(id(3), 2, ExecutionStatus::Cancelled));
    pending.finish();
    let mut other = recorder.confirmed(id(4), &choice(&["true"]), ConfirmMode::Run);
    other.result(&line(id(4), 1, ExecutionStatus::Completed));
    other.finish();
    // One line for each card, the first with its final result.
    let records = raw(&store, 2);
    let actions = &records[0].actions;
    assert_eq!(actions[0].result.as_deref(), Some("failed"));
    assert_eq!(actions[0].exit_status, Some(1));
    assert!(actions[0].ended_after_limit);
    assert_eq!(actions[1].result.as_deref(), Some("cancelled"));
    assert!(!actions[1].ended_after_limit);
}

#[test]
fn only_a_timed_out_action_takes_a_final_result_and_each_end_is_recorded() {
    let (_dir, store, recorder) = setup();
    let mut pending = recorder.confirmed(
        id(5),
        &choice(&["echo ok", "sleep 3; false"]),
        ConfirmMode::Run,
    );
    pending.result(&line(id(5), 1, ExecutionStatus::Completed));
    pending.result(&line(id(5), 2, ExecutionStatus::TimedOut));
    pending.finish();
    raw(&store, 1);
    // For the action that completed: not a late end, nothing written.
    recorder.late_result(&line(id(5), 1, ExecutionStatus::Failed));
    recorder.late_result(&line(id(5), 2, ExecutionStatus::Failed));
    let records = raw(&store, 2);
    let actions = &records[1].actions;
    assert_eq!(actions[0].result.as_deref(), Some("completed"));
    assert!(!actions[0].ended_after_limit);
    assert_eq!(actions[1].result.as_deref(), Some("failed"));
    assert!(actions[1].ended_after_limit);
}

#[test]
fn followed_cards_are_bounded_the_oldest_forgotten() {
    let (_dir, store, recorder) = setup();
    let count = u8::try_from(MAX_FOLLOWED + 1).unwrap();
    for n in 1..=count {
        let mut pending = recorder.confirmed(id(n), &choice(&["sleep 9"]), ConfirmMode::Run);
        pending.result(&line(id(n), 1, ExecutionStatus::TimedOut));
        pending.finish();
    }
    raw(&store, usize::from(count));
    // The first was forgotten; the second is still followed.
    recorder.late_result(&line(id(1), 1, ExecutionStatus::Failed));
    recorder.late_result(&line(id(2), 1, ExecutionStatus::Failed));
    let records = raw(&store, usize::from(count) + 1);
    assert_eq!(records.last().unwrap().proposal_id, id(2).to_string());
}
