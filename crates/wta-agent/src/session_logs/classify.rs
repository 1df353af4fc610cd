//! Classification of one JSONL record of an agent CLI's session log.
//!
//! One rule table per CLI (reference §2.10, "Classification per CLI from logs"):
//!
//! | CLI | record | status |
//! |---|---|---|
//! | Claude | `type:"user"` with a real message (not a `tool_result`, not `isMeta`, not a local command's output) | Working |
//! | Claude | `type:"user"` whose text is `[Request interrupted by user…` | Idle |
//! | Claude | `type:"assistant"`, `message.stop_reason:"tool_use"` | Working, tool = its last `tool_use` block (a user-input tool → Attention) |
//! | Claude | `type:"assistant"`, no stop reason yet but a `tool_use` block (a streamed write) | as above |
//! | Claude | `type:"assistant"`, any other stop reason | Idle |
//! | Claude | `type:"assistant"`, `isApiErrorMessage:true` | Error |
//! | Copilot | `session.start` / `session.resume` | Idle (session id, cwd) |
//! | Copilot | `assistant.turn_start` | Working |
//! | Copilot | `tool.execution_start` | Working, tool (a user-input tool → Attention) |
//! | Copilot | `permission.requested` | Attention |
//! | Copilot | `assistant.turn_end` | Idle |
//! | Copilot | `session.error` | Error |
//! | Codex | `session_meta` | Idle (session id, cwd); `None` for a subagent fork |
//! | Codex | `event_msg` `task_started` / `turn_started` | Working |
//! | Codex | `event_msg` `task_complete` / `turn_complete` / `turn_aborted` | Idle |
//! | Codex | `event_msg` `exec_approval_request` / `apply_patch_approval_request` / `request_user_input` | Attention |
//! | Codex | `event_msg` `error` | Error |
//! | Codex | `response_item` `function_call` / `custom_tool_call` | Working, tool; `sandbox_permissions:"require_escalated"` (or the older `with_escalated_permissions:true`) in its arguments, or a user-input tool → Attention |
//! | Gemini | the header line (`sessionId`, `startTime`, no `type`) | Idle (session id) |
//! | Gemini | `type:"user"` (not a `/` or `?` command) | Working |
//! | Gemini | `type:"gemini"` | Working, tool = its last tool call; a tool call `awaiting_approval`, or an unanswered `ask_user` → Attention |
//! | Gemini | `type:"error"` | Error |
//! | Gemini | `{"$set": …}` snapshot | skipped |
//! | Opencode | anything | `None`: it keeps sessions in a SQLite store, not in a log to tail |
//!
//! Gemini has no turn-end marker, so a log never says a Gemini session is idle
//! after its first prompt: hooks (`AfterAgent`) do. Sidechain records (Claude's
//! `isSidechain:true`, a Task subagent's turns) are skipped so a subagent's
//! `end_turn` does not mark the main session idle.
//!
//! Every function here is total: any string or JSON value gives `Some` or
//! `None`, never a panic (proptested). Strings taken from a record are cut to
//! bounded lengths; nothing of a prompt or a tool's input or output is kept.

use serde_json::{Map, Value};
use wta_protocol::agent_sessions::{AgentStatus, HookCli, MAX_HOOK_TEXT_CHARS};

use super::LogSignal;

/// The longest cwd a signal carries (bytes, cut at a char boundary).
const MAX_CWD_BYTES: usize = 4096;

/// The tools by which an agent asks its user a question (their last name
/// segment, so `mcp__wta__request_user_input` matches too).
const USER_INPUT_TOOLS: &[&str] = &[
    "AskUserQuestion",
    "askUserQuestion",
    "ask_user_question",
    "ask_user",
    "askUser",
    "AskUser",
    "ask_followup_question",
    "request_user_input",
    "requestUserInput",
    "user_input",
];

/// The signal one record of `cli`'s log gives, or `None` (unknown shape,
/// malformed JSON, a record that says nothing about status, Opencode).
pub fn classify(cli: HookCli, line: &str) -> Option<LogSignal> {
    if cli == HookCli::Opencode {
        return None;
    }
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    let record = value.as_object()?;
    match cli {
        HookCli::Claude => claude(record),
        HookCli::Copilot => copilot(record),
        HookCli::Codex => codex(record),
        HookCli::Gemini => gemini(record),
        HookCli::Opencode => None,
    }
}

/// Whether `line` is a Codex `session_meta` record of a subagent: its
/// `payload.source` is `{"subagent": …}` (a review, a compaction, a spawned
/// thread) or `payload.thread_source` is `"subagent"`. Such a rollout file
/// replays its parent's history and runs its own turns; following it would
/// report the parent's session as whatever the subagent does.
pub fn is_codex_subagent_fork(line: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(line.trim()) else {
        return false;
    };
    if str_at(&value, &["type"]) != Some("session_meta") {
        return false;
    }
    value.get("payload").is_some_and(is_subagent_meta)
}

