//! The per-pane command tracker: a pure state machine over parser tokens.
//!
//! States, events and effects are data; [`step`] is pure (time is an input),
//! so every transition of tmux-host.md §8.2 is unit-testable without tmux.
//! The tracker never executes anything derived from the pane stream: marks
//! only shape records, and a mark counts only when it carries its shell's
//! announced nonce ([`crate::trust`]); any other is dropped, so command
//! output cannot end (or start) a run. A shell reached through `wta ssh` is
//! followed in place of the pane's own while the session lasts (`hop`).

use std::collections::VecDeque;

use serde::Serialize;

use crate::output::{CappedOutput, Rendered, render};
use crate::parser::{Cwd, Mark, MarkKind, Token};
use crate::trust::MarkTrust;

#[path = "tracker_hop.rs"]
mod hop;
#[path = "tracker_marks.rs"]
mod marks;
pub use hop::{Hops, MAX_HOST_LABEL, remote_option, valid_host_label};
pub use marks::cmdline_matches;
use marks::on_mark;

/// Milliseconds on a clock chosen by the caller (monotonic or wall clock).
pub type Millis = u64;

/// A run id, unique within one tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct RunId(pub u64);

/// A submission id, to match a timer expiry with the submission that armed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct SubmitId(pub u64);

/// Tracker limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackerConfig {
    /// Output bytes kept from the start of a run.
    pub head_cap: usize,
    /// Output bytes kept from the end of a run.
    pub tail_cap: usize,
    /// How long after Enter a `C` must arrive before integration is doubted.
    pub submit_timeout_ms: Millis,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            head_cap: 64 * 1024,
            tail_cap: 64 * 1024,
            submit_timeout_ms: 1000,
        }
    }
}

/// Where the pane's shell is, as far as the marks tell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// Attached, no mark seen yet.
    Unknown,
    /// `A` seen: the prompt is being drawn.
    Prompt,
    /// `B` seen: the shell reads input. The only state that accepts a submit.
    Idle,
    /// Enter was sent for `text`; no `C` yet.
    Submitted {
        id: SubmitId,
        text: String,
        at: Millis,
    },
    /// `C` seen: a command runs (the run is [`Tracker::current`]).
    Running,
    /// `D` seen: waiting for the next prompt.
    Finished,
    /// The pane died or vanished.
    Dead { status: Option<i32> },
    /// The shell has no integration (a submit showed no `C`).
    Absent,
}

/// Whether the pane's shell emits integration marks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Integration {
    #[default]
    Unknown,
    Present,
    Absent,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum EndReason {
    /// A `D` mark from the shell.
    Mark,
    /// A prompt (`A`/`B`) came without a `D`: exit code unknown.
    PromptWithoutD,
    /// The pane died (its dead status, when tmux kept it).
    PaneDied { status: Option<i32> },
    /// The watcher lost the stream (pipe taken over): the end is unknown.
    Detached,
    /// The remote shell it ran in (over `wta ssh`) went away with its
    /// session: the end is unknown.
    SessionEnded,
}

/// One command, from `C` to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub id: RunId,
    pub aid: Option<String>,
    /// From `cmdline_url` (or 633 `E`): a hint, not proof.
    pub cmdline: Option<String>,
    /// The text WTA submitted, when this run followed a submit.
    pub submitted: Option<String>,
    /// `submitted` is set and the shell's cmdline (if any) matches it.
    pub cmdline_matches: bool,
    pub started_at: Millis,
    pub ended_at: Option<Millis>,
    pub exit: Option<i32>,
    pub end_reason: Option<EndReason>,
    /// Bytes between `C` and the end, capped.
    pub output: CappedOutput,
    /// The command switched to the alternate screen (interactive program).
    pub alt_screen: bool,
    /// Pane width when `C` arrived (output wraps at this width).
    pub width: u16,
}

impl Run {
    /// Renders the output as the user saw it (through `vt100` at [`Run::width`]).
    pub fn render(&self) -> Rendered {
        render(&self.output, self.width)
    }

    pub fn duration_ms(&self) -> Option<Millis> {
        self.ended_at.map(|e| e.saturating_sub(self.started_at))
    }
}

