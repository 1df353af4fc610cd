//! What the demo sends a client, message by message, for each reply
//! (an in-memory client over a duplex pipe).

use super::*;
use crate::scripted::probe::{Rule, ask, choosing, open, probe, prompt, said as say};
use std::sync::Arc;
use wta_protocol::{Channel, build_invocation};

const ID: &str = "0123456789abcdef0123456789abcdef";

/// One prompt in a fresh session: (session id, answer, log after `session/new`).
async fn turn(text: &str, rule: Arc<Rule>) -> (String, Value, Vec<Value>) {
    let ((session, answer), log) = probe(serve_under_wta, rule, async |cx| {
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

fn context() -> String {
    let channel = Channel::parse(&format!("v1.{ID}.{ID}")).unwrap();
    format!(
        "{}## ctx\n```sh\n{}\n```\n",
        wta_protocol::prompt::CONTEXT_SEPARATOR,
        build_invocation(&channel, "<compact-json-payload>")
    )
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
        json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": false},
            "authMethods": [], "agentInfo": {"name": "wta-demo",
            "title": "WTA demo agent (offline)", "version": env!("CARGO_PKG_VERSION")}})
    );
    let prefix = format!("demo-{}-", std::process::id());
    for answer in [&first, &second] {
        let id = answer["sessionId"].as_str().unwrap();
        assert!(
            id.strip_prefix(&prefix).unwrap().parse::<u64>().is_ok(),
            "{answer}"
        );
        assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
    }
    assert_ne!(first, second);
    assert!(log.is_empty(), "{log:?}");
}

#[tokio::test]
async fn unknown_methods_are_not_found() {
    let (answer, _) = probe(serve, choosing(None), async |cx| {
        Ok(ask(&cx, "session/load", json!({"sessionId": "x"})).await)
    })
    .await
    .unwrap();
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert_eq!(answer["error"]["data"], "session/load", "{answer}");
}

#[tokio::test]
async fn echo() {
    let (s, answer, log) = turn("hello *there*", choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            say(&s, INTRO),
            say(
                &s,
                "You said:\n\n> hello *there*\n\nTry `plan`, `permission`, `run <command>` or `run <command>, then <command>`.\n"
            )
        ]
    );
    let (s, _, log) = turn("  ", choosing(None)).await;
    assert_eq!(
        log[1],
        say(
            &s,
            "You said:\n\n> (empty prompt)\n\nTry `plan`, `permission`, `run <command>` or `run <command>, then <command>`.\n"
        )
    );
}

#[tokio::test]
async fn plan() {
    let (s, answer, log) = turn("plan", choosing(None)).await;
    assert_eq!(answer, end_turn());
    let plan = json!({"notify": "session/update", "params": {"sessionId": s, "update":
        {"sessionUpdate": "plan", "entries": [
            {"content": "Read the failing test output", "priority": "high", "status": "completed"},
            {"content": "Propose a fix", "priority": "medium", "status": "in_progress"},
            {"content": "Re-run the tests", "priority": "low", "status": "pending"}]}}});
    assert_eq!(
        log,
        [
            say(&s, INTRO),
            plan,
            say(&s, "Here is a **plan** (a demo; nothing is run).\n")
        ]
    );
}

#[tokio::test]
async fn permission() {
    for (option, text) in [
        (
            Some("allow"),
            "You allowed it. (The demo does not run anything.)\n",
        ),
        (Some("reject"), "You rejected it.\n"),
        (None, "The request was cancelled.\n"),
    ] {
        let (s, answer, log) = turn("permission", choosing(option)).await;
        assert_eq!(answer, end_turn());
        let request = json!({"request": "session/request_permission", "params": {
            "sessionId": s,
            "toolCall": {"toolCallId": "demo-1", "title": "echo hello from the demo", "kind": "execute"},
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}});
        assert_eq!(log, [say(&s, INTRO), request, say(&s, text)]);
    }
}

#[tokio::test]
async fn a_failed_permission_request_fails_the_turn() {
    let refuse: Arc<Rule> = Arc::new(|_, _, _| Err(Error::internal_error().data(json!("no"))));
    let (s, answer, log) = turn("permission", refuse).await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[0], say(&s, INTRO));
}

#[tokio::test]
async fn run_without_a_channel() {
    let (s, answer, log) = turn("run ls", choosing(Some("allow"))).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            say(&s, INTRO),
            say(
                &s,
                "This prompt came without a WTA proposal channel (is this a WTA agent pane?), so I \
                cannot propose the command.\n"
            )
        ]
    );
}

