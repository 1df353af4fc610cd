//! The test agent proposing terminal actions the way an LLM agent does with
//! WTA's prompt context: find the canonical invocation for this turn's
//! channel in the context block, ask `session/request_permission` for
//! exactly that command (claude- or codex-shaped, or not at all), run it
//! with a shell — its own, or, as claude-code-acp does, the client's
//! `terminal/*` — stream the CLI's lines back as message chunks, and answer
//! from the lines it printed (issue 7's closed loop, in the same turn).
//!
//! The agent decides nothing else: [`reply`] is a pure function of the
//! CLI's output, so tests can tell success, failure and refusals apart.

use agent_client_protocol::v1::schema::{ToolCallStatus, ToolKind};
use serde_json::json;
use wta_agent::scripted::{
    Command, Permission, PermissionAnswer, PermissionOption, Ran, Step, ToolCall, ToolUpdate,
};
use wta_protocol::prompt::channel_in;
use wta_protocol::{
    Channel, ExecutionStatus, FinalStatus, ResponseLine, ValidationStatus, build_invocation,
};

use super::script::{Asking, Proposal};

/// The tool call id of the proposal command.
const CALL_ID: &str = "wta-propose-1";

/// The shell command the agent asks for and runs.
pub fn command_for(channel: &Channel, proposal: &Proposal) -> String {
    let canonical = build_invocation(channel, &proposal.payload);
    match proposal.how {
        Asking::Piped => format!("{canonical} | cat"),
        Asking::Claude | Asking::Codex | Asking::Terminal | Asking::Unarmed => canonical,
    }
}

/// The permission request's tool call and options, shaped like the agent's.
fn permission(how: Asking, command: &str) -> Permission {
    match how {
        Asking::Codex => Permission {
            call: ToolCall::new(CALL_ID, command, ToolKind::Execute)
                .status(ToolCallStatus::Pending)
                .raw_input(json!({"command": ["/bin/bash", "-lc", command],
                    "proposed_execpolicy_amendment": ["\"$WTA_CLI_PATH\"", "propose-terminal-actions"]})),
            options: vec![
                PermissionOption::new("approved", "Yes, proceed", "allow_once"),
                PermissionOption::new("approved-execpolicy-amendment", "Yes, and don't ask again", "allow_always"),
                PermissionOption::new("abort", "No, and tell Codex what to do differently", "reject_once"),
            ],
        },
        // claude-code-acp's request carries no kind (its fixture).
        Asking::Terminal => Permission {
            call: ToolCall::new(CALL_ID, format!("`{command}`"), ToolKind::Other)
                .raw_input(json!({"command": command, "description": "Propose terminal actions",
                    "timeout": 600000})),
            options: vec![
                PermissionOption::new("allow_always", "Always Allow", "allow_always"),
                PermissionOption::new("allow", "Allow", "allow_once"),
                PermissionOption::new("reject", "Reject", "reject_once"),
            ],
        },
        Asking::Claude | Asking::Piped | Asking::Unarmed => Permission {
            call: ToolCall::new(CALL_ID, format!("`{command}`"), ToolKind::Execute)
                .status(ToolCallStatus::Pending)
                .raw_input(json!({"command": command, "description": "Propose terminal actions"})),
            options: vec![
                PermissionOption::new("allow_always", "Always Allow", "allow_always"),
                PermissionOption::new("allow", "Allow", "allow_once"),
                PermissionOption::new("reject", "Reject", "reject_once"),
            ],
        },
    }
}

/// The argv the agent runs the command with.
fn argv(how: Asking, command: &str) -> Vec<String> {
    match how {
        Asking::Codex => vec!["/bin/bash".into(), "-lc".into(), command.into()],
        Asking::Claude | Asking::Terminal | Asking::Piped | Asking::Unarmed => {
            vec!["sh".into(), "-c".into(), command.into()]
        }
    }
}

/// The proposal turn's steps.
pub(super) fn steps(context: &str, proposal: &Proposal) -> Vec<Step> {
    let Some(channel) = channel_in(context) else {
        return vec![Step::say(
            "no WTA proposal channel in this prompt; nothing proposed",
        )];
    };
    // An autofix turn (its schema example says so) proposes as autofix.
    let autofix = context.contains("\"origin\":\"autofix\"");
    let proposal = &Proposal {
        payload: if autofix {
            proposal
                .payload
                .replace("\"origin\":\"terminal_agent\"", "\"origin\":\"autofix\"")
        } else {
            proposal.payload.clone()
        },
        how: proposal.how,
    };
    let command = command_for(&channel, proposal);
    let how = proposal.how;
    let mut steps = vec![Step::ToolCall(
        ToolCall::new(CALL_ID, format!("`{command}`"), ToolKind::Execute)
            .status(ToolCallStatus::Pending)
            .raw_input(json!({"command": command})),
    )];
    if how == Asking::Unarmed {
        steps.extend(running(how, &command));
        return steps;
    }
    let ask = permission(how, &command);
    steps.push(Step::ask(ask.clone(), move |answer| {
        let why = match answer {
            Ok(answer) if answer.allows(&ask) => return running(how, &command),
            Ok(PermissionAnswer::Selected(id)) => id,
            Ok(PermissionAnswer::Cancelled) => "cancelled".to_owned(),
            Err(err) => err.message,
        };
        vec![
            Step::ToolUpdate(ToolUpdate::new(CALL_ID, ToolCallStatus::Failed)),
            Step::say(format!(
                "permission not granted ({why}); the proposal command did not run"
            )),
        ]
    }));
    steps
}

