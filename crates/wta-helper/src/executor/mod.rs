//! The card executor: carries out a confirmed choice through the terminal
//! host and pane watchers, and reports one [`ActionResult`] per action.
//!
//! Only a claimed proposal reaches this module (`ProposalService::confirm`
//! returned `Ok`). Targets are trusted values from the turn: the payload
//! never names a pane. Per action:
//! - `send` + Run: submit to the target pane through its watcher (refused,
//!   with the reason, when the pane is busy, on the alternate screen, not at
//!   a prompt or dead), then follow the run the first `C` after our Enter
//!   opened to its `D`. A shell without integration gets the text and
//!   `completion_unavailable`.
//! - `send` + Insert: clear the line and type the text without Enter.
//! - `open`: a tab or panel (direction, cwd, title) with an integrated shell
//!   started behind a `wait-for` gate with a watcher attached first, so its
//!   first prompt is seen (see [`open`]).
//! - `open_and_send`: the same, then, once that prompt shows (bounded),
//!   submit and follow. `delegate: true` starts the configured delegate
//!   agent CLI with the task as its last argument instead.
//!
//! Each action goes through the [`lifecycle`]: confirmed → dispatched (its
//! execution id is drawn then, bound to the pane and the tracker run) →
//! terminal status. One deadline covers the whole confirmed choice
//! ([`ExecutorConfig::run_timeout`]); later actions get what is left. An
//! action that could not be done, or whose command is still running, stops
//! the choice: later actions are `cancelled` with a reason naming it.
//!
//! A command still running at the deadline keeps being followed when the
//! choice belongs to a proposal ([`Executor::execute_proposal`],
//! [`long_runs`]): its final result is reported when it ends. One pane's
//! Run and Insert are `in_pane.rs`'s.

mod follow;
mod in_pane;
mod launch;
pub mod lifecycle;
pub mod long_runs;
mod open;
pub mod outcome;
mod progress;
pub mod settings;
mod tty_wait;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;
use wta_host::{AsyncHost, TerminalHost};
use wta_protocol::limits::{DEFAULT_EXECUTION_OUTPUT_BYTES, DEFAULT_EXECUTION_TIMEOUT};
use wta_protocol::{Action, Choice, ExecutionId, ExecutionLine, PaneId, ProposalId};
use wta_shell::{PaneWatcher, State, WatchOptions};

pub use launch::{DelegateLaunch, DelegateSource, Launch};
pub use lifecycle::{Dispatch, Phase};
pub use long_runs::{LongRunNews, LongRuns};
pub use outcome::{ActionOutcome, LateResult, LongRunKey, RunReport, Running, bound_text};
pub use settings::ExecutionSettings;

use lifecycle::{Event, Stop};
use open::OpenSpec;
use progress::Progress;

use crate::proposals::ConfirmMode;

/// How long a new shell may take to show its first prompt.
pub const DEFAULT_READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Shells whose prompt we recognise as "the pane is at its shell" when the
/// pane has no integration (so text can still be sent, unobserved).
const SHELLS: [&str; 7] = ["bash", "zsh", "fish", "sh", "dash", "ksh", "pwsh"];

/// Whether a pane running `command` is at a shell.
pub fn is_shell(command: &str) -> bool {
    SHELLS.contains(&command)
}

/// Everything the executor needs besides the host.
#[derive(Debug, Clone)]
pub struct ExecutorConfig {
    /// Sink program, private runtime dir and tracker limits for watchers.
    pub watch: WatchOptions,
    /// The integrated shell new tabs and panels run.
    pub shell: Launch,
    pub delegate: DelegateSource,
    pub ready_timeout: Duration,
    /// The per-proposal execution timeout: one deadline, from confirmation,
    /// for all the actions of the confirmed choice. A run still going then
    /// is `timed_out` (it keeps running); actions not started are
    /// `cancelled`.
    pub run_timeout: Duration,
    /// Bytes of rendered output kept per run.
    pub output_cap: usize,
    /// A full-screen program, or a command blocked on the terminal with no
    /// output, for this long is reported interactive (left running).
    pub interactive_after: Duration,
}

impl ExecutorConfig {
    /// Defaults for the timeouts and the output cap.
    pub fn new(watch: WatchOptions, shell: Launch) -> Self {
        Self {
            watch,
            shell,
            delegate: DelegateSource::None,
            ready_timeout: DEFAULT_READY_TIMEOUT,
            run_timeout: DEFAULT_EXECUTION_TIMEOUT,
            output_cap: DEFAULT_EXECUTION_OUTPUT_BYTES,
            interactive_after: settings::DEFAULT_INTERACTIVE_AFTER,
        }
    }

    /// Applies the `[execution]` settings from the config file.
    pub fn with_settings(mut self, s: ExecutionSettings) -> Self {
        self.run_timeout = s.timeout;
        self.output_cap = s.output_cap;
        self.interactive_after = s.interactive_after;
        self
    }

    fn limits(&self, shell_pid: u32, deadline: Instant) -> follow::Limits {
        follow::Limits {
            deadline,
            limit: self.run_timeout,
            cap: self.output_cap,
            interactive_after: self.interactive_after,
            shell_pid: Some(shell_pid).filter(|p| *p > 0),
        }
    }
}

