//! Slash commands through `update`: the popup, each command's effects,
//! the pickers they open, and yolo as the session machine says it.

use super::test_pane::Pane;
use super::*;

#[test]
fn unknown_slash_command_warns_and_sends_nothing() {
    let mut p = Pane::ready();
    p.typed("/foo bar");
    assert!(p.code(KeyCode::Enter).is_empty());
    let (level, text) = p.last_system().unwrap();
    assert_eq!(level, SystemLevel::Warn);
    assert!(text.contains("/foo"), "{text}");
    assert_eq!(p.state.input.text(), "/foo bar", "kept for fixing");
    p.state.input.clear();
    p.typed("//foo");
    assert_eq!(p.code(KeyCode::Enter), [Effect::SendPrompt("/foo".into())]);
}

#[test]
fn slash_commands_emit_their_effects() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::Agents(vec![
        AgentChoice {
            id: "demo".into(),
            name: "Demo".into(),
            install: None,
        },
        AgentChoice {
            id: "claude".into(),
            name: "Claude Code".into(),
            install: None,
        },
    ]));
    let mut run = |line: &str| {
        p.state.input.set_text(line);
        p.state.popup_dismissed = true;
        p.code(KeyCode::Enter)
    };
    assert_eq!(run("/new"), [Effect::NewSession]);
    assert_eq!(run("/sessions"), [Effect::OpenSessions]);
    assert_eq!(run("/yolo on"), [Effect::SetYolo(true)]);
    assert_eq!(run("/yolo off"), [Effect::SetYolo(false)]);
    assert_eq!(run("/yolo"), [], "bare /yolo only explains");
    assert_eq!(run("/model fast"), [Effect::SetModel("fast".into())]);
    assert_eq!(run("/agent claude"), [Effect::SwitchAgent("claude".into())]);
    assert_eq!(run("/agent nope"), []);
    assert_eq!(run("/stop"), []);
    assert_eq!(run("/restart"), [Effect::Restart]);
    // The session machine says when the session is being opened again.
    assert_eq!(p.state.connection, ConnectionState::Ready);
}

const BLOCKED: YoloState = YoloState {
    on: false,
    blocked: Some(YoloBlock::Policy),
};

/// `/yolo on|off` asks the session machine, whatever the view last heard
/// (it decides, the policy too); its answer is the line and the state.
#[test]
fn yolo_is_what_the_machine_says_and_the_view_decides_nothing() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::Yolo {
        state: BLOCKED,
        answer: None,
    });
    p.state.input.set_text("/yolo on");
    p.state.popup_dismissed = true;
    assert_eq!(p.code(KeyCode::Enter), [Effect::SetYolo(true)]);
    assert_eq!(p.state.yolo, BLOCKED, "unchanged until the machine answers");
    p.domain(DomainEvent::Yolo {
        state: BLOCKED,
        answer: Some(YoloAnswer::Refused(YoloBlock::Policy)),
    });
    let (level, text) = p.last_system().unwrap();
    assert_eq!(level, SystemLevel::Warn);
    assert!(text.contains("policy"), "{text}");
    p.state.input.set_text("/yolo");
    p.code(KeyCode::Enter);
    assert!(p.last_system().unwrap().1.contains("policy"));

    // Each answer says so; the status follows the state given.
    let on = YoloState {
        on: true,
        blocked: None,
    };
    for (state, answer, level, says) in [
        (on, YoloAnswer::TurnedOn, SystemLevel::Warn, "Yolo on:"),
        (
            YoloState::default(),
            YoloAnswer::TurnedOff,
            SystemLevel::Info,
            "Yolo off:",
        ),
    ] {
        let mut p = Pane::ready();
        p.domain(DomainEvent::Yolo {
            state,
            answer: Some(answer),
        });
        assert_eq!(p.state.yolo, state);
        let (l, text) = p.last_system().unwrap();
        assert_eq!((l, text.starts_with(says)), (level, true), "{text}");
        // A state alone (a session opened) says nothing.
        let lines = p.state.transcript.entries().len();
        p.domain(DomainEvent::Yolo {
            state,
            answer: None,
        });
        assert_eq!(p.state.transcript.entries().len(), lines);
    }
}

