//! A script's turn as the shared core's steps: pure, but for `exit` (which
//! ends the process at once, mid-turn) and `pid`. Errors talking to the
//! client end the turn with a visible chunk where the script says so
//! (`permission`, `terminal`, `read`), with the error otherwise.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    PlanEntry, PlanEntryPriority, PlanEntryStatus, ToolCallStatus, ToolKind,
};
use serde_json::{Value, json};
use wta_agent::scripted::{
    Command, Permission, PermissionAnswer, PermissionOption, Prompt, Step, ToolCall, ToolContent,
    ToolUpdate,
};

use super::propose;
use super::script::Script;

/// The steps of `script` for `prompt`; `servers` are the MCP servers the
/// session was given.
pub(super) fn steps(
    script: Script,
    prompt: &Prompt,
    servers: &[super::mcp::McpServer],
) -> Vec<Step> {
    match script {
        Script::Echo(text) => vec![Step::Say(text)],
        Script::Pid => vec![Step::say(format!("pid {}", std::process::id()))],
        Script::Stream { count, tag } => stream(0, count, tag),
        Script::Tool => vec![
            Step::ToolCall(
                ToolCall::new("tc-1", "Read README.md", ToolKind::Read)
                    .status(ToolCallStatus::Pending)
                    .location("README.md"),
            ),
            Step::ToolUpdate(ToolUpdate::new("tc-1", ToolCallStatus::InProgress)),
            Step::ToolUpdate(
                ToolUpdate::new("tc-1", ToolCallStatus::Completed)
                    .content(ToolContent::Text("read 3 lines".into())),
            ),
            Step::say("tool done"),
        ],
        Script::Plan => vec![
            Step::Plan(vec![
                PlanEntry::new(
                    "Inspect the failing test",
                    PlanEntryPriority::High,
                    PlanEntryStatus::Completed,
                ),
                PlanEntry::new(
                    "Fix the parser",
                    PlanEntryPriority::Medium,
                    PlanEntryStatus::InProgress,
                ),
                PlanEntry::new(
                    "Run the suite",
                    PlanEntryPriority::Low,
                    PlanEntryStatus::Pending,
                ),
            ]),
            Step::say("plan shown"),
        ],
        Script::Permission(kinds) => permission(&kinds),
        Script::PermissionCall(call) => super::mcp::forged_permission(servers, &call),
        Script::Terminal(command) => terminal(command),
        Script::TerminalOps(spec) => terminal_ops(spec),
        Script::Run(command) => run(command),
        Script::ReadFile(path) => vec![Step::request(
            "fs/read_text_file",
            json!({"path": path}),
            |answer| {
                vec![Step::say(match answer {
                    Ok(v) => format!(
                        "read: {}",
                        v.get("content").and_then(Value::as_str).unwrap_or_default()
                    ),
                    Err(err) => format!("read: error {}", err.message),
                })]
            },
        )],
        Script::Fail { code, message } => vec![Step::Fail(Error::new(code, message))],
        Script::Stall => vec![Step::say("stalling"), Step::AwaitCancel],
        Script::Exit => std::process::exit(3),
        Script::Propose(proposal) => propose::steps(&prompt.context, &proposal),
        Script::Mcp { tool, args } => super::mcp::steps(servers, tool, args),
        Script::Chain(commands) => super::chain::steps(&prompt.context, commands),
        Script::McpServers => super::mcp::list(servers),
        Script::Context(pointer) => {
            vec![Step::say(super::context::said(&prompt.context, &pointer))]
        }
    }
}

/// Chunks `<tag>:<i>;` from `i` to `count`, each after a cancel check
/// (made one at a time, so a long stream holds no list of steps).
fn stream(i: u32, count: u32, tag: String) -> Vec<Step> {
    if i >= count {
        return Vec::new();
    }
    vec![Step::unless_cancelled(move || {
        let mut steps = vec![Step::say(format!("{tag}:{i};"))];
        steps.extend(stream(i + 1, count, tag));
        steps
    })]
}

/// `permission [kind…]`: one option per kind, the answer said back.
fn permission(kinds: &[String]) -> Vec<Step> {
    let options = kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| PermissionOption::new(format!("opt-{i}-{kind}"), kind, kind))
        .collect();
    let title = "touch made_by_tool";
    let ask = Permission {
        call: ToolCall::new("perm-1", title, ToolKind::Execute),
        options,
    };
    vec![
        Step::ToolCall(
            ToolCall::new("perm-1", title, ToolKind::Execute)
                .status(ToolCallStatus::Pending)
                .raw_input(json!({"command": title})),
        ),
        Step::ask(ask, |answer| {
            vec![Step::say(match answer {
                Ok(PermissionAnswer::Selected(id)) => format!("permission: selected {id}"),
                Ok(PermissionAnswer::Cancelled) => "permission: cancelled".to_owned(),
                Err(err) => format!("permission: error {}", err.message),
            })]
        }),
    ]
}

