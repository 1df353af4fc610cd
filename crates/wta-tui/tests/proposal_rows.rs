//! Snapshots of proposal rows in the transcript as the pane draws them: the
//! agent's tool call running the proposal CLI, as ACP JSON, goes through
//! the helper's mapping (`wta_helper::machine::acp_map`), which reads the
//! CLI's answer lines, typed, as words; then the real reducer and a fresh
//! view. The CLI prints each line as `ResponseLine::to_line` encodes it,
//! so the lines here are encoded that way. A confirmed run, a failed one,
//! and a multi-step turn (two proposals, several actions, ended by the
//! budget); no protocol JSON on screen.

#![allow(clippy::unwrap_used)] // test code: a failed step should panic

mod common;

use common::Fixture;
use serde_json::json;
use wta_helper::machine::acp_map::session_update;
use wta_protocol::{
    Channel, EndLine, ExecutionId, ExecutionLine, ExecutionStatus, FinalLine, FinalStatus,
    HelperId, NextLine, ProposalId, ResponseLine, TurnNonce, ValidationLine, build_invocation,
};

const RUN_TESTS: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Run the tests","actions":[{"type":"send","input":"cargo test"}]}]}"#;
const BUILD_AND_TEST: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Build, test, install","actions":[{"type":"send","input":"cargo build"},{"type":"send","input":"cargo test"},{"type":"send","input":"cargo install --path ."}]}]}"#;

fn channel(nonce: u8) -> Channel {
    Channel::new(
        HelperId::from_bytes([0xab; 16]),
        TurnNonce::from_bytes([nonce; 16]),
    )
}

fn id(n: u8) -> ProposalId {
    ProposalId::from_bytes([n; 16])
}

/// `validation accepted` and `final confirmed` (choice 1) for proposal `n`.
fn confirmed(n: u8) -> Vec<ResponseLine> {
    vec![
        ResponseLine::Validation(ValidationLine::accepted(id(n))),
        ResponseLine::Final(FinalLine {
            status: FinalStatus::Confirmed,
            proposal_id: id(n),
            choice: Some(1),
            reason: None,
        }),
    ]
}

fn execution(n: u8, action: u64, status: ExecutionStatus, exit: Option<i32>) -> ExecutionLine {
    let mut line = ExecutionLine::new(status, id(n), ExecutionId::from_bytes([n; 16]), action);
    line.exit_code = exit;
    line.duration_ms = Some(840);
    line.cwd = Some("/home/ada/src/wta".into());
    line
}

fn next(nonce: u8, remaining: u32) -> ResponseLine {
    let channel = channel(nonce);
    ResponseLine::Next(NextLine {
        invocation: build_invocation(&channel, "<compact-json-payload>"),
        channel,
        remaining,
    })
}

/// What the CLI prints for `lines`: one compact JSON line each.
fn printed(lines: &[ResponseLine]) -> String {
    lines
        .iter()
        .map(|l| String::from_utf8(l.to_line().unwrap()).unwrap())
        .collect()
}

/// The agent runs the CLI as tool call `call` (claude's shape: the command
/// as title and `rawInput.command`), then reports its stdout.
fn run_cli(f: &mut Fixture, call: &str, channel: &Channel, payload: &str, stdout: &str) {
    let command = build_invocation(channel, payload);
    let updates = [
        json!({"sessionUpdate": "tool_call", "toolCallId": call, "title": format!("`{command}`"),
            "kind": "execute", "status": "pending", "rawInput": {"command": command}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
            "rawOutput": {"exitCode": 0, "stdout": stdout, "stderr": ""}}),
    ];
    for update in updates {
        for event in session_update(&serde_json::from_value(update).unwrap()) {
            f.domain(event);
        }
    }
}

fn assert_no_protocol_json(screen: &str) {
    for needle in ["{", "\"phase\"", "proposal_id", "$WTA_CLI_PATH"] {
        assert!(!screen.contains(needle), "{needle} on screen:\n{screen}");
    }
}

#[test]
fn a_confirmed_run() {
    let mut f = Fixture::ready();
    f.prompt("run the tests");
    let mut lines = confirmed(1);
    let mut run = execution(1, 1, ExecutionStatus::Completed, Some(0));
    run.output = Some("test result: ok. 3 passed".into());
    lines.push(ResponseLine::Execution(run));
    lines.push(next(2, 9));
    run_cli(&mut f, "p1", &channel(1), RUN_TESTS, &printed(&lines));
    let screen = f.render(80, 14);
    assert_no_protocol_json(&screen);
    insta::assert_snapshot!("proposal_row_confirmed_80x14", screen);
}

#[test]
fn a_failed_run() {
    let mut f = Fixture::ready();
    f.prompt("run the tests");
    let mut lines = confirmed(1);
    let mut run = execution(1, 1, ExecutionStatus::Failed, Some(101));
    run.output = Some("test result: FAILED. 2 passed; 1 failed".into());
    lines.push(ResponseLine::Execution(run));
    lines.push(next(2, 9));
    run_cli(&mut f, "p1", &channel(1), RUN_TESTS, &printed(&lines));
    let screen = f.render(80, 14);
    assert_no_protocol_json(&screen);
    insta::assert_snapshot!("proposal_row_failed_80x14", screen);
}

#[test]
fn a_multi_step_turn() {
    let mut f = Fixture::ready();
    f.prompt("build, test and install it");
    // Step 1: one action, then the turn's next channel (one proposal left).
    let mut first = confirmed(1);
    first.push(ResponseLine::Execution(execution(
        1,
        1,
        ExecutionStatus::Completed,
        Some(0),
    )));
    first.push(next(2, 1));
    run_cli(&mut f, "p1", &channel(1), RUN_TESTS, &printed(&first));
    // Step 2, on that channel: three actions, the second fails, the third
    // is not run, and the budget ends the turn's proposals.
    let mut second = confirmed(2);
    let mut skipped = execution(2, 3, ExecutionStatus::Cancelled, None);
    skipped.reason = Some("action 2 did not succeed".into());
    second.extend([
        ResponseLine::Execution(execution(2, 1, ExecutionStatus::Completed, Some(0))),
        ResponseLine::Execution(execution(2, 2, ExecutionStatus::Failed, Some(101))),
        ResponseLine::Execution(skipped),
        ResponseLine::End(EndLine {
            reason:
                "this turn's 2 proposals are spent; end your turn and tell the user what is left"
                    .into(),
        }),
    ]);
    run_cli(&mut f, "p2", &channel(2), BUILD_AND_TEST, &printed(&second));
    let screen = f.render(100, 24);
    assert_no_protocol_json(&screen);
    insta::assert_snapshot!("proposal_row_multi_step_100x24", screen);
}
