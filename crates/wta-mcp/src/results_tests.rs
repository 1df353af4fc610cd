//! The summary line and the flags of every kind of report and outcome.

use wta_protocol::{ExecutionId, FinalLine, ProposalId};

use super::*;

fn id() -> ProposalId {
    ProposalId::from_bytes([0xab; 16])
}

fn accepted(
    state: ReportState,
    final_line: Option<FinalLine>,
    executions: Vec<ExecutionLine>,
) -> ProposalReport {
    ProposalReport {
        state,
        validation: ValidationLine::accepted(id()),
        final_line,
        executions,
        remaining: None,
        ended: None,
    }
}

fn final_line(status: FinalStatus) -> FinalLine {
    FinalLine {
        status,
        proposal_id: id(),
        choice: (status == FinalStatus::Confirmed).then_some(1),
        reason: None,
    }
}

fn run(status: ExecutionStatus, exit: Option<i32>) -> ExecutionLine {
    let mut line = ExecutionLine::new(status, id(), ExecutionId::from_bytes([1; 16]), 1);
    line.exit_code = exit;
    line.output = Some("hello\n".into());
    line
}

fn text(result: &CallToolResult, i: usize) -> String {
    result.content[i].as_text().unwrap().text.clone()
}

#[test]
fn a_confirmed_run_reports_its_exit_code_and_carries_the_report() {
    let report = accepted(
        ReportState::Done,
        Some(final_line(FinalStatus::Confirmed)),
        vec![run(ExecutionStatus::Completed, Some(0))],
    );
    let result = report_result(&report);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text(&result, 0), "confirmed; exit 0");
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(structured["proposal_id"], id().to_hex());
    assert_eq!(structured["state"], "done");
    assert_eq!(structured["executions"][0]["output"], "hello\n");
    // The second block is the same JSON, for clients that only read text.
    let again: Value = serde_json::from_str(&text(&result, 1)).unwrap();
    assert_eq!(again, structured);
    // Without the extra key, it is exactly the report.
    let mut plain = structured;
    plain.as_object_mut().unwrap().remove("proposal_id");
    assert_eq!(
        serde_json::from_value::<ProposalReport>(plain).unwrap(),
        report
    );
}

#[test]
fn pending_reports_tell_the_agent_to_ask_again() {
    let undecided = report_result(&accepted(ReportState::Pending, None, vec![]));
    assert_eq!(undecided.is_error, Some(false));
    assert_eq!(
        text(&undecided, 0),
        format!(
            "pending: the user has not decided yet; call get_proposal_result with proposal_id {}",
            id()
        )
    );
    let running = report_result(&accepted(
        ReportState::Pending,
        Some(final_line(FinalStatus::Confirmed)),
        vec![],
    ));
    assert!(
        text(&running, 0).starts_with(
            "pending: confirmed; the command is still running; call get_proposal_result"
        )
    );
}

#[test]
fn refusals_are_errors_and_say_whether_to_retry() {
    let result = report_result(&refused(
        ValidationStatus::InvalidSchema,
        "invalid arguments: missing field `command`",
        true,
    ));
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result, 0),
        "refused (invalid_schema): invalid arguments: missing field `command`; fix the arguments and call again"
    );
    assert!(
        result
            .structured_content
            .as_ref()
            .unwrap()
            .get("proposal_id")
            .is_none()
    );
    let unavailable = report_result(&backend_failed(&McpError::SessionGone));
    assert_eq!(unavailable.is_error, Some(true));
    assert_eq!(
        unavailable.structured_content.as_ref().unwrap()["validation"]["retryable"],
        false
    );
    assert_eq!(
        text(&unavailable, 0),
        "refused (unavailable): this agent session has no agent pane any more"
    );
}

#[test]
fn every_final_status_has_a_summary_and_only_unavailable_is_an_error() {
    for status in FinalStatus::ALL {
        let result = report_result(&accepted(
            ReportState::Done,
            Some(final_line(status)),
            vec![],
        ));
        assert_eq!(
            result.is_error,
            Some(status == FinalStatus::Unavailable),
            "{status:?}"
        );
        assert!(!text(&result, 0).is_empty());
    }
}

#[test]
fn every_execution_status_is_described() {
    for status in ExecutionStatus::ALL {
        let mut line = run(status, None);
        line.interrupted = Some(true);
        line.truncated = Some(true);
        let summary = summarise(&accepted(
            ReportState::Done,
            Some(final_line(FinalStatus::Confirmed)),
            vec![line],
        ));
        assert!(summary.starts_with("confirmed; "), "{summary}");
        assert!(
            summary.ends_with("(interrupted) (output truncated)"),
            "{summary}"
        );
    }
    let failed = summarise(&accepted(
        ReportState::Done,
        Some(final_line(FinalStatus::Confirmed)),
        vec![
            run(ExecutionStatus::Failed, Some(2)),
            run(ExecutionStatus::Cancelled, None),
        ],
    ));
    assert_eq!(failed, "confirmed; exit 2; not run");
}

/// At the execution time limit the agent hears that the command goes on
/// and how to get its end; once it ended, the same call gives the exit code.
#[test]
fn a_timed_out_run_says_it_is_still_running_and_how_to_get_its_end() {
    let mut line = run(ExecutionStatus::TimedOut, None);
    line.still_running = Some(true);
    let report = accepted(
        ReportState::Done,
        Some(final_line(FinalStatus::Confirmed)),
        vec![line],
    );
    let result = report_result(&report);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        text(&result, 0),
        format!(
            "confirmed; still running when the execution time limit ran out (not stopped); \
             call get_proposal_result with proposal_id {} for its exit code and output once it ends",
            id().to_hex()
        )
    );
    let ended = accepted(
        ReportState::Done,
        Some(final_line(FinalStatus::Confirmed)),
        vec![run(ExecutionStatus::Failed, Some(1))],
    );
    assert_eq!(text(&report_result(&ended), 0), "confirmed; exit 1");
}

#[test]
fn outcomes_carry_their_json_and_only_unavailable_is_an_error() {
    let answered = outcome_result(&UserInputOutcome::Answered {
        answer: "B".into(),
        selected_index: Some(1),
    });
    assert_eq!(answered.is_error, Some(false));
    assert_eq!(
        answered.structured_content,
        Some(serde_json::json!({"outcome": "answered", "answer": "B", "selected_index": 1}))
    );
    assert_eq!(text(&answered, 0), "answered (choice 2): B");
    let cancelled = outcome_result(&UserInputOutcome::Cancelled);
    assert_eq!(cancelled.is_error, Some(false));
    assert_eq!(
        cancelled.structured_content,
        Some(serde_json::json!({"outcome": "cancelled"}))
    );
    let unavailable = outcome_result(&UserInputOutcome::Unavailable {
        reason: "busy".into(),
    });
    assert_eq!(unavailable.is_error, Some(true));
    assert_eq!(
        unavailable.structured_content,
        Some(serde_json::json!({"outcome": "unavailable", "reason": "busy"}))
    );
}
