//! The core against an in-memory client ([`super::probe`]): each step's
//! exact messages in order, how answers pick the next steps, cancellation,
//! and what the serving loop answers itself.

use std::sync::{Arc, Mutex};

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    PlanEntry, PlanEntryPriority, PlanEntryStatus, ToolCallStatus, ToolKind,
};
use serde_json::{Map, Value, json};

use super::probe::{Rule, ask, choosing, open, probe, prompt, said, tell, update};
use super::*;

/// A scripted agent whose turns are [`script`] of the prompt text; it
/// records what it received, and serves `x/echo` itself.
#[derive(Default)]
struct Fixture {
    received: Arc<Mutex<Vec<String>>>,
}

impl ScriptedAgent for Fixture {
    type Session = u32;
    const NAME: &'static str = "fixture";
    const SESSION_PREFIX: &'static str = "fx";

    fn initialize(&self) -> Value {
        json!({"protocolVersion": 1, "agentInfo": {"name": "fixture"}})
    }

    fn open_session(&self, _id: &str) -> (u32, Map<String, Value>) {
        let mut extra = Map::new();
        extra.insert("configOptions".into(), json!([]));
        (0, extra)
    }

    fn prompt(&self, prompt: &Prompt, sessions: &Sessions<u32>) -> Result<Vec<Step>, Error> {
        if !prompt.known {
            return Err(Error::invalid_params().data(json!("unknown session")));
        }
        let turns = sessions.with(&prompt.session, |n| {
            *n += 1;
            *n
        });
        Ok(script(&prompt.text, &prompt.context, turns.unwrap_or(0)))
    }

    fn request(
        &self,
        method: &str,
        params: &Value,
        _peer: &Peer,
        _sessions: &Sessions<u32>,
    ) -> Option<Result<Value, Error>> {
        (method == "x/echo").then(|| Ok(params.clone()))
    }

    fn received(&self, method: &str, _params: &Value) {
        self.received.lock().unwrap().push(method.to_owned());
    }
}

fn permission() -> Permission {
    Permission {
        call: ToolCall::new("p-1", "rm -r x", ToolKind::Delete),
        options: vec![
            PermissionOption::new("yes", "Yes", "allow_once"),
            PermissionOption::new("no", "No", "reject_once"),
        ],
    }
}

fn script(text: &str, context: &str, turns: u32) -> Vec<Step> {
    match text {
        "notify" => vec![
            Step::say("one"),
            Step::Plan(vec![PlanEntry::new(
                "p",
                PlanEntryPriority::Medium,
                PlanEntryStatus::Pending,
            )]),
            Step::ToolCall(
                ToolCall::new("t", "Read a", ToolKind::Read)
                    .status(ToolCallStatus::Pending)
                    .location("a"),
            ),
            Step::ToolUpdate(ToolUpdate::new("t", ToolCallStatus::Completed)),
            Step::say(format!("turn {turns}, context {context:?}")),
        ],
        "ask" => vec![
            Step::ask(permission(), |answer| {
                let allowed = answer.as_ref().is_ok_and(|a| a.allows(&permission()));
                let answer = match answer {
                    Ok(answer) => format!("{answer:?}"),
                    Err(err) => format!("error {}", err.message),
                };
                vec![Step::say(format!("{answer} allowed={allowed}"))]
            }),
            Step::say("after"),
        ],
        "request" => vec![Step::request(
            "fs/read_text_file",
            json!({"path": "/x"}),
            |r| {
                vec![Step::say(match r {
                    Ok(v) => format!("ok {v}"),
                    Err(e) => format!("error {}", e.message),
                })]
            },
        )],
        "run" => vec![Step::run(
            Command::shell("echo a; echo b; exit 2").saying_lines(),
            |ran| vec![Step::say(format!("exit {:?} {:?}", ran.exit, ran.stdout))],
        )],
        "check" => vec![Step::ask(permission(), |_| {
            vec![Step::unless_cancelled(|| vec![Step::say("went on")])]
        })],
        "wait" => vec![Step::say("waiting"), Step::AwaitCancel, Step::say("never")],
        "fail" => vec![
            Step::say("failing"),
            Step::Fail(Error::new(-32001, "scripted")),
            Step::say("never"),
        ],
        _ => vec![],
    }
}

