//! Black-box HTTP tests of the checks in front of rmcp, against a bound
//! endpoint: each check's status, the bearer-to-session binding and its
//! revocation, and the MCP handshake real agents perform.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use http::StatusCode;
use serde_json::json;
use support::{Call, Fixture, raw, raw_post, send};
use wta_mcp::{GrantGroup, Limits, McpSessionId};
use wta_protocol::session_tools::TOOL_RUN_COMMAND;

/// method, target, headers, expected status
type Row = (
    &'static str,
    &'static str,
    Vec<(&'static str, String)>,
    StatusCode,
);

fn initialize(version: &str) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "test-agent", "version": "1"}
    }})
}

fn tools_list() -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
}

#[tokio::test]
async fn the_handshake_real_agents_do_is_served_statelessly() {
    let fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    for version in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let reply = fx.rpc(&token, initialize(version)).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        assert_eq!(reply.headers["content-type"], "application/json");
        assert!(reply.headers.get("mcp-session-id").is_none());
        let message = reply.json();
        assert_eq!(message["result"]["protocolVersion"], version);
        assert!(message["result"]["capabilities"]["tools"].is_object());
        assert_eq!(message["result"]["serverInfo"]["name"], "wta");
    }
    let initialized = fx
        .rpc(
            &token,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(initialized.status, StatusCode::ACCEPTED);
    // Agents probe GET (and copilot DELETE) and expect 405.
    for method in ["GET", "DELETE"] {
        let reply = send(
            fx.addr(),
            method,
            "/mcp",
            &[
                ("host", fx.host()),
                ("authorization", format!("Bearer {token}")),
            ],
            String::new(),
        )
        .await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(reply.headers["allow"], "POST");
    }
    let listed = fx.rpc(&token, tools_list()).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(
        listed.json()["result"]["tools"].as_array().unwrap().len(),
        5
    );
}

#[tokio::test]
async fn copilots_discover_probe_gets_an_answer() {
    let fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let reply = fx
        .rpc(
            &token,
            json!({"jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {}}),
        )
        .await;
    // rmcp answers it (a result or a JSON-RPC error); either way it is an
    // answer to id 9, and the agent goes on to initialize.
    assert!(
        reply.status.is_success() || reply.status.is_client_error(),
        "{}",
        reply.status
    );
    let message = reply.json();
    assert_eq!(message["id"], 9, "{message}");
    let again = fx.rpc(&token, initialize("2025-06-18")).await;
    assert_eq!(again.status, StatusCode::OK);
}

#[tokio::test]
async fn no_or_wrong_bearer_is_401_and_reaches_nothing() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let wrong = "f".repeat(32);
    let cases = [
        vec![],
        vec![("authorization", format!("Bearer {wrong}"))],
        vec![("authorization", format!("Basic {token}"))],
        vec![("authorization", token.clone())],
    ];
    for auth in cases {
        let mut headers = vec![
            ("host", fx.host()),
            ("content-type", "application/json".to_owned()),
            ("accept", "application/json, text/event-stream".to_owned()),
        ];
        headers.extend(auth.iter().cloned());
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": TOOL_RUN_COMMAND, "arguments": {"command": "ls"}}});
        let reply = send(fx.addr(), "POST", "/mcp", &headers, body.to_string()).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(reply.headers["www-authenticate"], "Bearer");
        assert!(!reply.text().contains(&token));
    }
    assert!(fx.no_calls());
}

#[tokio::test]
async fn a_bearer_reaches_the_backend_as_its_own_session_only() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_a, token_a) = fx.grant("A", "agent-1");
    let (_b, token_b) = fx.grant("B", "agent-2");
    for (token, session) in [(&token_a, "A"), (&token_b, "B"), (&token_a, "A")] {
        fx.call_tool(token, TOOL_RUN_COMMAND, json!({"command": "ls"}))
            .await;
        let Call::Tool(seen, _) = fx.next_call().await else {
            panic!("expected a terminal tool call")
        };
        assert_eq!(seen, McpSessionId::new(session));
    }
    assert!(fx.no_calls());
}