/// Per-pane tracker data. Feed it with [`step`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracker {
    pub state: State,
    pub integration: Integration,
    /// `aid` of the pane's own shell (learned from marks).
    pub shell_aid: Option<String>,
    pub cwd: Option<Cwd>,
    /// The pane is on the alternate screen right now.
    pub alt_screen: bool,
    pub width: u16,
    /// The run in progress (state `Running`).
    pub current: Option<Run>,
    /// The last finished run.
    pub last: Option<Run>,
    /// Runs finished before [`Tracker::last`], newest last, at most
    /// [`EARLIER_RUNS`]: a caller that follows one run must still find it when
    /// the user's next command finishes before the caller looks.
    pub earlier: VecDeque<Run>,
    /// The nonces of the pane's shells: only marks they accept count.
    pub trust: MarkTrust,
    /// Remote shells reached through `wta ssh`, and the one followed now.
    pub hops: Hops,
    /// An OSC 633 `E` command line waiting for its `C`.
    pending_cmdline: Option<String>,
    /// A submission typed without a verified prompt, and the state to go
    /// back to if its timer finds that nothing happened.
    unverified: Option<(SubmitId, Box<State>)>,
    /// The shell drew its prompt again while a submission waited for its
    /// `C` (a redraw: readline accepting a paste, `clear`, a resize): the
    /// submission stays pending; if no `C` follows, the shell is integrated
    /// and showed a prompt instead.
    prompted_while_submitted: bool,
    /// Something was echoed at the prompt since it was drawn: the user has
    /// typed text there (a hint; backspaced text still counts).
    pub typed_text: bool,
    /// A command was handed to the shell (the hand-off keeps what was
    /// typed): after the next command ends and the prompt is back, the
    /// typed text is to be put back ([`Effect::RestoreTyped`]).
    restore: Restore,
    next_run: u64,
    next_submit: u64,
    pub config: TrackerConfig,
}

/// Where putting back the user's typed text stands after a hand-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Restore {
    #[default]
    None,
    /// Handed off; waiting for the next command to end.
    AfterNextRun,
    /// That command ended; at the next input start.
    AtPrompt,
}

/// How many finished runs are kept besides [`Tracker::last`].
pub const EARLIER_RUNS: usize = 3;

impl Tracker {
    /// The host of the remote shell followed now (over `wta ssh`), if any.
    pub fn remote(&self) -> Option<&str> {
        self.hops.host()
    }

    /// A finished run by id: the last one or one of the few before it.
    pub fn finished(&self, id: RunId) -> Option<&Run> {
        self.last
            .iter()
            .chain(self.earlier.iter().rev())
            .find(|r| r.id == id)
    }

    pub fn new(width: u16, config: TrackerConfig) -> Self {
        Tracker {
            state: State::Unknown,
            integration: Integration::Unknown,
            shell_aid: None,
            cwd: None,
            alt_screen: false,
            width,
            current: None,
            last: None,
            earlier: VecDeque::new(),
            trust: MarkTrust::default(),
            hops: Hops::default(),
            pending_cmdline: None,
            unverified: None,
            prompted_while_submitted: false,
            typed_text: false,
            restore: Restore::None,
            next_run: 1,
            next_submit: 1,
            config,
        }
    }
}

/// Why a submission did not start a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotStarted {
    /// No `C` in time while the pane visibly reacted: no integration.
    IntegrationAbsent,
    /// No `C` in time and nothing changed: the Enter was lost.
    EnterLost,
    /// A new prompt came instead of a `C` (empty or rejected command line).
    PromptInstead,
    /// The pane died first.
    PaneDied,
}

/// What happened to the pane when its pipe closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneFate {
    /// Still alive (the pipe was closed or replaced).
    Alive,
    /// Dead, kept by `remain-on-exit` with this status.
    Dead { status: Option<i32> },
    /// No longer exists.
    Gone,
}

