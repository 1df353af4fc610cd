//! The built-in offline demo agent (`wta --demo-agent`, agent id `demo`).
//!
//! It says plainly that it is a demo. Deterministic replies: a markdown echo,
//! a plan (`plan`), a permission request (`permission`), and help otherwise.
//! `run <command>` proposes that command through WTA's terminal-action path
//! exactly as a real agent would (see [`steps`]) and reports the result.
//! What is the demo's own is here: its words, its fixed script and its
//! report; the ACP side is the shared core in [`crate::scripted`].

use std::sync::atomic::{AtomicU64, Ordering};

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    PlanEntry, PlanEntryPriority, PlanEntryStatus, ToolCallStatus, ToolKind,
};
use serde_json::{Map, Value, json};
use wta_protocol::prompt::channel_in;
use wta_protocol::{
    ExecutionLine, ExecutionStatus, FinalStatus, ResponseLine, ValidationStatus, build_invocation,
};

use crate::scripted::{
    Command, Permission, PermissionAnswer, PermissionOption, Prompt, Ran, ScriptedAgent, Sessions,
    Step, ToolCall, ToolContent, ToolUpdate,
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
    crate::scripted::serve(Demo, outgoing, incoming).await
}

/// The demo as a scripted agent: no session state, any session id welcome.
struct Demo;

impl ScriptedAgent for Demo {
    type Session = ();
    const NAME: &'static str = "wta-demo-agent";
    const SESSION_PREFIX: &'static str = "demo";

    fn initialize(&self) -> Value {
        json!({
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": false},
            "authMethods": [],
            "agentInfo": {"name": "wta-demo", "title": "WTA demo agent (offline)", "version": env!("CARGO_PKG_VERSION")}
        })
    }

    fn open_session(&self, _id: &str) -> ((), Map<String, Value>) {
        ((), Map::new())
    }

    fn prompt(&self, prompt: &Prompt, _sessions: &Sessions<()>) -> Result<Vec<Step>, Error> {
        Ok(steps(choose(&prompt.text), &prompt.context))
    }
}

/// The demo's turn for `reply`; `context` is the block WTA appended to the
/// prompt (where `run` finds its proposal channel).
pub fn steps(reply: DemoReply, context: &str) -> Vec<Step> {
    let mut steps = vec![Step::say(INTRO)];
    match reply {
        DemoReply::Echo(text) => {
            let body = if text.is_empty() {
                "(empty prompt)".to_owned()
            } else {
                text
            };
            steps.push(Step::say(format!(
                "You said:\n\n> {body}\n\nTry `plan`, `permission` or `run <command>`.\n"
            )));
        }
        DemoReply::Plan => {
            steps.push(Step::Plan(vec![
                PlanEntry::new(
                    "Read the failing test output",
                    PlanEntryPriority::High,
                    PlanEntryStatus::Completed,
                ),
                PlanEntry::new(
                    "Propose a fix",
                    PlanEntryPriority::Medium,
                    PlanEntryStatus::InProgress,
                ),
                PlanEntry::new(
                    "Re-run the tests",
                    PlanEntryPriority::Low,
                    PlanEntryStatus::Pending,
                ),
            ]));
            steps.push(Step::say("Here is a **plan** (a demo; nothing is run).\n"));
        }
        DemoReply::Permission => {
            let permission = allow_or_reject(ToolCall::new(
                "demo-1",
                "echo hello from the demo",
                ToolKind::Execute,
            ));
            steps.push(Step::ask(permission.clone(), move |answer| {
                let text = match answer {
                    Err(err) => return vec![Step::Fail(err)],
                    Ok(answer) if answer.allows(&permission) => {
                        "You allowed it. (The demo does not run anything.)\n"
                    }
                    Ok(PermissionAnswer::Selected(_)) => "You rejected it.\n",
                    Ok(PermissionAnswer::Cancelled) => "The request was cancelled.\n",
                };
                vec![Step::say(text)]
            }));
        }
        DemoReply::Propose(command) => steps.extend(propose(context, command)),
    }
    steps
}

/// A permission request for `call` with Allow and Reject.
fn allow_or_reject(call: ToolCall) -> Permission {
    Permission {
        call,
        options: vec![
            PermissionOption::new("allow", "Allow", "allow_once"),
            PermissionOption::new("reject", "Reject", "reject_once"),
        ],
    }
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
fn propose(context: &str, command: String) -> Vec<Step> {
    let Some(channel) = channel_in(context) else {
        return vec![Step::say(
            "This prompt came without a WTA proposal channel (is this a WTA agent pane?), so I \
             cannot propose the command.\n",
        )];
    };
    let invocation = build_invocation(&channel, &payload_for(&command));
    // Tool call ids are unique within a session: one per proposal.
    static PROPOSALS: AtomicU64 = AtomicU64::new(1);
    let id = format!("demo-propose-{}", PROPOSALS.fetch_add(1, Ordering::Relaxed));
    let call = ToolCall::new(&id, format!("`{invocation}`"), ToolKind::Execute)
        .status(ToolCallStatus::Pending)
        .raw_input(json!({"command": invocation, "description": "Propose a terminal action"}));
    let permission = allow_or_reject(call.clone());
    vec![
        Step::say(format!(
            "I'll propose `{command}` for your shell; confirm it on the card.\n\n"
        )),
        Step::ToolCall(call),
        Step::ask(permission.clone(), move |answer| match answer {
            Err(err) => vec![Step::Fail(err)],
            Ok(answer) if !answer.allows(&permission) => vec![
                Step::ToolUpdate(ToolUpdate::new(id, ToolCallStatus::Failed)),
                Step::say("The proposal command was not allowed, so nothing was proposed.\n"),
            ],
            Ok(_) => vec![Step::run(cli(&invocation), move |ran| {
                vec![
                    Step::ToolUpdate(
                        ToolUpdate::new(id, ran.tool_status())
                            .content(ToolContent::Text(ran.stdout.clone())),
                    ),
                    Step::say(report(&command, &ran)),
                ]
            })],
        }),
    ]
}

/// `sh -c <invocation>`. The master sets WTA_CLI_PATH; when run by hand,
/// the demo is wta itself.
fn cli(invocation: &str) -> Command {
    let command = Command::shell(invocation);
    match (std::env::var_os("WTA_CLI_PATH"), std::env::current_exe()) {
        (None, Ok(exe)) => command.env("WTA_CLI_PATH", exe),
        _ => command,
    }
}

/// Lines of output shown in the report.
const TAIL_LINES: usize = 5;

/// The demo's reply, from the CLI's lines (pure).
pub fn report(command: &str, ran: &Ran) -> String {
    let lines = ran.response_lines();
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

    fn cli(lines: &[String]) -> Ran {
        Ran {
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
        let broken = Ran {
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