/// A `session_meta` payload's own word that it is a subagent's.
fn is_subagent_meta(payload: &Value) -> bool {
    let source_is_subagent = match payload.get("source") {
        Some(Value::Object(source)) => source.contains_key("subagent"),
        Some(Value::String(source)) => source.starts_with("subagent"),
        _ => false,
    };
    source_is_subagent || str_at(payload, &["thread_source"]) == Some("subagent")
}

/// Whether a tool is one by which the agent asks its user (→ Attention).
pub fn is_user_input_tool(name: &str) -> bool {
    let last = name.rsplit(['/', '.']).next().unwrap_or(name);
    let last = last.rsplit("__").next().unwrap_or(last);
    USER_INPUT_TOOLS.contains(&last)
}

fn claude(record: &Map<String, Value>) -> Option<LogSignal> {
    if record.get("isSidechain").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let message = record.get("message");
    let status_and_tool = match record.get("type").and_then(Value::as_str)? {
        "user" => claude_user(record, message?)?,
        "assistant" => claude_assistant(record, message?)?,
        _ => return None,
    };
    let (status, tool) = status_and_tool;
    Some(LogSignal {
        status,
        session_id: bounded_text(record.get("sessionId")),
        tool,
        cwd: bounded_cwd(record.get("cwd")),
        title: None,
    })
}

fn claude_user(
    record: &Map<String, Value>,
    message: &Value,
) -> Option<(AgentStatus, Option<String>)> {
    if record.get("isMeta").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let text = match message.get("content")? {
        Value::String(text) => text.as_str(),
        Value::Array(blocks) => {
            // A tool's result comes back as a user record: not the user.
            if blocks
                .iter()
                .any(|b| str_at(b, &["type"]) == Some("tool_result"))
            {
                return None;
            }
            blocks
                .iter()
                .find_map(|b| match str_at(b, &["type"]) {
                    Some("text") => str_at(b, &["text"]),
                    _ => None,
                })
                .unwrap_or("")
        }
        _ => return None,
    };
    let text = text.trim_start();
    if text.starts_with("[Request interrupted by user") {
        return Some((AgentStatus::Idle, None));
    }
    // `/model`, `/clear`…: the local command's output, no turn.
    if text.starts_with("<local-command-stdout>") || text.starts_with("<local-command-stderr>") {
        return None;
    }
    Some((AgentStatus::Working, None))
}

fn claude_assistant(
    record: &Map<String, Value>,
    message: &Value,
) -> Option<(AgentStatus, Option<String>)> {
    if record.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
        return Some((AgentStatus::Error, None));
    }
    let tool = message
        .get("content")
        .and_then(Value::as_array)
        .and_then(|blocks| {
            blocks
                .iter()
                .rev()
                .find(|b| str_at(b, &["type"]) == Some("tool_use"))
        })
        .and_then(|b| bounded_text(b.get("name")));
    match message.get("stop_reason") {
        Some(Value::String(reason)) if reason == "tool_use" => Some(tool_status(tool)),
        Some(Value::String(_)) => Some((AgentStatus::Idle, None)),
        // Claude writes each content block as it streams, before the stop
        // reason is known: a tool_use block already says what runs.
        None | Some(Value::Null) => tool.map(|t| tool_status(Some(t))),
        Some(_) => None,
    }
}

fn copilot(record: &Map<String, Value>) -> Option<LogSignal> {
    let data = record.get("data");
    let tool = data.and_then(|d| bounded_text(d.get("toolName")));
    let (status, tool) = match record.get("type").and_then(Value::as_str)? {
        "session.start" | "session.resume" => {
            let data = data?;
            let cwd = data
                .get("context")
                .and_then(|c| c.get("cwd"))
                .or_else(|| data.get("cwd"));
            return Some(LogSignal {
                status: AgentStatus::Idle,
                session_id: bounded_text(data.get("sessionId")),
                tool: None,
                cwd: bounded_cwd(cwd),
                title: None,
            });
        }
        "assistant.turn_start" => (AgentStatus::Working, None),
        "tool.execution_start" => tool_status(tool),
        "permission.requested" => (AgentStatus::Attention, tool),
        "assistant.turn_end" => (AgentStatus::Idle, None),
        "session.error" => (AgentStatus::Error, None),
        _ => return None,
    };
    Some(LogSignal {
        tool,
        ..LogSignal::status(status)
    })
}

