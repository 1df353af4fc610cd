//! Black-box tests of the five tools over HTTP: what `tools/list`
//! advertises, and that each call reaches the backend with the caller's
//! session and its arguments and comes back as the backend's report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{Call, Fixture, pending_report, proposal_id};
use wta_mcp::{Limits, McpSessionId};
use wta_protocol::session_tools::{
    CreateWorkspaceArgs, DelegateTaskArgs, ProposalReport, ReportState, RunCommandArgs,
    SessionTool, TOOL_CREATE_WORKSPACE, TOOL_DELEGATE_TASK, TOOL_PROPOSAL_RESULT, TOOL_RUN_COMMAND,
    TOOL_USER_INPUT, wait_for,
};
use wta_protocol::{
    Direction, ExecutionId, ExecutionLine, ExecutionStatus, FinalLine, FinalStatus, OpenTarget,
    ValidationLine,
};

fn done_report() -> ProposalReport {
    let mut run = ExecutionLine::new(
        ExecutionStatus::Completed,
        proposal_id(),
        ExecutionId::from_bytes([7; 16]),
        1,
    );
    run.exit_code = Some(0);
    run.output = Some("total 0\n".into());
    ProposalReport {
        state: ReportState::Done,
        validation: ValidationLine::accepted(proposal_id()),
        final_line: Some(FinalLine {
            status: FinalStatus::Confirmed,
            proposal_id: proposal_id(),
            choice: Some(1),
            reason: None,
        }),
        executions: vec![run],
        remaining: None,
        ended: None,
    }
}

/// The report inside a result, without the top-level `proposal_id` copy.
fn report_of(result: &Value) -> ProposalReport {
    let mut structured = result["structuredContent"].clone();
    structured.as_object_mut().unwrap().remove("proposal_id");
    serde_json::from_value(structured).unwrap()
}

#[tokio::test]
async fn tools_list_advertises_five_tools_with_their_limits() {
    let fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let reply = fx
        .rpc(
            &token,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        )
        .await;
    let tools = reply.json()["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            TOOL_RUN_COMMAND,
            TOOL_CREATE_WORKSPACE,
            TOOL_DELEGATE_TASK,
            TOOL_PROPOSAL_RESULT,
            TOOL_USER_INPUT
        ]
    );
    let by_name = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    for tool in &tools {
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        assert!(
            tool["description"].as_str().unwrap().len() > 80,
            "{}",
            tool["name"]
        );
    }
    let run = by_name(TOOL_RUN_COMMAND);
    assert!(
        run["description"]
            .as_str()
            .unwrap()
            .starts_with("Propose a shell command to run in the user's terminal pane.")
    );
    assert_eq!(run["inputSchema"]["required"], json!(["command"]));
    assert_eq!(
        run["inputSchema"]["properties"]["command"]["maxLength"],
        8000
    );
    assert_eq!(
        run["inputSchema"]["properties"]["wait_secs"]["maximum"],
        300
    );
    let create = by_name(TOOL_CREATE_WORKSPACE);
    assert_eq!(
        create["inputSchema"]["properties"]["target"]["enum"],
        json!(["tab", "panel"])
    );
    assert_eq!(
        create["inputSchema"]["properties"]["direction"]["enum"],
        json!(["right", "left", "up", "down", "auto"])
    );
    let result = by_name(TOOL_PROPOSAL_RESULT);
    assert_eq!(
        result["inputSchema"]["properties"]["proposal_id"]["pattern"],
        "^[0-9a-f]{32}$"
    );
    let ask = by_name(TOOL_USER_INPUT);
    let props = &ask["inputSchema"]["properties"];
    assert_eq!(props["question"]["maxLength"], 2000);
    assert_eq!(props["choices"]["maxItems"], 8);
    assert_eq!(props["choices"]["items"]["maxLength"], 200);
    assert_eq!(props["allow_freeform"]["type"], "boolean");
}

#[tokio::test]
async fn every_property_the_schemas_advertise_is_accepted_by_the_wire_types() {
    // A call using every advertised property parses: schema and types agree.
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let full = [
        (
            TOOL_RUN_COMMAND,
            json!({"command": "ls", "explanation": "list", "wait_secs": 1}),
        ),
        (
            TOOL_CREATE_WORKSPACE,
            json!({"target": "panel", "cwd": "/tmp", "title": "t", "direction": "left", "wait_secs": 1}),
        ),
        (
            TOOL_DELEGATE_TASK,
            json!({"task": "do it", "cwd": "/tmp", "wait_secs": 1}),
        ),
        (
            TOOL_PROPOSAL_RESULT,
            json!({"proposal_id": proposal_id().to_hex(), "wait_secs": 1}),
        ),
    ];
    for (tool, arguments) in full {
        let result = fx.call_tool(&token, tool, arguments).await;
        assert_eq!(result["isError"], false, "{tool}: {result}");
        fx.next_call().await;
    }
}

