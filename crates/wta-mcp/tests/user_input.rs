//! `request_user_input` over HTTP: answered, cancelled, timed out, the
//! caller going away (the backend's future is dropped), one question per
//! session, argument checks and the separate question pool.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{Call, Fixture, Question, raw_post, read_status};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use wta_mcp::{Limits, McpSessionId};
use wta_protocol::session_tools::{
    TOOL_RUN_COMMAND, TOOL_USER_INPUT, UserInputArgs, UserInputOutcome,
};

fn ask(question: &str) -> Value {
    json!({"question": question, "choices": ["A", "B"], "allow_freeform": true})
}

async fn next_question(fx: &mut Fixture) -> Question {
    match fx.next_call().await {
        Call::Input(question) => question,
        _ => panic!("expected a question"),
    }
}

/// Starts a call in the background; its result arrives on the handle.
fn ask_in_background(
    fx: &Fixture,
    token: &str,
    arguments: Value,
) -> tokio::task::JoinHandle<Value> {
    let addr = fx.addr();
    let host = fx.host();
    let token = token.to_owned();
    tokio::spawn(async move {
        let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": TOOL_USER_INPUT, "arguments": arguments}});
        let reply = support::send(
            addr,
            "POST",
            "/mcp",
            &[
                ("host", host),
                ("authorization", format!("Bearer {token}")),
                ("content-type", "application/json".into()),
                ("accept", "application/json, text/event-stream".into()),
            ],
            body.to_string(),
        )
        .await;
        reply.json()["result"].clone()
    })
}

#[tokio::test]
async fn an_answered_question_returns_the_answer() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let call = ask_in_background(&fx, &token, ask("Which one?"));
    let question = next_question(&mut fx).await;
    assert_eq!(question.session, McpSessionId::new("A"));
    assert_eq!(
        question.args,
        UserInputArgs {
            question: "Which one?".into(),
            choices: vec!["A".into(), "B".into()],
            allow_freeform: true,
        }
    );
    question
        .answer
        .send(UserInputOutcome::Answered {
            answer: "B".into(),
            selected_index: Some(1),
        })
        .unwrap();
    let result = call.await.unwrap();
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["structuredContent"],
        json!({"outcome": "answered", "answer": "B", "selected_index": 1})
    );
    assert_eq!(result["content"][0]["text"], "answered (choice 2): B");
}

#[tokio::test]
async fn a_cancelled_question_says_cancelled() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let call = ask_in_background(&fx, &token, ask("Go on?"));
    let question = next_question(&mut fx).await;
    question.answer.send(UserInputOutcome::Cancelled).unwrap();
    let result = call.await.unwrap();
    assert_eq!(result["isError"], false);
    assert_eq!(result["structuredContent"], json!({"outcome": "cancelled"}));
}

#[tokio::test]
async fn an_unanswered_question_times_out_unavailable_and_is_dropped() {
    let limits = Limits {
        user_input_timeout: Duration::from_millis(200),
        ..Limits::default()
    };
    let mut fx = Fixture::start(limits).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let call = ask_in_background(&fx, &token, ask("Still there?"));
    let question = next_question(&mut fx).await;
    let result = call.await.unwrap();
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["outcome"], "unavailable");
    assert!(
        result["structuredContent"]["reason"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
    // The backend's future was dropped, so it can take the question down.
    question.dropped.await.unwrap();
    // And the session may ask again.
    let again = ask_in_background(&fx, &token, ask("Now?"));
    let question = next_question(&mut fx).await;
    question.answer.send(UserInputOutcome::Cancelled).unwrap();
    assert_eq!(
        again.await.unwrap()["structuredContent"]["outcome"],
        "cancelled"
    );
}

#[tokio::test]
async fn a_caller_that_goes_away_drops_the_question() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": TOOL_USER_INPUT, "arguments": ask("Which?")}}).to_string();
    let mut stream = TcpStream::connect(fx.addr()).await.unwrap();
    stream
        .write_all(&raw_post(
            &fx.host(),
            &format!("authorization: Bearer {token}\r\n"),
            &body,
        ))
        .await
        .unwrap();
    let question = next_question(&mut fx).await;
    drop(stream);
    question.dropped.await.unwrap();
    // The lease went with it: the session may ask again.
    let again = ask_in_background(&fx, &token, ask("Again?"));
    let question = next_question(&mut fx).await;
    question.answer.send(UserInputOutcome::Cancelled).unwrap();
    assert_eq!(again.await.unwrap()["isError"], false);
}

