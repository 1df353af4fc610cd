//! The executor's long runs (commands still going after their proposal's
//! time limit, `crate::executor::long_runs`) reach the four that wait for
//! them: the machine (status line and transcript, as `Input::Executor`
//! facts), the session endpoint's reports (`get_proposal_result` then gives
//! the final line instead of the timed-out one), the next turn's context
//! (the proposal glue takes the ended ones once, at the turn's start), and
//! the action history (the card recorded again with its final result).

use wta_host::TmuxHost;

use super::Runtime;
use crate::executor::{Executor, LongRunNews};
use crate::machine::{ExecutorNews, Input};

impl Runtime {
    /// Wires `executor`'s long runs (call once, when it is made).
    pub(super) fn forward_long_runs(&mut self, executor: &Executor<TmuxHost>) {
        let runs = executor.long_runs().clone();
        let mut news = runs.news();
        self.proposals.set_long_runs(runs);
        let tools = self.proposals.session_tools().clone();
        let history = self.history.clone();
        let tx = self.inputs_tx.clone();
        tokio::spawn(async move {
            while let Some(news) = news.recv().await {
                let input = match news {
                    LongRunNews::Running(list) => ExecutorNews::LongRunning(list),
                    LongRunNews::Ended(late) => {
                        if let Some(line) = late.execution_line() {
                            if let Some(history) = &history {
                                history.late_result(&line);
                            }
                            tools.late_result(line);
                        }
                        ExecutorNews::LongRunEnded(late)
                    }
                };
                if tx.send(Input::Executor(input)).is_err() {
                    return;
                }
            }
        });
    }
}
