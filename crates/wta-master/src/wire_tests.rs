//! Golden JSON of every message the master makes up, as it goes on the wire
//! (the params or result of its JSON-RPC line), and what it reads of an
//! agent's capabilities.
//!
//! Where the schema's encoder writes out a default the master's old
//! hand-built JSON left implicit (`auth`, `loadSession: false`, …), the
//! test also decodes the old JSON and checks that both mean the same.

use serde_json::json;

use super::*;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn text(value: impl Serialize) -> String {
    serde_json::to_string(&value).unwrap_or_default()
}

fn golden(value: impl Serialize, want: &str) {
    assert_eq!(text(value), want.replace("{VERSION}", VERSION));
}

/// The test agent's `initialize` result (wta-testkit).
fn test_agent_init() -> InitializeResponse {
    serde_json::from_value(json!({
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": false,
            "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
            "sessionCapabilities": {"close": {}},
            "mcpCapabilities": {"http": true, "sse": false}
        },
        "authMethods": [],
        "agentInfo": {"name": "wta-test-agent", "version": "1.2.3"},
        "_meta": {"vendor": {"x": 1}, "wta": {"agentId": "made-up"}}
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn initialize_to_an_agent() {
    golden(
        initialize_request(),
        r#"{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"auth":{"terminal":false}},"clientInfo":{"name":"wta","version":"{VERSION}"}}"#,
    );
    let before: InitializeRequest = serde_json::from_value(json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true},
        "clientInfo": {"name": "wta", "version": VERSION}
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(before, initialize_request());
}

#[test]
fn initialize_answer_to_a_cli_client() {
    golden(
        cli_initialize_response(),
        r#"{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false},"mcpCapabilities":{"http":false,"sse":false},"sessionCapabilities":{},"auth":{}},"authMethods":[],"agentInfo":{"name":"wta-master","version":"{VERSION}"}}"#,
    );
    let before: InitializeResponse = serde_json::from_value(json!({
        "protocolVersion": 1,
        "agentCapabilities": {},
        "authMethods": [],
        "agentInfo": {"name": "wta-master", "version": VERSION}
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(before, cli_initialize_response());
}

#[test]
fn an_agents_initialize_is_replayed_with_the_agent_the_master_resolved() {
    golden(
        helper_initialize_response(&test_agent_init(), "custom:test"),
        r#"{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":true},"mcpCapabilities":{"http":true,"sse":false},"sessionCapabilities":{"close":{}},"auth":{}},"authMethods":[],"agentInfo":{"name":"wta-test-agent","version":"1.2.3"},"_meta":{"vendor":{"x":1},"wta":{"agentId":"custom:test"}}}"#,
    );
}

#[test]
fn session_messages_to_an_agent() {
    golden(cancel(SessionId::new("s-1")), r#"{"sessionId":"s-1"}"#);
    golden(close(SessionId::new("s-1")), r#"{"sessionId":"s-1"}"#);
    golden(list_sessions(), "{}");
    golden(closed_locally(), "{}");
    golden(Done {}, "{}");
}

#[test]
fn agent_exited_to_a_helper() {
    let msg = agent_exited("copilot", vec!["a".into(), "b".into()], "it died")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(msg.method, "_wta/agent_exited");
    golden(
        msg.params,
        r#"{"agentId":"copilot","sessionIds":["a","b"],"reason":"it died"}"#,
    );
}

#[test]
fn the_master_alone_writes_wta_meta_on_a_session_answer() {
    let named = WtaMeta {
        mcp_server: Some("wta_0123".into()),
        ..WtaMeta::default()
    };
    let rows: &[(Value, Option<&WtaMeta>, &str)] = &[
        (
            json!({"sessionId": "s"}),
            Some(&named),
            r#"{"sessionId":"s","_meta":{"wta":{"mcpServer":"wta_0123"}}}"#,
        ),
        // The agent's own `_meta.wta` is replaced, the rest of `_meta` kept.
        (
            json!({"sessionId": "s", "_meta": {"k": 1, "wta": {"mcpServer": "evil", "agentId": "x"}}}),
            Some(&named),
            r#"{"sessionId":"s","_meta":{"k":1,"wta":{"mcpServer":"wta_0123"}}}"#,
        ),
        // No grant: whatever the agent claimed goes.
        (
            json!({"sessionId": "s", "_meta": {"wta": {"mcpServer": "wta_forged"}}}),
            None,
            r#"{"sessionId":"s"}"#,
        ),
        (
            json!({"sessionId": "s", "_meta": {"k": 1, "wta": {}}}),
            None,
            r#"{"sessionId":"s","_meta":{"k":1}}"#,
        ),
        (
            json!({"sessionId": "s", "_meta": {}}),
            None,
            r#"{"sessionId":"s","_meta":{}}"#,
        ),
        (json!(null), Some(&named), "null"),
    ];
    for (reply, wta, want) in rows {
        let mut reply = reply.clone();
        stamp_wta_meta(&mut reply, *wta);
        assert_eq!(text(&reply), *want);
    }
}

#[test]
fn wta_meta_is_stripped_from_what_an_agent_gets() {
    let meta = |v: Value| v.as_object().cloned();
    assert_eq!(strip_wta_meta(meta(json!({"wta": {"agentId": "x"}}))), None);
    assert_eq!(
        strip_wta_meta(meta(json!({"wta": {}, "k": 1}))),
        meta(json!({"k": 1}))
    );
    assert_eq!(strip_wta_meta(None), None);
}

#[test]
fn capabilities_are_read_as_the_schema_says() {
    let init = test_agent_init();
    assert!(init.closes_sessions() && init.takes_http_mcp());
    assert!(!init.lists_sessions() && !init.loads_sessions());
    let other: InitializeResponse = serde_json::from_value(json!({
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": true,
            // `null` does not advertise (the old JSON pointer read it as "close").
            "sessionCapabilities": {"close": null, "list": {}},
            "mcpCapabilities": {"http": "yes"}
        }
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!other.closes_sessions() && other.lists_sessions() && other.loads_sessions());
    // A malformed capability is no capability (the schema's DefaultOnError).
    assert!(!other.takes_http_mcp());
}
