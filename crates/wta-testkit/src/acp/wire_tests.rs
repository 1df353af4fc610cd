//! What the test agent sends a client, message by message, for each script
//! word and config request (an in-memory client over a duplex pipe). These
//! pin its wire behaviour: the black-box tests of the master and helper lean
//! on these exact shapes.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

use std::sync::Arc;

use agent_client_protocol::Error;
use serde_json::{Value, json};
use wta_agent::scripted::probe::{Rule, ask, choosing, open, probe, prompt, said, tell, update};
use wta_protocol::{Channel, HelperId, TurnNonce, build_invocation};

use super::serve;

/// One prompt in a fresh session: (session id, answer, log).
async fn turn(text: &str, rule: Arc<Rule>) -> (String, Value, Vec<Value>) {
    let ((session, answer), log) = probe(serve, rule, async |cx| {
        let session = open(&cx).await?;
        let answer = prompt(&cx, &session, text).await;
        Ok((session, answer))
    })
    .await
    .unwrap();
    (session, answer, log)
}

fn end_turn() -> Value {
    json!({"stopReason": "end_turn"})
}

fn config(mode: &str, allow_all: &str) -> Value {
    json!([
        {"id": "mode", "name": "Mode", "type": "select", "currentValue": mode,
         "options": [{"value": "agent", "name": "Agent"}, {"value": "plan", "name": "Plan"}]},
        {"id": "allow_all", "name": "Allow all", "category": "permissions",
         "description": "Automatically approve all tool, path, and URL requests",
         "type": "select", "currentValue": allow_all,
         "options": [{"value": "on", "name": "On"}, {"value": "off", "name": "Off"}]}
    ])
}

#[tokio::test]
async fn initialize_and_new_session() {
    let ((init, first, second), log) = probe(serve, choosing(None), async |cx| {
        let init = ask(&cx, "initialize", json!({"protocolVersion": 1})).await;
        let first = ask(&cx, "session/new", json!({"cwd": "/", "mcpServers": []})).await;
        let second = ask(&cx, "session/new", json!({"cwd": "/", "mcpServers": []})).await;
        Ok((init, first, second))
    })
    .await
    .unwrap();
    assert_eq!(
        init,
        json!({"protocolVersion": 1,
            "agentCapabilities": {"loadSession": false,
                "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
                "sessionCapabilities": {"close": {}},
                "mcpCapabilities": {"http": true, "sse": false}},
            "authMethods": [],
            "agentInfo": {"name": "wta-test-agent", "version": env!("CARGO_PKG_VERSION")}})
    );
    let prefix = format!("test-{}-", std::process::id());
    for answer in [&first, &second] {
        let id = answer["sessionId"].as_str().unwrap();
        assert!(
            id.strip_prefix(&prefix).unwrap().parse::<u64>().is_ok(),
            "{answer}"
        );
        assert_eq!(answer["configOptions"], config("agent", "off"));
        assert_eq!(answer.as_object().unwrap().len(), 2, "{answer}");
    }
    assert_ne!(first, second);
    assert!(log.is_empty(), "{log:?}");
}

#[tokio::test]
async fn config_options_and_state() {
    let (answers, log) = probe(serve, choosing(None), async |cx| {
        let s = open(&cx).await?;
        let set = async |id: &str, value: &str| {
            ask(
                &cx,
                "session/set_config_option",
                json!({"sessionId": s, "configId": id, "value": value}),
            )
            .await
        };
        let answers = vec![
            set("mode", "plan").await,
            set("allow_all", "on").await,
            set("allow_all", "maybe").await,
            prompt(&cx, &s, " state ").await,
            ask(
                &cx,
                "session/set_config_option",
                json!({"sessionId": "nope", "configId": "mode", "value": "plan"}),
            )
            .await,
            ask(&cx, "session/close", json!({"sessionId": s})).await,
            prompt(&cx, &s, "echo gone").await,
            ask(&cx, "session/load", json!({"sessionId": s})).await,
            ask(&cx, "fs/unknown", json!({})).await,
        ];
        Ok((s, answers))
    })
    .await
    .unwrap();
    let (s, answers) = answers;
    assert_eq!(answers[0], json!({"configOptions": config("plan", "off")}));
    assert_eq!(answers[1], json!({"configOptions": config("plan", "on")}));
    assert_eq!(
        answers[2]["error"],
        json!({"code": -32602, "message": "Invalid params", "data": "unknown config option allow_all=maybe"})
    );
    assert_eq!(answers[3], end_turn());
    assert_eq!(
        answers[4]["error"],
        json!({"code": -32602, "message": "Invalid params", "data": "unknown session nope"})
    );
    assert_eq!(answers[5], json!({}));
    assert_eq!(
        answers[6]["error"],
        json!({"code": -32602, "message": "Invalid params", "data": format!("unknown session {s}")})
    );
    assert_eq!(answers[7]["error"]["code"], -32601, "{}", answers[7]);
    assert_eq!(answers[7]["error"]["data"], "session/load");
    assert_eq!(answers[8]["error"]["data"], "fs/unknown");
    assert_eq!(log, [said(&s, "state: allow_all=on mode=plan")]);
}

