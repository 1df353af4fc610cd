//! Autofix in the agent pane: a failure shows the pill, Ctrl+F and `/fix
//! [hint]` start one turn about it (never while another runs, never twice),
//! and with no failure they say so instead of sending anything.

use std::time::Instant;

use super::*;

fn ready() -> AppState {
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
    state
}

fn failure(generation: u64) -> FailureNotice {
    FailureNotice {
        generation,
        pane: "%3".into(),
        command: Some("cargo tset".into()),
        exit_code: 101,
    }
}

fn key(state: &mut AppState, key: Key) -> Vec<Effect> {
    update(state, Event::Key(key), Instant::now())
}

fn typed(state: &mut AppState, text: &str) -> Vec<Effect> {
    let mut fx: Vec<Effect> = text.chars().flat_map(|c| key(state, Key::ch(c))).collect();
    fx.extend(key(state, Key::plain(KeyCode::Enter)));
    fx
}

fn fix_effects(fx: &[Effect]) -> Vec<&Effect> {
    fx.iter()
        .filter(|e| matches!(e, Effect::Fix { .. }))
        .collect()
}

fn last_user(state: &AppState) -> Option<String> {
    state
        .transcript
        .entries()
        .iter()
        .rev()
        .find_map(|e| match &e.item {
            Item::User(text) => Some(text.clone()),
            _ => None,
        })
}

#[test]
fn a_failure_shows_the_pill_and_ctrl_f_starts_one_fix_turn() {
    let mut state = ready();
    update(
        &mut state,
        Event::Domain(DomainEvent::Failure(failure(1))),
        Instant::now(),
    );
    update(
        &mut state,
        Event::Domain(DomainEvent::Failure(failure(2))),
        Instant::now(),
    );
    assert_eq!(
        state.failure.as_ref().map(|f| f.generation),
        Some(2),
        "the newest wins"
    );

    let fx = key(&mut state, Key::ctrl('f'));
    assert_eq!(
        fix_effects(&fx),
        [&Effect::Fix {
            generation: 2,
            hint: None
        }]
    );
    assert!(
        fx.iter().all(|e| !matches!(e, Effect::SendPrompt(_))),
        "{fx:?}"
    );
    assert_eq!(
        last_user(&state).as_deref(),
        Some("Fix: `cargo tset` failed (exit 101) in %3")
    );
    assert!(
        state.failure.is_none(),
        "the pill goes once the fix started"
    );
    assert!(state.transcript.turn_running());
    // A second Ctrl+F has nothing to fix and sends nothing.
    assert!(fix_effects(&key(&mut state, Key::ctrl('f'))).is_empty());
}

#[test]
fn slash_fix_carries_the_hint_and_waits_for_a_running_turn() {
    let mut state = ready();
    typed(&mut state, "hello");
    assert!(state.transcript.turn_running());
    update(
        &mut state,
        Event::Domain(DomainEvent::Failure(failure(4))),
        Instant::now(),
    );

    let fx = typed(&mut state, "/fix use the nightly toolchain");
    assert!(fix_effects(&fx).is_empty(), "not during a turn: {fx:?}");
    assert!(state.failure.is_some(), "the failure is kept for later");

    update(
        &mut state,
        Event::Domain(DomainEvent::TurnEnded(StopReason::EndTurn)),
        Instant::now(),
    );
    let fx = typed(&mut state, "/fix use the nightly toolchain");
    assert_eq!(
        fix_effects(&fx),
        [&Effect::Fix {
            generation: 4,
            hint: Some("use the nightly toolchain".into())
        }]
    );
    assert_eq!(
        last_user(&state).as_deref(),
        Some("Fix: `cargo tset` failed (exit 101) in %3 (use the nightly toolchain)")
    );
}

#[test]
fn without_a_failure_fix_says_so_and_ctrl_f_is_free() {
    let mut state = ready();
    let fx = typed(&mut state, "/fix");
    assert!(fix_effects(&fx).is_empty());
    let said = state
        .transcript
        .entries()
        .iter()
        .rev()
        .find_map(|e| match &e.item {
            Item::System { text, .. } => Some(text.clone()),
            _ => None,
        });
    assert!(said.is_some_and(|t| t.contains("Nothing to fix")));
    assert!(fix_effects(&key(&mut state, Key::ctrl('f'))).is_empty());
}

#[test]
fn a_fix_needs_an_agent() {
    let mut state = AppState::new("demo");
    update(
        &mut state,
        Event::Domain(DomainEvent::Failure(failure(1))),
        Instant::now(),
    );
    assert!(fix_effects(&typed(&mut state, "/fix")).is_empty());
    assert!(state.failure.is_some());
}