#[tokio::test]
async fn revoked_and_discarded_bearers_are_401() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_a, token_a) = fx.grant("A", "agent-1");
    let (_b, token_b) = fx.grant("B", "agent-1");
    let (_c, token_c) = fx.grant("C", "agent-2");
    let pending = fx.grants.prepare().unwrap();
    let token_pending = pending.bearer().expose().to_owned();
    assert_eq!(
        fx.rpc(&token_pending, tools_list()).await.status,
        StatusCode::UNAUTHORIZED
    );
    fx.grants.discard(pending);
    assert_eq!(
        fx.rpc(&token_pending, tools_list()).await.status,
        StatusCode::UNAUTHORIZED
    );

    assert_eq!(fx.rpc(&token_a, tools_list()).await.status, StatusCode::OK);
    fx.grants.revoke_session(&McpSessionId::new("A"));
    assert_eq!(
        fx.rpc(&token_a, tools_list()).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(fx.rpc(&token_b, tools_list()).await.status, StatusCode::OK);
    fx.grants.revoke_all_of(&GrantGroup::new("agent-1"));
    assert_eq!(
        fx.rpc(&token_b, tools_list()).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(fx.rpc(&token_c, tools_list()).await.status, StatusCode::OK);
    assert!(fx.no_calls());
}

#[tokio::test]
async fn each_http_check_has_its_status() {
    let fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let port = fx.addr().port();
    let body = tools_list().to_string();
    let auth = ("authorization", format!("Bearer {token}"));
    let json_type = ("content-type", "application/json".to_owned());
    let accept = ("accept", "application/json, text/event-stream".to_owned());
    let rows: Vec<Row> = vec![
        (
            "POST",
            "/other",
            vec![("host", fx.host()), auth.clone(), json_type.clone()],
            StatusCode::NOT_FOUND,
        ),
        (
            "PUT",
            "/mcp",
            vec![("host", fx.host()), auth.clone(), json_type.clone()],
            StatusCode::METHOD_NOT_ALLOWED,
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", format!("evil.example:{port}")),
                auth.clone(),
                json_type.clone(),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", format!("127.0.0.1:{}", port.wrapping_add(1))),
                auth.clone(),
                json_type.clone(),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", fx.host()),
                ("origin", "http://evil.example".into()),
                auth.clone(),
                json_type.clone(),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", fx.host()),
                ("origin", "https://localhost".into()),
                auth.clone(),
                json_type.clone(),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", fx.host()),
                auth.clone(),
                ("content-type", "text/plain".into()),
            ],
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            "POST",
            "/mcp",
            vec![("host", fx.host()), auth.clone()],
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", format!("localhost:{port}")),
                ("origin", format!("http://localhost:{port}")),
                auth.clone(),
                json_type.clone(),
                accept.clone(),
            ],
            StatusCode::OK,
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", fx.host()),
                ("origin", "http://127.0.0.1".into()),
                auth.clone(),
                json_type.clone(),
                accept.clone(),
            ],
            StatusCode::OK,
        ),
    ];
    for (method, target, headers, expected) in rows {
        let reply = send(fx.addr(), method, target, &headers, body.clone()).await;
        assert_eq!(
            reply.status,
            expected,
            "{method} {target} {headers:?}: {}",
            reply.text()
        );
    }
    // A body that is not JSON at all.
    let reply = send(
        fx.addr(),
        "POST",
        "/mcp",
        &[
            ("host", fx.host()),
            auth.clone(),
            json_type.clone(),
            accept.clone(),
        ],
        "{not json".into(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn framing_faults_are_400_and_oversize_is_413_or_431() {
    let fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let host = fx.host();
    let auth = format!("authorization: Bearer {token}\r\n");
    let body = tools_list().to_string();
    // Transfer-Encoding, chunked or not.
    let chunked = format!(
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\n{auth}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    assert_eq!(raw(fx.addr(), chunked.as_bytes()).await, Some(400));
    // Duplicate Host, Authorization, Content-Type.
    for extra in [
        format!("{auth}host: {host}\r\n"),
        format!("{auth}{auth}"),
        format!("{auth}content-type: application/json\r\n"),
    ] {
        assert_eq!(
            raw(fx.addr(), &raw_post(&host, &extra, &body)).await,
            Some(400),
            "{extra}"
        );
    }
    // A declared body over 1 MiB.
    let big = format!(
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\n{auth}content-type: application/json\r\ncontent-length: {}\r\n\r\n",
        1024 * 1024 + 1
    );
    assert_eq!(raw(fx.addr(), big.as_bytes()).await, Some(413));
    // Headers over 32 KiB.
    let filler = format!("x-filler: {}\r\n", "a".repeat(33 * 1024));
    assert_eq!(
        raw(
            fx.addr(),
            &raw_post(&host, &format!("{auth}{filler}"), &body)
        )
        .await,
        Some(431)
    );
    // The good request on the same endpoint still works.
    assert_eq!(
        raw(fx.addr(), &raw_post(&host, &auth, &body)).await,
        Some(200)
    );
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_408() {
    let limits = Limits {
        read_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let fx = Fixture::start(limits).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"jsonrpc\"",
        fx.host()
    );
    // The socket stays open and silent after the first bytes of the body.
    assert_eq!(raw(fx.addr(), head.as_bytes()).await, Some(408));
}

#[tokio::test]
async fn headers_that_do_not_arrive_in_time_close_the_connection() {
    let limits = Limits {
        read_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let fx = Fixture::start(limits).await;
    let partial = format!("POST /mcp HTTP/1.1\r\nhost: {}\r\n", fx.host());
    // hyper closes a connection whose head is late, answering nothing or 408.
    let status = raw(fx.addr(), partial.as_bytes()).await;
    assert!(matches!(status, None | Some(408)), "{status:?}");
}

#[tokio::test]
async fn a_foreign_origin_is_refused_even_after_a_loopback_one() {
    let fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let host = fx.host();
    let auth = format!("authorization: Bearer {token}\r\n");
    let body = tools_list().to_string();
    let ours = format!("origin: http://127.0.0.1:{}\r\n", fx.addr().port());
    let evil = "origin: http://evil.example\r\n";
    // (extra header lines, expected status)
    let rows = [
        (format!("{auth}{ours}{evil}"), 403),
        (format!("{auth}{evil}{ours}"), 403),
        (format!("{auth}{ours}origin: http://localhost\r\n"), 200),
        (format!("{auth}{ours}"), 200),
    ];
    for (extra, expected) in rows {
        assert_eq!(
            raw(fx.addr(), &raw_post(&host, &extra, &body)).await,
            Some(expected),
            "{extra}"
        );
    }
}

#[tokio::test]
async fn authenticated_connections_over_the_cap_get_503_and_slots_come_back() {
    let limits = Limits {
        max_connections: 2,
        ..Limits::default()
    };
    let fx = Fixture::start(limits).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let body = tools_list().to_string();
    let auth = format!("authorization: Bearer {token}\r\n");
    // Two idle connections take both slots (each has authenticated).
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = tokio::net::TcpStream::connect(fx.addr()).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut stream, &raw_post(&fx.host(), &auth, &body))
            .await
            .unwrap();
        assert_eq!(support::read_status(&mut stream).await, Some(200));
        held.push(stream);
    }
    assert_eq!(
        raw(fx.addr(), &raw_post(&fx.host(), &auth, &body)).await,
        Some(503)
    );
    // A request that is refused before its bearer needs no slot.
    assert_eq!(
        raw(fx.addr(), &raw_post(&fx.host(), "", &body)).await,
        Some(401)
    );
    drop(held);
    // Slots free up once the server sees the close; retry until then.
    let mut status = Some(503);
    while status == Some(503) {
        status = raw(fx.addr(), &raw_post(&fx.host(), &auth, &body)).await;
        tokio::task::yield_now().await;
    }
    assert_eq!(status, Some(200));
}

#[tokio::test]
async fn mcp_server_entry_names_the_grant_and_the_url() {
    let fx = Fixture::start(Limits::default()).await;
    let grant = fx.grants.prepare().unwrap();
    let entry = fx.endpoint.mcp_server(&grant);
    assert_eq!(entry["type"], "http");
    assert_eq!(entry["name"], grant.server_name());
    assert_eq!(
        entry["url"],
        format!("http://127.0.0.1:{}/mcp", fx.addr().port())
    );
    assert_eq!(fx.endpoint.url(), entry["url"]);
    assert_eq!(
        entry["headers"],
        json!([{"name": "Authorization", "value": format!("Bearer {}", grant.bearer().expose())}])
    );
    // The endpoint's Debug shows no bearer.
    assert!(!format!("{:?} {:?}", fx.endpoint, fx.grants).contains(grant.bearer().expose()));
}

#[tokio::test]
async fn shutdown_stops_the_listener() {
    let fx = Fixture::start(Limits::default()).await;
    let addr = fx.addr();
    fx.endpoint.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}