fn codex(record: &Map<String, Value>) -> Option<LogSignal> {
    let payload = record.get("payload")?;
    match record.get("type").and_then(Value::as_str)? {
        "session_meta" => {
            if is_subagent_meta(payload) {
                return None;
            }
            Some(LogSignal {
                session_id: bounded_text(payload.get("id")),
                cwd: bounded_cwd(payload.get("cwd")),
                ..LogSignal::status(AgentStatus::Idle)
            })
        }
        "event_msg" => {
            let status = match str_at(payload, &["type"])? {
                "task_started" | "turn_started" => AgentStatus::Working,
                "task_complete" | "turn_complete" | "turn_aborted" => AgentStatus::Idle,
                "exec_approval_request" | "apply_patch_approval_request" | "request_user_input" => {
                    AgentStatus::Attention
                }
                "error" => AgentStatus::Error,
                _ => return None,
            };
            Some(LogSignal::status(status))
        }
        "response_item" => {
            if !matches!(
                str_at(payload, &["type"])?,
                "function_call" | "custom_tool_call"
            ) {
                return None;
            }
            let tool = bounded_text(payload.get("name"));
            let (status, tool) = if codex_escalates(payload) {
                (AgentStatus::Attention, tool)
            } else {
                tool_status(tool)
            };
            Some(LogSignal {
                tool,
                ..LogSignal::status(status)
            })
        }
        _ => None,
    }
}

/// Whether a Codex tool call asks to run outside the sandbox (which, under
/// the on-request approval policy, waits for the user's approval). Its
/// `arguments` is JSON encoded in a string.
fn codex_escalates(payload: &Value) -> bool {
    let arguments = match payload.get("arguments") {
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(value) => value,
            Err(_) => return false,
        },
        Some(value @ Value::Object(_)) => value.clone(),
        _ => return false,
    };
    str_at(&arguments, &["sandbox_permissions"]) == Some("require_escalated")
        || arguments
            .get("with_escalated_permissions")
            .and_then(Value::as_bool)
            == Some(true)
}

fn gemini(record: &Map<String, Value>) -> Option<LogSignal> {
    if record.contains_key("$set") {
        return None;
    }
    let Some(kind) = record.get("type") else {
        // The header line: written once when the session's file is created.
        if record.contains_key("startTime") {
            return Some(LogSignal {
                session_id: Some(bounded_text(record.get("sessionId"))?),
                ..LogSignal::status(AgentStatus::Idle)
            });
        }
        return None;
    };
    let (status, tool) = match kind.as_str()? {
        "user" => {
            let text = match record.get("content") {
                Some(Value::String(text)) => text.as_str(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .find_map(|p| str_at(p, &["text"]))
                    .unwrap_or(""),
                _ => "",
            };
            let text = text.trim_start();
            if text.starts_with('/') || text.starts_with('?') {
                return None;
            }
            (AgentStatus::Working, None)
        }
        "gemini" => gemini_reply(record),
        "error" => (AgentStatus::Error, None),
        _ => return None,
    };
    Some(LogSignal {
        tool,
        ..LogSignal::status(status)
    })
}

fn gemini_reply(record: &Map<String, Value>) -> (AgentStatus, Option<String>) {
    let calls = record
        .get("toolCalls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let waiting = calls.iter().find(|call| {
        let status = str_at(call, &["status"]);
        let name = str_at(call, &["name"]).unwrap_or("");
        status == Some("awaiting_approval")
            || (is_user_input_tool(name)
                && !matches!(status, Some("success" | "error" | "cancelled")))
    });
    if let Some(call) = waiting {
        return (AgentStatus::Attention, bounded_text(call.get("name")));
    }
    let tool = calls.last().and_then(|call| bounded_text(call.get("name")));
    (AgentStatus::Working, tool)
}

/// Working with a tool, or Attention when the tool asks the user.
fn tool_status(tool: Option<String>) -> (AgentStatus, Option<String>) {
    let status = match tool.as_deref() {
        Some(name) if is_user_input_tool(name) => AgentStatus::Attention,
        _ => AgentStatus::Working,
    };
    (status, tool)
}

fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut current = value;
    for key in path {
        current = current.get(key)?;
    }
    current.as_str()
}

/// A non-empty id or name, at most [`MAX_HOOK_TEXT_CHARS`] chars.
fn bounded_text(value: Option<&Value>) -> Option<String> {
    let text = value?.as_str()?.trim();
    if text.is_empty() {
        return None;
    }
    Some(text.chars().take(MAX_HOOK_TEXT_CHARS).collect())
}

fn bounded_cwd(value: Option<&Value>) -> Option<String> {
    let text = value?.as_str()?;
    if text.is_empty() {
        return None;
    }
    let mut end = text.len().min(MAX_CWD_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(text[..end].to_owned())
}
