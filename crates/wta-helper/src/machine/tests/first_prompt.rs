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

/// The master went away and the user reconnected: an agent that loads
/// sessions gets this pane's own session back (`session/load`); when that
/// fails, a new session opens and the pane says why.
#[test]
fn a_reconnected_pane_resumes_its_session_or_says_why_not() {
    let mut m = Machine::new(config());
    m.start(t0());
    step(
        &mut m,
        Input::Linked(Box::new(Ok(Linked {
            agent_id: Some("custom:test".into()),
            auth: Vec::new(),
            master_pid: Some(7),
            loads_sessions: true,
        }))),
        t0(),
    );
    step(&mut m, opened("s1", json!({})), t0());
    step(&mut m, Input::MasterClosed, t0());
    assert!(m.pane.session.is_none());
    step(
        &mut m,
        Input::MasterExplained {
            why: "killed".into(),
        },
        t0(),
    );
    let enter = step(
        &mut m,
        Input::App(Event::Key(wta_state::Key::plain(wta_state::KeyCode::Enter))),
        t0(),
    );
    assert!(enter.contains(&Command::StartMaster), "{enter:?}");
    step(&mut m, Input::MasterStarted(Ok(())), t0());
    let relinked = step(
        &mut m,
        Input::Linked(Box::new(Ok(Linked {
            agent_id: Some("custom:test".into()),
            auth: Vec::new(),
            master_pid: Some(8),
            loads_sessions: true,
        }))),
        t0(),
    );
    assert!(
        relinked
            .iter()
            .any(|c| matches!(c, Command::LoadSession { session, .. } if *session == sid("s1"))),
        "{relinked:?}"
    );
    assert_eq!(
        m.pane.session,
        Some(sid("s1")),
        "its replayed updates are current"
    );
    let failed = step(
        &mut m,
        Input::SessionOpened {
            agent: "custom:test".into(),
            result: Box::new(Err(ConnectionError::MasterClosed)),
        },
        t0(),
    );
    assert!(
        failed
            .iter()
            .any(|c| matches!(c, Command::OpenSession { .. })),
        "a new session instead: {failed:?}"
    );
}