/// `run <command>`: run by the agent itself, shown as a tool call.
fn run(command: String) -> Vec<Step> {
    vec![
        Step::ToolCall(
            ToolCall::new("run-1", &command, ToolKind::Execute)
                .status(ToolCallStatus::InProgress)
                .raw_input(json!({"command": command})),
        ),
        Step::run(Command::shell(command), |ran| {
            let code = ran.exit.unwrap_or(-1);
            vec![
                Step::ToolUpdate(
                    ToolUpdate::new("run-1", ran.tool_status())
                        .raw_output(json!({"exitCode": code, "output": ran.stdout}))
                        .content(ToolContent::Text(ran.stdout.clone())),
                ),
                Step::say(format!("ran with exit {code}: {}", ran.stdout)),
            ]
        }),
    ]
}

/// `terminal-ops`: create, then each op in turn, every answer said back.
fn terminal_ops(spec: Value) -> Vec<Step> {
    let params = spec.get("create").cloned().unwrap_or_else(|| json!({}));
    let ops: Vec<String> = spec
        .get("ops")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    vec![Step::request("terminal/create", params, move |answer| {
        let said = said("create", &answer);
        let Ok(created) = answer else {
            return vec![Step::say(said)];
        };
        let id = created.get("terminalId").cloned().unwrap_or(Value::Null);
        let shown = ToolContent::Terminal(id.as_str().unwrap_or_default().to_owned());
        let mut steps = vec![
            Step::say(said),
            Step::ToolCall(
                ToolCall::new("term-ops", "terminal ops", ToolKind::Execute)
                    .status(ToolCallStatus::InProgress)
                    .content(shown),
            ),
        ];
        steps.extend(terminal_op(ops, 0, id));
        steps
    })]
}

/// The op at `i` of `ops` on terminal `id`, then the rest.
fn terminal_op(ops: Vec<String>, i: usize, id: Value) -> Vec<Step> {
    let Some(op) = ops.get(i).cloned() else {
        return Vec::new();
    };
    let method = match op.as_str() {
        "wait" => "terminal/wait_for_exit".to_owned(),
        other => format!("terminal/{other}"),
    };
    let params = json!({"terminalId": id});
    vec![Step::request(&method, params, move |answer| {
        let mut steps = vec![Step::say(said(&op, &answer))];
        steps.extend(terminal_op(ops, i + 1, id));
        steps
    })]
}

/// `"<op>: <json>"` or `"<op>: error <message>"`, one line.
fn said(op: &str, answer: &Result<Value, Error>) -> String {
    match answer {
        Ok(value) => format!("{op}: {value};\n"),
        Err(err) => format!("{op}: error {};\n", err.message),
    }
}

/// Where `terminal <command>` is: each phase follows one client request.
enum Terminal {
    Created,
    Exited,
    Read { exit: Value },
    Released { exit: Value, output: Value },
}

/// `terminal <command>` through the client's `terminal/*` requests.
fn terminal(command: String) -> Vec<Step> {
    vec![Step::request(
        "terminal/create",
        json!({"command": "sh", "args": ["-c", command], "outputByteLimit": 32000}),
        move |answer| terminal_next(Terminal::Created, &command, Value::Null, answer),
    )]
}

/// The steps after the request of `phase` answered; an error ends the
/// sequence with a chunk saying so.
fn terminal_next(
    phase: Terminal,
    command: &str,
    id: Value,
    answer: Result<Value, Error>,
) -> Vec<Step> {
    let answer = match answer {
        Ok(answer) => answer,
        Err(err) => return vec![Step::say(format!("terminal: error {}", err.message))],
    };
    let request = |method: &str, phase: Terminal, id: Value| {
        let command = command.to_owned();
        let ids = json!({"terminalId": id});
        Step::request(method, ids, move |answer| {
            terminal_next(phase, &command, id, answer)
        })
    };
    match phase {
        Terminal::Created => {
            let id = answer.get("terminalId").cloned().unwrap_or(Value::Null);
            let shown = ToolContent::Terminal(id.as_str().unwrap_or_default().to_owned());
            vec![
                Step::ToolCall(
                    ToolCall::new("term-1", command, ToolKind::Execute)
                        .status(ToolCallStatus::InProgress)
                        .content(shown),
                ),
                request("terminal/wait_for_exit", Terminal::Exited, id),
            ]
        }
        Terminal::Exited => vec![request(
            "terminal/output",
            Terminal::Read { exit: answer },
            id,
        )],
        Terminal::Read { exit } => {
            let next = Terminal::Released {
                exit,
                output: answer,
            };
            vec![request("terminal/release", next, id)]
        }
        Terminal::Released { exit, output } => vec![
            Step::ToolUpdate(ToolUpdate::new("term-1", ToolCallStatus::Completed)),
            Step::say(format!(
                "terminal exit {}: {}",
                exit.get("exitCode")
                    .map(Value::to_string)
                    .unwrap_or_default(),
                output
                    .get("output")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            )),
        ],
    }
}