#[tokio::test]
async fn chunks_echo_pid_and_stream() {
    let (s, answer, log) = turn("echo hi there", choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(log, [said(&s, "hi there")]);
    let (s, _, log) = turn("whatever else", choosing(None)).await;
    assert_eq!(log, [said(&s, "whatever else")]);
    let (s, _, log) = turn("pid", choosing(None)).await;
    assert_eq!(log, [said(&s, &format!("pid {}", std::process::id()))]);
    let (s, answer, log) = turn("stream 3 zq", choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [said(&s, "zq:0;"), said(&s, "zq:1;"), said(&s, "zq:2;")]
    );
}

#[tokio::test]
async fn tool_and_plan() {
    let (s, answer, log) = turn("tool", choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            update(
                &s,
                json!({"sessionUpdate": "tool_call", "toolCallId": "tc-1", "title": "Read README.md",
                "kind": "read", "status": "pending", "locations": [{"path": "README.md"}]})
            ),
            update(
                &s,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "tc-1", "status": "in_progress"})
            ),
            update(
                &s,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "tc-1", "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": "read 3 lines"}}]})
            ),
            said(&s, "tool done"),
        ]
    );
    let (s, answer, log) = turn("plan", choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            update(
                &s,
                json!({"sessionUpdate": "plan", "entries": [
                {"content": "Inspect the failing test", "priority": "high", "status": "completed"},
                {"content": "Fix the parser", "priority": "medium", "status": "in_progress"},
                {"content": "Run the suite", "priority": "low", "status": "pending"}]})
            ),
            said(&s, "plan shown"),
        ]
    );
}

#[tokio::test]
async fn permission() {
    let failing: Arc<Rule> = Arc::new(|_, _, _| Err(Error::internal_error().data(json!("no"))));
    for (text, rule, options, said_text) in [
        (
            "permission",
            choosing(Some("opt-0-allow_once")),
            json!([{"optionId": "opt-0-allow_once", "name": "allow_once", "kind": "allow_once"},
                {"optionId": "opt-1-reject_once", "name": "reject_once", "kind": "reject_once"}]),
            "permission: selected opt-0-allow_once",
        ),
        (
            "permission allow_always",
            choosing(None),
            json!([{"optionId": "opt-0-allow_always", "name": "allow_always", "kind": "allow_always"}]),
            "permission: cancelled",
        ),
        (
            "permission",
            failing,
            json!([{"optionId": "opt-0-allow_once", "name": "allow_once", "kind": "allow_once"},
                {"optionId": "opt-1-reject_once", "name": "reject_once", "kind": "reject_once"}]),
            "permission: error Internal error",
        ),
    ] {
        let (s, answer, log) = turn(text, rule).await;
        assert_eq!(answer, end_turn());
        assert_eq!(
            log,
            [
                update(
                    &s,
                    json!({"sessionUpdate": "tool_call", "toolCallId": "perm-1", "title": "touch made_by_tool",
                    "kind": "execute", "status": "pending", "rawInput": {"command": "touch made_by_tool"}})
                ),
                json!({"request": "session/request_permission", "params": {"sessionId": s,
                    "toolCall": {"toolCallId": "perm-1", "title": "touch made_by_tool", "kind": "execute"},
                    "options": options}}),
                said(&s, said_text),
            ]
        );
    }
}

