//! The built-in offline demo agent (`wta --demo-agent`, agent id `demo`).
//!
//! It says plainly that it is a demo. Deterministic replies: a markdown echo,
//! a plan (`plan`), a permission request (`permission`), and help otherwise.
//! `run <command>` proposes that command through WTA's terminal-action path
//! exactly as a real agent would (see [`propose`]) and reports the result.
//! Built on the ACP crate's Agent side; serves one client on the given streams.

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};

use agent_client_protocol::v1::{ConnectionTo, Dispatch, Responder};
use agent_client_protocol::{Agent, ByteStreams, Client, Error, UntypedMessage};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use wta_protocol::prompt::{channel_in, request_and_context};
use wta_protocol::{
    ExecutionLine, ExecutionStatus, FinalStatus, ResponseLine, ValidationStatus, build_invocation,
};

const INTRO: &str = "**This is the WTA demo agent.** It runs offline and does not use a model: \
it only shows what an agent pane can do.\n\n";

/// What the demo does for one prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoReply {
    Plan,
    Permission,
    /// `run <command>`: propose the command through WTA's proposal path.
    Propose(String),
    Echo(String),
}

/// Pure choice of the reply from the prompt text.
pub fn choose(text: &str) -> DemoReply {
    let text = text.trim();
    let lower = text.to_lowercase();
    let run = text
        .split_once(char::is_whitespace)
        .filter(|(word, _)| word.eq_ignore_ascii_case("run"))
        .map(|(_, command)| command.trim())
        .filter(|command| !command.is_empty());
    if let Some(command) = run {
        DemoReply::Propose(command.to_owned())
    } else if lower.starts_with("plan") {
        DemoReply::Plan
    } else if lower.starts_with("permission") {
        DemoReply::Permission
    } else {
        DemoReply::Echo(text.trim().to_owned())
    }
}

