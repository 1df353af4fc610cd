//! A delegate pane's task: sent as the user's first prompt once the first
//! session is open (not before: readiness, not a delay), shown as the
//! user's message, and never again for a later session.

use super::*;

fn prompts(commands: &[Command]) -> Vec<String> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::Prompt { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_first_prompt_waits_for_the_session_and_goes_once() {
    let mut m = Machine::new(PaneConfig {
        first_prompt: Some("fix the flaky tests".into()),
        ..config()
    });
    let mut early = m.start(t0());
    early.extend(step(&mut m, linked(), t0()));
    assert!(
        prompts(&early).is_empty(),
        "nothing before the session: {early:?}"
    );
    let opened_now = step(&mut m, opened("s1", json!({})), t0());
    let sent = prompts(&opened_now);
    assert_eq!(sent.len(), 1, "{opened_now:?}");
    assert!(sent[0].starts_with("fix the flaky tests"), "{sent:?}");
    assert!(m.app.transcript.turn_running());
    assert!(
        m.app
            .transcript
            .entries()
            .iter()
            .any(|e| matches!(&e.item, Item::User(t) if t == "fix the flaky tests"))
    );
    step(&mut m, finished("s1", AcpStop::EndTurn), t0());
    submit(&mut m, "/new");
    let again = step(&mut m, opened("s2", json!({})), t0());
    assert!(prompts(&again).is_empty(), "once only: {again:?}");
}
