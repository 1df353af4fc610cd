//! The lifecycle of one action of a confirmed choice (DESIGN §4.4, issue 7):
//!
//! ```text
//! validated → confirmed → dispatched → completed | failed | timed_out | unavailable
//!                       ↘ cancelled | unavailable      (never dispatched)
//! ```
//!
//! `validated` and `confirmed` belong to the proposal (its machine validated
//! the request; the user's confirmation claimed it), so every action starts
//! here as [`Phase::Confirmed`]. It is *dispatched* when keys go to a pane or
//! a pane is opened for it: the execution id is drawn at that moment and
//! bound to that pane (the turn's trusted target, or a pane this action
//! opened), then to the tracker run our Enter opened. An action that never
//! dispatched settles straight from `confirmed`: `cancelled` when an earlier
//! action stopped the choice or the proposal's time was used up (see
//! [`may_start`]), `unavailable` when its pane could not be used.
//!
//! Data and pure functions only; the executor feeds events and does the I/O.

use std::time::Duration;

use wta_protocol::{ExecutionId, PaneId};
use wta_shell::RunId;

use super::outcome::ActionOutcome;

/// Where a dispatched action went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// Drawn when the action dispatched; names its execution line.
    pub execution: ExecutionId,
    /// The pane the keys went to, or the pane the action opened.
    pub pane: PaneId,
    /// The tracker run our Enter opened in `pane`, once seen.
    pub run: Option<RunId>,
}

/// One action's place in its lifecycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Claimed with its choice; nothing done for it yet.
    Confirmed,
    /// Keys sent or a pane opened; the result is not known yet.
    Dispatched(Dispatch),
    /// Terminal. `dispatch` is `None` for an action that never dispatched.
    Settled {
        dispatch: Option<Dispatch>,
        outcome: ActionOutcome,
    },
}

/// What happened to the action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Keys are going to `pane`, or `pane` was opened for the action.
    Dispatch {
        execution: ExecutionId,
        pane: PaneId,
    },
    /// The tracker opened the run our Enter started.
    RunOpened(RunId),
    /// The action ended (or could not be done) with this outcome.
    Ended(ActionOutcome),
    /// An earlier action stopped the choice, or no time was left.
    Cancel { reason: String },
}

/// What the caller does after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// The action settled: report its result now.
    Report,
    /// The event does not apply in this phase; the phase is unchanged.
    Ignored(&'static str),
}

/// The pure transition function.
pub fn step(phase: Phase, event: Event) -> (Phase, Option<Effect>) {
    match (phase, event) {
        (Phase::Confirmed, Event::Dispatch { execution, pane }) => (
            Phase::Dispatched(Dispatch {
                execution,
                pane,
                run: None,
            }),
            None,
        ),
        (Phase::Dispatched(mut d), Event::RunOpened(run)) if d.run.is_none() => {
            d.run = Some(run);
            (Phase::Dispatched(d), None)
        }
        (Phase::Confirmed, Event::Ended(outcome)) => settle(None, outcome),
        (Phase::Dispatched(d), Event::Ended(outcome)) => settle(Some(d), outcome),
        (Phase::Confirmed, Event::Cancel { reason }) => {
            settle(None, ActionOutcome::Cancelled { reason })
        }
        (phase @ Phase::Settled { .. }, _) => (phase, Some(Effect::Ignored("already settled"))),
        (phase @ Phase::Dispatched(_), Event::Dispatch { .. }) => {
            (phase, Some(Effect::Ignored("already dispatched")))
        }
        (phase @ Phase::Dispatched(_), Event::RunOpened(_)) => {
            (phase, Some(Effect::Ignored("the run is already bound")))
        }
        (phase @ Phase::Dispatched(_), Event::Cancel { .. }) => (
            phase,
            Some(Effect::Ignored("a dispatched action cannot be cancelled")),
        ),
        (phase @ Phase::Confirmed, Event::RunOpened(_)) => {
            (phase, Some(Effect::Ignored("no run before dispatch")))
        }
    }
}

fn settle(dispatch: Option<Dispatch>, outcome: ActionOutcome) -> (Phase, Option<Effect>) {
    (Phase::Settled { dispatch, outcome }, Some(Effect::Report))
}

/// Why the rest of a choice does not run: the first action that stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// 1-based action that stopped the choice.
    pub action: u64,
    pub why: String,
}

/// Whether `outcome` of action `action` stops the actions after it: a pane
/// that could not be used (or an action itself cancelled), and a command
/// still running when its result stopped being followed (later actions
/// assume it ended). A non-zero exit does not stop the choice: each action
/// reports its own result.
pub fn stops(action: u64, outcome: &ActionOutcome) -> Option<Stop> {
    let why = match outcome {
        ActionOutcome::Unavailable { reason } => format!("action {action} failed: {reason}"),
        ActionOutcome::Cancelled { reason } => format!("action {action} was cancelled: {reason}"),
        ActionOutcome::TimedOut(r) => format!(
            "action {action} is still running in {}{}",
            r.pane,
            if r.interactive {
                " (interactive)"
            } else {
                " (the execution time limit ran out)"
            }
        ),
        ActionOutcome::Finished(r) if r.exit.is_none() => {
            format!("action {action} ended without an exit status in {}", r.pane)
        }
        _ => return None,
    };
    Some(Stop { action, why })
}