#[tokio::test]
async fn terminal_and_read() {
    let client: Arc<Rule> = Arc::new(|method, _, _| match method {
        "terminal/create" => Ok(json!({"terminalId": "t-1"})),
        "terminal/wait_for_exit" => Ok(json!({"exitCode": 0, "signal": null})),
        "terminal/output" => Ok(json!({"output": "hi\n", "truncated": false})),
        "terminal/release" => Ok(json!({})),
        "fs/read_text_file" => Ok(json!({"content": "abc"})),
        other => Err(Error::method_not_found().data(json!(other))),
    });
    let (s, answer, log) = turn("terminal echo hi", client.clone()).await;
    assert_eq!(answer, end_turn());
    let ids = json!({"sessionId": s, "terminalId": "t-1"});
    assert_eq!(
        log,
        [
            json!({"request": "terminal/create", "params": {"sessionId": s, "command": "sh",
                "args": ["-c", "echo hi"], "outputByteLimit": 32000}}),
            update(
                &s,
                json!({"sessionUpdate": "tool_call", "toolCallId": "term-1", "title": "echo hi",
                "kind": "execute", "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": "t-1"}]})
            ),
            json!({"request": "terminal/wait_for_exit", "params": ids}),
            json!({"request": "terminal/output", "params": ids}),
            json!({"request": "terminal/release", "params": ids}),
            update(
                &s,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "term-1", "status": "completed"})
            ),
            said(&s, "terminal exit 0: hi\n"),
        ]
    );
    let (s, _, log) = turn("terminal echo hi", choosing(None)).await;
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[1], said(&s, "terminal: error Method not found"));

    let (s, answer, log) = turn("read /tmp/x", client).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            json!({"request": "fs/read_text_file", "params": {"sessionId": s, "path": "/tmp/x"}}),
            said(&s, "read: abc"),
        ]
    );
    let (s, _, log) = turn("read /tmp/x", choosing(None)).await;
    assert_eq!(log[1], said(&s, "read: error Method not found"));
}

#[tokio::test]
async fn run_reports_the_command() {
    let (s, answer, log) = turn("run printf 'a\\nb'; exit 4", choosing(None)).await;
    assert_eq!(answer, end_turn());
    let command = "printf 'a\\nb'; exit 4";
    assert_eq!(
        log,
        [
            update(
                &s,
                json!({"sessionUpdate": "tool_call", "toolCallId": "run-1", "title": command,
                "kind": "execute", "status": "in_progress", "rawInput": {"command": command}})
            ),
            update(
                &s,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "run-1", "status": "failed",
                "rawOutput": {"exitCode": 4, "output": "a\nb"},
                "content": [{"type": "content", "content": {"type": "text", "text": "a\nb"}}]})
            ),
            said(&s, "ran with exit 4: a\nb"),
        ]
    );
    let (s, _, log) = turn("run echo ok", choosing(None)).await;
    assert_eq!(log[1]["params"]["update"]["status"], "completed");
    assert_eq!(log[2], said(&s, "ran with exit 0: ok\n"));
}

#[tokio::test]
async fn fail_and_stall() {
    let (_, answer, log) = turn("fail -32000 need auth", choosing(None)).await;
    assert_eq!(
        answer,
        json!({"error": {"code": -32000, "message": "need auth", "data": null}})
    );
    assert!(log.is_empty(), "{log:?}");
    let (_, answer, _) = turn("fail", choosing(None)).await;
    assert_eq!(answer["error"]["code"], -32603);
    assert_eq!(answer["error"]["message"], "scripted failure");

    let ((s, answer), log) = probe(serve, choosing(None), async |cx| {
        let s = open(&cx).await?;
        let msg = agent_client_protocol::UntypedMessage::new(
            "session/prompt",
            json!({"sessionId": s, "prompt": [{"type": "text", "text": "stall"}]}),
        )?;
        let pending = cx.send_request(msg);
        // A cancel that arrives before the turn waits is kept for it.
        tell(&cx, "session/cancel", json!({"sessionId": s}))?;
        Ok((s, pending.block_task().await?))
    })
    .await
    .unwrap();
    assert_eq!(answer, json!({"stopReason": "cancelled"}));
    assert_eq!(log, [said(&s, "stalling")]);
}

const ID: &str = "0123456789abcdef0123456789abcdef";

fn channel() -> Channel {
    Channel::new(
        HelperId::from_bytes([7; 16]),
        TurnNonce::from_bytes([9; 16]),
    )
}

/// `request` with WTA's context block naming [`channel`].
fn with_context(request: &str) -> String {
    format!(
        "{request}{}## WTA turn context\n```sh\n{}\n```\n",
        wta_protocol::prompt::CONTEXT_SEPARATOR,
        build_invocation(&channel(), "<compact-json-payload>")
    )
}

#[tokio::test]
async fn propose_without_a_channel() {
    let (s, answer, log) = turn("propose-run ls", choosing(Some("allow"))).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [said(
            &s,
            "no WTA proposal channel in this prompt; nothing proposed"
        )]
    );
}