#[tokio::test]
async fn run_not_allowed() {
    for option in [Some("reject"), None] {
        let text = format!("run echo 'hi'{}", context());
        let (s, answer, log) = turn(&text, choosing(option)).await;
        assert_eq!(answer, end_turn());
        let id = log[2]["params"]["update"]["toolCallId"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(id.starts_with("demo-propose-"), "{id}");
        let channel = Channel::parse(&format!("v1.{ID}.{ID}")).unwrap();
        let invocation = build_invocation(&channel, &payload_for("echo 'hi'"));
        let raw = json!({"command": invocation, "description": "Propose a terminal action"});
        let title = format!("`{invocation}`");
        let call = json!({"notify": "session/update", "params": {"sessionId": s, "update":
            {"sessionUpdate": "tool_call", "toolCallId": id, "title": title,
             "kind": "execute", "status": "pending", "rawInput": raw}}});
        let request = json!({"request": "session/request_permission", "params": {
            "sessionId": s,
            "toolCall": {"toolCallId": id, "title": title, "kind": "execute",
                "status": "pending", "rawInput": raw},
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}});
        let failed = json!({"notify": "session/update", "params": {"sessionId": s, "update":
            {"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "failed"}}});
        assert_eq!(
            log,
            [
                say(&s, INTRO),
                say(
                    &s,
                    "I'll propose `echo 'hi'` for your shell; confirm it on the card.\n\n"
                ),
                call,
                request,
                failed,
                say(
                    &s,
                    "The proposal command was not allowed, so nothing was proposed.\n"
                ),
            ]
        );
    }
}

/// A fix turn's prompt as the helper sends it: the request, then the
/// context with the failed command's record.
fn fix_prompt(untrusted: Value) -> String {
    use super::fix_tests::{block, request};
    format!(
        "{}{}{}",
        request(None),
        wta_protocol::prompt::CONTEXT_SEPARATOR,
        block(untrusted)
    )
}

#[tokio::test]
async fn a_failure_that_is_not_a_typo_is_explained_without_a_card() {
    use super::fix_tests::untrusted;
    let record = untrusted("make", 2, "make: *** No rule.  Stop.", None);
    let (s, answer, log) = turn(&fix_prompt(record.clone()), choosing(Some("allow"))).await;
    assert_eq!(answer, end_turn());
    let failed: fix::FailedCommand =
        serde_json::from_value(record["failed_command"].clone()).unwrap();
    let text = fix::explain(&failed, None, None);
    assert!(text.starts_with("`make` failed. Exit code 2"), "{text}");
    // No tool call and no permission request: nothing is proposed.
    assert_eq!(log, [say(&s, INTRO), say(&s, &text)]);
}

#[tokio::test]
async fn a_command_not_found_is_proposed_spelled_right_as_one_autofix_send() {
    use super::fix_tests::untrusted;
    let near = json!([{"name": "gtk", "distance": 2}, {"name": "git", "distance": 1}]);
    let record = untrusted("gti status", 127, "gti: command not found", Some(near));
    let (s, answer, log) = turn(&fix_prompt(record), choosing(Some("reject"))).await;
    assert_eq!(answer, end_turn());
    let fix = fix::correction(
        &fix::FailedCommand {
            cmdline: Some("gti status".into()),
            exit_code: Some(127),
            ..fix::FailedCommand::default()
        },
        Some(&fix::Resolution {
            verdict: Some(fix::Verdict::NotFound),
            near_matches: vec!["git".into()],
        }),
    )
    .unwrap();
    assert_eq!(fix.command, "git status");
    let id = log[3]["params"]["update"]["toolCallId"]
        .as_str()
        .unwrap()
        .to_owned();
    let channel = Channel::parse(&format!("v1.{ID}.{ID}")).unwrap();
    // The turn's channel carries the autofix payload for the closest name.
    let invocation = build_invocation(&channel, &fix.payload_json());
    let raw = json!({"command": invocation, "description": "Propose a terminal action"});
    let title = format!("`{invocation}`");
    let call = json!({"notify": "session/update", "params": {"sessionId": s, "update":
        {"sessionUpdate": "tool_call", "toolCallId": id, "title": title,
         "kind": "execute", "status": "pending", "rawInput": raw}}});
    let offer = "I'll propose `git status` for your shell; confirm it on the card.\n\n";
    assert_eq!(
        log[..4],
        [
            say(&s, INTRO),
            say(&s, &fix.diagnosis(None)),
            say(&s, offer),
            call
        ]
    );
    assert_eq!(log[4]["request"], "session/request_permission", "{log:?}");
    assert_eq!(log[4]["params"]["toolCall"]["rawInput"], raw, "{log:?}");
    assert_eq!(
        log[6],
        say(
            &s,
            "The proposal command was not allowed, so nothing was proposed.\n"
        )
    );
    assert_eq!(log.len(), 7, "{log:?}");
}
