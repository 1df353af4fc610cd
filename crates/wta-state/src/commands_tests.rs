//! Slash commands as a user types them (the popup open, one Enter), the
//! draft after a command that could not run, and what `/model`, `/agent`,
//! `/new`, `/restart` and the setup screen say back.

use super::test_pane::Pane;
use super::*;

impl Pane {
    /// The newest system line; the test expects one.
    fn said(&self) -> (SystemLevel, String) {
        self.last_system().expect("a system line")
    }

    fn with_agents(mut self) -> Self {
        self.domain(DomainEvent::Agents(vec![
            AgentChoice {
                id: "demo".into(),
                name: "demo".into(),
                install: None,
            },
            AgentChoice {
                id: "claude".into(),
                name: "claude".into(),
                install: Some("npm install -g @agentclientprotocol/claude-agent-acp".into()),
            },
        ]));
        self
    }

    fn with_models(mut self) -> Self {
        self.domain(DomainEvent::Models(vec![
            ModelChoice {
                id: "m1".into(),
                name: "Model One".into(),
            },
            ModelChoice {
                id: "m2".into(),
                name: "Model Two".into(),
            },
        ]));
        self
    }
}

/// Typed key by key, the popup shows the command; one Enter runs it.
#[test]
fn one_enter_runs_a_typed_command_with_the_popup_open() {
    let mut p = Pane::on_model(None).with_agents().with_models();
    for (line, want_picker) in [("/model", "Choose model"), ("/agent", "Switch agent")] {
        p.typed(line);
        assert!(!p.state.completions().is_empty(), "{line}: popup open");
        assert_eq!(p.enter(), [], "{line}");
        let picker = p.state.picker.take().expect("a picker");
        assert_eq!(picker.title, want_picker);
        assert!(p.state.input.is_empty(), "{line}: draft cleared");
    }
    p.typed("/sessions");
    assert!(!p.state.completions().is_empty());
    assert_eq!(p.enter(), [Effect::OpenSessions]);
    assert!(p.state.input.is_empty());
    p.typed("/yolo");
    assert!(!p.state.completions().is_empty());
    assert_eq!(p.enter(), [], "bare /yolo changes nothing");
    assert!(p.state.input.is_empty());
    let (_, text) = p.said();
    assert!(text.starts_with("Yolo is off"), "{text}");
    // A value typed in full runs as typed; a partial one takes the
    // highlighted completion; a partial command runs bare.
    p.typed("/yolo on");
    assert_eq!(p.enter(), [Effect::SetYolo(true)]);
    p.typed("/model m");
    assert!(!p.state.completions().is_empty());
    assert_eq!(p.enter(), [Effect::SetModel("m1".into())]);
    p.typed("/sess");
    assert_eq!(p.enter(), [Effect::OpenSessions]);
    // Tab still only completes.
    p.typed("/ne");
    p.send(Event::Key(Key::plain(KeyCode::Tab)));
    assert_eq!(p.state.input.text(), "/new");
}

/// After a command that could not run, the draft is selected: the next
/// command replaces it instead of being appended (`/yolo maybe/yolo on`).
#[test]
fn a_refused_command_is_selected_so_the_next_one_replaces_it() {
    let mut p = Pane::on_model(None);
    p.typed("/yolo maybe");
    assert_eq!(p.enter(), []);
    assert_eq!(p.said().0, SystemLevel::Warn);
    assert_eq!(p.state.input.text(), "/yolo maybe", "kept for fixing");
    assert_eq!(p.state.input.selection(), Some("/yolo maybe"));
    p.typed("/yolo on");
    assert_eq!(p.state.input.text(), "/yolo on");
    assert_eq!(p.enter(), [Effect::SetYolo(true)]);
    p.typed("/nope");
    p.state.popup_dismissed = true;
    assert_eq!(p.enter(), []);
    p.typed("/new");
    assert_eq!(p.enter(), [Effect::NewSession]);
    // Fixing instead of replacing: an arrow key ends the selection.
    p.typed("/clear all");
    p.enter();
    p.send(Event::Key(Key::plain(KeyCode::End)));
    for _ in 0.." all".len() {
        p.send(Event::Key(Key::plain(KeyCode::Backspace)));
    }
    assert_eq!(p.state.input.text(), "/clear");
}

/// `/model X` on an agent without a model choice: the refusal is all the
/// pane shows; the status line's model changes only once the agent agrees.
#[test]
fn the_model_shown_changes_only_when_the_agent_confirms() {
    let mut p = Pane::on_model(None);
    p.typed("/model gpt-5");
    assert_eq!(p.enter(), [Effect::SetModel("gpt-5".into())]);
    assert_eq!(p.state.model, None);
    p.domain(DomainEvent::Error(
        "This agent does not offer a model choice.".into(),
    ));
    assert_eq!(p.state.model, None, "never shown after a refusal");
    p.domain(DomainEvent::ModelChanged("gpt-5".into()));
    assert_eq!(p.state.model.as_deref(), Some("gpt-5"));
    assert_eq!(p.said().1, "Model: gpt-5");
}

