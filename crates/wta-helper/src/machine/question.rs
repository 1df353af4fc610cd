//! The agent's questions on the machine (`request_user_input` through the
//! session endpoint): one at a time, only for this pane's session; shown
//! in the app until the user answers or dismisses it, and withdrawn when
//! the turn is cancelled, the session is replaced or its agent dies, or
//! the caller went away. Every question is answered exactly once.

use wta_protocol::session_tools::{UserInputArgs, UserInputOutcome};
use wta_state::{DomainEvent, QuestionAnswer, QuestionRequest};

use super::command::Command;
use super::input::RequestKey;
use super::{Machine, Out};

/// The question up in this pane: its key (the held request) and the
/// master's id for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    pub key: RequestKey,
    pub request: u64,
}

impl Machine {
    /// `_wta/user_input` for `session`.
    pub(super) fn question(
        &mut self,
        key: RequestKey,
        session: &str,
        request: u64,
        input: UserInputArgs,
        out: &mut Out,
    ) {
        let unavailable = |reason: &str| Command::AnswerQuestion {
            key,
            outcome: UserInputOutcome::Unavailable {
                reason: reason.to_owned(),
            },
        };
        if self.pane.session.as_ref().is_none_or(|s| *s.0 != *session) {
            return out.cmd(unavailable(
                "that session is not the one open in this agent pane",
            ));
        }
        if self.pane.question.is_some() {
            return out.cmd(unavailable("another question is waiting for the user"));
        }
        if let Err(err) = input.validate() {
            return out.cmd(unavailable(&err.to_string()));
        }
        self.pane.question = Some(Asked { key, request });
        out.event(DomainEvent::Question(QuestionRequest {
            id: key.0,
            question: input.question,
            choices: input.choices,
            allow_freeform: input.allow_freeform,
        }));
    }

    /// The user answered (or dismissed) the question shown as `id`.
    pub(super) fn question_answered(&mut self, id: u64, answer: QuestionAnswer, out: &mut Out) {
        let Some(asked) = self.pane.question.filter(|a| a.key.0 == id) else {
            return;
        };
        self.pane.question = None;
        let outcome = match answer {
            QuestionAnswer::Answered { text, index } => UserInputOutcome::Answered {
                answer: text,
                selected_index: index,
            },
            QuestionAnswer::Cancelled => UserInputOutcome::Cancelled,
        };
        out.cmd(Command::AnswerQuestion {
            key: asked.key,
            outcome,
        });
    }

    /// `_wta/user_input_gone`: the caller stopped waiting.
    pub(super) fn question_gone(&mut self, session: &str, request: u64, out: &mut Out) {
        let ours = self.pane.session.as_ref().is_some_and(|s| *s.0 == *session);
        if ours && self.pane.question.is_some_and(|a| a.request == request) {
            self.withdraw_question(&wta_i18n::tr!("helper.question.agent_stopped_waiting"), out);
        }
    }

    /// Takes the question down (`why` is shown) and answers it cancelled.
    pub(super) fn withdraw_question(&mut self, why: &str, out: &mut Out) {
        if let Some(asked) = self.pane.question.take() {
            out.cmd(Command::AnswerQuestion {
                key: asked.key,
                outcome: UserInputOutcome::Cancelled,
            });
            out.event(DomainEvent::QuestionWithdrawn {
                id: asked.key.0,
                why: why.to_owned(),
            });
        }
    }
}
