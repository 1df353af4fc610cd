//! The agent's question in the pane: keys wait out the grace period, ↑↓
//! choose, Enter answers with the choice (or with what was typed, when
//! free-form answers are allowed), Esc dismisses, and a withdrawn question
//! goes with a note.

use std::time::{Duration, Instant};

use super::*;

fn asked(choices: &[&str], allow_freeform: bool) -> (AppState, Instant) {
    let mut state = AppState::new("demo");
    let now = Instant::now();
    update(
        &mut state,
        Event::Domain(DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: None,
        }),
        now,
    );
    update(
        &mut state,
        Event::Domain(DomainEvent::Question(QuestionRequest {
            id: 9,
            question: "Which branch?".into(),
            choices: choices.iter().map(|c| (*c).to_owned()).collect(),
            allow_freeform,
        })),
        now,
    );
    (state, now + Duration::from_secs(1))
}

fn key(state: &mut AppState, key: Key, now: Instant) -> Vec<Effect> {
    update(state, Event::Key(key), now)
}

fn answers(fx: &[Effect]) -> Vec<(u64, QuestionAnswer)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::AnswerQuestion { id, answer } => Some((*id, answer.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn arrows_choose_and_enter_answers_with_the_choice() {
    let (mut state, now) = asked(&["main", "dev", "release"], false);
    assert_eq!(
        state.activity(),
        Activity::WaitingForYou(UserWait::Question)
    );
    key(&mut state, Key::plain(KeyCode::Up), now);
    key(&mut state, Key::plain(KeyCode::Up), now);
    let fx = key(&mut state, Key::plain(KeyCode::Enter), now);
    assert_eq!(
        answers(&fx),
        [(
            9,
            QuestionAnswer::Answered {
                text: "dev".into(),
                index: Some(1)
            }
        )]
    );
    assert!(state.question.is_none());
    assert!(
        fx.iter().all(|e| !matches!(e, Effect::SendPrompt(_))),
        "not a prompt: {fx:?}"
    );
}

#[test]
fn a_typed_answer_is_taken_when_free_form_is_allowed() {
    let (mut state, now) = asked(&["main"], true);
    for c in "feature/x".chars() {
        key(&mut state, Key::ch(c), now);
    }
    let fx = key(&mut state, Key::plain(KeyCode::Enter), now);
    assert_eq!(
        answers(&fx),
        [(
            9,
            QuestionAnswer::Answered {
                text: "feature/x".into(),
                index: None
            }
        )]
    );
    assert!(state.input.is_empty(), "the answer left the editor");

    // Free-form only: Enter on an empty editor waits.
    let (mut state, now) = asked(&[], true);
    assert!(answers(&key(&mut state, Key::plain(KeyCode::Enter), now)).is_empty());
    assert!(state.question.is_some());
}

#[test]
fn esc_dismisses_and_keys_wait_for_the_grace_period() {
    let (mut state, now) = asked(&["yes", "no"], false);
    let early = now - Duration::from_millis(900);
    assert!(answers(&key(&mut state, Key::plain(KeyCode::Enter), early)).is_empty());
    assert!(
        state.question.is_some(),
        "an Enter typed as it appeared is not an answer"
    );
    let fx = key(&mut state, Key::plain(KeyCode::Esc), now);
    assert_eq!(answers(&fx), [(9, QuestionAnswer::Cancelled)]);
}

#[test]
fn a_withdrawn_question_goes_with_a_note() {
    let (mut state, now) = asked(&["yes"], false);
    update(
        &mut state,
        Event::Domain(DomainEvent::QuestionWithdrawn {
            id: 8,
            why: "other".into(),
        }),
        now,
    );
    assert!(state.question.is_some(), "another id leaves it");
    update(
        &mut state,
        Event::Domain(DomainEvent::QuestionWithdrawn {
            id: 9,
            why: "the agent stopped waiting".into(),
        }),
        now,
    );
    assert!(state.question.is_none());
    assert!(answers(&key(&mut state, Key::plain(KeyCode::Enter), now)).is_empty());
}