#[tokio::test]
async fn run_command_reaches_the_backend_and_returns_its_report() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    fx.backend.answer_with(done_report());
    let result = fx
        .call_tool(
            &token,
            TOOL_RUN_COMMAND,
            json!({"command": "ls -la", "explanation": "see the files", "wait_secs": 12}),
        )
        .await;
    let Call::Tool(session, call) = fx.next_call().await else {
        panic!("expected a terminal tool call")
    };
    assert_eq!(session, McpSessionId::new("A"));
    assert_eq!(
        call,
        SessionTool::RunCommand(RunCommandArgs {
            command: "ls -la".into(),
            explanation: Some("see the files".into()),
            wait_secs: Some(12),
        })
    );
    assert_eq!(call.wait(), Duration::from_secs(12));
    assert_eq!(result["isError"], false);
    assert_eq!(result["content"][0]["text"], "confirmed; exit 0");
    assert_eq!(
        result["structuredContent"]["proposal_id"],
        proposal_id().to_hex()
    );
    assert_eq!(report_of(&result), done_report());
}

#[tokio::test]
async fn create_workspace_and_delegate_reach_the_backend_with_their_arguments() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("B", "agent-1");
    let result = fx
        .call_tool(
            &token,
            TOOL_CREATE_WORKSPACE,
            json!({"target": "panel", "direction": "right", "title": "logs"}),
        )
        .await;
    let Call::Tool(session, call) = fx.next_call().await else {
        panic!("expected a terminal tool call")
    };
    assert_eq!(session, McpSessionId::new("B"));
    assert_eq!(
        call,
        SessionTool::CreateWorkspace(CreateWorkspaceArgs {
            target: OpenTarget::Panel,
            cwd: None,
            title: Some("logs".into()),
            direction: Some(Direction::Right),
            wait_secs: None,
        })
    );
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["content"][0]["text"],
        format!(
            "pending: the user has not decided yet; call get_proposal_result with proposal_id {}",
            proposal_id()
        )
    );
    assert_eq!(report_of(&result), pending_report());

    fx.call_tool(
        &token,
        TOOL_DELEGATE_TASK,
        json!({"task": "fix the build", "cwd": "/src"}),
    )
    .await;
    let Call::Tool(_, call) = fx.next_call().await else {
        panic!("expected a terminal tool call")
    };
    assert_eq!(
        call,
        SessionTool::DelegateTask(DelegateTaskArgs {
            task: "fix the build".into(),
            cwd: Some("/src".into()),
            wait_secs: None,
        })
    );
}

#[tokio::test]
async fn get_proposal_result_passes_the_id_and_the_capped_wait() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    fx.backend.answer_with(done_report());
    let result = fx
        .call_tool(
            &token,
            TOOL_PROPOSAL_RESULT,
            json!({"proposal_id": proposal_id().to_hex(), "wait_secs": 9000}),
        )
        .await;
    let Call::Result(session, id, wait) = fx.next_call().await else {
        panic!("expected get_proposal_result")
    };
    assert_eq!(session, McpSessionId::new("A"));
    assert_eq!(id, proposal_id());
    assert_eq!(wait, wait_for(Some(9000)));
    assert_eq!(report_of(&result), done_report());
}

#[tokio::test]
async fn bad_arguments_are_refused_without_reaching_the_backend() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    let rows = [
        (TOOL_RUN_COMMAND, json!({})),
        (TOOL_RUN_COMMAND, json!({"command": "ls", "cwd": "/"})),
        (TOOL_CREATE_WORKSPACE, json!({"target": "window"})),
        (TOOL_DELEGATE_TASK, json!({"task": 3})),
        (TOOL_PROPOSAL_RESULT, json!({"proposal_id": "XYZ"})),
    ];
    for (tool, arguments) in rows {
        let result = fx.call_tool(&token, tool, arguments.clone()).await;
        assert_eq!(result["isError"], true, "{tool} {arguments}");
        assert_eq!(result["structuredContent"]["state"], "refused");
        assert_eq!(
            result["structuredContent"]["validation"]["status"],
            "invalid_schema"
        );
        assert_eq!(result["structuredContent"]["validation"]["retryable"], true);
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("refused (invalid_schema): invalid arguments: "),
            "{text}"
        );
    }
    assert!(fx.no_calls());
    // An unknown tool is a JSON-RPC error, not a result.
    let reply = fx
        .rpc(&token, json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "rm_rf", "arguments": {}}}))
        .await;
    assert!(
        reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool")
    );
    assert!(fx.no_calls());
}

#[tokio::test]
async fn a_backend_failure_is_an_unavailable_refusal() {
    let mut fx = Fixture::start(Limits::default()).await;
    let (_grant, token) = fx.grant("A", "agent-1");
    fx.backend.fail_with("the helper is restarting");
    let result = fx
        .call_tool(&token, TOOL_RUN_COMMAND, json!({"command": "ls"}))
        .await;
    fx.next_call().await;
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["structuredContent"]["validation"]["status"],
        "unavailable"
    );
    assert_eq!(
        result["content"][0]["text"],
        "refused (unavailable): the agent pane cannot take this now: the helper is restarting"
    );
}
