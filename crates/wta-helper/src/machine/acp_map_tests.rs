//! Typed ACP → DomainEvent mapping, fed the JSON real agents send: each
//! fixture goes through the schema types first, as the connection does
//! (what the schema cannot read never reaches the mapping).

use serde_json::json;

use super::*;
use wta_state::ConnectionState;

fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
    serde_json::from_value(value.clone()).ok()
}

fn session_update(update: &Value) -> Vec<DomainEvent> {
    typed::<SessionUpdate>(update).map_or_else(Vec::new, |u| super::session_update(&u))
}

fn session_started(agent: &str, reply: &Value) -> Option<SessionFacts> {
    typed::<SessionOpened>(reply).map(|r| super::session_started(agent, &r))
}

fn permission_request(id: PermissionRequestId, request: &Value) -> PermissionRequest {
    let request: RequestPermissionRequest = typed(request).expect("a permission request");
    super::permission_request(id, &request)
}

fn stop_reason(reason: &str) -> StopReason {
    super::stop_reason(&typed(&json!(reason)).expect("a stop reason"))
}

fn auth_methods(init: &Value) -> Vec<AuthMethod> {
    let mut init = init.clone();
    init["protocolVersion"] = json!(1);
    super::auth_methods(&typed(&init).expect("an initialize reply"))
}

#[test]
fn message_thought_and_user_chunks_carry_their_text() {
    let chunk = |kind: &str, content: Value| {
        session_update(&json!({"sessionUpdate": kind, "content": content}))
    };
    assert_eq!(
        chunk(
            "agent_message_chunk",
            json!({"type": "text", "text": "hi **there**"})
        ),
        [DomainEvent::AgentMessageChunk("hi **there**".into())]
    );
    assert_eq!(
        chunk(
            "agent_thought_chunk",
            json!({"type": "text", "text": "hmm"})
        ),
        [DomainEvent::ThoughtChunk("hmm".into())]
    );
    assert_eq!(
        chunk("user_message_chunk", json!({"type": "text", "text": "old"})),
        [DomainEvent::UserMessage("old".into())]
    );
    assert_eq!(
        chunk(
            "agent_message_chunk",
            json!({"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs"})
        ),
        [DomainEvent::AgentMessageChunk(
            "[a.rs](file:///a.rs)".into()
        )]
    );
    assert_eq!(
        chunk(
            "agent_message_chunk",
            json!({"type": "image", "data": "..", "mimeType": "image/png"})
        ),
        [DomainEvent::AgentMessageChunk("[image]".into())]
    );
    assert!(chunk("agent_message_chunk", json!({"type": "mystery"})).is_empty());
}

