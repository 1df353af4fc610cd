//! The `untrusted.long_running` part of a turn's context (issue 30): the
//! commands the agent proposed that were still running when their
//! proposal's execution time ran out (it got `timed_out`, still running)
//! and have ended since, each with its exit code and output. Each is given
//! to one turn only (the executor's registry hands them out once). Pure.
//!
//! Output and command are what the terminal printed and the card typed:
//! screen data under `untrusted`, bounded like the rest of it.

use serde::Serialize;
use wta_protocol::ExecutionStatus;

use super::{MAX_BUFFER_CHARS, tail_chars};
use crate::executor::LateResult;

/// One command that ended after its proposal's time limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LongRunResult {
    /// The proposal whose execution line said `timed_out`.
    pub proposal_id: String,
    /// 1-based within its confirmed choice.
    pub action: u64,
    pub pane: String,
    /// The command's first line, as the card typed it.
    pub command: String,
    /// `completed`, `failed` or `unavailable` (its end could not be seen).
    pub status: ExecutionStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The output's tail, at most [`MAX_BUFFER_CHARS`] characters.
    pub output: String,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The context's records of `ended` (oldest first); empty when none ended.
pub fn long_running(ended: &[LateResult]) -> Vec<LongRunResult> {
    ended
        .iter()
        .filter_map(|late| {
            let line = late.execution_line()?;
            let (output, cut) = tail_chars(line.output.as_deref().unwrap_or(""), MAX_BUFFER_CHARS);
            Some(LongRunResult {
                proposal_id: late.key.proposal.to_hex(),
                action: late.key.action,
                pane: late.key.pane.to_string(),
                command: late.key.command.clone(),
                status: line.status,
                exit_code: line.exit_code,
                output,
                truncated: cut || line.truncated == Some(true),
                duration_ms: line.duration_ms,
                reason: line.reason,
            })
        })
        .collect()
}

/// What the turn block says about the records, when there are any.
pub(super) const EXPLAINED: &str = "`untrusted.long_running` lists commands you proposed that were still running \
     when their execution time limit ran out (you got `timed_out`) and have ended since: \
     their exit code and output. Each is reported once.";

#[cfg(test)]
mod tests {
    use wta_protocol::{ExecutionId, PaneId, ProposalId};
    use wta_shell::EndReason;

    use super::*;
    use crate::executor::{ActionOutcome, LongRunKey, RunReport};

    fn late(outcome: ActionOutcome) -> LateResult {
        LateResult {
            key: LongRunKey {
                proposal: ProposalId::from_bytes([5; 16]),
                execution: ExecutionId::from_bytes([6; 16]),
                action: 2,
                pane: PaneId::from_number(7),
                command: "sleep 3".into(),
            },
            outcome,
        }
    }

    fn report(exit: Option<i32>, output: &str) -> RunReport {
        RunReport {
            pane: "%7".into(),
            exit,
            output: output.into(),
            truncated: false,
            duration_ms: Some(3012),
            cwd: None,
            cmdline: Some("sleep 3".into()),
            cmdline_matches: true,
            interactive: false,
            end: Some(EndReason::Mark),
            note: None,
        }
    }

    #[test]
    fn an_ended_run_is_reported_with_its_exit_code_and_output() {
        let records = long_running(&[late(ActionOutcome::Finished(report(Some(3), "boom")))]);
        let json = serde_json::to_value(&records).unwrap();
        assert_eq!(
            json,
            serde_json::json!([{
                "proposal_id": "05".repeat(16),
                "action": 2,
                "pane": "%7",
                "command": "sleep 3",
                "status": "failed",
                "exit_code": 3,
                "output": "boom",
                "truncated": false,
                "duration_ms": 3012,
            }])
        );
    }

    #[test]
    fn long_output_keeps_its_tail_and_an_unseen_end_says_why() {
        let long = "x".repeat(MAX_BUFFER_CHARS) + "END";
        let records = long_running(&[
            late(ActionOutcome::Finished(report(Some(0), &long))),
            late(ActionOutcome::Unavailable {
                reason: "the pane closed".into(),
            }),
        ]);
        assert!(records[0].truncated && records[0].output.ends_with("END"));
        assert_eq!(records[0].output.chars().count(), MAX_BUFFER_CHARS);
        assert_eq!(records[1].status, ExecutionStatus::Unavailable);
        assert_eq!(records[1].reason.as_deref(), Some("the pane closed"));
        assert!(long_running(&[]).is_empty());
    }
}
