//! The test agent proposing terminal actions the way an LLM agent does with
//! WTA's prompt context: find the canonical invocation for this turn's
//! channel in the context block, ask `session/request_permission` for
//! exactly that command (claude- or codex-shaped, or not at all), run it
//! with a shell, stream the CLI's lines back as message chunks, and answer
//! from the lines it printed (issue 7's closed loop, in the same turn).
//!
//! The agent decides nothing else: [`reply`] is a pure function of the
//! CLI's output, so tests can tell success, failure and refusals apart.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use wta_protocol::prompt::channel_in;
use wta_protocol::{
    Channel, ExecutionStatus, FinalStatus, ResponseLine, ValidationStatus, build_invocation,
};

use super::script::{Asking, Proposal};
use super::turn::Turn;

/// The tool call id of the proposal command.
const CALL_ID: &str = "wta-propose-1";

/// The shell command the agent asks for and runs.
pub fn command_for(channel: &Channel, proposal: &Proposal) -> String {
    let canonical = build_invocation(channel, &proposal.payload);
    match proposal.how {
        Asking::Piped => format!("{canonical} | cat"),
        Asking::Claude | Asking::Codex | Asking::Unarmed => canonical,
    }
}

/// The permission request's `toolCall` and options, shaped like the agent's.
fn permission_params(session: &str, how: Asking, command: &str) -> Value {
    match how {
        Asking::Codex => json!({"sessionId": session,
            "toolCall": {"toolCallId": CALL_ID, "kind": "execute", "status": "pending", "title": command,
                "rawInput": {"command": ["/bin/bash", "-lc", command],
                             "proposed_execpolicy_amendment": ["\"$WTA_CLI_PATH\"", "propose-terminal-actions"]}},
            "options": [
                {"optionId": "approved", "name": "Yes, proceed", "kind": "allow_once"},
                {"optionId": "approved-execpolicy-amendment", "name": "Yes, and don't ask again", "kind": "allow_always"},
                {"optionId": "abort", "name": "No, and tell Codex what to do differently", "kind": "reject_once"}]}),
        Asking::Claude | Asking::Piped | Asking::Unarmed => json!({"sessionId": session,
            "toolCall": {"toolCallId": CALL_ID, "kind": "execute", "status": "pending",
                "title": format!("`{command}`"),
                "rawInput": {"command": command, "description": "Propose terminal actions"}},
            "options": [
                {"optionId": "allow_always", "name": "Always Allow", "kind": "allow_always"},
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}),
    }
}

/// The argv the agent runs the command with.
fn argv(how: Asking, command: &str) -> Vec<String> {
    match how {
        Asking::Codex => vec!["/bin/bash".into(), "-lc".into(), command.into()],
        Asking::Claude | Asking::Piped | Asking::Unarmed => {
            vec!["sh".into(), "-c".into(), command.into()]
        }
    }
}

/// Performs the proposal turn.
pub(super) async fn run(
    turn: &Turn,
    context: &str,
    proposal: &Proposal,
) -> Result<(), agent_client_protocol::Error> {
    let Some(channel) = channel_in(context) else {
        return turn.chunk("no WTA proposal channel in this prompt; nothing proposed");
    };
    let command = command_for(&channel, proposal);
    turn.update(json!({"sessionUpdate": "tool_call", "toolCallId": CALL_ID,
        "title": format!("`{command}`"), "kind": "execute", "status": "pending",
        "rawInput": {"command": command}}))?;
    if proposal.how != Asking::Unarmed {
        let params = permission_params(turn.session(), proposal.how, &command);
        let answer = turn.request("session/request_permission", params).await;
        let allowed = match &answer {
            Ok(v) => matches!(
                v.pointer("/outcome/optionId").and_then(Value::as_str),
                Some("allow" | "allow_always" | "approved" | "approved-execpolicy-amendment")
            ),
            Err(_) => false,
        };
        if !allowed {
            let why = match answer {
                Ok(v) => v
                    .pointer("/outcome/optionId")
                    .or_else(|| v.pointer("/outcome/outcome"))
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned(),
                Err(err) => err.message,
            };
            turn.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": CALL_ID, "status": "failed"}))?;
            return turn.chunk(&format!(
                "permission not granted ({why}); the proposal command did not run"
            ));
        }
    }
    turn.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": CALL_ID, "status": "in_progress"}))?;
    let ran = execute(turn, &argv(proposal.how, &command)).await?;
    let status = if ran.exit == Some(0) {
        "completed"
    } else {
        "failed"
    };
    turn.update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": CALL_ID, "status": status,
        "rawOutput": {"exitCode": ran.exit, "stdout": ran.lines.join("\n"), "stderr": ran.stderr}}),
    )?;
    // A paragraph of its own after the streamed lines.
    turn.chunk(&format!("\n\n{}", reply(&ran)))
}

/// What running the CLI gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ran {
    /// Stdout lines, in order.
    pub lines: Vec<String>,
    pub stderr: String,
    /// `None` when killed by a signal or not started.
    pub exit: Option<i32>,
}

/// Runs `argv`, streaming each stdout line back as a chunk as it arrives.
async fn execute(turn: &Turn, argv: &[String]) -> Result<Ran, agent_client_protocol::Error> {
    let mut ran = Ran::default();
    let spawned = tokio::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            ran.stderr = format!("cannot start {}: {err}", argv[0]);
            return Ok(ran);
        }
    };
    let stderr_task = child.stderr.take().map(|mut err| {
        tokio::spawn(async move {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text).await;
            text
        })
    });
    if let Some(out) = child.stdout.take() {
        let mut lines = BufReader::new(out).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            turn.chunk(&format!("{line}\n"))?;
            ran.lines.push(line);
        }
    }
    ran.exit = child.wait().await.ok().and_then(|s| s.code());
    if let Some(task) = stderr_task {
        ran.stderr = task.await.unwrap_or_default();
    }
    Ok(ran)
}

/// The agent's follow-up, from what the CLI printed: one sentence per
/// phase that matters (a refusal, the user's decision, each execution).
pub fn reply(ran: &Ran) -> String {
    let parsed: Vec<ResponseLine> = ran
        .lines
        .iter()
        .filter_map(|l| ResponseLine::from_frame(l.as_bytes()).ok())
        .collect();
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
            lines: lines.iter().map(|l| (*l).to_owned()).collect(),
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
            lines: vec![],
            stderr: "wta: cannot connect\nmore".into(),
            exit: Some(1),
        };
        assert_eq!(
            reply(&broken),
            "the proposal CLI failed with exit 1: wta: cannot connect"
        );
    }
}
