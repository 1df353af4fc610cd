//! What a tool call answers: a [`ProposalReport`] or a
//! [`UserInputOutcome`] turned into an MCP `CallToolResult`.
//!
//! `structuredContent` is the report's JSON (plus `proposal_id` at the top
//! when the proposal was accepted) or the outcome's JSON. The content is a
//! one-line summary that tells the agent what to do next, followed by the
//! same JSON as text for clients that ignore `structuredContent` (as the
//! MCP spec recommends). `isError` is set for refused proposals, a card
//! that ended `unavailable`, and `unavailable` questions.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use wta_protocol::session_tools::{
    ProposalReport, ReportState, TOOL_PROPOSAL_RESULT, UserInputOutcome,
};
use wta_protocol::{ExecutionLine, ExecutionStatus, FinalStatus, ValidationLine, ValidationStatus};

use crate::error::McpError;

/// The report of a call that never reached a card: its arguments did not
/// parse (`retryable`: fix them and call again) or the backend failed.
pub(crate) fn refused(
    status: ValidationStatus,
    reason: impl Into<String>,
    retryable: bool,
) -> ProposalReport {
    ProposalReport {
        state: ReportState::Refused,
        validation: ValidationLine {
            status,
            proposal_id: None,
            reason: Some(reason.into()),
            retryable: retryable && status.can_retry(),
        },
        final_line: None,
        executions: Vec::new(),
        remaining: None,
        ended: None,
    }
}

/// A backend failure, as an `unavailable` refusal.
pub(crate) fn backend_failed(err: &McpError) -> ProposalReport {
    refused(ValidationStatus::Unavailable, err.to_string(), false)
}

fn serialised(value: &impl serde::Serialize) -> Value {
    // These types serialise infallibly (no maps with non-string keys).
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn result(summary: String, structured: Value, is_error: bool) -> CallToolResult {
    let content = vec![
        ContentBlock::text(summary),
        ContentBlock::text(structured.to_string()),
    ];
    let mut result = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = Some(structured);
    result
}

/// A terminal tool's or `get_proposal_result`'s answer.
pub(crate) fn report_result(report: &ProposalReport) -> CallToolResult {
    let mut structured = serialised(report);
    if let (Some(id), Value::Object(map)) = (report.proposal_id(), &mut structured) {
        map.insert("proposal_id".into(), Value::String(id.to_hex()));
    }
    let is_error = match report.state {
        ReportState::Refused => true,
        ReportState::Pending => false,
        ReportState::Done => report
            .final_line
            .as_ref()
            .is_some_and(|f| f.status == FinalStatus::Unavailable),
    };
    result(summarise(report), structured, is_error)
}

/// `request_user_input`'s answer.
pub(crate) fn outcome_result(outcome: &UserInputOutcome) -> CallToolResult {
    let summary = match outcome {
        UserInputOutcome::Answered {
            answer,
            selected_index: Some(i),
        } => format!("answered (choice {}): {answer}", i + 1),
        UserInputOutcome::Answered { answer, .. } => format!("answered: {answer}"),
        UserInputOutcome::Cancelled => "cancelled: the user dismissed the question".to_owned(),
        UserInputOutcome::Unavailable { reason } => format!("unavailable: {reason}"),
    };
    result(summary, serialised(outcome), outcome.is_error())
}

/// The one line an agent reads first.
pub(crate) fn summarise(report: &ProposalReport) -> String {
    let id = report
        .proposal_id()
        .map(|id| id.to_hex())
        .unwrap_or_default();
    match report.state {
        ReportState::Refused => {
            let reason = report
                .validation
                .reason
                .as_deref()
                .unwrap_or("no reason given");
            let retry = if report.validation.retryable {
                "; fix the arguments and call again"
            } else {
                ""
            };
            format!(
                "refused ({}): {reason}{retry}",
                report.validation.status.as_str()
            )
        }
        ReportState::Pending => {
            let what = match &report.final_line {
                None => "the user has not decided yet",
                Some(_) => "confirmed; the command is still running",
            };
            format!("pending: {what}; call {TOOL_PROPOSAL_RESULT} with proposal_id {id}")
        }
        ReportState::Done => match &report.final_line {
            None => "done".to_owned(),
            Some(line) => match line.status {
                FinalStatus::Confirmed => {
                    let runs: Vec<String> = report.executions.iter().map(describe_run).collect();
                    if runs.is_empty() {
                        "confirmed".to_owned()
                    } else {
                        format!("confirmed; {}", runs.join("; "))
                    }
                }
                FinalStatus::Cancelled => "cancelled by the user; nothing ran".to_owned(),
                FinalStatus::Superseded => "superseded by a newer turn; nothing ran".to_owned(),
                FinalStatus::SessionReplaced => "the session was replaced; nothing ran".to_owned(),
                FinalStatus::TimedOut => "nobody decided in time; nothing ran".to_owned(),
                FinalStatus::Unavailable => {
                    "unavailable: the agent pane went away; nothing ran".to_owned()
                }
            },
        },
    }
}

fn describe_run(run: &ExecutionLine) -> String {
    let mut text = match (run.status, run.exit_code) {
        (ExecutionStatus::Completed | ExecutionStatus::Failed, Some(code)) => {
            format!("exit {code}")
        }
        (ExecutionStatus::Completed, None) => "completed".to_owned(),
        (ExecutionStatus::Failed, None) => "failed".to_owned(),
        // At the proposal's execution time limit: the command goes on, and
        // WTA follows it to its end (get_proposal_result then gives it).
        (ExecutionStatus::TimedOut, _) => format!(
            "still running when the execution time limit ran out (not stopped); \
             call {TOOL_PROPOSAL_RESULT} with proposal_id {} for its exit code and output once it ends",
            run.proposal_id.to_hex()
        ),
        (ExecutionStatus::Cancelled, _) => "not run".to_owned(),
        (ExecutionStatus::Unavailable, _) => "the pane could not be used".to_owned(),
        (ExecutionStatus::Inserted, _) => {
            "typed into the prompt without Enter; nothing ran".to_owned()
        }
        (ExecutionStatus::CompletionUnavailable, _) => {
            "sent; the pane has no shell integration, so no exit code".to_owned()
        }
    };
    if run.interrupted == Some(true) {
        text.push_str(" (interrupted)");
    }
    if run.truncated == Some(true) {
        text.push_str(" (output truncated)");
    }
    text
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