#[test]
fn tool_call_maps_kind_status_command_output_and_exit_code() {
    let events = session_update(&json!({
        "sessionUpdate": "tool_call", "toolCallId": "run-1", "title": "cargo test",
        "kind": "execute", "status": "in_progress", "rawInput": {"command": ["cargo", "test"]},
        "rawOutput": {"exitCode": 101, "output": "a\nb\n"}
    }));
    let [DomainEvent::ToolCall(call)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(call.id, ToolCallId("run-1".into()));
    assert_eq!(call.kind, ToolKind::Execute);
    assert_eq!(call.status, ToolStatus::InProgress);
    assert_eq!(call.target.as_deref(), Some("cargo test"));
    assert_eq!(call.output, ["a", "b"]);
    assert_eq!(call.exit_code, Some(101));

    let events = session_update(&json!({
        "sessionUpdate": "tool_call", "toolCallId": "tc-1", "title": "Read README.md",
        "kind": "read", "status": "pending", "locations": [{"path": "README.md"}, {"path": "b.md"}]
    }));
    let [DomainEvent::ToolCall(call)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(call.target.as_deref(), Some("README.md, b.md"));
    assert_eq!(call.status, ToolStatus::Pending);
    assert!(call.output.is_empty());
}

#[test]
fn tool_call_update_leaves_absent_fields_unchanged() {
    let events = session_update(&json!({
        "sessionUpdate": "tool_call_update", "toolCallId": "tc-1", "status": "completed",
        "content": [
            {"type": "content", "content": {"type": "text", "text": "read 3 lines"}},
            {"type": "diff", "path": "src/a.rs", "oldText": "x", "newText": "y"},
            {"type": "terminal", "terminalId": "t1"}
        ]
    }));
    assert_eq!(
        events,
        [DomainEvent::ToolCallUpdate(ToolCallUpdate {
            id: ToolCallId("tc-1".into()),
            status: Some(ToolStatus::Completed),
            output: Some("read 3 lines\nedited src/a.rs".into()),
            terminal: Some("t1".into()),
            ..ToolCallUpdate::default()
        })]
    );
    let events = session_update(&json!({
        "sessionUpdate": "tool_call_update", "toolCallId": "x", "status": "weird", "kind": "fetch"
    }));
    assert_eq!(
        events,
        [DomainEvent::ToolCallUpdate(ToolCallUpdate {
            id: ToolCallId("x".into()),
            kind: Some(ToolKind::Fetch),
            ..ToolCallUpdate::default()
        })]
    );
}

#[test]
fn plan_usage_and_config_updates() {
    let events = session_update(&json!({"sessionUpdate": "plan", "entries": [
        {"content": "Inspect", "priority": "high", "status": "completed"},
        {"content": "Fix", "priority": "medium", "status": "in_progress"},
        {"content": "Run", "priority": "low", "status": "pending"}]}));
    assert_eq!(
        events,
        [DomainEvent::Plan(vec![
            PlanEntry {
                text: "Inspect".into(),
                status: PlanStatus::Completed
            },
            PlanEntry {
                text: "Fix".into(),
                status: PlanStatus::InProgress
            },
            PlanEntry {
                text: "Run".into(),
                status: PlanStatus::Pending
            },
        ])]
    );
    let events = session_update(&json!({"sessionUpdate": "usage_update", "used": 1200,
        "size": 200000, "cost": {"amount": 0.25, "currency": "USD"}}));
    assert_eq!(
        events,
        [DomainEvent::Usage(Usage {
            used_tokens: 1200,
            context_tokens: Some(200_000),
            cost: Some((0.25, "USD".into())),
        })]
    );
    let events = session_update(
        &json!({"sessionUpdate": "config_option_update", "configOptions": [
        {"id": "model", "name": "Model", "type": "select", "currentValue": "fast",
         "options": [{"value": "fast", "name": "Fast"}, {"value": "smart", "name": "Smart"}]}]}),
    );
    assert_eq!(
        events[0],
        DomainEvent::Models(vec![
            ModelChoice {
                id: "fast".into(),
                name: "Fast".into()
            },
            ModelChoice {
                id: "smart".into(),
                name: "Smart".into()
            },
        ])
    );
    assert!(matches!(&events[1], DomainEvent::ConfigOptions(o) if o.len() == 1));
    assert!(session_update(&json!({"sessionUpdate": "available_commands_update"})).is_empty());
    assert!(session_update(&json!({"sessionUpdate": "something_new"})).is_empty());
    assert!(session_update(&json!("not an object")).is_empty());
}

#[test]
fn session_reply_with_models_uses_set_model() {
    let reply = json!({"sessionId": "s1",
        "models": {"currentModelId": "sonnet", "availableModels": [
            {"modelId": "sonnet", "name": "Sonnet"}, {"modelId": "opus"}]},
        "configOptions": [{"id": "mode", "name": "Mode", "type": "select", "currentValue": "agent",
            "options": [{"group": "g", "name": "G", "options": [
                {"value": "agent", "name": "Agent"}, {"value": "plan", "name": "Plan"}]}]},
            {"id": "flag", "name": "Flag", "type": "boolean", "currentValue": true}]});
    let facts = session_started("claude", &reply).unwrap();
    assert_eq!(facts.model_control, ModelControl::SetModel);
    assert_eq!(
        facts.events,
        [
            DomainEvent::Models(vec![
                ModelChoice {
                    id: "sonnet".into(),
                    name: "Sonnet".into()
                },
                ModelChoice {
                    id: "opus".into(),
                    name: "opus".into()
                },
            ]),
            DomainEvent::ConfigOptions(vec![ConfigOption {
                id: "mode".into(),
                name: "Mode".into(),
                current: "agent".into(),
                values: vec![
                    ("agent".into(), "Agent".into()),
                    ("plan".into(), "Plan".into())
                ],
            }]),
            DomainEvent::SessionStarted {
                agent: "claude".into(),
                model: Some("sonnet".into())
            },
        ]
    );
}

#[test]
fn session_reply_with_a_model_config_option_uses_that_option() {
    let reply = json!({"sessionId": "s2", "configOptions": [
        {"id": "llm", "name": "Model", "category": "model", "type": "select", "currentValue": "b",
         "options": [{"value": "a", "name": "A"}, {"value": "b", "name": "Bee"}]}]});
    let facts = session_started("copilot", &reply).unwrap();
    assert_eq!(
        facts.model_control,
        ModelControl::ConfigOption("llm".into())
    );
    assert_eq!(
        facts.events.last(),
        Some(&DomainEvent::SessionStarted {
            agent: "copilot".into(),
            model: Some("b".into())
        })
    );
    let bare = session_started("x", &json!({"sessionId": "s3"})).unwrap();
    assert_eq!(bare.model_control, ModelControl::None);
    assert!(session_started("x", &json!({"nope": 1})).is_none());
}

#[test]
fn permission_request_maps_options_target_and_unknown_kinds_fail_closed() {
    let request = json!({"sessionId": "s",
        "toolCall": {"toolCallId": "perm-1", "title": "touch made_by_tool", "kind": "execute",
                     "rawInput": {"command": "touch made_by_tool"}},
        "options": [{"optionId": "opt-0-allow_once", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "a2", "name": "Always", "kind": "allow_always"},
                    {"optionId": "r", "name": "No", "kind": "reject_once"},
                    {"optionId": "rr", "name": "Never", "kind": "reject_always"}]});
    let card = permission_request(PermissionRequestId(7), &request);
    assert_eq!(card.id, PermissionRequestId(7));
    assert_eq!(card.title, "touch made_by_tool");
    assert_eq!(card.kind, ToolKind::Execute);
    assert_eq!(card.target.as_deref(), Some("touch made_by_tool"));
    let kinds: Vec<_> = card
        .options
        .iter()
        .map(|o| (o.id.as_str(), o.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("opt-0-allow_once", PermissionOptionKind::AllowOnce),
            ("a2", PermissionOptionKind::AllowAlways),
            ("r", PermissionOptionKind::RejectOnce),
            ("rr", PermissionOptionKind::RejectAlways),
        ]
    );
    // An option of a kind the schema does not know, or without an id: the
    // request does not parse, so no card offers it (the ACP library answers
    // the agent with an error: a refusal).
    for odd in [
        json!({"optionId": "odd", "name": "Odd", "kind": "brand_new_kind"}),
        json!({"name": "no id", "kind": "allow_once"}),
    ] {
        let mut bad = request.clone();
        bad["options"].as_array_mut().unwrap().push(odd);
        assert!(typed::<RequestPermissionRequest>(&bad).is_none(), "{bad}");
    }
    assert_eq!(
        allow_once_option(&card).map(|o| o.id.as_str()),
        Some("opt-0-allow_once")
    );
    let empty = permission_request(
        PermissionRequestId(1),
        &json!({"sessionId": "s", "toolCall": {"toolCallId": "t"}, "options": []}),
    );
    assert!(empty.options.is_empty() && allow_once_option(&empty).is_none());
    assert_eq!(empty.title, "The agent asks for permission");
}

#[test]
fn stop_reasons_and_auth_methods() {
    assert_eq!(stop_reason("end_turn"), StopReason::EndTurn);
    assert_eq!(stop_reason("cancelled"), StopReason::Cancelled);
    assert_eq!(stop_reason("refusal"), StopReason::Refusal);
    assert_eq!(stop_reason("max_tokens"), StopReason::MaxTokens);
    assert_eq!(
        stop_reason("max_turn_requests"),
        StopReason::MaxTurnRequests
    );
    let init = json!({"authMethods": [
        {"id": "login", "name": "Log in", "description": "browser",
         "_meta": {"terminal-auth": {"command": "/bin/agent", "args": ["login", "--tty"]}}},
        {"id": "key", "name": "API key"}, {"name": "no id"}]});
    let methods = auth_methods(&init);
    assert_eq!(methods.len(), 2);
    assert_eq!(
        methods[0].terminal_command.as_deref(),
        Some(&["/bin/agent".to_owned(), "login".into(), "--tty".into()][..])
    );
    assert_eq!(methods[1].terminal_command, None);
    assert_eq!(methods[1].description, None);
}

#[test]
fn missing_agent_becomes_the_setup_screen_with_the_install_command() {
    let err = ConnectionError::Master {
        kind: FailureKind::AgentUnavailable,
        agent: Some("copilot".into()),
        message: "agent `copilot` is not installed: none of `copilot` was found on PATH. \
                  Install it with `npm install -g @github/copilot`."
            .into(),
    };
    assert_eq!(
        open_failure(&err, "fallback", &[]),
        DomainEvent::AgentMissing {
            agent: "copilot".into(),
            install_hint: "npm install -g @github/copilot".into()
        }
    );
    let custom = ConnectionError::Master {
        kind: FailureKind::AgentUnavailable,
        agent: None,
        message: "agent `custom:x` is not installed: none of `/no/x` was found on PATH. \
                  Fix custom_agents.x.argv in /c.toml."
            .into(),
    };
    assert_eq!(
        open_failure(&custom, "custom:x", &[]),
        DomainEvent::AgentMissing {
            agent: "custom:x".into(),
            install_hint: "Fix custom_agents.x.argv in /c.toml.".into()
        }
    );
    let auth = ConnectionError::Agent {
        code: AUTH_REQUIRED_CODE,
        message: "auth".into(),
        data: None,
    };
    let methods = auth_methods(&json!({"authMethods": [{"id": "a", "name": "A"}]}));
    assert!(matches!(
        open_failure(&auth, "gemini", &methods),
        DomainEvent::AuthRequired { agent, methods } if agent == "gemini" && methods.len() == 1
    ));
    let other = ConnectionError::Master {
        kind: FailureKind::AgentNotAllowed,
        agent: None,
        message: "agent `codex` is not allowed here".into(),
    };
    let DomainEvent::Connection(ConnectionState::Failed(text)) = open_failure(&other, "codex", &[])
    else {
        panic!("not a failure")
    };
    assert!(
        text.contains("not allowed") && text.contains("/restart"),
        "{text}"
    );
}

#[test]
fn a_failed_start_shows_what_to_do_then_the_command_and_the_agents_stderr() {
    use wta_protocol::agent_start::{StartFailure, StartOutcome};
    let err = ConnectionError::StartFailed {
        agent: "custom:boom".into(),
        start: StartFailure {
            argv: vec!["/opt/boom".into()],
            outcome: StartOutcome::Exited { code: 3 },
            stderr: vec!["boom: missing API key".into()],
        },
    };
    let DomainEvent::Connection(ConnectionState::Failed(text)) =
        open_failure(&err, "custom:boom", &[])
    else {
        panic!("not a failure")
    };
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "agent `custom:boom` exited with status 3 before it was ready. \
             Type /restart to try again, or /agent to pick another agent.",
            "command: /opt/boom",
            "its last lines on stderr:",
            "  boom: missing API key",
        ]
    );
}
