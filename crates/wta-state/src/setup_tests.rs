//! The setup screen through `update`: it waits without ticking and runs
//! the agent's sign-in.

use std::time::Instant;

use super::test_pane::Pane;
use super::*;

/// The setup screen waits for the user: no spinner, so no ticks (an idle
/// pane on it must not redraw ten times a second).
#[test]
fn the_setup_screen_needs_no_ticks() {
    let now = Instant::now();
    let mut state = AppState::new("claude");
    assert!(state.needs_tick(), "connecting shows a spinner");
    update(
        &mut state,
        Event::Domain(DomainEvent::AgentMissing {
            agent: "claude".into(),
            install_hint: "npm install -g @zed-industries/claude-code-acp".into(),
        }),
        now,
    );
    assert_eq!(state.activity(), Activity::Setup);
    assert!(!state.needs_tick());
}

#[test]
fn setup_screen_runs_terminal_auth_or_authenticate() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::AuthRequired {
        agent: "gemini".into(),
        methods: vec![
            AuthMethod {
                id: "key".into(),
                name: "API key".into(),
                description: None,
                terminal_command: None,
            },
            AuthMethod {
                id: "login".into(),
                name: "Log in".into(),
                description: None,
                terminal_command: Some(vec!["gemini".into(), "login".into()]),
            },
        ],
    });
    assert_eq!(p.state.activity(), Activity::Setup);
    assert_eq!(
        p.code(KeyCode::Enter),
        [Effect::Authenticate {
            agent: "gemini".into(),
            method: "key".into()
        }]
    );
    p.code(KeyCode::Down);
    assert_eq!(
        p.code(KeyCode::Enter),
        [Effect::RunAuthInWindow {
            agent: "gemini".into(),
            method: "login".into(),
            command: vec!["gemini".into(), "login".into()]
        }]
    );
    p.domain(DomainEvent::SessionStarted {
        agent: "gemini".into(),
        model: None,
    });
    assert_eq!(p.state.activity(), Activity::Ready);
}
