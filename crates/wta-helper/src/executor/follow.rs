//! Waiting on a pane watcher: for a new shell's first prompt, and for the
//! run our Enter started (the first `C` after it, closed by its own `D`).
//! Every wait is bounded; nothing here sleeps to synchronise — the short
//! tick only re-reads the tracker between watcher events.

use std::time::Duration;

use tokio::time::Instant;
use wta_shell::{Effect, EndReason, NotStarted, PaneWatcher, RunId, State, WatchEvent};

use super::outcome::{ActionOutcome, RunReport};
use super::tty_wait;

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

/// How a run is followed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The proposal's execution deadline, shared by all the actions of the
    /// confirmed choice: still running then is `timed_out` (never killed).
    pub deadline: Instant,
    /// The proposal's whole execution limit, for the timed-out note.
    pub limit: Duration,
    /// Output bytes kept.
    pub cap: usize,
    /// A full-screen program, or a job blocked on the terminal with no
    /// output, for this long is reported as interactive (still running).
    pub interactive_after: Duration,
    /// The pane's shell, whose terminal's foreground job is probed.
    pub shell_pid: Option<u32>,
}

/// How following a submitted command ended, and which tracker run was ours.
#[derive(Debug)]
pub(crate) struct Followed {
    pub outcome: ActionOutcome,
    /// The run the first `C` after our Enter opened (`None` if none did).
    pub run: Option<RunId>,
}

/// Whether the watcher's pane is gone or dead (so a run that lost its
/// watcher ended with the pane).
async fn pane_closed(watcher: &PaneWatcher) -> bool {
    match watcher.host().probe(&watcher.pane, &[]).await {
        Ok(probe) => probe.dead,
        Err(_) => true,
    }
}

/// Why a run stopped being followed before its end.
enum Early {
    FullScreen,
    WaitingForInput,
}

/// Tracks quiet time and alternate-screen time of the run being followed.
struct Watch {
    last_total: u64,
    quiet_since: Instant,
    alt_since: Option<Instant>,
}

/// How often a running command is checked for being interactive.
const PROBE: Duration = Duration::from_millis(200);

/// After a successful submit: follows our run to its end, or reports why
/// it did not start, or stops early with what is known when it is
/// interactive, or times out at the proposal's deadline with the partial
/// output (never killing it).
pub(crate) async fn follow_run(watcher: &mut PaneWatcher, limits: Limits) -> Followed {
    let mut run = None;
    let outcome = follow(watcher, limits, &mut run).await;
    Followed { outcome, run }
}

async fn follow(
    watcher: &mut PaneWatcher,
    limits: Limits,
    ours: &mut Option<RunId>,
) -> ActionOutcome {
    let pane = watcher.pane.to_string();
    let cap = limits.cap;
    let deadline = limits.deadline;
    let mut watch = Watch {
        last_total: 0,
        quiet_since: Instant::now(),
        alt_since: None,
    };
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return timed_out(watcher, *ours, cap, None, limits.limit).await;
        }
        let event = match tokio::time::timeout(left.min(PROBE), watcher.next_event()).await {
            Err(_) => {
                if let Some(id) = *ours
                    && let Some(why) = interactive(watcher, id, &mut watch, limits).await
                {
                    return timed_out(watcher, *ours, cap, Some(why), limits.limit).await;
                }
                continue;
            }
            Ok(None) => return ended(watcher, *ours, cap, "the watcher stopped").await,
            Ok(Some(event)) => event,
        };
        match event {
            WatchEvent::Effect(Effect::RunStarted { id }) if ours.is_none() => {
                let tracker = watcher.tracker();
                let t = tracker.lock().await;
                // Only a run that followed our submit counts (`submitted` is
                // set). A fast run may already be finished.
                if t.current
                    .iter()
                    .chain(t.finished(id))
                    .any(|r| r.id == id && r.submitted.is_some())
                {
                    *ours = Some(id);
                }
            }
            // Ours, or one that followed our submit and ended before its
            // start was read (the tracker may have let it go by then).
            WatchEvent::Finished(f)
                if *ours == Some(f.run.id) || (ours.is_none() && f.run.submitted.is_some()) =>
            {
                *ours = Some(f.run.id);
                return ActionOutcome::Finished(RunReport::from_run(
                    pane.as_str(),
                    &f.run,
                    f.cwd.clone(),
                    cap,
                ));
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
            WatchEvent::Ended { reason } => return ended(watcher, *ours, cap, &reason).await,
            WatchEvent::Effect(_) | WatchEvent::Finished(_) => {}
        }
    }
}

