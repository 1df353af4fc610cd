//! The session tools' arguments: what each becomes, what is refused and
//! why, the wire shapes of the master↔helper requests, and the outcomes.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

fn tool(value: serde_json::Value) -> Result<SessionTool, serde_json::Error> {
    serde_json::from_value(value)
}

#[test]
fn run_command_is_one_send_with_the_explanation_on_the_card() {
    let call = tool(json!({"tool": "run_command_in_current_shell",
        "arguments": {"command": "cargo test", "explanation": "run the tests", "wait_secs": 5}}))
    .unwrap();
    assert_eq!(call.name(), TOOL_RUN_COMMAND);
    assert_eq!(call.wait(), Duration::from_secs(5));
    let p = call.into_proposal(Origin::TerminalAgent).unwrap();
    assert_eq!(p.choices.len(), 1);
    assert_eq!(p.choices[0].title, "Run `cargo test`");
    assert_eq!(p.choices[0].rationale, "run the tests");
    assert_eq!(
        p.choices[0].actions,
        [Action::Send {
            input: "cargo test".into()
        }]
    );
}

#[test]
fn the_turns_origin_decides_and_autofix_keeps_its_shape() {
    let run = SessionTool::RunCommand(RunCommandArgs {
        command: "ls".into(),
        explanation: None,
        wait_secs: None,
    });
    assert_eq!(
        run.clone().into_proposal(Origin::Autofix).unwrap().origin,
        Origin::Autofix
    );
    assert_eq!(run.wait(), Duration::from_secs(DEFAULT_WAIT_SECS));
    let open = SessionTool::CreateWorkspace(CreateWorkspaceArgs {
        target: OpenTarget::Tab,
        cwd: None,
        title: None,
        direction: None,
        wait_secs: Some(10_000),
    });
    assert_eq!(open.wait(), Duration::from_secs(MAX_WAIT_SECS), "capped");
    assert_eq!(
        open.into_proposal(Origin::Autofix).unwrap_err(),
        ProtocolError::AutofixShape
    );
}

#[test]
fn workspace_and_delegate_become_open_and_open_and_send() {
    let open = tool(json!({"tool": "create_workspace",
        "arguments": {"target": "panel", "cwd": "/src", "title": "logs", "direction": "down"}}))
    .unwrap()
    .into_proposal(Origin::TerminalAgent)
    .unwrap();
    assert_eq!(open.choices[0].title, "Open a new panel: logs");
    assert!(matches!(
        &open.choices[0].actions[0],
        Action::Open { target: OpenTarget::Panel, cwd: Some(c), title: Some(t), direction: Some(Direction::Down) }
            if c == "/src" && t == "logs"
    ));
    let delegate = tool(json!({"tool": "delegate_task_in_new_workspace",
        "arguments": {"task": "fix the build\nthen run tests"}}))
    .unwrap()
    .into_proposal(Origin::TerminalAgent)
    .unwrap();
    assert_eq!(delegate.choices[0].title, "Delegate `fix the build`…");
    assert_eq!(
        delegate.choices[0].actions,
        [Action::OpenAndSend {
            target: OpenTarget::Tab,
            input: "fix the build\nthen run tests".into(),
            delegate: true,
            cwd: None
        }]
    );
}

#[test]
fn bad_arguments_are_refused_with_the_rule() {
    for (value, wanted) in [
        (
            json!({"tool": "run_command_in_current_shell", "arguments": {"command": "ls\tx"}}),
            "U+0009",
        ),
        (
            json!({"tool": "run_command_in_current_shell", "arguments": {"command": "  "}}),
            "empty",
        ),
        (
            json!({"tool": "run_command_in_current_shell",
                "arguments": {"command": "ls", "explanation": "\u{202e}evil"}}),
            "explanation",
        ),
        (
            json!({"tool": "create_workspace", "arguments": {"target": "tab", "cwd": "a\nb"}}),
            "cwd",
        ),
    ] {
        let err = tool(value.clone())
            .unwrap()
            .into_proposal(Origin::TerminalAgent)
            .unwrap_err()
            .to_string();
        assert!(err.contains(wanted), "{value}: {err}");
    }
    let long = "x".repeat(MAX_TASK_CHARS + 1);
    let err = tool(json!({"tool": "delegate_task_in_new_workspace", "arguments": {"task": long}}))
        .unwrap()
        .into_proposal(Origin::TerminalAgent)
        .unwrap_err();
    assert!(matches!(err, ProtocolError::TextTooLong { .. }), "{err}");
    // Unknown fields are refused, never ignored (no smuggled pane or argv).
    assert!(
        tool(json!({"tool": "run_command_in_current_shell",
        "arguments": {"command": "ls", "pane": "%1"}}))
        .is_err()
    );
}

#[test]
fn a_long_command_gets_a_cut_title_within_the_limit() {
    let command = "echo ".to_owned() + &"y".repeat(500);
    let p = SessionTool::RunCommand(RunCommandArgs {
        command: command.clone(),
        explanation: None,
        wait_secs: None,
    })
    .into_proposal(Origin::TerminalAgent)
    .unwrap();
    let title = &p.choices[0].title;
    assert!(
        title.chars().count() <= crate::limits::MAX_TITLE_CHARS,
        "{title}"
    );
    assert!(title.ends_with('…'));
    assert_eq!(p.choices[0].actions, [Action::Send { input: command }]);
}