/// Runs the command, streaming each CLI line back as a chunk, and answers
/// from the lines it printed (a paragraph of its own after them).
fn running(how: Asking, command: &str) -> Vec<Step> {
    if how == Asking::Terminal {
        return through_terminal(command);
    }
    let cli = Command::new(argv(how, command)).saying_lines();
    vec![
        Step::ToolUpdate(ToolUpdate::new(CALL_ID, ToolCallStatus::InProgress)),
        Step::run(cli, |ran| {
            let stdout = ran.lines().collect::<Vec<_>>().join("\n");
            vec![
                Step::ToolUpdate(ToolUpdate::new(CALL_ID, ran.tool_status()).raw_output(
                    json!({"exitCode": ran.exit, "stdout": stdout, "stderr": ran.stderr}),
                )),
                Step::say(format!("\n\n{}", reply(&ran))),
            ]
        }),
    ]
}

/// claude-code-acp's Bash: `terminal/create` for the command line, then
/// its exit and output read back, then `terminal/release`; the answer is
/// made from that output as from the agent's own run.
fn through_terminal(command: &str) -> Vec<Step> {
    let create = json!({"command": command, "env": [{"name": "CLAUDECODE", "value": "1"}],
        "outputByteLimit": 32000});
    vec![
        Step::ToolUpdate(ToolUpdate::new(CALL_ID, ToolCallStatus::InProgress)),
        Step::request("terminal/create", create, |answer| {
            let id = match answer {
                Ok(created) => created.get("terminalId").cloned().unwrap_or_default(),
                Err(err) => return terminal_failed(&err.message),
            };
            let ids = json!({"terminalId": id});
            vec![Step::request(
                "terminal/wait_for_exit",
                ids.clone(),
                move |exited| {
                    let exit = match exited {
                        Ok(exited) => exited
                            .get("exitCode")
                            .and_then(serde_json::Value::as_i64)
                            .and_then(|c| i32::try_from(c).ok()),
                        Err(err) => return terminal_failed(&err.message),
                    };
                    vec![Step::request(
                        "terminal/output",
                        ids.clone(),
                        move |output| {
                            let stdout = match output {
                                Ok(output) => output
                                    .get("output")
                                    .and_then(serde_json::Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned(),
                                Err(err) => return terminal_failed(&err.message),
                            };
                            let ran = Ran {
                                stdout,
                                stderr: String::new(),
                                exit,
                            };
                            vec![Step::request("terminal/release", ids, move |_| {
                                let lines = ran.lines().collect::<Vec<_>>().join("\n");
                                vec![
                                    Step::ToolUpdate(
                                        ToolUpdate::new(CALL_ID, ran.tool_status()).raw_output(
                                            json!({"exitCode": ran.exit, "stdout": lines}),
                                        ),
                                    ),
                                    Step::say(format!("{lines}\n\n{}", reply(&ran))),
                                ]
                            })]
                        },
                    )]
                },
            )]
        }),
    ]
}

fn terminal_failed(why: &str) -> Vec<Step> {
    vec![
        Step::ToolUpdate(ToolUpdate::new(CALL_ID, ToolCallStatus::Failed)),
        Step::say(format!("terminal: error {why}")),
    ]
}

/// The agent's follow-up, from what the CLI printed: one sentence per
/// phase that matters (a refusal, the user's decision, each execution).
pub fn reply(ran: &Ran) -> String {
    let parsed = ran.response_lines();
    if parsed.is_empty() {
        let first = ran.stderr.lines().next().unwrap_or("").trim();
        return match ran.exit {
            Some(code) => format!("the proposal CLI failed with exit {code}: {first}"),
            None => format!("the proposal CLI did not finish: {first}"),
        };
    }
    let mut said = Vec::new();
    let mut phases = Vec::new();
    for line in &parsed {
        phases.push(match line {
            ResponseLine::Validation(v) => format!("validation {}", name(&v.status)),
            ResponseLine::Final(f) => format!("final {}", name(&f.status)),
            ResponseLine::Execution(e) => format!("execution {}", name(&e.status)),
            // How the exchange ended for the turn, not a phase of it.
            ResponseLine::Next(_) | ResponseLine::End(_) => continue,
        });
        match line {
            ResponseLine::Validation(v) if v.status != ValidationStatus::Accepted => {
                said.push(format!(
                    "the proposal was refused ({}): {}",
                    name(&v.status),
                    v.reason.as_deref().unwrap_or("")
                ));
            }
            ResponseLine::Validation(_) => {}
            ResponseLine::Final(f) if f.status == FinalStatus::Confirmed => {
                said.push(format!(
                    "the user confirmed choice {}",
                    f.choice.unwrap_or_default()
                ));
            }
            ResponseLine::Final(f) => said.push(format!("the proposal ended: {}", name(&f.status))),
            ResponseLine::Next(_) | ResponseLine::End(_) => {}
            ResponseLine::Execution(e) => said.push(match e.status {
                ExecutionStatus::Completed => format!("action {}: the command succeeded", e.action),
                ExecutionStatus::Failed => format!(
                    "action {}: it failed with exit {}: {}",
                    e.action,
                    e.exit_code
                        .map_or_else(|| "?".to_owned(), |c| c.to_string()),
                    first_line(e.output.as_deref().unwrap_or(""))
                ),
                ExecutionStatus::Inserted => {
                    format!("action {}: inserted; nothing ran", e.action)
                }
                other => format!(
                    "action {}: {}: {}",
                    e.action,
                    name(&other),
                    e.reason.as_deref().unwrap_or("")
                ),
            }),
        }
    }
    let exit = ran
        .exit
        .map_or_else(|| "no exit code".to_owned(), |c| format!("exit {c}"));
    format!("{}. [CLI: {}; {exit}]", said.join("; "), phases.join(", "))
}

fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// The wire name of a status (`"failed"` → `failed`).
fn name<T: serde::Serialize>(status: &T) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wta_protocol::{HelperId, TurnNonce};

    fn channel() -> Channel {
        Channel::new(
            HelperId::from_bytes([7; 16]),
            TurnNonce::from_bytes([9; 16]),
        )
    }

    #[test]
    fn finds_the_channel_in_the_context_block() {
        let block = format!(
            "## WTA turn context\n```sh\n{}\n```\n",
            build_invocation(&channel(), "<compact-json-payload>")
        );
        assert_eq!(channel_in(&block), Some(channel()));
        assert_eq!(channel_in("no channel here"), None);
        assert_eq!(channel_in("propose-terminal-actions --channel v1.zz"), None);
    }

    #[test]
    fn the_command_is_canonical_unless_piped() {
        let mut p = Proposal {
            payload: r#"{"it's":1}"#.into(),
            how: Asking::Claude,
        };
        let canonical = command_for(&channel(), &p);
        assert!(matches!(
            wta_protocol::classify_invocation(&canonical),
            wta_protocol::Invocation::Canonical(c) if c.payload == p.payload
        ));
        p.how = Asking::Piped;
        assert!(matches!(
            wta_protocol::classify_invocation(&command_for(&channel(), &p)),
            wta_protocol::Invocation::NonCanonical(_)
        ));
    }

    fn ran(lines: &[&str]) -> Ran {
        Ran {
            stdout: lines.join("\n"),
            stderr: String::new(),
            exit: Some(0),
        }
    }

    const ID: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn replies_differ_on_success_failure_and_refusal() {
        let accepted = format!(
            r#"{{"phase":"validation","status":"accepted","proposal_id":"{ID}","retryable":false}}"#
        );
        let confirmed =
            format!(r#"{{"phase":"final","status":"confirmed","proposal_id":"{ID}","choice":1}}"#);
        let exec = |status: &str, extra: &str| {
            format!(
                r#"{{"phase":"execution","status":"{status}","proposal_id":"{ID}","execution_id":"{ID}","action":1{extra}}}"#
            )
        };
        let ok = exec("completed", r#","exit_code":0,"output":"hi""#);
        let bad = exec("failed", r#","exit_code":2,"output":"\nboom: no\nmore""#);
        assert_eq!(
            reply(&ran(&[&accepted, &confirmed, &ok])),
            "the user confirmed choice 1; action 1: the command succeeded. \
             [CLI: validation accepted, final confirmed, execution completed; exit 0]"
        );
        assert_eq!(
            reply(&ran(&[&accepted, &confirmed, &bad])),
            "the user confirmed choice 1; action 1: it failed with exit 2: boom: no. \
             [CLI: validation accepted, final confirmed, execution failed; exit 0]"
        );
        let cancelled = format!(r#"{{"phase":"final","status":"cancelled","proposal_id":"{ID}"}}"#);
        assert_eq!(
            reply(&ran(&[&accepted, &cancelled])),
            "the proposal ended: cancelled. [CLI: validation accepted, final cancelled; exit 0]"
        );
        let refused =
            r#"{"phase":"validation","status":"not_armed","reason":"ask first","retryable":true}"#;
        assert_eq!(
            reply(&ran(&[refused])),
            "the proposal was refused (not_armed): ask first. [CLI: validation not_armed; exit 0]"
        );
        let broken = Ran {
            stdout: String::new(),
            stderr: "wta: cannot connect\nmore".into(),
            exit: Some(1),
        };
        assert_eq!(
            reply(&broken),
            "the proposal CLI failed with exit 1: wta: cannot connect"
        );
    }
}
