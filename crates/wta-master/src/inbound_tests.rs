//! A helper's lines decoded once (a trust boundary: a helper is another
//! process), and what the master sends on of them, as golden JSON.

use agent_client_protocol::v1::schema::{ContentBlock, HttpHeader, McpServerHttp, TextContent};
use proptest::prelude::*;
use serde_json::json;
use wta_protocol::helper_master::FailureKind;

use super::*;

fn message(method: &str, params: Value) -> UntypedMessage {
    UntypedMessage::new(method, params).unwrap_or_else(|e| panic!("{e}"))
}

fn request(method: &str, params: Value) -> Result<HelperRequest, Error> {
    HelperRequest::decode(message(method, params))
}

fn kind(request: &Result<HelperRequest, Error>) -> &'static str {
    match request {
        Ok(HelperRequest::Initialize(_)) => "initialize",
        Ok(HelperRequest::Open(Opening::New(_))) => "new",
        Ok(HelperRequest::Open(Opening::Load(_))) => "load",
        Ok(HelperRequest::Prompt(_)) => "prompt",
        Ok(HelperRequest::Close(_)) => "close",
        Ok(HelperRequest::Wta(WtaRequest::Sessions)) => "wta sessions",
        Ok(HelperRequest::Wta(WtaRequest::SessionState(_))) => "wta session_state",
        Ok(HelperRequest::Wta(WtaRequest::HookEvent(_))) => "wta hook_event",
        Ok(HelperRequest::Wta(WtaRequest::ForgetSession(_))) => "wta forget_session",
        Ok(HelperRequest::Wta(WtaRequest::AgentSessions)) => "wta agent_sessions",
        Ok(HelperRequest::Forward(_)) => "forward",
        Err(_) => "error",
    }
}

fn code(request: &Result<HelperRequest, Error>) -> Option<i32> {
    request.as_ref().err().map(|e| i32::from(e.code))
}