#[test]
fn user_input_rules() {
    let ok = UserInputArgs {
        question: "Which branch?\nPick one.".into(),
        choices: vec!["main".into(), "dev".into()],
        allow_freeform: false,
    };
    assert!(ok.validate().is_ok());
    let free = UserInputArgs {
        question: "Name?".into(),
        choices: vec![],
        allow_freeform: true,
    };
    assert!(free.validate().is_ok());
    let bad = [
        UserInputArgs {
            choices: vec![],
            ..ok.clone()
        },
        UserInputArgs {
            choices: vec!["x".into(); 9],
            ..ok.clone()
        },
        UserInputArgs {
            choices: vec!["two\nlines".into()],
            ..ok.clone()
        },
        UserInputArgs {
            question: String::new(),
            ..ok.clone()
        },
        UserInputArgs {
            question: "q".repeat(MAX_QUESTION_CHARS + 1),
            ..ok.clone()
        },
    ];
    for args in bad {
        assert!(args.validate().is_err(), "{args:?}");
    }
}

#[test]
fn wire_shapes() {
    let params = SessionToolParams {
        session_id: "s1".into(),
        call: SessionTool::RunCommand(RunCommandArgs {
            command: "ls".into(),
            explanation: None,
            wait_secs: None,
        }),
        wait_ms: 45_000,
    };
    let v = serde_json::to_value(&params).unwrap();
    assert_eq!(
        v,
        json!({"sessionId": "s1", "call": {"tool": "run_command_in_current_shell",
            "arguments": {"command": "ls"}}, "waitMs": 45000})
    );
    assert_eq!(
        serde_json::from_value::<SessionToolParams>(v).unwrap(),
        params
    );
    for (outcome, text) in [
        (
            UserInputOutcome::Answered {
                answer: "B".into(),
                selected_index: Some(1),
            },
            json!({"outcome": "answered", "answer": "B", "selected_index": 1}),
        ),
        (UserInputOutcome::Cancelled, json!({"outcome": "cancelled"})),
        (
            UserInputOutcome::Unavailable {
                reason: "no pane".into(),
            },
            json!({"outcome": "unavailable", "reason": "no pane"}),
        ),
    ] {
        assert_eq!(outcome.is_error(), text["outcome"] == "unavailable");
        assert_eq!(serde_json::to_value(&outcome).unwrap(), text);
        assert_eq!(
            serde_json::from_value::<UserInputOutcome>(text).unwrap(),
            outcome
        );
    }
}

#[test]
fn session_server_names_are_recognised_only_whole() {
    let server = "wta_0123456789abcdef0123";
    for (text, tool) in [
        (
            format!("mcp__{server}__run_command_in_current_shell"),
            Some(TOOL_RUN_COMMAND),
        ),
        (
            format!("{server}-request_user_input"),
            Some(TOOL_USER_INPUT),
        ),
        (
            format!("mcp_{server}_create_workspace"),
            Some(TOOL_CREATE_WORKSPACE),
        ),
        (format!("mcp__{server}__other"), None),
        ("mcp__github__create_workspace".to_owned(), None),
        (format!("mcp__x{server}__create_workspace"), None),
        (format!("mcp__{server}4__create_workspace"), None),
        ("mcp__wta_0123__create_workspace".to_owned(), None),
    ] {
        assert_eq!(session_tool_in(&text), tool, "{text}");
    }
    assert!(names_session_server(server));
    assert!(!names_session_server("wta_"));
}

#[test]
fn arguments_fit_only_the_tools_own_inputs() {
    use serde_json::json;
    let fits = |tool, args: serde_json::Value| arguments_fit(tool, &args);
    assert!(fits(
        TOOL_RUN_COMMAND,
        json!({"command": "ls", "explanation": "why"})
    ));
    assert!(fits(
        TOOL_RUN_COMMAND,
        json!({"command": "ls", "wait_secs": 5})
    ));
    assert!(fits(TOOL_CREATE_WORKSPACE, json!({"target": "tab"})));
    assert!(fits(TOOL_DELEGATE_TASK, json!({"task": "fix it"})));
    assert!(fits(
        TOOL_PROPOSAL_RESULT,
        json!({"proposal_id": "11111111111111111111111111111111"})
    ));
    assert!(fits(
        TOOL_USER_INPUT,
        json!({"question": "which?", "choices": ["a"]})
    ));
    // Another tool's inputs, unknown keys, missing or mistyped ones, non-objects.
    assert!(!fits(
        TOOL_RUN_COMMAND,
        json!({"command": "ls", "description": "d"})
    ));
    assert!(!fits(
        TOOL_RUN_COMMAND,
        json!({"command": "ls", "timeout": 60})
    ));
    assert!(!fits(TOOL_RUN_COMMAND, json!({})));
    assert!(!fits(TOOL_RUN_COMMAND, json!({"command": ["ls"]})));
    assert!(!fits(TOOL_RUN_COMMAND, json!("ls")));
    assert!(!fits(TOOL_CREATE_WORKSPACE, json!({"target": "window"})));
    assert!(!fits(TOOL_DELEGATE_TASK, json!({"command": "x"})));
    assert!(!fits("run_shell_command", json!({"command": "ls"})));
}