/// Inputs of the state machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A token from the pane stream.
    Token(Token),
    /// WTA sent `text` and Enter (after [`crate::submit::decide_submit`] allowed it).
    Submitted {
        text: String,
    },
    /// WTA typed `text` and Enter into a pane whose shell never showed a
    /// prompt mark (no integration seen yet, or none at all). Like
    /// [`Event::Submitted`], a `C` within the submit timeout opens the run;
    /// none while the pane visibly reacted means the shell has no
    /// integration (tmux-host.md §8.2, rule b); none and no change leaves
    /// the state as it was. Ignored while a command runs or the pane is dead.
    SubmittedUnverified {
        text: String,
    },
    /// The submit timer armed by [`Effect::StartSubmitTimer`] expired; `changed`
    /// tells whether the screen or the foreground process changed since the submit.
    SubmitTimerExpired {
        id: SubmitId,
        changed: bool,
    },
    /// A valid `@wta_integration` option was seen on the pane.
    IntegrationAnnounced,
    /// The watcher read the nonce the shell with pid `pid` announced
    /// (`None`: nothing valid is announced for that pid).
    NonceLearned {
        pid: u32,
        nonce: Option<String>,
    },
    /// The watcher read, with that nonce, whether `wta ssh` announced `pid`
    /// as a remote shell, and its host (`None`: not a remote shell).
    HopLearned {
        pid: u32,
        host: Option<String>,
    },
    /// A gated shell was released a submit-timeout ago; `changed` tells whether
    /// its screen changed since (a prompt was drawn). No mark by then means
    /// the shell has no integration (tmux-host.md §8.2, rule a).
    StartQuiet {
        changed: bool,
    },
    Resized {
        width: u16,
    },
    /// The pipe ended.
    PipeClosed {
        fate: PaneFate,
    },
    /// The watcher stopped following the pane (pipe taken over).
    Detached,
    /// The watcher handed a command to the shell through its inbox and a
    /// private key (run or insert): whatever was typed at the prompt is
    /// kept by the shell until [`Effect::RestoreTyped`].
    HandedOff,
    /// The pipe sink dropped `bytes` of pane output here (the watcher fell
    /// behind). A running command's output is flagged truncated with a note;
    /// outside a command a mark may be among them, so the state is unknown
    /// until the next prompt.
    OutputLost {
        bytes: u64,
    },
}

/// Outputs of the state machine, for the I/O layer to act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    RunStarted {
        id: RunId,
    },
    /// The run moved to [`Tracker::last`].
    RunFinished {
        id: RunId,
    },
    IntegrationChanged {
        integration: Integration,
    },
    CwdChanged,
    /// The tracker began or stopped following a remote shell
    /// ([`Tracker::remote`]).
    RemoteChanged,
    /// Press the private restore key: the command handed off earlier has
    /// run and the prompt is back, so the text typed before it returns.
    RestoreTyped,
    /// Call back with [`Event::SubmitTimerExpired`] after `after_ms`.
    StartSubmitTimer {
        id: SubmitId,
        after_ms: Millis,
    },
    SubmitNotStarted {
        id: SubmitId,
        why: NotStarted,
    },
    PaneDied {
        status: Option<i32>,
    },
}

