//! Screen snapshots (insta over ratatui's TestBackend) of the pane as
//! sessions and the master come and go: the master gone (the transcript
//! kept, the notice above the prompt), reconnecting, the divider after a
//! reconnect; and what commands say back: the setup screen refusing a
//! message, the agent picker with a missing agent, `/new` finishing, `/model`
//! refused. States come from the real reducer, as in the helper.

mod common;

use common::Fixture;
use wta_state::*;

const GONE: &str = "the wta master (pid 4242) is gone without shutting down: it was killed or crashed, and its socket /run/user/1000/wta/master-default.sock is left closed";

/// What the helper's session machine says once Enter had it start a master.
const RECONNECTING: DomainEvent =
    DomainEvent::Connection(ConnectionState::MasterLost { reconnecting: true });

fn gone() -> Fixture {
    let mut f = Fixture::ready();
    f.turn(
        "what does this repo do?",
        "It bridges tmux and coding agents.",
    );
    f.typed("and how do I run the tests");
    f.enter();
    f.domain(DomainEvent::AgentMessageChunk("Run `scripts/te".into()));
    f.domain(DomainEvent::MasterGone { why: GONE.into() });
    f
}

#[test]
fn the_master_gone_keeps_the_transcript_and_offers_to_reconnect() {
    let f = gone();
    for (w, h) in [(80, 24), (40, 24), (80, 10), (80, 7)] {
        insta::assert_snapshot!(format!("master_gone_{w}x{h}"), f.render(w, h));
    }
    let screen = f.render(80, 24);
    assert!(screen.contains("what does this repo do?"), "{screen}");
    assert!(screen.contains("killed or crashed"), "{screen}");
    assert!(screen.contains("Enter: start a new master"), "{screen}");
    assert!(screen.contains("Master gone"), "{screen}");
}

#[test]
fn reconnecting_shows_a_spinner() {
    let mut f = gone();
    assert_eq!(f.enter(), [Effect::Reconnect]);
    f.domain(RECONNECTING);
    f.at(300).send(Event::Tick);
    insta::assert_snapshot!("master_reconnecting_80x24", f.render(80, 24));
}

#[test]
fn after_a_reconnect_the_old_transcript_stays_above_a_divider() {
    let mut f = gone();
    f.enter();
    f.domain(RECONNECTING);
    f.domain(DomainEvent::Reconnected { new_master: true });
    f.domain(DomainEvent::SessionStarted {
        agent: "demo".into(),
        model: Some("demo-1".into()),
    });
    f.turn("hello again", "Hello! This is a new session.");
    let screen = f.render(80, 30);
    insta::assert_snapshot!("master_reconnected_80x30", screen);
    let order: Vec<usize> = [
        "what does this repo do?",
        "── reconnected to a new master ──",
        "A new session with demo is ready.",
        "hello again",
    ]
    .iter()
    .map(|needle| {
        screen
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}:\n{screen}"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{screen}");
}

#[test]
fn the_setup_screen_says_why_a_typed_message_was_not_sent() {
    let mut f = Fixture::ready();
    f.domain(DomainEvent::AgentMissing {
        agent: "claude".into(),
        install_hint: "npm install -g @agentclientprotocol/claude-agent-acp".into(),
    });
    f.typed("fix the build please");
    f.enter();
    insta::assert_snapshot!("setup_refused_80x24", f.render(80, 24));
    insta::assert_snapshot!("setup_refused_40x24", f.render(40, 24));
}

#[test]
fn the_agent_picker_marks_missing_agents_with_their_install_line() {
    let mut f = Fixture::ready();
    f.domain(DomainEvent::Agents(vec![
        AgentChoice {
            id: "copilot".into(),
            name: "copilot".into(),
            install: Some("npm install -g @github/copilot".into()),
        },
        AgentChoice {
            id: "claude".into(),
            name: "claude".into(),
            install: Some("npm install -g @agentclientprotocol/claude-agent-acp".into()),
        },
        AgentChoice {
            id: "demo".into(),
            name: "demo".into(),
            install: None,
        },
    ]));
    f.typed("/agent");
    f.enter();
    insta::assert_snapshot!("agent_picker_80x12", f.render(80, 12));
    // Choosing a missing one says how to install it; the pane stays.
    f.send(Event::Key(Key::plain(KeyCode::Up)));
    assert_eq!(f.enter(), [Effect::SwitchAgent("claude".into())]);
    f.domain(DomainEvent::AgentUnavailable {
        agent: "claude".into(),
        install: "npm install -g @agentclientprotocol/claude-agent-acp".into(),
    });
    insta::assert_snapshot!("agent_missing_80x12", f.render(80, 12));
}

#[test]
fn new_says_when_the_session_is_ready() {
    let mut f = Fixture::ready();
    f.turn("hi", "Hello!");
    f.typed("/new");
    assert_eq!(f.enter(), [Effect::NewSession]);
    f.domain(DomainEvent::SessionStarted {
        agent: "demo".into(),
        model: Some("demo-1".into()),
    });
    insta::assert_snapshot!("new_ready_80x12", f.render(80, 12));
}

#[test]
fn a_refused_model_never_reaches_the_status_line() {
    let mut f = Fixture::ready();
    f.typed("/model gpt-5");
    assert_eq!(f.enter(), [Effect::SetModel("gpt-5".into())]);
    f.domain(DomainEvent::Error(
        "This agent does not offer a model choice.".into(),
    ));
    let screen = f.render(80, 12);
    insta::assert_snapshot!("model_refused_80x12", screen);
    let status = screen.lines().last().unwrap();
    assert!(status.contains("demo-1"), "{status}");
    assert!(!status.contains("gpt-5"), "{status}");
}

/// A message typed while the agent connects is not refused: it waits above
/// the prompt, saying it goes once connected, while the status line counts
/// the wait; the session opening sends it.
#[test]
fn a_message_typed_while_connecting_waits_and_goes_once_connected() {
    let mut f = Fixture::connecting();
    f.at(0).send(Event::Tick);
    f.at(3_200);
    f.typed("hello there");
    assert!(f.enter().is_empty(), "not sent yet");
    let screen = f.render(80, 10);
    let status = screen.lines().last().unwrap();
    assert!(
        status.contains("Connecting") && status.contains("3s"),
        "{status}"
    );
    assert!(screen.contains("queued: hello there"), "{screen}");
    assert!(screen.contains("sent once connected"), "{screen}");
    assert!(!screen.contains("Not connected"), "{screen}");
    let sent = f.domain(DomainEvent::SessionStarted {
        agent: "demo".into(),
        model: None,
    });
    assert_eq!(sent, [Effect::SendPrompt("hello there".into())]);
    assert!(!f.render(80, 10).contains("queued:"));
}