#[test]
fn each_request_becomes_its_type() {
    let cwd = std::env::temp_dir();
    let rows: &[(&str, Value, &str)] = &[
        (
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
            "initialize",
        ),
        ("session/new", json!({"cwd": cwd, "mcpServers": []}), "new"),
        (
            "session/load",
            json!({"sessionId": "s", "cwd": cwd, "mcpServers": []}),
            "load",
        ),
        (
            "session/prompt",
            json!({"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}),
            "prompt",
        ),
        ("session/close", json!({"sessionId": "s"}), "close"),
        ("_wta/sessions", json!({}), "wta sessions"),
        // Some ACP versions strip the leading `_`.
        ("wta/sessions", json!(null), "wta sessions"),
        (
            "_wta/session_state",
            json!({"sessionId": "s", "yolo": {"on": true, "blockedByPolicy": false}}),
            "wta session_state",
        ),
        (
            "_wta/forget_session",
            json!({"key": "pane:1:s"}),
            "wta forget_session",
        ),
        (
            "wta/hook_event",
            json!({"cli": "claude", "event": "stop"}),
            "wta hook_event",
        ),
        ("wta/agent_sessions", json!({}), "wta agent_sessions"),
        // What the master only relays.
        (
            "session/set_mode",
            json!({"sessionId": "s", "modeId": "plan"}),
            "forward",
        ),
        (
            "session/set_model",
            json!({"sessionId": "s", "modelId": "m"}),
            "forward",
        ),
        ("authenticate", json!({"methodId": "key"}), "forward"),
        ("_wta/session_tool", json!({"sessionId": "s"}), "forward"),
        ("_vendor/thing", json!([1, 2]), "forward"),
    ];
    for (method, params, want) in rows {
        assert_eq!(
            kind(&request(method, params.clone())),
            *want,
            "{method} {params}"
        );
    }
}

#[test]
fn malformed_params_of_what_the_master_reads_are_refused_here() {
    let invalid = i32::from(Error::invalid_params().code);
    let rows: &[(&str, Value, i32)] = &[
        ("initialize", json!({"clientCapabilities": {}}), invalid),
        ("session/new", json!({"mcpServers": []}), invalid),
        (
            "session/load",
            json!({"cwd": "/", "mcpServers": []}),
            invalid,
        ),
        (
            "session/prompt",
            json!({"sessionId": 7, "prompt": []}),
            invalid,
        ),
        ("session/close", json!({}), invalid),
        ("_wta/hook_event", json!({"event": "nope"}), invalid),
        ("_wta/forget_session", json!({}), invalid),
        (
            "_wta/session_state",
            json!({"sessionId": "s"}),
            FailureKind::BadMeta.code(),
        ),
    ];
    for (method, params, want) in rows {
        let decoded = request(method, params.clone());
        assert_eq!(code(&decoded), Some(*want), "{method} {params}");
    }
    let err = request("session/close", json!({})).err().map(|e| e.data);
    let data = err.flatten().unwrap_or_default();
    assert!(
        data.as_str()
            .is_some_and(|d| d.starts_with("session/close: ")),
        "{data}"
    );
}

#[test]
fn a_relayed_message_keeps_its_params_and_its_typed_session() {
    let params = json!({"sessionId": "s-9", "modelId": "m", "extra": {"k": [1]}});
    let Ok(HelperRequest::Forward(forward)) = request("session/set_model", params.clone()) else {
        panic!("not relayed");
    };
    assert_eq!(forward.session, Some(SessionId::new("s-9")));
    assert_eq!(forward.message.method, "session/set_model");
    assert_eq!(forward.message.params, params);
    // No session, or one that is not a string: the helper's current agent.
    for params in [
        json!({"methodId": "x"}),
        json!({"sessionId": 3}),
        json!("text"),
    ] {
        assert_eq!(session_of(&params), None, "{params}");
    }
    let note = HelperNotification::decode(message("session/cancel", json!({"sessionId": "s"})));
    assert!(matches!(note, Ok(HelperNotification::Cancel(c)) if c.session_id.0.as_ref() == "s"));
    let note = HelperNotification::decode(message("session/cancel", json!({})));
    assert!(note.is_err());
    let note = HelperNotification::decode(message("_vendor/ping", json!({"sessionId": "s"})));
    assert!(matches!(note, Ok(HelperNotification::Forward(f)) if f.session.is_some()));
}

#[test]
fn wta_meta_is_exactly_wtas_or_refused() {
    let meta = |v: Value| v.as_object().cloned();
    assert_eq!(wta_meta(None).ok(), Some(WtaMeta::default()));
    assert_eq!(
        wta_meta(meta(json!({"wta": null})).as_ref()).ok(),
        Some(WtaMeta::default())
    );
    let read = wta_meta(meta(json!({"wta": {"agentId": "copilot", "freshAgent": true}})).as_ref());
    assert_eq!(
        read.ok().and_then(|m| m.agent_id),
        Some("copilot".to_owned())
    );
    // A command smuggled in is refused, not ignored.
    let smuggled = wta_meta(meta(json!({"wta": {"argv": ["sh", "-c", "x"]}})).as_ref());
    let err = smuggled.err().map(|e| (i32::from(e.code), e.message));
    assert!(
        matches!(err, Some((c, m)) if c == FailureKind::BadMeta.code() && m.starts_with("invalid _meta.wta: "))
    );
}

/// What the helper sends (the schema's types, as `wta-helper` builds them)
/// is forwarded as it was written.
#[test]
fn what_the_helper_sends_is_forwarded_as_written() {
    let prompt = PromptRequest::new(
        "s-1",
        vec![ContentBlock::Text(TextContent::new("fix the build"))],
    );
    let close = CloseSessionRequest::new("s-1");
    let lines = [
        ("session/prompt", serde_json::to_value(&prompt)),
        ("session/close", serde_json::to_value(&close)),
    ];
    for (method, params) in lines {
        let params = params.unwrap_or_else(|e| panic!("{e}"));
        let forwarded = match request(method, params.clone()) {
            Ok(HelperRequest::Prompt(p)) => p.to_untyped_message(),
            Ok(HelperRequest::Close(c)) => c.to_untyped_message(),
            other => panic!("{}", kind(&other)),
        };
        let forwarded = forwarded.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(forwarded.method, method);
        assert_eq!(forwarded.params.to_string(), params.to_string());
    }
    assert_eq!(
        prompt
            .to_untyped_message()
            .map(|m| m.params.to_string())
            .ok(),
        Some(r#"{"sessionId":"s-1","prompt":[{"type":"text","text":"fix the build"}]}"#.to_owned())
    );
}

fn opening(method: &str, params: Value) -> Opening {
    match request(method, params) {
        Ok(HelperRequest::Open(opening)) => opening,
        other => panic!("{}", kind(&other)),
    }
}

fn server() -> McpServer {
    McpServer::Http(
        McpServerHttp::new("wta_0123", "http://127.0.0.1:9/mcp")
            .headers(vec![HttpHeader::new("Authorization", "Bearer 42")]),
    )
}

#[test]
fn a_session_opens_on_the_agent_without_wta_meta_and_with_its_server() {
    let mut new = opening(
        "session/new",
        json!({"cwd": "/work", "mcpServers": [], "_meta": {"wta": {"agentId": "copilot", "proposalMcp": "http-v1"}}}),
    );
    let meta = new.take_wta_meta().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(meta.agent_id.as_deref(), Some("copilot"));
    new.add_server(server());
    assert_eq!(new.loading(), None);
    assert_eq!(new.cwd(), "/work");
    let sent = new.to_message().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sent.method, "session/new");
    assert_eq!(
        sent.params.to_string(),
        r#"{"cwd":"/work","mcpServers":[{"type":"http","name":"wta_0123","url":"http://127.0.0.1:9/mcp","headers":[{"name":"Authorization","value":"Bearer 42"}]}]}"#
    );

    let mut load = opening(
        "session/load",
        json!({"mcpServers": [], "cwd": "/w", "sessionId": "s-1", "_meta": {"wta": {}, "k": 1}}),
    );
    assert!(load.take_wta_meta().is_ok());
    assert_eq!(load.loading(), Some(&SessionId::new("s-1")));
    let sent = load.to_message().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        sent.params.to_string(),
        r#"{"mcpServers":[],"cwd":"/w","sessionId":"s-1","_meta":{"k":1}}"#
    );
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z/_ ]{0,12}".prop_map(Value::from),
        Just(json!("session/new")),
        Just(json!("s-1")),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("sessionId".to_owned()),
                    Just("cwd".to_owned()),
                    Just("mcpServers".to_owned()),
                    Just("prompt".to_owned()),
                    Just("_meta".to_owned()),
                    Just("wta".to_owned()),
                    Just("protocolVersion".to_owned()),
                    "[a-zA-Z]{1,8}",
                ],
                inner,
                0..5,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Whatever a helper writes, decoding never panics, a refusal is one of
    /// the master's errors, and what is relayed is relayed unchanged.
    #[test]
    fn any_helper_line_decodes_or_is_refused_cleanly(
        method in prop_oneof![
            Just("initialize"), Just("session/new"), Just("session/load"),
            Just("session/prompt"), Just("session/close"), Just("session/cancel"),
            Just("session/set_mode"), Just("_wta/session_state"), Just("wta/hook_event"),
            Just("_wta/forget_session"), Just("_wta/sessions"), Just("x/y"),
        ],
        params in json_value(),
    ) {
        let decoded = request(method, params.clone());
        let refused = [i32::from(Error::invalid_params().code), FailureKind::BadMeta.code()];
        if let Some(code) = code(&decoded) {
            prop_assert!(refused.contains(&code), "{code}");
        }
        if let Ok(HelperRequest::Forward(forward)) = &decoded {
            prop_assert_eq!(&forward.message.params, &params);
            prop_assert_eq!(forward.session.clone(), session_of(&params));
        }
        if let Ok(HelperRequest::Open(mut opening)) = decoded
            && opening.take_wta_meta().is_ok()
        {
            let sent = opening.to_message().map(|m| m.params);
            prop_assert!(sent.is_ok_and(|p| p.pointer("/_meta/wta").is_none()));
        }
        let _ = HelperNotification::decode(message(method, params));
    }
}
