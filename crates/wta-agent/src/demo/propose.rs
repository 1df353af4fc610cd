//! Proposing a command the way a real agent does with WTA's prompt context:
//! the payload, the permission request for the canonical invocation, running
//! the proposal CLI, and the demo's report of the lines it printed. It never
//! picks a target pane (the turn does) and runs nothing but the invocation.

use std::sync::atomic::{AtomicU64, Ordering};

use agent_client_protocol::v1::schema::{ToolCallStatus, ToolKind};
use serde_json::json;
use wta_protocol::prompt::channel_in;
use wta_protocol::{
    Action, Channel, Choice, ExecutionLine, ExecutionStatus, FinalStatus, Origin, ProposalPayload,
    ResponseLine, ValidationStatus, build_invocation,
};

use super::allow_or_reject;
use crate::scripted::{Command, Ran, Step, ToolCall, ToolContent, ToolUpdate};

/// A one-choice, one-`send` payload: the only shape the demo proposes.
pub fn one_send(origin: Origin, title: &str, rationale: &str, command: &str) -> ProposalPayload {
    ProposalPayload {
        schema_version: 1,
        origin,
        recommended_choice: 1,
        choices: vec![Choice {
            choice: 1,
            title: title.to_owned(),
            rationale: rationale.to_owned(),
            actions: vec![Action::Send {
                input: command.to_owned(),
            }],
        }],
    }
}

/// `payload` as the compact JSON the invocation carries.
pub fn compact(payload: &ProposalPayload) -> String {
    // Plain structs of strings and numbers: serialising cannot fail.
    serde_json::to_string(payload).unwrap_or_default()
}

/// `run <command>`'s payload, as compact JSON.
pub fn payload_for(command: &str) -> String {
    compact(&one_send(
        Origin::TerminalAgent,
        "The command you asked for",
        "You asked the demo agent to run this command.",
        command,
    ))
}

/// What a real agent does with WTA's prompt context to propose `command`
/// (carried by `payload`). Ask permission for exactly the canonical
/// invocation (WTA allows it silently and arms the payload), run it with
/// `sh -c`, and read the lines the CLI prints: validation, the user's
/// decision on the card, then the execution result, which the reply reports.
pub(super) fn propose(context: &str, command: String, payload: &str) -> Vec<Step> {
    propose_chain(context, command, payload, Vec::new())
}

/// [`propose`], then each of `then` in turn, on the fresh channel each
/// confirmed exchange ends with (a two-step task: `run A, then B`).
pub(super) fn propose_chain(
    context: &str,
    command: String,
    payload: &str,
    then: Vec<String>,
) -> Vec<Step> {
    let Some(channel) = channel_in(context) else {
        return vec![Step::say(
            "This prompt came without a WTA proposal channel (is this a WTA agent pane?), so I \
             cannot propose the command.\n",
        )];
    };
    propose_on(channel, command, payload, then)
}

fn propose_on(
    channel: Channel,
    command: String,
    payload: &str,
    mut then: Vec<String>,
) -> Vec<Step> {
    let invocation = build_invocation(&channel, payload);
    // Tool call ids are unique within a session: one per proposal.
    static PROPOSALS: AtomicU64 = AtomicU64::new(1);
    let id = format!("demo-propose-{}", PROPOSALS.fetch_add(1, Ordering::Relaxed));
    let call = ToolCall::new(&id, format!("`{invocation}`"), ToolKind::Execute)
        .status(ToolCallStatus::Pending)
        .raw_input(json!({"command": invocation, "description": "Propose a terminal action"}));
    let permission = allow_or_reject(call.clone());
    let run = shell(&invocation);
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
            Ok(_) => vec![Step::run(run, move |ran| {
                let mut steps = vec![
                    Step::ToolUpdate(
                        ToolUpdate::new(id, ran.tool_status())
                            .content(ToolContent::Text(ran.stdout.clone())),
                    ),
                    Step::say(report(&command, &ran)),
                ];
                let next = ran
                    .response_lines()
                    .into_iter()
                    .find_map(|line| match line {
                        ResponseLine::Next(next) => Some(next.channel),
                        _ => None,
                    });
                if let (Some(channel), false) = (next, then.is_empty()) {
                    let command = then.remove(0);
                    steps.push(Step::say(format!("\nNext step: `{command}`.\n\n")));
                    let payload = payload_for(&command);
                    steps.extend(propose_on(channel, command, &payload, then));
                }
                steps
            })],
        }),
    ]
}

/// `sh -c <invocation>`, in the environment the master gave the demo.
fn shell(invocation: &str) -> Command {
    Command::shell(invocation)
}

/// What the demo says when it was started without `WTA_CLI_PATH`.
pub fn missing_cli_path() -> String {
    "WTA_CLI_PATH is not set, so the proposal command cannot run (`\"$WTA_CLI_PATH\"` would be \
     empty). WTA's master sets it for every agent it starts; run me through `wta up` or \
     `wta pane open`.\n"
        .to_owned()
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
            // The demo proposes one command per `run`; a chain is `then`'s.
            ResponseLine::Next(_) => {}
            ResponseLine::End(end) => text.push_str(&format!("{}\n", end.reason)),
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
pub(super) fn output_tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}

fn wire_name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