/// One action's result; `action` is 1-based within the choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionResult {
    pub action: u64,
    pub outcome: ActionOutcome,
    /// Names the action's execution line: drawn when it dispatched (then
    /// also in `dispatch`), else when it settled without dispatching.
    pub execution: ExecutionId,
    /// Where the action went; `None` when it never dispatched.
    pub dispatch: Option<Dispatch>,
}

impl ActionResult {
    /// The execution line for this result (see
    /// [`ActionOutcome::execution_line`]).
    pub fn execution_line(&self, proposal: ProposalId) -> Option<ExecutionLine> {
        self.outcome
            .execution_line(proposal, self.execution, self.action)
    }
}

/// Executes confirmed choices. One execution at a time (watchers are
/// exclusive); keeps the watchers of the panes it follows.
pub struct Executor<H> {
    host: Arc<H>,
    config: ExecutorConfig,
    watchers: Mutex<HashMap<String, PaneWatcher>>,
    long_runs: LongRuns,
}

impl<H> std::fmt::Debug for Executor<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor").finish_non_exhaustive()
    }
}

fn unavailable(reason: impl Into<String>) -> ActionOutcome {
    ActionOutcome::Unavailable {
        reason: reason.into(),
    }
}

impl<H: TerminalHost + AsyncHost> Executor<H> {
    pub fn new(host: Arc<H>, config: ExecutorConfig) -> Self {
        Self {
            host,
            config,
            watchers: Mutex::new(HashMap::new()),
            long_runs: LongRuns::default(),
        }
    }

    /// Starts following `pane` now (call it for the target pane when the
    /// helper starts) so its prompt state is known when a card is confirmed.
    pub async fn watch(&self, pane: &PaneId) -> Result<(), wta_shell::ShellError> {
        let mut watchers = self.watchers.lock().await;
        if !watchers.contains_key(pane.as_str()) {
            let w = PaneWatcher::attach(self.host.clone(), pane, self.config.watch.clone()).await?;
            watchers.insert(pane.as_str().to_owned(), w);
        }
        Ok(())
    }

    /// Every command that finishes in a followed pane from now on (`None`
    /// when the pane is not followed).
    pub async fn finished_commands(
        &self,
        pane: &PaneId,
    ) -> Option<tokio::sync::broadcast::Receiver<wta_shell::Finished>> {
        let watchers = self.watchers.lock().await;
        Some(watchers.get(pane.as_str())?.finished_commands())
    }

    /// The facts of a followed pane, as they change (`None` when not followed).
    pub async fn pane_facts(
        &self,
        pane: &PaneId,
    ) -> Option<tokio::sync::watch::Receiver<wta_shell::ShellFacts>> {
        let watchers = self.watchers.lock().await;
        Some(watchers.get(pane.as_str())?.facts())
    }

    /// The tracker state of a followed pane (`None` when not followed).
    pub async fn pane_state(&self, pane: &PaneId) -> Option<State> {
        let watchers = self.watchers.lock().await;
        let tracker = watchers.get(pane.as_str())?.tracker();
        let state = tracker.lock().await.state.clone();
        Some(state)
    }

    /// Carries out `choice` as confirmed with `mode`; `report` sees each
    /// result as soon as it is known (for execution lines), in order. The
    /// proposal's execution deadline starts now and covers every action.
    /// A run still going at the deadline is not followed further (see
    /// [`Executor::execute_proposal`]).
    pub async fn execute(
        &self,
        target: &PaneId,
        choice: &Choice,
        mode: ConfirmMode,
        report: impl FnMut(&ActionResult),
    ) -> Vec<ActionResult> {
        self.carry_out(None, target, choice, mode, report).await
    }

    /// [`Executor::execute`] for `proposal`: a run still going at the
    /// deadline (its `timed_out` result says so) keeps being followed, and
    /// its final result goes to [`Executor::long_runs`] when it ends.
    pub async fn execute_proposal(
        &self,
        proposal: ProposalId,
        target: &PaneId,
        choice: &Choice,
        mode: ConfirmMode,
        report: impl FnMut(&ActionResult),
    ) -> Vec<ActionResult> {
        self.carry_out(Some(proposal), target, choice, mode, report)
            .await
    }

    /// The runs that outlived their proposal's time limit.
    pub fn long_runs(&self) -> &LongRuns {
        &self.long_runs
    }