/// The agent list has every allowed agent; a missing one shows its install
/// line in the picker and the popup, and a switch to it says how to install
/// it (the runtime checks again, so one installed meanwhile works).
#[test]
fn a_missing_agent_is_listed_with_its_install_line_and_not_switched_to() {
    let mut p = Pane::on_model(None).with_agents();
    p.typed("/agent");
    p.enter();
    let picker = p.state.picker.clone().expect("agent picker");
    let details: Vec<&str> = picker.items.iter().map(|i| i.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "demo",
            "not installed · npm install -g @agentclientprotocol/claude-agent-acp"
        ]
    );
    // Pick claude: the runtime is asked (it reads the registry again).
    p.send(Event::Key(Key::plain(KeyCode::Down)));
    assert_eq!(p.enter(), [Effect::SwitchAgent("claude".into())]);
    assert_eq!(p.state.pending, Some(Pending::SwitchAgent("claude".into())));
    p.domain(DomainEvent::AgentUnavailable {
        agent: "claude".into(),
        install: "npm install -g @agentclientprotocol/claude-agent-acp".into(),
    });
    let (level, text) = p.said();
    assert_eq!(level, SystemLevel::Warn);
    assert!(
        text.contains("claude is not installed")
            && text.contains("npm install -g @agentclientprotocol/claude-agent-acp"),
        "{text}"
    );
    assert_eq!(p.state.agent, "demo", "the pane stays with its agent");
    assert_eq!(p.state.pending, None);
    assert_eq!(p.state.activity(), Activity::Ready);
    p.typed("/agent nope");
    assert_eq!(p.enter(), []);
    assert!(p.said().1.contains("Known agents: demo, claude"));
}

/// Enter on the setup screen with a message typed: nothing is sent, and the
/// screen (which hides the transcript) says why and what to do.
#[test]
fn the_setup_screen_says_why_a_message_was_not_sent() {
    let mut p = Pane::on_model(None);
    p.domain(DomainEvent::AgentMissing {
        agent: "claude".into(),
        install_hint: "npm install -g @agentclientprotocol/claude-agent-acp".into(),
    });
    p.typed("hello there");
    assert_eq!(p.enter(), []);
    let notice = p.state.setup_notice.clone().expect("a notice");
    assert!(
        notice.starts_with("Not sent: claude is not installed yet"),
        "{notice}"
    );
    assert!(notice.contains("/restart"), "{notice}");
    assert_eq!(p.state.input.text(), "hello there", "the message is kept");
    let mut p = Pane::on_model(None);
    p.domain(DomainEvent::AuthRequired {
        agent: "gemini".into(),
        methods: vec![AuthMethod {
            id: "login".into(),
            name: "Log in".into(),
            description: None,
            terminal_command: None,
        }],
    });
    p.typed("hi");
    assert_eq!(p.enter(), []);
    let notice = p.state.setup_notice.clone().expect("a notice");
    assert!(
        notice.contains("gemini needs you to sign in first"),
        "{notice}"
    );
    // A session starting ends the setup screen and its notice.
    p.domain(DomainEvent::SessionStarted {
        agent: "gemini".into(),
        model: None,
    });
    assert_eq!(p.state.setup_notice, None);
}

/// `/new`, `/restart` and `/agent` say when they are done, or that they failed.
#[test]
fn new_restart_and_switch_say_when_they_finished() {
    let started = |p: &mut Pane, agent: &str| {
        p.domain(DomainEvent::SessionStarted {
            agent: agent.into(),
            model: None,
        });
        p.said().1
    };
    let mut p = Pane::on_model(None).with_agents();
    p.typed("/new");
    assert_eq!(p.enter(), [Effect::NewSession]);
    assert_eq!(p.said().1, "Starting a new session…");
    assert_eq!(started(&mut p, "demo"), "New session with demo ready.");
    assert_eq!(p.state.connection, ConnectionState::Ready);
    p.typed("/restart");
    assert_eq!(p.enter(), [Effect::Restart]);
    assert_eq!(
        started(&mut p, "demo"),
        "demo restarted: a new session is ready."
    );
    // A session that starts on its own (no command) says nothing more.
    let before = p.state.transcript.entries().len();
    started(&mut p, "demo");
    assert_eq!(p.state.transcript.entries().len(), before);
    // Failures name what failed.
    p.typed("/restart");
    p.enter();
    p.domain(DomainEvent::Connection(ConnectionState::Failed(
        "the agent exited at start. Type /restart to try again.".into(),
    )));
    let (level, text) = p.said();
    assert_eq!(level, SystemLevel::Error);
    assert_eq!(
        text,
        "Restarting demo failed: the agent exited at start. Type /restart to try again."
    );
    p.typed("/new");
    p.enter();
    p.domain(DomainEvent::AgentMissing {
        agent: "demo".into(),
        install_hint: "reinstall wta".into(),
    });
    assert_eq!(
        p.said().1,
        "Starting a new session failed: demo is not installed"
    );
    assert_eq!(p.state.pending, None);
}
