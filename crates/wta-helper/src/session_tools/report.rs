//! A proposal's lines folded into the [`ProposalReport`] a session tool
//! answers with (pure): the validation line first, then the final line,
//! then one execution line per dispatched action; done once the lines end.

use wta_protocol::session_tools::{ProposalReport, ReportState};
use wta_protocol::{ResponseLine, ValidationLine, ValidationStatus};

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
        ResponseLine::Execution(execution) => report.executions.push(execution),
        // The next channel is the turn's own: a session tool needs only
        // to know that it may propose again.
        ResponseLine::Next(next) => report.remaining = Some(next.remaining),
        ResponseLine::End(end) => report.ended = Some(end.reason),
    }
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
}
