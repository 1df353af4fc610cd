//! `propose-chain`: the test agent going on within one turn, as a real
//! agent does after reading a result (issue 19): each command is proposed
//! on the channel the previous exchange's `next` line gave (the first on
//! the turn's own), with a claude-shaped permission request for exactly
//! that invocation; the chain stops where a proposal was not confirmed or
//! no `next` line came, and says why.

use agent_client_protocol::v1::schema::{ToolCallStatus, ToolKind};
use serde_json::json;
use wta_agent::scripted::{Command, Permission, PermissionOption, Step, ToolCall, ToolUpdate};
use wta_protocol::prompt::channel_in;
use wta_protocol::{Channel, ResponseLine, build_invocation};

use super::propose::reply;
use super::script::run_payload;

/// The chain's steps for the turn with `context`.
pub(super) fn steps(context: &str, commands: Vec<String>) -> Vec<Step> {
    match channel_in(context) {
        Some(channel) => link(channel, commands, 1),
        None => vec![Step::say(
            "no WTA proposal channel in this prompt; nothing proposed",
        )],
    }
}

/// Proposal `n` of the chain on `channel`, then the rest.
fn link(channel: Channel, mut commands: Vec<String>, n: usize) -> Vec<Step> {
    if commands.is_empty() {
        return vec![Step::say("\n\nchain done")];
    }
    let command = commands.remove(0);
    let invocation = build_invocation(&channel, &run_payload(&command));
    let id = format!("wta-chain-{n}");
    let call = ToolCall::new(id.clone(), format!("`{invocation}`"), ToolKind::Execute)
        .status(ToolCallStatus::Pending)
        .raw_input(json!({"command": invocation, "description": "Propose terminal actions"}));
    let ask = Permission {
        call: call.clone(),
        options: vec![
            PermissionOption::new("allow", "Allow", "allow_once"),
            PermissionOption::new("reject", "Reject", "reject_once"),
        ],
    };
    vec![
        Step::ToolCall(call),
        Step::ask(ask.clone(), move |answer| {
            if !answer.is_ok_and(|a| a.allows(&ask)) {
                return vec![Step::say(format!(
                    "\n\nchain step {n}: permission not granted"
                ))];
            }
            let cli = Command::new(vec!["sh".into(), "-c".into(), invocation]);
            vec![Step::run(cli, move |ran| {
                let mut steps = vec![
                    Step::ToolUpdate(ToolUpdate::new(id, ran.tool_status())),
                    Step::say(format!("\n\nstep {n}: {}", reply(&ran))),
                ];
                let last = ran.response_lines().into_iter().last();
                steps.extend(match last {
                    Some(ResponseLine::Next(next)) => link(next.channel, commands, n + 1),
                    Some(ResponseLine::End(end)) => {
                        vec![Step::say(format!("\n\nchain ended: {}", end.reason))]
                    }
                    _ if commands.is_empty() => vec![Step::say("\n\nchain done")],
                    _ => vec![Step::say(format!(
                        "\n\nchain stopped after step {n}: no next channel"
                    ))],
                });
                steps
            })]
        }),
    ]
}