#[tokio::test]
async fn a_second_question_of_the_same_session_is_unavailable_meanwhile() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_a, token_a) = fx.grant("A", "agent-1");
    let (_b, token_b) = fx.grant("B", "agent-1");
    let first = ask_in_background(&fx, &token_a, ask("First?"));
    let question = next_question(&mut fx).await;
    let second = fx
        .call_tool(&token_a, TOOL_USER_INPUT, ask("Second?"))
        .await;
    assert_eq!(second["isError"], true);
    assert_eq!(
        second["structuredContent"],
        json!({"outcome": "unavailable", "reason": "another question is waiting for the user's answer"})
    );
    assert!(fx.no_calls());
    // Another session is not held up by A's question.
    let other = ask_in_background(&fx, &token_b, ask("B's?"));
    let b_question = next_question(&mut fx).await;
    assert_eq!(b_question.session, McpSessionId::new("B"));
    b_question.answer.send(UserInputOutcome::Cancelled).unwrap();
    other.await.unwrap();
    // Terminal tools go on while a question waits.
    fx.call_tool(&token_a, TOOL_RUN_COMMAND, json!({"command": "ls"}))
        .await;
    assert!(matches!(fx.next_call().await, Call::Tool(..)));
    question.answer.send(UserInputOutcome::Cancelled).unwrap();
    assert_eq!(first.await.unwrap()["isError"], false);
}

#[tokio::test]
async fn invalid_questions_are_refused_with_the_reason() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let rows = [
        (
            json!({"question": "Pick", "choices": []}),
            "give at least one choice",
        ),
        (json!({"question": "", "allow_freeform": true}), "question"),
        (
            json!({"question": "Pick", "choices": vec!["a"; 9]}),
            "9 choices",
        ),
        (
            json!({"question": "Pick", "choices": ["two\nlines"]}),
            "choice 1",
        ),
        (
            json!({"question": "Pick", "allow_freeform": true, "extra": 1}),
            "unknown field",
        ),
    ];
    for (arguments, needle) in rows {
        let result = fx
            .call_tool(&token, TOOL_USER_INPUT, arguments.clone())
            .await;
        assert_eq!(result["isError"], true, "{arguments}");
        assert_eq!(result["structuredContent"]["outcome"], "unavailable");
        let reason = result["structuredContent"]["reason"].as_str().unwrap();
        assert!(reason.contains(needle), "{arguments}: {reason}");
    }
    assert!(fx.no_calls());
}

#[tokio::test]
async fn waiting_questions_use_their_own_pool() {
    let limits = Limits {
        max_connections: 1,
        max_question_connections: 1,
        ..Limits::default()
    };
    let mut fx = Fixture::start(limits).await;
    let (_a, token_a) = fx.grant("A", "agent-1");
    let (_b, token_b) = fx.grant("B", "agent-1");
    // A's question moves its connection to the question pool...
    let first = ask_in_background(&fx, &token_a, ask("First?"));
    let question = next_question(&mut fx).await;
    // ...so the one ordinary slot serves B, whose question finds the
    // question pool full.
    let full = fx.call_tool(&token_b, TOOL_USER_INPUT, ask("B?")).await;
    assert_eq!(
        full["structuredContent"],
        json!({"outcome": "unavailable", "reason": "too many questions are waiting for answers"})
    );
    assert!(fx.no_calls());
    question.answer.send(UserInputOutcome::Cancelled).unwrap();
    assert_eq!(first.await.unwrap()["isError"], false);
    // Both slots come back: another question can wait again.
    let mut status = None;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    while status.is_none() {
        let mut stream = TcpStream::connect(fx.addr()).await.unwrap();
        stream
            .write_all(&raw_post(
                &fx.host(),
                &format!("authorization: Bearer {token_a}\r\n"),
                &body,
            ))
            .await
            .unwrap();
        status = read_status(&mut stream).await;
        tokio::task::yield_now().await;
    }
    assert_eq!(status, Some(200));
}