#[test]
fn slash_popup_filters_navigates_and_runs() {
    let mut p = Pane::ready();
    p.typed("/s");
    let labels: Vec<String> = p.state.completions().into_iter().map(|c| c.label).collect();
    assert_eq!(labels[..2], ["/stop".to_owned(), "/sessions".to_owned()]);
    p.code(KeyCode::Down);
    assert_eq!(p.code(KeyCode::Enter), [Effect::OpenSessions]);
    // A partly typed command runs as completed: bare `/yolo` explains.
    p.typed("/yo");
    assert!(p.code(KeyCode::Enter).is_empty());
    assert_eq!(p.state.input.text(), "");
    assert!(p.last_system().unwrap().1.starts_with("Yolo is off"));
    // A value picked with the arrows runs with its command.
    p.typed("/yolo ");
    p.code(KeyCode::Down);
    assert_eq!(p.code(KeyCode::Enter), [Effect::SetYolo(false)]);
    // Esc hides the popup, typing brings it back.
    p.typed("/he");
    p.code(KeyCode::Esc);
    assert!(p.state.completions().is_empty());
    p.typed("l");
    assert_eq!(p.state.completions().len(), 1);
}

/// `allow_all` picked in `/config` is `/yolo` (the machine's policy gate
/// applies and the session state follows), never a raw `set_config_option`.
#[test]
fn allow_all_in_config_goes_through_yolo() {
    for state in [YoloState::default(), BLOCKED] {
        let mut p = Pane::ready();
        p.domain(DomainEvent::Yolo {
            state,
            answer: None,
        });
        p.domain(DomainEvent::ConfigOptions(vec![ConfigOption {
            id: "allow_all".into(),
            name: "Allow all".into(),
            current: "off".into(),
            values: vec![("off".into(), "Off".into()), ("on".into(), "On".into())],
        }]));
        p.state.input.set_text("/config");
        p.state.popup_dismissed = true;
        p.code(KeyCode::Enter);
        p.code(KeyCode::Enter);
        p.code(KeyCode::Down);
        let effects = p.code(KeyCode::Enter);
        assert_eq!(effects, [Effect::SetYolo(true)], "{state:?}");
        assert_eq!(p.state.yolo, state, "the machine answers");
    }
}

#[test]
fn pickers_choose_agent_model_and_config_values() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::Models(vec![
        ModelChoice {
            id: "m1".into(),
            name: "Model One".into(),
        },
        ModelChoice {
            id: "m2".into(),
            name: "Model Two".into(),
        },
    ]));
    p.domain(DomainEvent::ConfigOptions(vec![ConfigOption {
        id: "mode".into(),
        name: "Mode".into(),
        current: "ask".into(),
        values: vec![("ask".into(), "Ask".into()), ("code".into(), "Code".into())],
    }]));
    p.state.input.set_text("/model");
    p.state.popup_dismissed = true;
    p.code(KeyCode::Enter);
    assert_eq!(
        p.state.picker.as_ref().map(|x| x.selected),
        Some(0),
        "current model highlighted"
    );
    p.code(KeyCode::Down);
    assert_eq!(p.code(KeyCode::Enter), [Effect::SetModel("m2".into())]);
    assert_eq!(
        p.state.model.as_deref(),
        Some("m1"),
        "the status line waits for the agent"
    );
    p.domain(DomainEvent::ModelChanged("m2".into()));
    assert_eq!(p.state.model.as_deref(), Some("m2"));
    p.state.input.set_text("/config");
    p.state.popup_dismissed = true;
    p.code(KeyCode::Enter);
    p.code(KeyCode::Enter);
    assert_eq!(
        p.state.picker.as_ref().map(|x| x.title.as_str()),
        Some("Mode")
    );
    p.code(KeyCode::Down);
    assert_eq!(
        p.code(KeyCode::Enter),
        [Effect::SetConfigOption {
            option: "mode".into(),
            value: "code".into()
        }]
    );
    p.state.input.set_text("/agent");
    p.state.popup_dismissed = true;
    p.code(KeyCode::Enter);
    assert!(p.state.picker.is_none(), "no agents known: warning instead");
}
