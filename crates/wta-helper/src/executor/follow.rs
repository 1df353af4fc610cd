//! Waiting on a pane watcher: for a new shell's first prompt, and for the
//! run our Enter started (the first `C` after it, closed by its own `D`).
//! Every wait is bounded; nothing here sleeps to synchronise — the short
//! tick only re-reads the tracker between watcher events.

use std::time::Duration;

use tokio::time::Instant;
use wta_shell::{Effect, NotStarted, PaneWatcher, RunId, State, WatchEvent};

use super::outcome::{ActionOutcome, RunReport};

/// How often a wait re-reads the tracker when no watcher event arrives.
const RECHECK: Duration = Duration::from_millis(25);

/// Drops watcher events that are older than the action about to start.
pub(crate) async fn drain(watcher: &mut PaneWatcher) {
    while let Ok(Some(_)) = tokio::time::timeout(Duration::ZERO, watcher.next_event()).await {}
}

/// Waits until the shell sits at a prompt (`Idle`). `Err` says why not.
pub(crate) async fn wait_idle(watcher: &mut PaneWatcher, limit: Duration) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    loop {
        let state = watcher.tracker().lock().await.state.clone();
        match state {
            State::Idle => return Ok(()),
            State::Dead { .. } => return Err(format!("the shell in {} exited", watcher.pane)),
            State::Absent => {
                return Err(format!(
                    "the shell in {} has no WTA shell integration",
                    watcher.pane
                ));
            }
            _ => {}
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "the shell in {} did not show a prompt within {} s",
                watcher.pane,
                limit.as_secs()
            ));
        }
        let wait = RECHECK.min(deadline.saturating_duration_since(Instant::now()));
        if let Ok(None) = tokio::time::timeout(wait, watcher.next_event()).await {
            return Err(format!("stopped following {}", watcher.pane));
        }
    }
}

/// After a successful submit: follows our run to its end, or reports why
/// it did not start, or times out with the partial output (never killing it).
pub(crate) async fn follow_run(
    watcher: &mut PaneWatcher,
    limit: Duration,
    cap: usize,
) -> ActionOutcome {
    let pane = watcher.pane.clone();
    let deadline = Instant::now() + limit;
    let mut ours: Option<RunId> = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = match tokio::time::timeout(left, watcher.next_event()).await {
            Err(_) => return timed_out(watcher, ours, cap).await,
            Ok(None) => return ended(watcher, ours, cap, "the watcher stopped").await,
            Ok(Some(event)) => event,
        };
        match event {
            WatchEvent::Effect(Effect::RunStarted { id }) if ours.is_none() => {
                let tracker = watcher.tracker();
                let t = tracker.lock().await;
                // Only a run that followed our submit counts (`submitted` is
                // set). A fast run may already have moved to `last`.
                if [t.current.as_ref(), t.last.as_ref()]
                    .into_iter()
                    .flatten()
                    .any(|r| r.id == id && r.submitted.is_some())
                {
                    ours = Some(id);
                }
            }
            WatchEvent::Effect(Effect::RunFinished { id }) if ours == Some(id) => {
                return report_last(watcher, id, cap).await.map_or_else(
                    || ActionOutcome::Unavailable {
                        reason: format!("the run in {pane} ended but its record was replaced"),
                    },
                    ActionOutcome::Finished,
                );
            }
            WatchEvent::Effect(Effect::SubmitNotStarted { why, .. }) if ours.is_none() => {
                return match why {
                    NotStarted::IntegrationAbsent => ActionOutcome::CompletionUnavailable { pane },
                    NotStarted::EnterLost => ActionOutcome::Unavailable {
                        reason: format!("{pane} did not react to the command"),
                    },
                    NotStarted::PromptInstead => ActionOutcome::Unavailable {
                        reason: format!(
                            "the shell in {pane} showed a new prompt without running the command"
                        ),
                    },
                    NotStarted::PaneDied => ActionOutcome::Unavailable {
                        reason: format!("{pane} closed before the command started"),
                    },
                };
            }
            WatchEvent::Effect(Effect::PaneDied { .. }) if ours.is_none() => {
                return ActionOutcome::Unavailable {
                    reason: format!("{pane} closed before the command started"),
                };
            }
            WatchEvent::Ended { reason } => return ended(watcher, ours, cap, &reason).await,
            WatchEvent::Effect(_) => {}
        }
    }
}

async fn report_last(watcher: &PaneWatcher, id: RunId, cap: usize) -> Option<RunReport> {
    let tracker = watcher.tracker();
    let t = tracker.lock().await;
    let cwd = t.cwd.as_ref().map(|c| c.path.clone());
    t.last
        .as_ref()
        .filter(|r| r.id == id)
        .map(|r| RunReport::from_run(&watcher.pane, r, cwd, cap))
}

async fn timed_out(watcher: &PaneWatcher, ours: Option<RunId>, cap: usize) -> ActionOutcome {
    let tracker = watcher.tracker();
    let t = tracker.lock().await;
    let cwd = t.cwd.as_ref().map(|c| c.path.clone());
    match t.current.as_ref().filter(|r| Some(r.id) == ours) {
        Some(run) => ActionOutcome::TimedOut(RunReport::from_run(&watcher.pane, run, cwd, cap)),
        None => ActionOutcome::Unavailable {
            reason: format!(
                "the command in {} did not start before the timeout",
                watcher.pane
            ),
        },
    }
}

async fn ended(
    watcher: &PaneWatcher,
    ours: Option<RunId>,
    cap: usize,
    reason: &str,
) -> ActionOutcome {
    if let Some(id) = ours
        && let Some(report) = report_last(watcher, id, cap).await
    {
        return ActionOutcome::Finished(report);
    }
    ActionOutcome::Unavailable {
        reason: reason.to_owned(),
    }
}
