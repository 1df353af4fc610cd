//! A question the agent asks the user (the session endpoint's
//! `request_user_input`): shown as a card above the editor until the user
//! answers (a choice, or what they typed when free-form answers are
//! allowed), cancels (Esc), or the agent's side withdraws it. One at a
//! time per pane. Like every card, it ignores its keys until it has been
//! visible for a short grace period (`guard.rs`), so typing in progress is
//! never taken as an answer.

use std::time::Instant;

use wta_i18n::tr;

use super::card_enter::{CardEnter, QuestionEnter};
use super::commands;
use super::effects::Effect;
use super::events::{Key, KeyCode, Mods};
use super::guard;
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
pub(crate) fn ask(state: &mut AppState, request: QuestionRequest) {
    state.question = Some(PendingQuestion {
        request,
        selected: 0,
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

/// What a key does on the question card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuestionKey {
    /// Move the highlight (wrapping).
    Move(isize),
    Answer,
    Dismiss,
}

/// The question card's key map; `None` for keys it leaves to the editor.
fn key_of(q: &PendingQuestion, key: Key) -> Option<QuestionKey> {
    let choices = !q.request.choices.is_empty();
    match key.code {
        KeyCode::Up if choices => Some(QuestionKey::Move(-1)),
        KeyCode::Down if choices => Some(QuestionKey::Move(1)),
        KeyCode::Enter if key.mods == Mods::NONE => Some(QuestionKey::Answer),
        // Like every card's, whatever the draft holds (`card_enter.rs`).
        KeyCode::Esc => Some(QuestionKey::Dismiss),
        _ => None,
    }
}

/// Keys for the question card (on top); false lets the key through (to the
/// editor). Before the card is armed its keys are taken and do nothing.
pub(crate) fn on_key(state: &mut AppState, key: Key, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let Some(action) = state.question.as_ref().and_then(|q| key_of(q, key)) else {
        return false;
    };
    if !guard::admit(state, now) {
        return true;
    }
    let enter = state.card_enter(now);
    let typed = state.input.text().trim().to_owned();
    let Some(q) = state.question.as_mut() else {
        return false;
    };
    let count = q.request.choices.len();
    match action {
        QuestionKey::Move(delta) => {
            q.selected = (q.selected as isize + delta).rem_euclid(count.max(1) as isize) as usize;
        }
        QuestionKey::Answer => {
            let answer = match (enter, q.request.choices.get(q.selected)) {
                (Some(CardEnter::Question(QuestionEnter::Typed)), _) => {
                    state.input.clear();
                    QuestionAnswer::Answered {
                        text: typed,
                        index: None,
                    }
                }
                (Some(CardEnter::Question(QuestionEnter::Choice)), Some(choice)) => {
                    QuestionAnswer::Answered {
                        text: choice.clone(),
                        index: Some(q.selected),
                    }
                }
                // Free-form only, nothing typed yet: keep waiting.
                _ => return true,
            };
            answer_with(state, answer, fx);
        }
        QuestionKey::Dismiss => answer_with(state, QuestionAnswer::Cancelled, fx),
    }
    true
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
