//! The transcript row of a proposal, from what the real CLI prints: the
//! `wta` binary's `propose-terminal-actions` against a real proposal socket
//! (`wta_helper::proposals`), its stdout handed to the helper's ACP mapping
//! as an agent's tool call reports it (`rawOutput.stdout`, as the scripted
//! agent and claude's Bash do). A confirmed run prints four lines
//! (validation, final, execution, next), or ends with `end` when the turn's
//! budget is spent; the row reads every one of them as words, and no
//! protocol JSON reaches it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod proposal_server_common;

use std::process::Command;

use proposal_server_common::{Fixture, cli};
use serde_json::{Value, json};
use wta_helper::machine::acp_map::session_update;
use wta_protocol::{
    Channel, ExecutionId, ExecutionLine, ExecutionStatus, ResponseLine, build_invocation,
};
use wta_state::DomainEvent;

const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Run the tests","actions":[{"type":"send","input":"cargo test"}]}]}"#;

impl Fixture {
    /// The CLI as an agent runs it, with this file's payload.
    fn cli(&self, channel: &Channel) -> Command {
        cli(self.xdg.path(), &channel.to_string(), PAYLOAD)
    }

    /// Runs the CLI, confirms its card, reports `cargo test` exiting 0, and
    /// returns what the CLI printed on stdout.
    fn confirmed_run(&mut self, channel: &Channel) -> String {
        let child = self.cli(channel).spawn().unwrap();
        let card = self.accepted();
        let confirmed = self.service.confirm(card.id, 1).unwrap();
        let mut exec = ExecutionLine::new(
            ExecutionStatus::Completed,
            card.id,
            ExecutionId::from_bytes([7; 16]),
            1,
        );
        exec.exit_code = Some(0);
        exec.output = Some("test result: ok. 3 passed".into());
        exec.duration_ms = Some(1200);
        exec.cwd = Some("/home/ada/src/wta".into());
        assert!(confirmed.executions.send(exec));
        confirmed.executions.finish();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

fn phases(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["phase"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// The row the helper makes of a finished tool call running `command`
/// that printed `stdout`: its title and output lines.
fn row(command: &str, stdout: &str) -> (String, Vec<String>) {
    let update = json!({
        "sessionUpdate": "tool_call",
        "toolCallId": "wta-propose-1",
        "title": format!("`{command}`"),
        "kind": "execute",
        "status": "completed",
        "rawInput": {"command": command},
        "rawOutput": {"exitCode": 0, "stdout": stdout, "stderr": ""},
    });
    match session_update(&serde_json::from_value(update).unwrap()).as_slice() {
        [DomainEvent::ToolCall(call)] => (call.title.clone(), call.output.clone()),
        other => panic!("{other:?}"),
    }
}

fn assert_no_protocol_json(output: &[String], stdout: &str) {
    for line in output {
        assert!(
            !line.contains('{') && !line.contains("phase"),
            "protocol JSON in the row: {line:?}\nCLI printed:\n{stdout}"
        );
    }
}

#[test]
fn a_confirmed_run_prints_four_lines_and_its_row_reads_each_as_words() {
    let mut fx = Fixture::new();
    let channel = fx.turn();
    let stdout = fx.confirmed_run(&channel);
    eprintln!("the CLI printed:\n{stdout}");
    assert_eq!(
        phases(&stdout),
        ["validation", "final", "execution", "next"],
        "{stdout}"
    );
    let remaining = match ResponseLine::from_frame(stdout.lines().nth(3).unwrap().as_bytes()) {
        Ok(ResponseLine::Next(next)) => next.remaining,
        other => panic!("{other:?}"),
    };
    let command = build_invocation(&channel, PAYLOAD);
    let (title, output) = row(&command, &stdout);
    assert_eq!(title, "Propose: Run the tests");
    assert_no_protocol_json(&output, &stdout);
    assert_eq!(
        output,
        [
            "accepted: the card is on screen".to_owned(),
            "the user's decision: confirmed, choice 1".to_owned(),
            "action 1: completed, exit 0".to_owned(),
            format!("the agent may propose again this turn ({remaining} left)"),
        ],
        "CLI printed:\n{stdout}"
    );
}

#[test]
fn the_last_proposal_of_a_turn_ends_with_end_and_its_row_says_why() {
    let mut fx = Fixture::new();
    fx.service.set_budget(1);
    let channel = fx.turn();
    let stdout = fx.confirmed_run(&channel);
    assert_eq!(
        phases(&stdout),
        ["validation", "final", "execution", "end"],
        "{stdout}"
    );
    let reason = match ResponseLine::from_frame(stdout.lines().nth(3).unwrap().as_bytes()) {
        Ok(ResponseLine::End(end)) => end.reason,
        other => panic!("{other:?}"),
    };
    let (_, output) = row(&build_invocation(&channel, PAYLOAD), &stdout);
    assert_no_protocol_json(&output, &stdout);
    assert_eq!(
        output.last().unwrap(),
        &format!("no more proposals this turn: {reason}")
    );
}

#[test]
fn a_refusal_and_a_transport_error_read_as_what_the_cli_said() {
    let fx = Fixture::new();
    let channel = fx.turn();
    let unknown = Channel::new(
        channel.helper(),
        wta_protocol::TurnNonce::from_bytes([9; 16]),
    );
    let out = fx.cli(&unknown).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (_, output) = row(&build_invocation(&unknown, PAYLOAD), &stdout);
    assert_eq!(output.len(), 1, "{stdout}");
    assert!(
        output[0].starts_with("refused (unknown channel): "),
        "{output:?}"
    );
    // No helper behind the channel: the CLI's error on stderr is what an
    // agent that merges the streams shows, and the row keeps it as it is.
    let nobody = Channel::new(
        wta_protocol::HelperId::from_bytes([3; 16]),
        wta_protocol::TurnNonce::from_bytes([4; 16]),
    );
    let out = fx.cli(&nobody).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("cannot reach the agent pane"), "{stderr}");
    let (_, output) = row(&build_invocation(&nobody, PAYLOAD), &stderr);
    assert_eq!(
        output,
        stderr.lines().map(str::to_owned).collect::<Vec<_>>()
    );
}