/// The pure transition function (tmux-host.md §8.2).
pub fn step(tracker: Tracker, event: Event, now: Millis) -> (Tracker, Vec<Effect>) {
    let mut t = tracker;
    let mut fx = Vec::new();
    if matches!(t.state, State::Dead { .. }) {
        return (t, fx);
    }
    match event {
        Event::Token(Token::Text(bytes)) => {
            if let Some(run) = t.current.as_mut() {
                run.output.push(&bytes);
            } else if t.state == State::Idle
                && bytes.iter().any(|b| b.is_ascii_graphic() || *b >= 0x80)
            {
                t.typed_text = true;
            }
        }
        Event::Token(Token::AltScreen(on)) => {
            t.alt_screen = on;
            if let (true, Some(run)) = (on, t.current.as_mut()) {
                run.alt_screen = true;
            }
        }
        // OSC 7 and 633 `P;Cwd=` carry no nonce: any output can print
        // them. The cwd comes from the shell's own nonce'd `P` mark only.
        Event::Token(Token::Cwd(_)) => {}
        Event::Token(Token::Mark(mark)) => {
            if t.trust.accepts(&mark) && hop::before_mark(&mut t, &mark, now, &mut fx) {
                on_mark(&mut t, mark, now, &mut fx);
            }
        }
        Event::NonceLearned { pid, nonce } => t.trust.learned(pid, nonce, now),
        Event::HopLearned { pid, host } => t.hops.learned(pid, host),
        Event::HandedOff => t.restore = Restore::AfterNextRun,
        Event::Submitted { text } => {
            if t.state == State::Idle {
                let id = SubmitId(t.next_submit);
                t.next_submit += 1;
                t.prompted_while_submitted = false;
                t.state = State::Submitted { id, text, at: now };
                fx.push(Effect::StartSubmitTimer {
                    id,
                    after_ms: t.config.submit_timeout_ms,
                });
            }
        }
        Event::SubmittedUnverified { text } => {
            if !matches!(t.state, State::Running | State::Submitted { .. }) {
                let id = SubmitId(t.next_submit);
                t.next_submit += 1;
                let before =
                    std::mem::replace(&mut t.state, State::Submitted { id, text, at: now });
                t.unverified = Some((id, Box::new(before)));
                fx.push(Effect::StartSubmitTimer {
                    id,
                    after_ms: t.config.submit_timeout_ms,
                });
            }
        }
        Event::SubmitTimerExpired { id, changed } => {
            let unverified = match t.unverified.take() {
                Some((uid, before)) if uid == id => Some(*before),
                other => {
                    t.unverified = other;
                    None
                }
            };
            if matches!(&t.state, State::Submitted { id: sid, .. } if *sid == id) {
                if std::mem::take(&mut t.prompted_while_submitted) {
                    // The integrated shell drew a prompt and never started it.
                    t.state = State::Idle;
                    fx.push(Effect::SubmitNotStarted {
                        id,
                        why: NotStarted::PromptInstead,
                    });
                } else if changed {
                    t.state = State::Absent;
                    set_integration(&mut t, Integration::Absent, &mut fx);
                    fx.push(Effect::SubmitNotStarted {
                        id,
                        why: NotStarted::IntegrationAbsent,
                    });
                } else {
                    // A verified submit came from Idle; an unverified one goes
                    // back to what was known before it.
                    t.state = unverified.unwrap_or(State::Idle);
                    fx.push(Effect::SubmitNotStarted {
                        id,
                        why: NotStarted::EnterLost,
                    });
                }
            }
        }
        Event::IntegrationAnnounced => {
            set_integration(&mut t, Integration::Present, &mut fx);
            if t.state == State::Absent {
                t.state = State::Unknown;
            }
        }
        Event::StartQuiet { changed } => {
            if changed && t.state == State::Unknown && t.integration == Integration::Unknown {
                t.state = State::Absent;
                set_integration(&mut t, Integration::Absent, &mut fx);
            }
        }
        Event::Resized { width } => t.width = width,
        Event::PipeClosed { fate } => match fate {
            PaneFate::Alive => {}
            PaneFate::Dead { status } => pane_died(&mut t, status, now, &mut fx),
            PaneFate::Gone => pane_died(&mut t, None, now, &mut fx),
        },
        Event::OutputLost { bytes } => match (&t.state, t.current.as_mut()) {
            (State::Running, Some(run)) => run.output.note_lost(bytes),
            // A C (or the next A/B) may be among the lost bytes.
            (State::Idle | State::Prompt | State::Finished, _) => t.state = State::Unknown,
            // Submitted: the submission's timer decides; Unknown and Absent
            // stay as they are.
            _ => {}
        },
        Event::Detached => {
            hop::forget(&mut t);
            close_run(&mut t, None, EndReason::Detached, now, &mut fx);
            not_started(&mut t, NotStarted::EnterLost, &mut fx);
            t.state = State::Unknown;
        }
    }
    (t, fx)
}

fn set_integration(t: &mut Tracker, integration: Integration, fx: &mut Vec<Effect>) {
    if t.integration != integration {
        t.integration = integration;
        fx.push(Effect::IntegrationChanged { integration });
    }
}

fn pane_died(t: &mut Tracker, status: Option<i32>, now: Millis, fx: &mut Vec<Effect>) {
    close_run(t, None, EndReason::PaneDied { status }, now, fx);
    not_started(t, NotStarted::PaneDied, fx);
    t.state = State::Dead { status };
    fx.push(Effect::PaneDied { status });
}

/// Reports a pending submission as not started (if there is one).
fn not_started(t: &mut Tracker, why: NotStarted, fx: &mut Vec<Effect>) {
    if let State::Submitted { id, .. } = t.state {
        fx.push(Effect::SubmitNotStarted { id, why });
    }
}

/// Closes the current run, if any. A run is closed at most once: it leaves `current`.
fn close_run(
    t: &mut Tracker,
    exit: Option<i32>,
    reason: EndReason,
    now: Millis,
    fx: &mut Vec<Effect>,
) {
    if let Some(mut run) = t.current.take() {
        run.exit = exit;
        run.end_reason = Some(reason);
        run.ended_at = Some(now);
        fx.push(Effect::RunFinished { id: run.id });
        if let Some(previous) = t.last.replace(run) {
            t.earlier.push_back(previous);
            while t.earlier.len() > EARLIER_RUNS {
                t.earlier.pop_front();
            }
        }
    }
}

/// Convenience: feed a whole token list, collecting effects.
pub fn step_all(
    tracker: Tracker,
    tokens: impl IntoIterator<Item = Token>,
    now: Millis,
    effects: &mut Vec<Effect>,
) -> Tracker {
    let mut t = tracker;
    for token in tokens {
        let (next, fx) = step(t, Event::Token(token), now);
        t = next;
        effects.extend(fx);
    }
    t
}

#[cfg(test)]
#[path = "tracker_tests.rs"]
mod tests;
