//! The card side of terminal-action proposals in the runtime, in one place:
//! the engine's events go to the machine as they are (`Input::Proposal`),
//! card decisions go to the engine (`confirm` claims atomically; nothing
//! runs unless it succeeds), and claimed choices run on the [`Executor`],
//! whose results go back to the CLI as execution lines and to the machine
//! as `Input::Executor` (the machine says them; nothing here is worded).
//!
//! New tabs and panels run `$SHELL` (else `/bin/sh`) with WTA's shell
//! integration loaded (`wta_shell::launch`, rc files under the runtime dir),
//! so `open_and_send` sees the new shell's first prompt behind its gate.
//! Timeouts and output bounds come from `[execution]` in the config file.
//!
//! When the helper exits, [`Runtime::shutdown`] aborts the executor's tasks
//! in flight (a followed run holds the watchers) and stops every watcher;
//! once the async runtime is gone, [`Runtime::release_leftover_pipes`]
//! turns off the pipes of panes an aborted action was still working on.
//! Watcher sockets live in a directory of this helper's own
//! ([`Runtime::watch_dir`]), so its pipes are told apart from other helpers'.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::task::JoinHandle;
use wta_host::{TerminalHost, TmuxHost};
use wta_protocol::PaneId;
use wta_shell::{PIPE_OWNER_OPTION, TrackerConfig, WatchOptions};

use super::Runtime;
use crate::config_file::ConfigRead;
use crate::executor::{
    DelegateLaunch, DelegateSource, ExecutionSettings, Executor, ExecutorConfig, Launch,
};
use crate::machine::{ExecutorNews, Input};
use crate::proposals::runtime_dir;
use wta_protocol::ProposalId;
use wta_state::ConfirmMode;

/// The runtime's card-side state: the executor, once the host is known,
/// the task that starts following the target and the executions.
#[derive(Default)]
pub(crate) struct Cards {
    executor: Option<Arc<Executor<TmuxHost>>>,
    watch: Option<JoinHandle<()>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Cards {
    /// The executor, once the host is known.
    pub(super) fn executor(&self) -> Option<Arc<Executor<TmuxHost>>> {
        self.executor.clone()
    }

    /// Keeps `task` so shutdown can end it; forgets the finished ones.
    fn keep(&mut self, task: JoinHandle<()>) {
        self.tasks.retain(|t| !t.is_finished());
        self.tasks.push(task);
    }

    /// Ends the executor's tasks, then stops every pane watcher it started.
    /// The first watch is awaited, not aborted: stopped halfway through
    /// attaching, its pipe would stay armed with nobody to turn it off.
    pub(super) async fn shutdown(&mut self) {
        if let Some(watch) = self.watch.take() {
            let _ = watch.await;
        }
        for task in self.tasks.drain(..) {
            task.abort();
            // Returns once the task is dropped, with any watchers lock it held
            // (a followed run holds it until the run ends). The watcher of a
            // pane an `open_and_send` opened is not in the executor's map
            // until that action ends: its pipe is left to
            // `release_leftover_pipes`.
            let _ = task.await;
        }
        if let Some(executor) = self.executor.take() {
            executor.shutdown().await;
        }
    }
}

impl std::fmt::Debug for Cards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cards")
            .field("executor", &self.executor.is_some())
            .field("watch", &self.watch.is_some())
            .field("tasks", &self.tasks.len())
            .finish()
    }
}

/// The executor for `host`, and (for the log) the problems of the config
/// file's `[execution]` table (those keys are at their defaults).
fn executor_for(
    host: &TmuxHost,
    delegate: Option<&wta_agent::Delegate>,
    user_config: Option<&ConfigRead>,
) -> Option<(Executor<TmuxHost>, Option<String>)> {
    let exe = std::env::current_exe().ok()?;
    let watch = WatchOptions {
        sink_argv: vec![exe.to_string_lossy().into_owned(), "pipe-sink".into()],
        runtime_dir: Runtime::watch_dir(),
        config: TrackerConfig::default(),
    };
    let shell = wta_shell::user_shell();
    let launch = wta_shell::integrated(
        &shell,
        wta_shell::ScriptSource::Embedded,
        &runtime_dir().join("shell"),
    )
    .map(|l| Launch {
        argv: l.argv,
        env: l.env,
    })
    .unwrap_or_else(|err| {
        tracing::warn!("new panes get a plain shell: {err}");
        Launch {
            argv: vec![shell],
            env: Vec::new(),
        }
    });
    let (settings, warning) = match user_config {
        Some(read) => read.settings::<ExecutionSettings>(),
        None => (
            ExecutionSettings::default(),
            Some("the config file's place is unknown".into()),
        ),
    };
    let mut config = ExecutorConfig::new(watch, launch).with_settings(settings);
    // The delegate is read again at each launch, on purpose (an edit applies
    // at once); without a usable config path, the one known at start.
    config.delegate = match user_config {
        Some(read) => DelegateSource::Config(read.paths.clone()),
        None => delegate.map_or(DelegateSource::None, |d| {
            DelegateSource::Fixed(DelegateLaunch {
                agent: d.name.clone(),
                launch: Launch {
                    argv: d.argv.clone(),
                    env: Vec::new(),
                },
                end_of_options: d.end_of_options.clone(),
            })
        }),
    };
    Some((Executor::new(Arc::new(host.clone()), config), warning))
}

/// The panes whose pipe owner (`@wta_pipe`) is a socket in `dir`.
fn ours<'a>(
    owners: &'a [(PaneId, String)],
    dir: &'a Path,
) -> impl Iterator<Item = &'a PaneId> + 'a {
    owners.iter().filter_map(move |(pane, owner)| {
        (!owner.is_empty() && Path::new(owner).starts_with(dir)).then_some(pane)
    })
}