#[tokio::test]
async fn propose_not_allowed() {
    let payload = format!(r#"{{"id":"{ID}"}}"#);
    let command = build_invocation(&channel(), &payload);
    let claude = json!([
        {"optionId": "allow_always", "name": "Always Allow", "kind": "allow_always"},
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]);
    let codex = json!([
        {"optionId": "approved", "name": "Yes, proceed", "kind": "allow_once"},
        {"optionId": "approved-execpolicy-amendment", "name": "Yes, and don't ask again", "kind": "allow_always"},
        {"optionId": "abort", "name": "No, and tell Codex what to do differently", "kind": "reject_once"}]);
    let claude_call = json!({"toolCallId": "wta-propose-1", "kind": "execute", "status": "pending",
        "title": format!("`{command}`"),
        "rawInput": {"command": command, "description": "Propose terminal actions"}});
    let codex_call = json!({"toolCallId": "wta-propose-1", "kind": "execute", "status": "pending",
        "title": command,
        "rawInput": {"command": ["/bin/bash", "-lc", command],
                     "proposed_execpolicy_amendment": ["\"$WTA_CLI_PATH\"", "propose-terminal-actions"]}});
    for (word, rule, call, options, why) in [
        (
            "propose",
            choosing(Some("reject")),
            &claude_call,
            &claude,
            "reject",
        ),
        (
            "propose",
            choosing(None),
            &claude_call,
            &claude,
            "cancelled",
        ),
        (
            "propose-codex",
            choosing(Some("abort")),
            &codex_call,
            &codex,
            "abort",
        ),
    ] {
        let (s, answer, log) = turn(&with_context(&format!("{word} {payload}")), rule).await;
        assert_eq!(answer, end_turn());
        assert_eq!(
            log,
            [
                update(
                    &s,
                    json!({"sessionUpdate": "tool_call", "toolCallId": "wta-propose-1",
                    "title": format!("`{command}`"), "kind": "execute", "status": "pending",
                    "rawInput": {"command": command}})
                ),
                json!({"request": "session/request_permission",
                    "params": {"sessionId": s, "toolCall": call, "options": options}}),
                update(
                    &s,
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": "wta-propose-1", "status": "failed"})
                ),
                said(
                    &s,
                    &format!("permission not granted ({why}); the proposal command did not run")
                ),
            ]
        );
    }
    let failing: Arc<Rule> = Arc::new(|_, _, _| Err(Error::internal_error().data(json!("no"))));
    let (s, _, log) = turn(&with_context(&format!("propose {payload}")), failing).await;
    assert_eq!(
        log[3],
        said(
            &s,
            "permission not granted (Internal error); the proposal command did not run"
        )
    );
}

#[tokio::test]
async fn propose_unarmed_runs_the_command_and_reports_how_it_ended() {
    // Without a WTA CLI to run (no WTA_CLI_PATH here) the command fails;
    // what matters is the order of updates and where the output goes.
    let payload = format!(r#"{{"id":"{ID}"}}"#);
    let command = build_invocation(&channel(), &payload);
    let text = with_context(&format!("propose-unarmed {payload}"));
    let (s, answer, log) = turn(&text, choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log[..2],
        [
            update(
                &s,
                json!({"sessionUpdate": "tool_call", "toolCallId": "wta-propose-1",
                "title": format!("`{command}`"), "kind": "execute", "status": "pending",
                "rawInput": {"command": command}})
            ),
            update(
                &s,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "wta-propose-1",
                "status": "in_progress"})
            ),
        ]
    );
    // Each stdout line is streamed as a chunk while the CLI runs.
    let streamed = log.len() - 4;
    let raw = &log[2 + streamed]["params"]["update"]["rawOutput"];
    let exit = raw["exitCode"].as_i64().unwrap();
    let stdout = raw["stdout"].as_str().unwrap().to_owned();
    let stderr = raw["stderr"].as_str().unwrap().to_owned();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| said(&s, &format!("{l}\n")))
        .collect();
    assert_eq!(log[2..2 + streamed], lines);
    assert_eq!(
        log[2 + streamed],
        update(
            &s,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "wta-propose-1",
            "status": if exit == 0 { "completed" } else { "failed" },
            "rawOutput": {"exitCode": exit, "stdout": stdout, "stderr": stderr}})
        )
    );
    if stdout.is_empty() {
        let first = stderr.lines().next().unwrap_or("").trim();
        assert_eq!(
            log[3],
            said(
                &s,
                &format!("\n\nthe proposal CLI failed with exit {exit}: {first}")
            )
        );
    }
}