/// One prompt in a fresh session with `rule`: (session, answer, log).
async fn turn(text: &str, rule: Arc<Rule>) -> (String, Value, Vec<Value>) {
    let serve_fixture = |w, r| serve(Fixture::default(), w, r);
    let ((s, answer), log) = probe(serve_fixture, rule, async |cx| {
        let s = open(&cx).await?;
        Ok((s.clone(), prompt(&cx, &s, text).await))
    })
    .await
    .unwrap();
    (s, answer, log)
}

fn end_turn() -> Value {
    json!({"stopReason": "end_turn"})
}

#[tokio::test]
async fn notifying_steps_go_out_in_order() {
    let (s, answer, log) = turn("notify", choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            said(&s, "one"),
            update(
                &s,
                json!({"sessionUpdate": "plan", "entries": [
                {"content": "p", "priority": "medium", "status": "pending"}]})
            ),
            update(
                &s,
                json!({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "Read a",
                "kind": "read", "status": "pending", "locations": [{"path": "a"}]})
            ),
            update(
                &s,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "completed"})
            ),
            said(&s, "turn 1, context \"\""),
        ]
    );
}

#[tokio::test]
async fn the_answer_picks_the_next_steps_which_run_before_the_rest() {
    let request = |s: &str| {
        json!({"request": "session/request_permission", "params": {"sessionId": s,
            "toolCall": {"toolCallId": "p-1", "title": "rm -r x", "kind": "delete"},
            "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"},
                        {"optionId": "no", "name": "No", "kind": "reject_once"}]}})
    };
    let failing: Arc<Rule> = Arc::new(|_, _, _| Err(Error::new(-32099, "gone")));
    for (rule, text) in [
        (choosing(Some("yes")), r#"Selected("yes") allowed=true"#),
        (choosing(Some("no")), r#"Selected("no") allowed=false"#),
        (choosing(None), "Cancelled allowed=false"),
        (failing, "error gone allowed=false"),
    ] {
        let (s, answer, log) = turn("ask", rule).await;
        assert_eq!(answer, end_turn());
        assert_eq!(log, [request(&s), said(&s, text), said(&s, "after")]);
    }
}

#[tokio::test]
async fn requests_carry_the_session_and_give_back_their_result() {
    let reading: Arc<Rule> = Arc::new(|_, params, _| Ok(json!({"content": params["path"]})));
    let (s, answer, log) = turn("request", reading).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            json!({"request": "fs/read_text_file", "params": {"sessionId": s, "path": "/x"}}),
            said(&s, r#"ok {"content":"/x"}"#),
        ]
    );
    let (s, _, log) = turn("request", choosing(None)).await;
    assert_eq!(log[1], said(&s, "error Method not found"));
}

