//! Commands that outlived their proposal's execution time limit (issue 30).
//!
//! At the limit the agent already got its `timed_out` execution line (still
//! running, never killed). From then on the run is *long*: a follower task
//! keeps reading the pane's tracker until the run ends (its `D`, the pane
//! closing, or the watcher going away) and then publishes the run's final
//! [`LateResult`]. Each ended result is kept for the next turn's context,
//! taken there once ([`LongRuns::take_ended`]); the runtime hears of every
//! change ([`LongRunNews`]) for the status line, the transcript and the
//! session endpoint's `get_proposal_result`.
//!
//! Invariants:
//! - every run handed to [`LongRuns::follow`] ends in exactly one
//!   [`LongRunNews::Ended`] (a follower that cannot read the pane reports
//!   an `unavailable` end), unless the helper exits first;
//! - while anything runs, the list is published about once a second (by
//!   the follower of the oldest run only), and once more on every change;
//! - at most [`MAX_KEPT_ENDED`] ended results wait for a turn (the oldest
//!   go first): a pane nobody prompts does not grow;
//! - only runs of the current agent session reach its turns: a new session
//!   ([`LongRuns::session_replaced`]) drops what waited and what its
//!   predecessor still runs.
//!
//! The registry is plain data behind one short lock; only
//! [`LongRuns::follow`] does I/O (the tracker and the watcher's broadcast).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::mpsc;
use wta_shell::tracker::{RunId, Tracker};

use super::outcome::{ActionOutcome, LateResult, LongRunKey, RunReport, Running};

/// Ended results kept for the next turn.
pub const MAX_KEPT_ENDED: usize = 8;
/// How often a follower re-reads the tracker (and the status line's
/// elapsed time moves).
pub const LONG_RUN_TICK: Duration = Duration::from_secs(1);

/// What the runtime hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LongRunNews {
    /// Every run still going, oldest first (empty: none any more).
    Running(Vec<Running>),
    /// One ended.
    Ended(Box<LateResult>),
}

#[derive(Debug, Default)]
struct Inner {
    running: Vec<Running>,
    ended: Vec<LateResult>,
    /// Runs started in the current agent session: only their ends go to
    /// its turns (a run of a replaced session was not this agent's).
    this_session: Vec<LongRunKey>,
    news: Option<mpsc::UnboundedSender<LongRunNews>>,
}

/// The executor's long runs (cheap to clone: one shared registry).
#[derive(Debug, Clone, Default)]
pub struct LongRuns {
    inner: Arc<Mutex<Inner>>,
}

impl LongRuns {
    /// Where the news goes from now on (a second call replaces the first).
    pub fn news(&self) -> mpsc::UnboundedReceiver<LongRunNews> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.lock().news = Some(tx);
        rx
    }

    /// The runs still going, oldest first.
    pub fn running(&self) -> Vec<Running> {
        self.lock().running.clone()
    }

    /// The results that ended since the last call, oldest first: each is
    /// given out once (the next turn's context).
    pub fn take_ended(&self) -> Vec<LateResult> {
        std::mem::take(&mut self.lock().ended)
    }

    /// A new agent session replaces the old one: the ends of runs it
    /// proposed no longer go to a turn (the status line and the session
    /// endpoint still hear of them).
    pub fn session_replaced(&self) {
        let mut inner = self.lock();
        inner.ended.clear();
        inner.this_session.clear();
    }

    /// `key` is running since `since`: listed and published.
    pub fn started(&self, key: LongRunKey, since: std::time::Instant) {
        let mut inner = self.lock();
        inner.this_session.push(key.clone());
        inner.running.push(Running { key, since });
        publish(&inner, LongRunNews::Running(inner.running.clone()));
    }

    /// The follower's tick: publishes the list when `key` is the oldest
    /// run (so several runs still publish once a second).
    pub fn tick(&self, key: &LongRunKey) {
        let inner = self.lock();
        if inner.running.first().is_some_and(|r| r.key == *key) {
            publish(&inner, LongRunNews::Running(inner.running.clone()));
        }
    }

    /// `result` ended its run: unlisted, kept for the next turn, published.
    pub fn ended(&self, result: LateResult) {
        let mut inner = self.lock();
        inner.running.retain(|r| r.key != result.key);
        let before = inner.this_session.len();
        inner.this_session.retain(|k| *k != result.key);
        if inner.this_session.len() < before {
            if inner.ended.len() >= MAX_KEPT_ENDED {
                inner.ended.remove(0);
            }
            inner.ended.push(result.clone());
        }
        publish(&inner, LongRunNews::Running(inner.running.clone()));
        publish(&inner, LongRunNews::Ended(Box::new(result)));
    }

    /// Follows run `run` of `key.pane` until it ends (see the module doc).
    /// `finished` must be subscribed before the caller let go of the
    /// watcher, so no end is missed between the two.
    pub(crate) fn follow(
        &self,
        key: LongRunKey,
        run: RunId,
        tracker: Arc<tokio::sync::Mutex<Tracker>>,
        mut finished: broadcast::Receiver<wta_shell::Finished>,
        cap: usize,
    ) {
        let runs = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(LONG_RUN_TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                let closed = tokio::select! {
                    got = finished.recv() => matches!(got, Err(RecvError::Closed)),
                    _ = tick.tick() => false,
                };
                let seen = {
                    let t = tracker.lock().await;
                    look(&t, run, key.pane.as_str(), cap)
                };
                let outcome = match (seen, closed) {
                    (Seen::Running, false) => {
                        runs.tick(&key);
                        continue;
                    }
                    (Seen::Ended(report), _) => ActionOutcome::Finished(report),
                    (Seen::Running, true) => ActionOutcome::Unavailable {
                        reason: format!(
                            "{} stopped being followed while the command ran; its end was not observed",
                            key.pane
                        ),
                    },
                    (Seen::Gone, _) => ActionOutcome::Unavailable {
                        reason: format!(
                            "the command in {} ended, but its record was no longer kept",
                            key.pane
                        ),
                    },
                };
                runs.ended(LateResult { key, outcome });
                return;
            }
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn publish(inner: &Inner, news: LongRunNews) {
    if let Some(tx) = &inner.news {
        let _ = tx.send(news);
    }
}

/// What the tracker says of a long run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seen {
    /// It is the run in progress.
    Running,
    /// It ended: its record.
    Ended(RunReport),
    /// Neither running nor among the finished runs the tracker keeps.
    Gone,
}

/// Pure: where run `id` stands in `t`.
pub(crate) fn look(t: &Tracker, id: RunId, pane: &str, cap: usize) -> Seen {
    if t.current.as_ref().is_some_and(|r| r.id == id) {
        return Seen::Running;
    }
    match t.finished(id) {
        Some(run) => {
            let cwd = t.cwd.as_ref().map(|c| c.path.clone());
            Seen::Ended(RunReport::from_run(pane, run, cwd, cap))
        }
        None => Seen::Gone,
    }
}

/// The first line of what a card typed, for the status line and the context.
pub fn command_of(input: &str) -> String {
    let first = input.lines().next().unwrap_or("").trim();
    if input.trim().lines().count() > 1 {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}

#[cfg(test)]
#[path = "long_runs_tests.rs"]
mod tests;