    async fn carry_out(
        &self,
        proposal: Option<ProposalId>,
        target: &PaneId,
        choice: &Choice,
        mode: ConfirmMode,
        mut report: impl FnMut(&ActionResult),
    ) -> Vec<ActionResult> {
        let deadline = Instant::now() + self.config.run_timeout;
        let mut results = Vec::new();
        let mut stop: Option<Stop> = None;
        // Insert leaves one command at the prompt for the user to edit: a
        // second `send` would replace it, so it is not typed.
        let mut inserted: Option<u64> = None;
        for (i, action) in choice.actions.iter().enumerate() {
            let number = i as u64 + 1;
            let mut progress = Progress {
                phase: Phase::Confirmed,
                deadline,
            };
            let left = deadline.saturating_duration_since(Instant::now());
            let second_insert = match (mode, action, inserted) {
                (ConfirmMode::Insert, Action::Send { .. }, Some(first)) => Some(first),
                _ => None,
            };
            let event = match (
                lifecycle::may_start(stop.as_ref(), left, self.config.run_timeout),
                second_insert,
            ) {
                (Err(reason), _) => Event::Cancel { reason },
                (Ok(()), Some(first)) => Event::Cancel {
                    reason: format!(
                        "not typed: Insert leaves one command at the prompt, and action {first} is waiting there"
                    ),
                },
                (Ok(()), None) => {
                    let outcome = self.action(target, action, mode, &mut progress).await;
                    if matches!(progress.phase, Phase::Confirmed)
                        && let Some(pane) = sent_to(&outcome)
                    {
                        // Text went out on a path that does not record its
                        // dispatch (typed without integration).
                        progress.dispatch(&pane);
                    }
                    Event::Ended(outcome)
                }
            };
            let mut result = progress.settle(number, event);
            if let (Some(proposal), Action::Send { input } | Action::OpenAndSend { input, .. }) =
                (proposal, action)
            {
                self.keep_following(proposal, input, &mut result).await;
            }
            if matches!(result.outcome, ActionOutcome::Inserted { .. }) && inserted.is_none() {
                inserted = Some(number);
            }
            if stop.is_none() {
                stop = lifecycle::stops(number, &result.outcome);
            }
            report(&result);
            results.push(result);
        }
        results
    }

    async fn action(
        &self,
        target: &PaneId,
        action: &Action,
        mode: ConfirmMode,
        progress: &mut Progress,
    ) -> ActionOutcome {
        match action {
            Action::Send { input } => match mode {
                ConfirmMode::Run => self.run_in(target, input, progress).await,
                ConfirmMode::Insert => self.insert_in(target, input, progress).await,
                ConfirmMode::Open => unavailable("Open does not type commands; use Run or Insert"),
            },
            Action::Open {
                target: place,
                cwd,
                title,
                direction,
            } => {
                let open = OpenSpec {
                    place: *place,
                    direction: *direction,
                    cwd: cwd.clone(),
                    title: title.clone(),
                };
                self.open_shell(target, &open, progress).await
            }
            Action::OpenAndSend {
                target: place,
                input,
                delegate,
                cwd,
            } => {
                let open = OpenSpec {
                    place: *place,
                    direction: None,
                    cwd: cwd.clone(),
                    title: None,
                };
                if *delegate {
                    self.delegate(target, &open, input, progress).await
                } else {
                    self.open_and_send(target, &open, input, mode, progress)
                        .await
                }
            }
        }
    }

    /// A `timed_out` run of ours keeps being followed ([`long_runs`]); its
    /// note tells the agent so. The watcher's finished runs are subscribed
    /// before the tracker is read, so an end in between is not missed.
    async fn keep_following(&self, proposal: ProposalId, input: &str, result: &mut ActionResult) {
        let (ActionOutcome::TimedOut(report), Some(dispatch)) =
            (&mut result.outcome, result.dispatch.as_ref())
        else {
            return;
        };
        let Some(run) = dispatch.run else {
            return;
        };
        let watched = {
            let watchers = self.watchers.lock().await;
            watchers
                .get(dispatch.pane.as_str())
                .map(|w| (w.finished_commands(), w.tracker()))
        };
        let Some((finished, tracker)) = watched else {
            return;
        };
        let key = LongRunKey {
            proposal,
            execution: dispatch.execution,
            action: result.action,
            pane: dispatch.pane.clone(),
            command: long_runs::command_of(input),
        };
        let ran_for = Duration::from_millis(report.duration_ms.unwrap_or(0));
        let since = std::time::Instant::now()
            .checked_sub(ran_for)
            .unwrap_or_else(std::time::Instant::now);
        let note = report.note.take().unwrap_or_default();
        report.note = Some(format!(
            "{note}; WTA keeps following it and reports its exit code and output when it ends \
             (in the next turn's context, and through get_proposal_result)"
        ));
        self.long_runs.started(key.clone(), since);
        self.long_runs
            .follow(key, run, tracker, finished, self.config.output_cap);
    }

    /// Stops every watcher (the helper is exiting): each pane's pipe-pane
    /// is turned off where it is still ours (so its sink sees EOF and
    /// exits) and its socket removed, all panes at once. Waits for the
    /// watchers lock: abort executions in flight first (one following a run
    /// holds it until the run ends).
    pub async fn shutdown(&self) {
        let watchers: Vec<PaneWatcher> =
            self.watchers.lock().await.drain().map(|(_, w)| w).collect();
        futures::future::join_all(watchers.into_iter().map(PaneWatcher::stop)).await;
    }
}

/// The pane text was sent to without being followed (no integration).
fn sent_to(outcome: &ActionOutcome) -> Option<PaneId> {
    match outcome {
        ActionOutcome::CompletionUnavailable { pane } => PaneId::parse(pane).ok(),
        _ => None,
    }
}

fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{nanos:x}", std::process::id())
}
