//! Autofix on the machine: which finished commands are failures worth a fix,
//! the pill, and the fix turn.
//!
//! A command counts when it ended with a non-zero exit other than 130 (the
//! user's Ctrl+C) in a shell pane of the tab that is not this agent pane,
//! and WTA did not type it itself (a confirmed card's result already went to
//! the agent). Each such failure gets the next generation number and
//! replaces the last one; the app shows it as a pill (`DomainEvent::Failure`)
//! and, when this pane is not seen, tmux says it in the user's client. The
//! fix turn (`/fix`, Ctrl+F, `wta fix`, or at once in `auto` mode) carries the
//! generation it is about: a card that arrives from it after a newer failure
//! is dropped, and its one `send` can only go to the failing pane (the
//! proposal engine takes the target from the turn).

use wta_protocol::{Origin, PaneId};
use wta_shell::Finished;
use wta_state::{DomainEvent, Event, FailureNotice, Scripted, StopReason};

use super::command::Command;
use super::{Link, Machine, Out};
use crate::autofix::AutofixMode;
use crate::autofix::prompt::FixTurn;
use crate::autofix::request::{FixAnswer, ReplyToken};

/// Exit of a command the user interrupted (Ctrl+C): not a failure.
const INTERRUPTED: i32 = 130;

/// The failure a fix turn can be about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub generation: u64,
    pub pane: PaneId,
    pub finished: Finished,
}

/// Autofix state of one pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Autofix {
    pub mode: AutofixMode,
    /// Failures seen so far.
    pub generation: u64,
    /// The newest failure, until a fix turn takes it.
    pub failure: Option<Failure>,
    /// The generation the running fix turn is about.
    pub fix_turn: Option<u64>,
}

impl Machine {
    /// A command finished in `pane`.
    pub(super) fn command_finished(
        &mut self,
        pane: PaneId,
        finished: Finished,
        now: std::time::Instant,
        out: &mut Out,
    ) {
        let autofix = &self.pane.autofix;
        let exit = finished.record.exit_code.unwrap_or(0);
        let own = self.pane.config.own_pane.as_ref() == Some(&pane);
        if autofix.mode == AutofixMode::Off
            || own
            || finished.dispatched
            || exit == 0
            || exit == INTERRUPTED
        {
            return;
        }
        let generation = autofix.generation + 1;
        let notice = FailureNotice {
            generation,
            pane: pane.to_string(),
            command: finished.record.cmdline.clone(),
            exit_code: exit,
        };
        self.pane.autofix.generation = generation;
        self.pane.autofix.failure = Some(Failure {
            generation,
            pane,
            finished,
        });
        if !self.pane.visible {
            out.cmd(Command::Notify {
                text: format!(
                    "wta: {} (open the agent pane and press Ctrl+F to fix it)",
                    notice.describe()
                ),
            });
        }
        out.event(DomainEvent::Failure(notice));
        if self.pane.autofix.mode == AutofixMode::Auto && !self.app.transcript.turn_running() {
            self.settle_now(out, now);
            self.app_event(Event::Script(Scripted::Submit("/fix".into())), now, out);
        }
    }

    /// `wta fix [-t PANE] [--hint TEXT]`: as `/fix`, for the failure in
    /// `pane`; what became of it goes back under `reply`.
    pub(super) fn fix_requested(
        &mut self,
        pane: Option<PaneId>,
        hint: Option<String>,
        reply: Option<ReplyToken>,
        now: std::time::Instant,
        out: &mut Out,
    ) {
        let answer = self.fix_for(pane, hint, now, out);
        if let Some(reply) = reply {
            out.cmd(Command::AnswerFix { reply, answer });
        }
    }

    fn fix_for(
        &mut self,
        pane: Option<PaneId>,
        hint: Option<String>,
        now: std::time::Instant,
        out: &mut Out,
    ) -> FixAnswer {
        let failure = self.pane.autofix.failure.as_ref();
        if let (Some(wanted), Some(failure)) = (&pane, failure)
            && *wanted != failure.pane
        {
            out.error(wta_i18n::tr!(
                "helper.fix.other_pane",
                wanted = wanted,
                last = failure.pane
            ));
            return FixAnswer::OtherPane {
                last: failure.pane.clone(),
            };
        }
        let about = failure.map(|f| f.pane.clone());
        let text = match hint {
            Some(hint) => format!("/fix {hint}"),
            None => "/fix".to_owned(),
        };
        self.settle_now(out, now);
        let (before, busy) = (
            self.pane.autofix.fix_turn,
            self.app.transcript.turn_running(),
        );
        self.app_event(Event::Script(Scripted::Submit(text)), now, out);
        // The app decided (it says why in the pane); the answer tells the
        // caller the same, from the same state.
        let started = self
            .pane
            .autofix
            .fix_turn
            .is_some_and(|g| before != Some(g));
        match about {
            Some(pane) if started => FixAnswer::Started { pane },
            _ if self.pane.link != Link::Up => FixAnswer::NoMaster,
            None => FixAnswer::NothingToFix,
            Some(_) if busy => FixAnswer::TurnRunning,
            Some(_) => FixAnswer::NotReady,
        }
    }

    /// The app opened the fix turn for `generation`.
    pub(super) fn start_fix(&mut self, generation: u64, hint: Option<String>, out: &mut Out) {
        let failure = self
            .pane
            .autofix
            .failure
            .take()
            .filter(|f| f.generation == generation);
        let (Some(failure), Link::Up, Some(session)) =
            (failure, self.pane.link, self.pane.session.clone())
        else {
            out.error(wta_i18n::tr!("helper.fix.gone"));
            return out.event(DomainEvent::TurnEnded(StopReason::Cancelled));
        };
        self.pane.autofix.fix_turn = Some(generation);
        out.cmd(Command::FixPrompt {
            session,
            turn: Box::new(FixTurn {
                generation,
                pane: failure.pane,
                finished: failure.finished,
                hint,
            }),
        });
    }

    /// A card from an autofix turn about a failure older than the newest is
    /// dropped (true).
    pub(super) fn stale_fix_card(&self, origin: Origin) -> bool {
        origin == Origin::Autofix
            && self.pane.autofix.fix_turn != Some(self.pane.autofix.generation)
    }

    /// Applies the events `out` holds so far, so the app sees them before a
    /// scripted submission.
    fn settle_now(&mut self, out: &mut Out, now: std::time::Instant) {
        while let Some(event) = out.events.pop_front() {
            self.app_event(Event::Domain(event), now, out);
        }
    }
}