impl Runtime {
    /// Attaches the card UI to the engine and starts following the target
    /// pane, so its prompt state is known when a card is confirmed; the
    /// config file's problems, said once as the pane starts.
    pub(super) fn start_cards(&mut self) -> Vec<Input> {
        let mut rx = self.proposals.service().attach_ui();
        let tx = self.inputs_tx.clone();
        let history = self.history.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                // Seen before the machine: a card's decision finds it known.
                if let Some(history) = &history {
                    history.observe(&event);
                }
                if tx.send(Input::Proposal(event)).is_err() {
                    break;
                }
            }
        });
        let user_config = self.config.user_config.as_ref();
        let inputs: Vec<Input> = user_config
            .and_then(ConfigRead::notice)
            .map(|notice| Input::ConfigProblems { notice })
            .into_iter()
            .collect();
        let delegate = self.config.delegate.as_ref();
        let Some((executor, warning)) = self
            .host
            .as_ref()
            .and_then(|h| executor_for(h, delegate, user_config))
        else {
            return inputs;
        };
        if let Some(warning) = warning {
            tracing::warn!("execution settings: {warning}");
        }
        let executor = Arc::new(executor);
        self.cards.executor = Some(executor.clone());
        self.forward_long_runs(&executor);
        if let Some(target) = self.config.target_pane.clone() {
            let tx = self.inputs_tx.clone();
            let task = tokio::spawn(async move {
                if let Err(err) = executor.watch(&target).await {
                    let news = ExecutorNews::CannotFollow {
                        target,
                        why: err.localized(),
                    };
                    let _ = tx.send(Input::Executor(news));
                }
            });
            self.cards.watch = Some(task);
        }
        inputs
    }

    /// This helper's watcher sockets: a directory of its own under the
    /// shared watch dir, so a pipe whose owner mark points inside it is
    /// this helper's (a reused pid only finds the pipes a dead helper left).
    pub fn watch_dir() -> PathBuf {
        runtime_dir()
            .join("watch")
            .join(format!("helper-{}", std::process::id()))
    }

    /// The last step of the helper's exit, after [`Runtime::shutdown`] and
    /// once the async runtime is shut down (no watcher task is left to arm
    /// a pipe again): turns off every pipe on this tmux server whose owner
    /// mark is a socket in [`Runtime::watch_dir`] (a pane an action was
    /// still working on), so its sink sees EOF, and removes the directory.
    /// Blocking: tmux calls only.
    pub fn release_leftover_pipes() {
        let dir = Self::watch_dir();
        if let Ok(host) = TmuxHost::discover(None, None) {
            let owners = host.options_of_all_panes(PIPE_OWNER_OPTION);
            for pane in owners.iter().flat_map(|owners| ours(owners, &dir)) {
                if let Err(err) = host.close_pipe(pane, PIPE_OWNER_OPTION) {
                    tracing::debug!("turning off the pipe of {pane}: {err}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A card decision: the proposal engine claims the choice (nothing runs
    /// unless that succeeds), then the executor runs it in the target pane.
    pub(super) fn confirm_card(&mut self, id: ProposalId, choice: u64, mode: ConfirmMode) {
        let confirmed = match self.proposals.service().confirm(id, choice) {
            Ok(confirmed) => confirmed,
            Err(err) => {
                return self
                    .immediate
                    .push_back(Input::Executor(ExecutorNews::NotRun(err)));
            }
        };
        let mut history = self
            .history
            .as_ref()
            .map(|h| h.confirmed(id, &confirmed.claimed.choice, mode));
        let (Some(executor), Some(target)) = (
            self.cards.executor.clone(),
            confirmed.claimed.turn.target_pane.clone(),
        ) else {
            history
                .into_iter()
                .for_each(crate::history::Pending::finish);
            return self
                .immediate
                .push_back(Input::Executor(ExecutorNews::NoTerminal));
        };
        let tx = self.inputs_tx.clone();
        let task = tokio::spawn(async move {
            let sink = confirmed.executions;
            let choice = confirmed.claimed.choice;
            // Each result carries the execution id drawn when its action
            // dispatched (bound to the target pane and the tracker run).
            let report = |result: &crate::executor::ActionResult| {
                if let Some(line) = result.execution_line(id) {
                    if let Some(history) = &mut history {
                        history.result(&line);
                    }
                    sink.send(line);
                }
                let _ = tx.send(Input::Executor(ExecutorNews::ActionEnded {
                    action: result.action,
                    outcome: Box::new(result.outcome.clone()),
                }));
            };
            executor
                .execute_proposal(id, &target, &choice, mode, report)
                .await;
            sink.finish();
            history
                .into_iter()
                .for_each(crate::history::Pending::finish);
        });
        self.cards.keep(task);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use wta_protocol::PaneId;

    #[test]
    fn leftover_pipes_are_only_those_owned_inside_this_helpers_dir() {
        let dir = std::path::Path::new("/run/wta/watch/helper-12");
        let owners: Vec<(PaneId, String)> = [
            (1, "/run/wta/watch/helper-12/pipe-1-a.sock"),
            (2, "/run/wta/watch/helper-123/pipe-2-b.sock"),
            (3, ""),
            (4, "/run/wta/watch/pipe-4-c.sock"),
            (5, "/run/wta/watch/helper-12/pipe-5-d.sock"),
        ]
        .into_iter()
        .map(|(n, o)| (PaneId::from_number(n), o.to_owned()))
        .collect();
        let panes: Vec<&str> = super::ours(&owners, dir).map(PaneId::as_str).collect();
        assert_eq!(panes, ["%1", "%5"]);
    }
}