/// Serves the demo agent until the client hangs up.
pub async fn serve<W, R>(outgoing: W, incoming: R) -> Result<(), Error>
where
    W: futures::AsyncWrite + Send + 'static,
    R: futures::AsyncRead + Send + 'static,
{
    static NEXT: AtomicU64 = AtomicU64::new(1);
    Agent
        .v1()
        .name("wta-demo-agent")
        .on_receive_dispatch(
            async move |dispatch: Dispatch, cx: ConnectionTo<Client>| match dispatch {
                Dispatch::Request(msg, responder) => match msg.method.as_str() {
                    "initialize" => responder.respond(json!({
                        "protocolVersion": 1,
                        "agentCapabilities": {"loadSession": false},
                        "authMethods": [],
                        "agentInfo": {"name": "wta-demo", "title": "WTA demo agent (offline)", "version": env!("CARGO_PKG_VERSION")}
                    })),
                    "session/new" => responder.respond(json!({
                        "sessionId": format!("demo-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
                    })),
                    "session/prompt" => {
                        let session = msg.params.get("sessionId").cloned().unwrap_or(Value::Null);
                        let (text, context) = request_and_context(&msg.params);
                        cx.spawn({
                            let cx = cx.clone();
                            async move {
                                turn(&cx, session, choose(&text), &context, responder).await;
                                Ok(())
                            }
                        })
                    }
                    other => responder.respond_with_error(Error::method_not_found().data(json!(other))),
                },
                Dispatch::Notification(_) => Ok(()),
                Dispatch::Response(result, router) => router.route_with_result(result),
            },
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_to(ByteStreams::new(outgoing, incoming))
        .await
}

fn chunk(cx: &ConnectionTo<Client>, session: &Value, text: &str) -> Result<(), Error> {
    update(
        cx,
        session,
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
    )
}

fn update(cx: &ConnectionTo<Client>, session: &Value, update: Value) -> Result<(), Error> {
    cx.send_notification(UntypedMessage::new(
        "session/update",
        json!({"sessionId": session, "update": update}),
    )?)
}

async fn turn(
    cx: &ConnectionTo<Client>,
    session: Value,
    reply: DemoReply,
    context: &str,
    responder: Responder<Value>,
) {
    let result = async {
        chunk(cx, &session, INTRO)?;
        match reply {
            DemoReply::Echo(text) => {
                let body = if text.is_empty() { "(empty prompt)".to_owned() } else { text };
                chunk(cx, &session, &format!("You said:\n\n> {body}\n\nTry `plan`, `permission` or `run <command>`.\n"))?;
            }
            DemoReply::Propose(command) => propose(cx, &session, context, &command).await?,
            DemoReply::Plan => {
                update(cx, &session, json!({"sessionUpdate": "plan", "entries": [
                    {"content": "Read the failing test output", "priority": "high", "status": "completed"},
                    {"content": "Propose a fix", "priority": "medium", "status": "in_progress"},
                    {"content": "Re-run the tests", "priority": "low", "status": "pending"}]}))?;
                chunk(cx, &session, "Here is a **plan** (a demo; nothing is run).\n")?;
            }
            DemoReply::Permission => {
                let answer = cx
                    .send_request(UntypedMessage::new("session/request_permission", json!({
                        "sessionId": session,
                        "toolCall": {"toolCallId": "demo-1", "title": "echo hello from the demo", "kind": "execute"},
                        "options": [
                            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                            {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}))?)
                    .block_task()
                    .await?;
                let text = match answer.pointer("/outcome/optionId").and_then(Value::as_str) {
                    Some("allow") => "You allowed it. (The demo does not run anything.)\n",
                    Some(_) => "You rejected it.\n",
                    None => "The request was cancelled.\n",
                };
                chunk(cx, &session, text)?;
            }
        }
        Ok::<_, Error>(())
    }
    .await;
    let _ = match result {
        Ok(()) => responder.respond(json!({"stopReason": "end_turn"})),
        Err(err) => responder.respond_with_error(err),
    };
}

/// A one-choice, one-`send` payload for `command`, as compact JSON.
pub fn payload_for(command: &str) -> String {
    json!({"schema_version": 1, "origin": "terminal_agent", "recommended_choice": 1,
        "choices": [{"choice": 1, "title": "The command you asked for",
            "rationale": "You asked the demo agent to run this command.",
            "actions": [{"type": "send", "input": command}]}]})
    .to_string()
}

/// `run <command>`: what a real agent does with WTA's prompt context. Ask
/// permission for exactly the canonical invocation (WTA allows it silently
/// and arms the payload), run it with `sh -c`, and read the lines the CLI
/// prints: validation, the user's decision on the card, then the execution
/// result, which the reply reports.
async fn propose(
    cx: &ConnectionTo<Client>,
    session: &Value,
    context: &str,
    command: &str,
) -> Result<(), Error> {
    let Some(channel) = channel_in(context) else {
        return chunk(
            cx,
            session,
            "This prompt came without a WTA proposal channel (is this a WTA agent pane?), so I \
             cannot propose the command.\n",
        );
    };
    chunk(
        cx,
        session,
        &format!("I'll propose `{command}` for your shell; confirm it on the card.\n\n"),
    )?;
    let invocation = build_invocation(&channel, &payload_for(command));
    // Tool call ids are unique within a session: one per proposal.
    static PROPOSALS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = PROPOSALS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id = format!("demo-propose-{n}");
    let call = json!({"toolCallId": id, "title": format!("`{invocation}`"),
        "kind": "execute", "status": "pending",
        "rawInput": {"command": invocation, "description": "Propose a terminal action"}});
    update(
        cx,
        session,
        json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": call["title"],
        "kind": "execute", "status": "pending", "rawInput": call["rawInput"]}),
    )?;
    let answer = cx
        .send_request(UntypedMessage::new(
            "session/request_permission",
            json!({"sessionId": session, "toolCall": call, "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}),
        )?)
        .block_task()
        .await?;
    if answer.pointer("/outcome/optionId").and_then(Value::as_str) != Some("allow") {
        update(
            cx,
            session,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "failed"}),
        )?;
        return chunk(
            cx,
            session,
            "The proposal command was not allowed, so nothing was proposed.\n",
        );
    }
    let ran = run_cli(&invocation).await;
    let status = if ran.exit == Some(0) {
        "completed"
    } else {
        "failed"
    };
    update(
        cx,
        session,
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status,
        "content": [{"type": "content", "content": {"type": "text", "text": ran.stdout}}]}),
    )?;
    chunk(cx, session, &report(command, &ran))
}