/// Whether the next action may start, given what stopped the choice so far
/// and the time left of the proposal's execution limit. `Err` is the
/// reason it is cancelled.
pub fn may_start(stop: Option<&Stop>, left: Duration, limit: Duration) -> Result<(), String> {
    if let Some(stop) = stop {
        return Err(format!("not run because {}", stop.why));
    }
    if left.is_zero() {
        return Err(format!(
            "not run: the proposal's execution time limit ({}) was used up by earlier actions",
            secs(limit)
        ));
    }
    Ok(())
}

/// `120 s`, `1.5 s`.
pub(crate) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{s:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::outcome::RunReport;

    fn id(n: u8) -> ExecutionId {
        ExecutionId::from_bytes([n; 16])
    }

    fn pane() -> PaneId {
        PaneId::from_number(3)
    }

    fn report(exit: Option<i32>) -> RunReport {
        RunReport {
            pane: "%3".into(),
            exit,
            output: String::new(),
            truncated: false,
            duration_ms: Some(1),
            cwd: None,
            cmdline: None,
            cmdline_matches: true,
            interactive: false,
            end: None,
            note: None,
        }
    }

    fn dispatched(run: Option<RunId>) -> Phase {
        Phase::Dispatched(Dispatch {
            execution: id(1),
            pane: pane(),
            run,
        })
    }

    fn settled() -> Phase {
        Phase::Settled {
            dispatch: None,
            outcome: ActionOutcome::Inserted { pane: "%3".into() },
        }
    }

    fn events() -> Vec<Event> {
        vec![
            Event::Dispatch {
                execution: id(2),
                pane: pane(),
            },
            Event::RunOpened(RunId(7)),
            Event::Ended(ActionOutcome::Finished(report(Some(0)))),
            Event::Cancel { reason: "r".into() },
        ]
    }

    /// Every phase × event: the legal transitions, and everything else
    /// leaves the phase as it was.
    #[test]
    fn every_phase_and_event() {
        for phase in [
            Phase::Confirmed,
            dispatched(None),
            dispatched(Some(RunId(1))),
            settled(),
        ] {
            for event in events() {
                let (next, effect) = step(phase.clone(), event.clone());
                match (&phase, &event) {
                    (Phase::Confirmed, Event::Dispatch { .. }) => {
                        assert_eq!(
                            next,
                            Phase::Dispatched(Dispatch {
                                execution: id(2),
                                pane: pane(),
                                run: None
                            })
                        );
                        assert_eq!(effect, None);
                    }
                    (Phase::Dispatched(d), Event::RunOpened(r)) if d.run.is_none() => {
                        assert_eq!(next, dispatched(Some(*r)));
                        assert_eq!(effect, None);
                    }
                    (Phase::Confirmed, Event::Ended(o)) => {
                        assert_eq!(
                            next,
                            Phase::Settled {
                                dispatch: None,
                                outcome: o.clone()
                            }
                        );
                        assert_eq!(effect, Some(Effect::Report));
                    }
                    (Phase::Dispatched(d), Event::Ended(o)) => {
                        assert_eq!(
                            next,
                            Phase::Settled {
                                dispatch: Some(d.clone()),
                                outcome: o.clone()
                            }
                        );
                        assert_eq!(effect, Some(Effect::Report));
                    }
                    (Phase::Confirmed, Event::Cancel { reason }) => {
                        assert_eq!(
                            next,
                            Phase::Settled {
                                dispatch: None,
                                outcome: ActionOutcome::Cancelled {
                                    reason: reason.clone()
                                }
                            }
                        );
                        assert_eq!(effect, Some(Effect::Report));
                    }
                    _ => {
                        assert_eq!(next, phase, "{event:?}");
                        assert!(matches!(effect, Some(Effect::Ignored(_))), "{event:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn what_stops_a_choice_and_how_later_actions_read() {
        let unavailable = ActionOutcome::Unavailable {
            reason: "%3 shows a full-screen program (less); nothing was sent".into(),
        };
        let stop = stops(1, &unavailable).unwrap();
        assert_eq!(
            may_start(Some(&stop), Duration::from_secs(5), Duration::from_secs(9)),
            Err(
                "not run because action 1 failed: %3 shows a full-screen program (less); \
                 nothing was sent"
                    .into()
            )
        );
        let timed_out = ActionOutcome::TimedOut(report(None));
        assert!(
            stops(2, &timed_out)
                .unwrap()
                .why
                .contains("action 2 is still running in %3")
        );
        for goes_on in [
            ActionOutcome::Finished(report(Some(0))),
            ActionOutcome::Finished(report(Some(2))),
            ActionOutcome::Inserted { pane: "%3".into() },
            ActionOutcome::Opened { pane: "%4".into() },
            ActionOutcome::CompletionUnavailable { pane: "%3".into() },
        ] {
            assert_eq!(stops(1, &goes_on), None, "{goes_on:?}");
        }
        assert!(stops(1, &ActionOutcome::Finished(report(None))).is_some());
    }

    #[test]
    fn no_time_left_cancels() {
        assert_eq!(
            may_start(None, Duration::ZERO, Duration::from_millis(1500)),
            Err(
                "not run: the proposal's execution time limit (1.5 s) was used up by earlier \
                 actions"
                    .into()
            )
        );
        assert_eq!(
            may_start(None, Duration::from_millis(1), Duration::from_secs(120)),
            Ok(())
        );
        assert_eq!(secs(Duration::from_secs(120)), "120 s");
    }
}
