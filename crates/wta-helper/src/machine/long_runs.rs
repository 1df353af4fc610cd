//! What the machine makes of the executor's long runs (issue 30): the list
//! of commands still running becomes the status line's, and an ended one a
//! line in the transcript with its result (exit code, duration, the last
//! lines of output), in the user's language. Pure.

use wta_i18n::tr;
use wta_state::RunningCommand;

use crate::executor::outcome::{LateResult, Running};

/// The app's list: command, pane and start of each run.
pub(super) fn shown(runs: Vec<Running>) -> Vec<RunningCommand> {
    runs.into_iter()
        .map(|r| RunningCommand {
            command: r.key.command,
            pane: r.key.pane.to_string(),
            since: r.since,
        })
        .collect()
}

/// The transcript's line for a run that ended after its time limit.
pub(super) fn ended_notice(late: &LateResult) -> String {
    tr!(
        "following.long_run_ended",
        command = late.key.command,
        result = late.outcome.display(late.key.action)
    )
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use wta_protocol::{ExecutionId, PaneId, ProposalId};

    use super::*;
    use crate::executor::outcome::{ActionOutcome, LongRunKey};

    fn key() -> LongRunKey {
        LongRunKey {
            proposal: ProposalId::from_bytes([1; 16]),
            execution: ExecutionId::from_bytes([2; 16]),
            action: 1,
            pane: PaneId::from_number(4),
            command: "cargo build".into(),
        }
    }

    #[test]
    fn runs_become_the_status_lines_list_and_an_end_a_line() {
        let since = Instant::now();
        let list = shown(vec![Running { key: key(), since }]);
        assert_eq!(
            list,
            [RunningCommand {
                command: "cargo build".into(),
                pane: "%4".into(),
                since
            }]
        );
        let late = LateResult {
            key: key(),
            outcome: ActionOutcome::Unavailable {
                reason: "gone".into(),
            },
        };
        let text = ended_notice(&late);
        assert!(text.contains("cargo build"), "{text}");
        assert!(text.contains("gone"), "{text}");
    }
}