/// What the proposal CLI printed and how it exited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliRun {
    pub stdout: String,
    pub stderr: String,
    pub exit: Option<i32>,
}

async fn run_cli(invocation: &str) -> CliRun {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.args(["-c", invocation])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // The master sets WTA_CLI_PATH; when run by hand, the demo is wta itself.
    if std::env::var_os("WTA_CLI_PATH").is_none()
        && let Ok(exe) = std::env::current_exe()
    {
        cmd.env("WTA_CLI_PATH", exe);
    }
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(err) => {
            return CliRun {
                stderr: format!("cannot start sh: {err}"),
                ..CliRun::default()
            };
        }
    };
    let (mut out, mut err) = (String::new(), String::new());
    if let (Some(o), Some(e)) = (child.stdout.as_mut(), child.stderr.as_mut()) {
        let _ = tokio::join!(o.read_to_string(&mut out), e.read_to_string(&mut err));
    }
    let exit = child.wait().await.ok().and_then(|s| s.code());
    CliRun {
        stdout: out,
        stderr: err,
        exit,
    }
}

/// Lines of output shown in the report.
const TAIL_LINES: usize = 5;

/// The demo's reply, from the CLI's lines (pure).
pub fn report(command: &str, ran: &CliRun) -> String {
    let lines: Vec<ResponseLine> = ran
        .stdout
        .lines()
        .filter_map(|l| ResponseLine::from_frame(l.as_bytes()).ok())
        .collect();
    if lines.is_empty() {
        let why = ran.stderr.lines().next().unwrap_or("no output");
        return format!(
            "The proposal command failed (exit {}): {why}\n",
            ran.exit.map_or_else(|| "?".to_owned(), |c| c.to_string())
        );
    }
    let mut text = String::new();
    for line in lines {
        match line {
            ResponseLine::Validation(v) if v.status != ValidationStatus::Accepted => {
                text.push_str(&format!(
                    "WTA refused the proposal ({}): {}\n",
                    wire_name(&v.status),
                    v.reason.unwrap_or_default()
                ));
            }
            ResponseLine::Validation(_) => {}
            ResponseLine::Final(f) => match f.status {
                FinalStatus::Confirmed => {}
                FinalStatus::Cancelled => {
                    text.push_str("You cancelled the proposal; nothing ran.\n");
                }
                other => text.push_str(&format!(
                    "The card ended without running anything: {}.\n",
                    wire_name(&other)
                )),
            },
            ResponseLine::Execution(e) => text.push_str(&execution_text(command, &e)),
        }
    }
    text
}

fn execution_text(command: &str, e: &ExecutionLine) -> String {
    let tail = e.output.as_deref().map(output_tail).unwrap_or_default();
    let code = e
        .exit_code
        .map_or_else(|| "?".to_owned(), |c| c.to_string());
    let mut text = match e.status {
        ExecutionStatus::Completed => format!("`{command}` completed with exit code 0.\n"),
        ExecutionStatus::Failed => format!(
            "`{command}` failed with exit code {code}. A real agent would now read the error and \
             suggest a fix.\n"
        ),
        ExecutionStatus::Inserted => {
            format!("`{command}` was typed into your shell without Enter; nothing ran.\n")
        }
        ExecutionStatus::TimedOut => {
            format!("`{command}` is still running; I stopped waiting for it.\n")
        }
        other => format!(
            "`{command}`: {} ({}).\n",
            wire_name(&other),
            e.reason.as_deref().unwrap_or("no reason given")
        ),
    };
    if !tail.is_empty() {
        text.push_str(&format!(
            "\nLast lines of its output:\n\n```\n{tail}\n```\n"
        ));
    }
    text
}

/// The last [`TAIL_LINES`] non-blank lines.
fn output_tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}

