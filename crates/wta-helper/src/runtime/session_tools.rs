//! Session MCP tool calls the master forwarded, carried out on tasks of
//! their own: a terminal tool waits (up to its wait) for its card and
//! command, `get_proposal_result` for the rest of a pending one.

use std::time::Duration;

use wta_protocol::session_tools::MAX_WAIT_SECS;

use super::{HeldRequest, Runtime};
use crate::machine::RequestKey;

/// A wait asked for in ms, capped.
fn wait(ms: u64) -> Duration {
    Duration::from_millis(ms).min(Duration::from_secs(MAX_WAIT_SECS))
}

impl Runtime {
    pub(super) fn run_session_tool(&mut self, key: RequestKey) {
        let tools = self.proposals.session_tools().clone();
        match self.requests.remove(&key) {
            Some(HeldRequest::SessionTool(request)) => {
                tokio::spawn(async move {
                    let params = &request.params;
                    let report = tools.run(params.call.clone(), wait(params.wait_ms)).await;
                    if let Err(err) = request.respond(&report) {
                        tracing::debug!("answering a session tool: {err}");
                    }
                });
            }
            Some(HeldRequest::ProposalResult(request)) => {
                tokio::spawn(async move {
                    let params = &request.params;
                    let answered =
                        match tools.result(params.proposal_id, wait(params.wait_ms)).await {
                            Ok(report) => request.respond(&report),
                            Err(unknown) => request.fail(-32602, &unknown.to_string()),
                        };
                    if let Err(err) = answered {
                        tracing::debug!("answering get_proposal_result: {err}");
                    }
                });
            }
            Some(other) => {
                self.requests.insert(key, other);
            }
            None => {}
        }
    }
}
