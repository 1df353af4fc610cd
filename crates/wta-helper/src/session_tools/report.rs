//! A proposal's lines folded into the [`ProposalReport`] a session tool
//! answers with (pure): the validation line first, then the final line,
//! then one execution line per dispatched action; done once the lines end.

use wta_protocol::session_tools::{ProposalReport, ReportState};
use wta_protocol::{ExecutionLine, ResponseLine, ValidationLine, ValidationStatus};

/// Starts the report of a proposal from its validation line.
pub fn started(validation: ValidationLine) -> ProposalReport {
    let state = if validation.status == ValidationStatus::Accepted {
        ReportState::Pending
    } else {
        ReportState::Refused
    };
    ProposalReport {
        state,
        validation,
        final_line: None,
        executions: Vec::new(),
        remaining: None,
        ended: None,
    }
}

/// One more line of the proposal.
pub fn push(report: &mut ProposalReport, line: ResponseLine) {
    match line {
        // Only the first line is a validation line; a second is ignored.
        ResponseLine::Validation(_) => {}
        ResponseLine::Final(final_line) => report.final_line = Some(final_line),
        // A command's final line may have come first (it ended just after
        // its time limit, `late`): its timed-out line is then not kept.
        ResponseLine::Execution(execution)
            if report
                .executions
                .iter()
                .any(|e| e.execution_id == execution.execution_id) => {}
        ResponseLine::Execution(execution) => report.executions.push(execution),
        // The next channel is the turn's own: a session tool needs only
        // to know that it may propose again.
        ResponseLine::Next(next) => report.remaining = Some(next.remaining),
        ResponseLine::End(end) => report.ended = Some(end.reason),
    }
}

/// The final line of a command that was still running when its
/// proposal's time limit ran out: it replaces that command's line.
pub fn late(report: &mut ProposalReport, line: ExecutionLine) {
    match report
        .executions
        .iter_mut()
        .find(|e| e.execution_id == line.execution_id)
    {
        Some(kept) => *kept = line,
        None => report.executions.push(line),
    }
}

/// A command of the report is still running (its line says so): its
/// final line is still to come.
pub fn still_running(report: &ProposalReport) -> bool {
    report
        .executions
        .iter()
        .any(|e| e.still_running == Some(true))
}

/// The report still waits for something: the user, its commands' lines,
/// or a command that outlived the time limit.
pub fn awaited(report: &ProposalReport) -> bool {
    report.state == ReportState::Pending || still_running(report)
}

/// Whether `get_proposal_result` answers now: nothing is awaited.
pub fn final_now(report: &ProposalReport) -> bool {
    !awaited(report)
}

/// The lines ended: nothing more will come.
pub fn ended(report: &mut ProposalReport) {
    if report.state == ReportState::Pending {
        report.state = ReportState::Done;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wta_protocol::{
        ExecutionId, ExecutionLine, ExecutionStatus, FinalLine, FinalStatus, ProposalId,
    };

    use super::*;

    const ID: ProposalId = ProposalId::from_bytes([7; 16]);

    #[test]
    fn a_refusal_is_final_at_once() {
        let r = started(ValidationLine::refused(
            ValidationStatus::Rejected,
            "no",
            false,
        ));
        assert_eq!(r.state, ReportState::Refused);
        assert_eq!(r.proposal_id(), None);
    }

    #[test]
    fn an_accepted_proposal_is_pending_until_its_lines_end() {
        let mut r = started(ValidationLine::accepted(ID));
        assert_eq!((r.state, r.proposal_id()), (ReportState::Pending, Some(ID)));
        push(
            &mut r,
            ResponseLine::Final(FinalLine {
                status: FinalStatus::Confirmed,
                proposal_id: ID,
                choice: Some(1),
                reason: None,
            }),
        );
        assert_eq!(r.state, ReportState::Pending, "the command still runs");
        let mut line = ExecutionLine::new(
            ExecutionStatus::Completed,
            ID,
            ExecutionId::from_bytes([1; 16]),
            1,
        );
        line.exit_code = Some(0);
        push(&mut r, ResponseLine::Execution(line.clone()));
        ended(&mut r);
        assert_eq!(r.state, ReportState::Done);
        assert_eq!(r.executions, [line]);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["final"]["status"], "confirmed");
        assert_eq!(json["state"], "done");
    }

    #[test]
    fn a_late_final_line_replaces_the_timed_out_one_in_either_order() {
        let execution = ExecutionId::from_bytes([1; 16]);
        let mut timed_out = ExecutionLine::new(ExecutionStatus::TimedOut, ID, execution, 1);
        timed_out.still_running = Some(true);
        let mut last = ExecutionLine::new(ExecutionStatus::Failed, ID, execution, 1);
        last.exit_code = Some(3);
        let mut r = started(ValidationLine::accepted(ID));
        push(&mut r, ResponseLine::Execution(timed_out.clone()));
        ended(&mut r);
        assert!(awaited(&r) && !final_now(&r), "the command still runs");
        late(&mut r, last.clone());
        assert_eq!(r.executions, [last.clone()]);
        assert!(final_now(&r));
        // The end came first: the timed-out line that follows is dropped.
        let mut r = started(ValidationLine::accepted(ID));
        late(&mut r, last.clone());
        push(&mut r, ResponseLine::Execution(timed_out));
        ended(&mut r);
        assert_eq!(r.executions, [last]);
        assert!(final_now(&r));
    }
}
