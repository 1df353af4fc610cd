//! A question the agent asks the user (the session endpoint's
//! `request_user_input`): shown as a card above the editor until the user
//! answers (a choice, or what they typed when free-form answers are
//! allowed), cancels (Esc), or the agent's side withdraws it. One at a
//! time per pane. Like the permission card, it ignores keys for a short
//! grace period after it appears, so typing in progress is never taken as
//! an answer.

use std::time::Instant;

use wta_i18n::tr;

use super::commands;
use super::effects::Effect;
use super::events::{Key, KeyCode};
use super::permission::PERMISSION_GRACE;
use super::state::AppState;
use super::transcript::SystemLevel;

/// What the agent asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionRequest {
    /// The driver's id for it (answers name it).
    pub id: u64,
    pub question: String,
    pub choices: Vec<String>,
    pub allow_freeform: bool,
}

/// The question on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingQuestion {
    pub request: QuestionRequest,
    /// Highlighted choice.
    pub selected: usize,
    pub since: Instant,
}

impl PendingQuestion {
    /// Whether keys reach the card yet.
    pub fn accepts_keys(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.since) >= PERMISSION_GRACE
    }
}

/// How the user answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionAnswer {
    /// `index`: the choice picked; `None` for a typed answer.
    Answered {
        text: String,
        index: Option<usize>,
    },
    Cancelled,
}

/// The agent asks: shown unless a question is already up (the driver
/// refuses a second one before it gets here).
pub(crate) fn ask(state: &mut AppState, request: QuestionRequest, now: Instant) {
    state.question = Some(PendingQuestion {
        request,
        selected: 0,
        since: now,
    });
}

/// The agent's side took the question back (`why` says so).
pub(crate) fn withdraw(state: &mut AppState, id: u64, why: &str) {
    if state.question.as_ref().is_some_and(|q| q.request.id == id) {
        state.question = None;
        state.transcript.push_system(
            SystemLevel::Info,
            &tr!("chat.question.withdrawn", why = why),
        );
    }
}

/// Keys for the question card; false lets the key through (to the editor).
pub(crate) fn on_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let Some(q) = state.question.as_mut().filter(|q| q.accepts_keys(now)) else {
        return false;
    };
    let count = q.request.choices.len();
    match key.code {
        KeyCode::Up if count > 0 => {
            q.selected = q.selected.checked_sub(1).unwrap_or(count - 1);
            true
        }
        KeyCode::Down if count > 0 => {
            q.selected = (q.selected + 1) % count;
            true
        }
        KeyCode::Enter if key.mods == super::events::Mods::NONE => {
            let typed = state.input.text().trim().to_owned();
            let answer = if q.request.allow_freeform && !typed.is_empty() {
                QuestionAnswer::Answered {
                    text: typed,
                    index: None,
                }
            } else if let Some(choice) = q.request.choices.get(q.selected) {
                QuestionAnswer::Answered {
                    text: choice.clone(),
                    index: Some(q.selected),
                }
            } else {
                // Free-form only, nothing typed yet: keep waiting.
                return true;
            };
            if matches!(answer, QuestionAnswer::Answered { index: None, .. }) {
                state.input.clear();
            }
            answer_with(state, answer, fx);
            true
        }
        KeyCode::Esc if state.input.is_empty() => {
            answer_with(state, QuestionAnswer::Cancelled, fx);
            true
        }
        _ => false,
    }
}

fn answer_with(state: &mut AppState, answer: QuestionAnswer, fx: &mut Vec<Effect>) {
    let Some(q) = state.question.take() else {
        return;
    };
    let said = match &answer {
        QuestionAnswer::Answered { text, .. } => tr!("chat.question.answered", text = text),
        QuestionAnswer::Cancelled => tr("chat.question.dismissed", &[]),
    };
    commands::info(state, &said);
    fx.push(Effect::AnswerQuestion {
        id: q.request.id,
        answer,
    });
}
