//! The session MCP endpoint's tools on the helper side: the master forwards
//! a tool call of this pane's session (`_wta/session_tool`), the call
//! becomes a one-choice proposal with the live turn's origin and goes
//! through the same validation, policy, card and executor as the proposal
//! CLI ([`ProposalService::validate_session`]); the answer is the lines so
//! far ([`report`]) once the proposal is done or the call's wait is over.
//! A proposal still pending is kept, so `_wta/proposal_result` can wait
//! for the rest; so is one whose command outlived the execution time limit
//! (its `timed_out` line is replaced by the final one when the command
//! ends, [`SessionTools::late_result`], and `_wta/proposal_result` waits
//! for that).
//!
//! `request_user_input` is the machine's (a question in the pane, like a
//! permission card); only the proposals live here.

pub mod report;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use wta_protocol::session_tools::{ProposalReport, ReportState, SessionTool};
use wta_protocol::{ExecutionLine, ProposalId, ValidationLine, ValidationStatus};

use crate::proposals::ProposalService;

/// Proposals kept for `get_proposal_result` (the oldest finished goes first).
pub const KEPT_PROPOSALS: usize = 16;

/// The proposals this pane's session tools made, with their reports.
#[derive(Clone)]
pub struct SessionTools {
    service: ProposalService,
    kept: Arc<Mutex<VecDeque<Kept>>>,
}

/// A proposal and its report as it grows.
type Kept = (ProposalId, Arc<watch::Sender<ProposalReport>>);

impl std::fmt::Debug for SessionTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionTools").finish_non_exhaustive()
    }
}

/// Why `_wta/proposal_result` has nothing to say.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no proposal {0} of this session is known here (it is older than the last {KEPT_PROPOSALS}, or from another pane)"
)]
pub struct UnknownProposal(pub ProposalId);

impl SessionTools {
    pub fn new(service: ProposalService) -> Self {
        Self {
            service,
            kept: Arc::default(),
        }
    }

    /// Runs a terminal tool: the report once done, or after `wait`.
    pub async fn run(&self, call: SessionTool, wait: Duration) -> ProposalReport {
        let Some(origin) = self.service.live_origin() else {
            return report::started(ValidationLine::refused(
                ValidationStatus::Stale,
                "no turn is running in this agent pane; propose while answering the user",
                false,
            ));
        };
        let payload = match call.into_proposal(origin).and_then(|p| p.to_json()) {
            Ok(payload) => payload,
            Err(err) => return report::started(ValidationLine::from_error(&err, false)),
        };
        let (line, rest) = match self.service.validate_session(payload, Instant::now()) {
            Ok(validated) => validated,
            Err(err) => {
                return report::started(ValidationLine::refused(
                    ValidationStatus::Unavailable,
                    format!("cannot draw a proposal id: {err}"),
                    false,
                ));
            }
        };
        let (Some(id), Some(mut rest)) = (line.proposal_id, rest) else {
            return report::started(line);
        };
        let (tx, rx) = watch::channel(report::started(line));
        let tx = Arc::new(tx);
        self.keep(id, tx.clone());
        tokio::spawn(async move {
            while let Some(next) = rest.recv().await {
                tx.send_modify(|r| report::push(r, next));
            }
            tx.send_modify(report::ended);
        });
        settled(rx, wait).await
    }

    /// What became of proposal `id`: once done and no command of it is
    /// still running, or after `wait`.
    pub async fn result(
        &self,
        id: ProposalId,
        wait: Duration,
    ) -> Result<ProposalReport, UnknownProposal> {
        let rx = lock(&self.kept)
            .iter()
            .find(|(kept, _)| *kept == id)
            .map(|(_, tx)| tx.subscribe())
            .ok_or(UnknownProposal(id))?;
        Ok(settled_with(rx, wait, report::final_now).await)
    }

    /// The final line of a command that outlived its proposal's time limit:
    /// it takes the place of its `timed_out` line (a proposal no longer kept
    /// is not told).
    pub fn late_result(&self, line: ExecutionLine) {
        let kept = lock(&self.kept);
        if let Some((_, tx)) = kept.iter().find(|(id, _)| *id == line.proposal_id) {
            tx.send_modify(|r| report::late(r, line));
        }
    }

    fn keep(&self, id: ProposalId, tx: Arc<watch::Sender<ProposalReport>>) {
        let mut kept = lock(&self.kept);
        if kept.len() >= KEPT_PROPOSALS {
            let done = kept
                .iter()
                .position(|(_, tx)| !report::awaited(&tx.borrow()));
            kept.remove(done.unwrap_or(0));
        }
        kept.push_back((id, tx));
    }
}

/// The report once it is no longer pending, or as it stands after `wait`.
async fn settled(rx: watch::Receiver<ProposalReport>, wait: Duration) -> ProposalReport {
    settled_with(rx, wait, |r| r.state != ReportState::Pending).await
}

/// The report once `done` says so, or as it stands after `wait`.
async fn settled_with(
    mut rx: watch::Receiver<ProposalReport>,
    wait: Duration,
    done: fn(&ProposalReport) -> bool,
) -> ProposalReport {
    let settled = match tokio::time::timeout(wait, rx.wait_for(done)).await {
        Ok(Ok(report)) => Some(report.clone()),
        _ => None,
    };
    settled.unwrap_or_else(|| rx.borrow().clone())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