fn wire_name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wta_protocol::Channel;

    #[test]
    fn chooses_reply_from_prompt() {
        assert_eq!(choose("plan please"), DemoReply::Plan);
        assert_eq!(choose("Permission"), DemoReply::Permission);
        assert_eq!(
            choose("run  echo hi "),
            DemoReply::Propose("echo hi".into())
        );
        assert_eq!(choose("Run ls"), DemoReply::Propose("ls".into()));
        assert_eq!(choose("run"), DemoReply::Echo("run".into()));
        assert_eq!(choose("runner x"), DemoReply::Echo("runner x".into()));
        assert_eq!(choose(" hi "), DemoReply::Echo("hi".into()));
    }

    const ID: &str = "0123456789abcdef0123456789abcdef";

    fn cli(lines: &[String]) -> CliRun {
        CliRun {
            stdout: lines.join("\n"),
            stderr: String::new(),
            exit: Some(0),
        }
    }

    #[test]
    fn the_payload_is_valid_v1_and_the_invocation_canonical() {
        let payload = payload_for("echo 'hi'");
        let parsed = wta_protocol::parse_payload(payload.as_bytes()).unwrap();
        assert_eq!(parsed.choices.len(), 1);
        let channel = Channel::parse(&format!("v1.{ID}.{ID}")).unwrap();
        let context = format!("## ctx\n```sh\n{}\n```", build_invocation(&channel, "<p>"));
        assert_eq!(channel_in(&context), Some(channel));
        assert_eq!(channel_in("nothing"), None);
    }

    #[test]
    fn reports_follow_the_execution_line() {
        let accepted = format!(
            r#"{{"phase":"validation","status":"accepted","proposal_id":"{ID}","retryable":false}}"#
        );
        let confirmed =
            format!(r#"{{"phase":"final","status":"confirmed","proposal_id":"{ID}","choice":1}}"#);
        let exec = |status: &str, code: i32, output: &str| {
            format!(
                r#"{{"phase":"execution","status":"{status}","proposal_id":"{ID}","execution_id":"{ID}","action":1,"exit_code":{code},"output":{output:?}}}"#
            )
        };
        let ok = report(
            "echo hi",
            &cli(&[
                accepted.clone(),
                confirmed.clone(),
                exec("completed", 0, "hi"),
            ]),
        );
        assert!(
            ok.starts_with("`echo hi` completed with exit code 0."),
            "{ok}"
        );
        assert!(ok.contains("```\nhi\n```"), "{ok}");
        let long: String = (1..=9).map(|n| format!("l{n}\n")).collect();
        let bad = report(
            "make",
            &cli(&[accepted.clone(), confirmed, exec("failed", 2, &long)]),
        );
        assert!(bad.starts_with("`make` failed with exit code 2."), "{bad}");
        assert!(bad.contains("```\nl5\nl6\nl7\nl8\nl9\n```"), "{bad}");
        let cancelled = format!(r#"{{"phase":"final","status":"cancelled","proposal_id":"{ID}"}}"#);
        assert_eq!(
            report("x", &cli(&[accepted, cancelled])),
            "You cancelled the proposal; nothing ran.\n"
        );
        let broken = CliRun {
            stdout: String::new(),
            stderr: "wta: cannot connect\n".into(),
            exit: Some(1),
        };
        assert_eq!(
            report("x", &broken),
            "The proposal command failed (exit 1): wta: cannot connect\n"
        );
    }

    /// What the demo sends a client, message by message, for each reply
    /// (an in-memory client over a duplex pipe).
    mod wire {
        use super::*;
        use crate::scripted::probe::{Rule, ask, choosing, open, probe, prompt, said as say};
        use std::sync::Arc;

        /// One prompt in a fresh session: (session id, answer, log after `session/new`).
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
                        "You said:\n\n> hello *there*\n\nTry `plan`, `permission` or `run <command>`.\n"
                    )
                ]
            );
            let (s, _, log) = turn("  ", choosing(None)).await;
            assert_eq!(
                log[1],
                say(
                    &s,
                    "You said:\n\n> (empty prompt)\n\nTry `plan`, `permission` or `run <command>`.\n"
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
            let refuse: Arc<Rule> =
                Arc::new(|_, _, _| Err(Error::internal_error().data(json!("no"))));
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
                let raw =
                    json!({"command": invocation, "description": "Propose a terminal action"});
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
    }
}