/// Checks whether our running command is interactive (see [`Limits`]).
async fn interactive(
    watcher: &PaneWatcher,
    id: RunId,
    watch: &mut Watch,
    limits: Limits,
) -> Option<Early> {
    let now = Instant::now();
    {
        let tracker = watcher.tracker();
        let t = tracker.lock().await;
        let run = t.current.as_ref().filter(|r| r.id == id)?;
        let total = run.output.total();
        if total != watch.last_total {
            watch.last_total = total;
            watch.quiet_since = now;
        }
        if t.alt_screen {
            let since = *watch.alt_since.get_or_insert(now);
            if now.duration_since(since) >= limits.interactive_after {
                return Some(Early::FullScreen);
            }
            return None;
        }
        watch.alt_since = None;
    }
    if now.duration_since(watch.quiet_since) < limits.interactive_after {
        return None;
    }
    let pid = limits.shell_pid?;
    let waits = tokio::task::spawn_blocking(move || tty_wait::foreground_waits_for_input(pid))
        .await
        .unwrap_or(false);
    waits.then_some(Early::WaitingForInput)
}

/// Our run from the tracker, if it still holds it (after the watcher ended).
async fn report_last(watcher: &PaneWatcher, id: RunId, cap: usize) -> Option<RunReport> {
    let tracker = watcher.tracker();
    let t = tracker.lock().await;
    let cwd = t.cwd.as_ref().map(|c| c.path.clone());
    t.finished(id)
        .map(|r| RunReport::from_run(watcher.pane.as_str(), r, cwd, cap))
}

async fn timed_out(
    watcher: &PaneWatcher,
    ours: Option<RunId>,
    cap: usize,
    early: Option<Early>,
    limit: Duration,
) -> ActionOutcome {
    let now = watcher.now();
    let tracker = watcher.tracker();
    let t = tracker.lock().await;
    let cwd = t.cwd.as_ref().map(|c| c.path.clone());
    match t.current.as_ref().filter(|r| Some(r.id) == ours) {
        Some(run) => {
            let mut report = RunReport::from_run(watcher.pane.as_str(), run, cwd, cap);
            report.duration_ms = Some(now.saturating_sub(run.started_at));
            report.note = Some(match early {
                Some(Early::FullScreen) => {
                    report.interactive = true;
                    "a full-screen program is open; it keeps running until the user quits it"
                        .to_owned()
                }
                Some(Early::WaitingForInput) => {
                    report.interactive = true;
                    "the command is waiting for input typed in the terminal; it keeps running"
                        .to_owned()
                }
                None => format!(
                    "still running when the proposal's execution time limit ({}) ran out; \
                     it was not stopped",
                    super::lifecycle::secs(limit)
                ),
            });
            ActionOutcome::TimedOut(report)
        }
        None => ActionOutcome::Unavailable {
            reason: format!(
                "the command in {} did not start before the timeout",
                watcher.pane
            ),
        },
    }
}

/// The watcher stopped. A finished run of ours is reported as it ended; a
/// run still open ends here: with the pane when the pane closed (status
/// unknown), else because it can no longer be followed. Partial output is
/// kept either way.
async fn ended(
    watcher: &PaneWatcher,
    ours: Option<RunId>,
    cap: usize,
    reason: &str,
) -> ActionOutcome {
    let Some(id) = ours else {
        return ActionOutcome::Unavailable {
            reason: reason.to_owned(),
        };
    };
    if let Some(report) = report_last(watcher, id, cap).await {
        return ActionOutcome::Finished(report);
    }
    let closed = pane_closed(watcher).await;
    let now = watcher.now();
    let tracker = watcher.tracker();
    let t = tracker.lock().await;
    let cwd = t.cwd.as_ref().map(|c| c.path.clone());
    match t.current.as_ref().filter(|r| r.id == id) {
        Some(run) => {
            let mut report = RunReport::from_run(watcher.pane.as_str(), run, cwd, cap);
            report.duration_ms = Some(now.saturating_sub(run.started_at));
            report.end = Some(if closed {
                EndReason::PaneDied { status: None }
            } else {
                EndReason::Detached
            });
            ActionOutcome::Finished(report)
        }
        None => ActionOutcome::Unavailable {
            reason: reason.to_owned(),
        },
    }
}