#[tokio::test]
async fn a_command_says_its_lines_then_its_result_picks_the_next_steps() {
    let (s, answer, log) = turn("run", choosing(None)).await;
    assert_eq!(answer, end_turn());
    assert_eq!(
        log,
        [
            said(&s, "a\n"),
            said(&s, "b\n"),
            said(&s, r#"exit Some(2) "a\nb\n""#),
        ]
    );
}

#[tokio::test]
async fn a_cancel_stops_the_turn_at_its_next_check() {
    let (s, answer, log) = turn("check", choosing(Some("yes"))).await;
    assert_eq!(answer, end_turn());
    assert_eq!(log[1], said(&s, "went on"));
    // The client cancels before it answers the permission request (as ACP
    // asks), so the check after the answer sees the cancel.
    let cancelling: Arc<Rule> = Arc::new(|_, params, cx| {
        tell(
            cx,
            "session/cancel",
            json!({"sessionId": params["sessionId"]}),
        )?;
        Ok(json!({"outcome": {"outcome": "cancelled"}}))
    });
    let (_, answer, log) = turn("check", cancelling).await;
    assert_eq!(answer, json!({"stopReason": "cancelled"}));
    assert_eq!(log.len(), 1, "{log:?}");
}

#[tokio::test]
async fn waiting_turns_end_cancelled_and_a_late_cancel_spares_the_next_turn() {
    let serve_fixture = |w, r| serve(Fixture::default(), w, r);
    let ((s, answers), log) = probe(serve_fixture, choosing(Some("yes")), async |cx| {
        let s = open(&cx).await?;
        let msg = agent_client_protocol::UntypedMessage::new(
            "session/prompt",
            json!({"sessionId": s, "prompt": [{"type": "text", "text": "wait"}]}),
        )?;
        let waiting = cx.send_request(msg);
        tell(&cx, "session/cancel", json!({"sessionId": s}))?;
        let first = waiting.block_task().await?;
        // Aimed at the turn that just ended: the next turn is not cancelled.
        tell(&cx, "session/cancel", json!({"sessionId": s}))?;
        let second = prompt(&cx, &s, "check").await;
        Ok((s, vec![first, second]))
    })
    .await
    .unwrap();
    assert_eq!(answers, [json!({"stopReason": "cancelled"}), end_turn()]);
    assert_eq!(log[0], said(&s, "waiting"));
    assert_eq!(log[2], said(&s, "went on"));
    assert_eq!(log.len(), 3, "{log:?}");
}

#[tokio::test]
async fn a_failing_step_answers_with_its_error_and_ends_the_turn() {
    let (s, answer, log) = turn("fail", choosing(None)).await;
    assert_eq!(
        answer,
        json!({"error": {"code": -32001, "message": "scripted", "data": null}})
    );
    assert_eq!(log, [said(&s, "failing")]);
}

#[tokio::test]
async fn the_loop_answers_setup_and_hands_the_rest_to_the_agent() {
    let fixture = Fixture::default();
    let received = fixture.received.clone();
    let context = format!("{}ctx", wta_protocol::prompt::CONTEXT_SEPARATOR);
    let (answers, log) = probe(
        move |w, r| serve(fixture, w, r),
        choosing(None),
        async |cx| {
            let init = ask(&cx, "initialize", json!({"protocolVersion": 1})).await;
            let new = ask(&cx, "session/new", json!({"cwd": "/"})).await;
            let s = new["sessionId"].as_str().unwrap_or_default().to_owned();
            tell(&cx, "x/notice", json!({}))?;
            Ok(vec![
                init,
                new,
                ask(&cx, "x/echo", json!({"a": 1})).await,
                ask(&cx, "x/other", json!({})).await,
                prompt(&cx, "nope", "notify").await,
                prompt(&cx, &s, &format!("notify{context}")).await,
                prompt(&cx, &s, "notify").await,
            ])
        },
    )
    .await
    .unwrap();
    assert_eq!(
        answers[0],
        json!({"protocolVersion": 1, "agentInfo": {"name": "fixture"}})
    );
    let s = answers[1]["sessionId"].as_str().unwrap();
    assert_eq!(
        answers[1],
        json!({"sessionId": format!("fx-{}-1", std::process::id()), "configOptions": []})
    );
    assert_eq!(answers[2], json!({"a": 1}));
    assert_eq!(answers[3]["error"]["code"], -32601);
    assert_eq!(answers[3]["error"]["data"], "x/other");
    assert_eq!(answers[4]["error"]["data"], "unknown session");
    assert_eq!(answers[5], end_turn());
    // The agent's session state counts turns; the context comes apart from the text.
    assert_eq!(log[4], said(s, "turn 1, context \"ctx\""));
    assert_eq!(log[9], said(s, "turn 2, context \"\""));
    assert_eq!(
        *received.lock().unwrap(),
        [
            "initialize",
            "session/new",
            "x/notice",
            "x/echo",
            "x/other",
            "session/prompt",
            "session/prompt",
            "session/prompt"
        ]
    );
}
