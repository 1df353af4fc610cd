//! Pure mapping from ACP wire JSON to the chat app's [`DomainEvent`]s:
//! `session/update` payloads, `session/request_permission` requests, the
//! `session/new` reply (models, config options), `initialize`'s auth methods,
//! and connection errors (missing agent → setup screen).
//!
//! Works on `serde_json::Value` (the exact wire shape) rather than the ACP
//! crate's structs, so unstable or newer fields (`models`, `_meta`
//! terminal-auth) are not lost and tests feed the JSON real agents send.
//! Nothing here does I/O; unknown or malformed parts are skipped, never fatal.

use serde_json::Value;

use super::proposal_row;
use crate::connection::ConnectionError;
use wta_protocol::helper_master::FailureKind;
use wta_state::{
    AuthMethod, ConfigOption, DomainEvent, ModelChoice, PermissionOption, PermissionOptionKind,
    PermissionRequest, PermissionRequestId, PlanEntry, PlanStatus, StopReason, ToolCall,
    ToolCallId, ToolCallUpdate, ToolKind, ToolStatus, Usage,
};

/// ACP's `auth_required` error code.
pub const AUTH_REQUIRED_CODE: i32 = -32000;

fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// Text of one ACP content block (text, resource link, embedded resource, image).
pub fn content_text(block: &Value) -> Option<String> {
    match str_at(block, "type")? {
        "text" => str_at(block, "text").map(str::to_owned),
        "resource_link" => {
            let uri = str_at(block, "uri").unwrap_or_default();
            let name = str_at(block, "name").unwrap_or(uri);
            Some(format!("[{name}]({uri})"))
        }
        "resource" => {
            let resource = block.get("resource")?;
            str_at(resource, "text")
                .map(str::to_owned)
                .or_else(|| str_at(resource, "uri").map(|u| format!("[{u}]")))
        }
        "image" => Some("[image]".to_owned()),
        "audio" => Some("[audio]".to_owned()),
        _ => None,
    }
}

/// One `session/update` payload (the `update` object) as app events.
pub fn session_update(update: &Value) -> Vec<DomainEvent> {
    let text = || update.get("content").and_then(content_text);
    match str_at(update, "sessionUpdate").unwrap_or_default() {
        "agent_message_chunk" => text()
            .map(DomainEvent::AgentMessageChunk)
            .into_iter()
            .collect(),
        "agent_thought_chunk" => text().map(DomainEvent::ThoughtChunk).into_iter().collect(),
        "user_message_chunk" => text().map(DomainEvent::UserMessage).into_iter().collect(),
        "tool_call" => vec![DomainEvent::ToolCall(tool_call(update))],
        "tool_call_update" => vec![DomainEvent::ToolCallUpdate(tool_call_update(update))],
        "plan" => vec![DomainEvent::Plan(plan(update))],
        "usage_update" => usage(update).map(DomainEvent::Usage).into_iter().collect(),
        "config_option_update" => config_events(update.get("configOptions")),
        "current_mode_update" => str_at(update, "currentModeId")
            .map(|m| DomainEvent::Notice(format!("Mode: {m}")))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// ACP tool kind string → glyph kind.
pub fn tool_kind(kind: &str) -> ToolKind {
    match kind {
        "read" => ToolKind::Read,
        "edit" => ToolKind::Edit,
        "delete" => ToolKind::Delete,
        "move" => ToolKind::Move,
        "search" => ToolKind::Search,
        "execute" => ToolKind::Execute,
        "think" => ToolKind::Think,
        "fetch" => ToolKind::Fetch,
        "switch_mode" => ToolKind::SwitchMode,
        _ => ToolKind::Other,
    }
}

fn tool_status(status: &str) -> Option<ToolStatus> {
    match status {
        "pending" => Some(ToolStatus::Pending),
        "in_progress" => Some(ToolStatus::InProgress),
        "completed" => Some(ToolStatus::Completed),
        "failed" => Some(ToolStatus::Failed),
        _ => None,
    }
}

/// The command line (`rawInput.command`, string or argv) or the paths a tool acts on.
pub fn tool_target(call: &Value) -> Option<String> {
    let raw = call.get("rawInput");
    let command = raw.and_then(|r| r.get("command").or_else(|| r.get("cmd")));
    match command {
        Some(Value::String(s)) if !s.is_empty() => return Some(s.clone()),
        Some(Value::Array(parts)) if !parts.is_empty() => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            return Some(words.join(" "));
        }
        _ => {}
    }
    let paths: Vec<&str> = call
        .get("locations")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(|loc| str_at(loc, "path")).collect())
        .unwrap_or_default();
    if !paths.is_empty() {
        return Some(paths.join(", "));
    }
    raw.and_then(|r| {
        ["path", "file_path", "filePath", "url"]
            .iter()
            .find_map(|k| str_at(r, k))
    })
    .map(str::to_owned)
}

/// Text output of a tool call: its content blocks, else `rawOutput.output`.
fn tool_output(call: &Value) -> Option<String> {
    if let Some(blocks) = call.get("content").and_then(Value::as_array) {
        let parts: Vec<String> = blocks
            .iter()
            .filter_map(|b| match str_at(b, "type") {
                Some("content") => b.get("content").and_then(content_text),
                Some("diff") => Some(format!("edited {}", str_at(b, "path").unwrap_or("a file"))),
                _ => None,
            })
            .collect();
        if !parts.is_empty() {
            return Some(parts.join("\n"));
        }
    }
    let raw = call.get("rawOutput")?;
    match raw {
        Value::String(s) => Some(s.clone()),
        _ => ["output", "stdout"]
            .iter()
            .find_map(|k| str_at(raw, k))
            .map(str::to_owned),
    }
}

fn exit_code(call: &Value) -> Option<i32> {
    let raw = call.get("rawOutput")?;
    ["exitCode", "exit_code"]
        .iter()
        .find_map(|k| raw.get(k).and_then(Value::as_i64))
        .and_then(|c| i32::try_from(c).ok())
}

fn tool_call(call: &Value) -> ToolCall {
    let mut out = ToolCall {
        id: ToolCallId(str_at(call, "toolCallId").unwrap_or_default().to_owned()),
        title: str_at(call, "title").unwrap_or("Tool call").to_owned(),
        kind: tool_kind(str_at(call, "kind").unwrap_or_default()),
        status: str_at(call, "status")
            .and_then(tool_status)
            .unwrap_or_default(),
        target: tool_target(call),
        exit_code: exit_code(call),
        ..ToolCall::default()
    };
    if let Some(title) = proposal_title(Some(&out.title), out.target.as_deref()) {
        (out.title, out.target) = (title, None);
    }
    if let Some(text) = tool_output(call) {
        out.set_output(&proposal_row::output(&text).unwrap_or(text));
    }
    out
}

fn tool_call_update(call: &Value) -> ToolCallUpdate {
    let mut update = ToolCallUpdate {
        id: ToolCallId(str_at(call, "toolCallId").unwrap_or_default().to_owned()),
        title: str_at(call, "title").map(str::to_owned),
        kind: str_at(call, "kind").map(tool_kind),
        status: str_at(call, "status").and_then(tool_status),
        target: tool_target(call),
        output: tool_output(call).map(|text| proposal_row::output(&text).unwrap_or(text)),
        exit_code: exit_code(call),
    };
    if let Some(title) = proposal_title(update.title.as_deref(), update.target.as_deref()) {
        (update.title, update.target) = (Some(title), None);
    }
    update
}

/// A tool call running the proposal CLI reads as what it proposes (its
/// title or command holds the raw invocation).
fn proposal_title(title: Option<&str>, target: Option<&str>) -> Option<String> {
    target
        .and_then(proposal_row::title)
        .or_else(|| title.and_then(proposal_row::title))
}

fn plan(update: &Value) -> Vec<PlanEntry> {
    update
        .get("entries")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .map(|e| PlanEntry {
                    text: str_at(e, "content").unwrap_or_default().to_owned(),
                    status: match str_at(e, "status") {
                        Some("completed") => PlanStatus::Completed,
                        Some("in_progress") => PlanStatus::InProgress,
                        _ => PlanStatus::Pending,
                    },
                })
                .collect()
        })
        .unwrap_or_default()
}

fn usage(update: &Value) -> Option<Usage> {
    let used = update.get("used").and_then(Value::as_u64)?;
    let cost = update.get("cost").and_then(|c| {
        Some((
            c.get("amount").and_then(Value::as_f64)?,
            str_at(c, "currency")?.to_owned(),
        ))
    });
    Some(Usage {
        used_tokens: used,
        context_tokens: update.get("size").and_then(Value::as_u64),
        cost,
    })
}

/// Select-type config options (flat or grouped values); other types are skipped.
pub fn config_options(options: Option<&Value>) -> Vec<ConfigOption> {
    let Some(options) = options.and_then(Value::as_array) else {
        return Vec::new();
    };
    options
        .iter()
        .filter(|o| str_at(o, "type").is_none_or(|t| t == "select"))
        .filter_map(|o| {
            let mut values = Vec::new();
            collect_values(o.get("options"), &mut values);
            Some(ConfigOption {
                id: str_at(o, "id")?.to_owned(),
                name: str_at(o, "name").or(str_at(o, "id"))?.to_owned(),
                current: str_at(o, "currentValue").unwrap_or_default().to_owned(),
                values,
            })
        })
        .collect()
}

fn collect_values(options: Option<&Value>, out: &mut Vec<(String, String)>) {
    for item in options.and_then(Value::as_array).into_iter().flatten() {
        if let Some(value) = str_at(item, "value") {
            let name = str_at(item, "name").unwrap_or(value);
            out.push((value.to_owned(), name.to_owned()));
        } else {
            // A group: {"group": …, "name": …, "options": [...]}.
            collect_values(item.get("options"), out);
        }
    }
}

/// The config option that picks the model, if the agent exposes one.
pub fn model_option(options: &[ConfigOption], raw: Option<&Value>) -> Option<String> {
    let by_category = raw.and_then(Value::as_array).and_then(|all| {
        all.iter()
            .find(|o| str_at(o, "category") == Some("model"))
            .and_then(|o| str_at(o, "id"))
            .map(str::to_owned)
    });
    by_category.or_else(|| {
        options
            .iter()
            .find(|o| o.id == "model")
            .map(|o| o.id.clone())
    })
}

fn config_events(raw: Option<&Value>) -> Vec<DomainEvent> {
    let options = config_options(raw);
    let mut events = Vec::new();
    if let Some(id) = model_option(&options, raw)
        && let Some(option) = options.iter().find(|o| o.id == id)
    {
        events.push(DomainEvent::Models(option_models(option)));
    }
    events.push(DomainEvent::ConfigOptions(options));
    events
}

fn option_models(option: &ConfigOption) -> Vec<ModelChoice> {
    option
        .values
        .iter()
        .map(|(id, name)| ModelChoice {
            id: id.clone(),
            name: name.clone(),
        })
        .collect()
}

/// How `/model` is carried out for the current session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelControl {
    /// The agent offers no model choice.
    #[default]
    None,
    /// `session/set_model` (the agent sent `models` with `session/new`).
    SetModel,
    /// `session/set_config_option` with this option id.
    ConfigOption(String),
}

/// What a `session/new` reply tells the pane.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFacts {
    pub session_id: String,
    pub model_control: ModelControl,
    /// Events to apply, in order, ending with `SessionStarted`.
    pub events: Vec<DomainEvent>,
}

/// Maps a raw `session/new` reply for `agent`; `None` when it names no session.
pub fn session_started(agent: &str, reply: &Value) -> Option<SessionFacts> {
    let session_id = str_at(reply, "sessionId")?.to_owned();
    let raw_options = reply.get("configOptions");
    let options = config_options(raw_options);
    let mut control = ModelControl::None;
    let mut model = None;
    let mut models = Vec::new();
    if let Some(state) = reply.get("models") {
        control = ModelControl::SetModel;
        models = state
            .get("availableModels")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|m| {
                let id = str_at(m, "modelId")?;
                Some(ModelChoice {
                    id: id.to_owned(),
                    name: str_at(m, "name").unwrap_or(id).to_owned(),
                })
            })
            .collect();
        model = str_at(state, "currentModelId").map(str::to_owned);
    } else if let Some(id) = model_option(&options, raw_options)
        && let Some(option) = options.iter().find(|o| o.id == id)
    {
        control = ModelControl::ConfigOption(id);
        models = option_models(option);
        model = Some(option.current.clone()).filter(|c| !c.is_empty());
    }
    let events = vec![
        DomainEvent::Models(models),
        DomainEvent::ConfigOptions(options),
        DomainEvent::SessionStarted {
            session: session_id.clone(),
            agent: agent.to_owned(),
            model,
        },
    ];
    Some(SessionFacts {
        session_id,
        model_control: control,
        events,
    })
}

fn option_kind(kind: &str) -> PermissionOptionKind {
    match kind {
        "allow_once" => PermissionOptionKind::AllowOnce,
        "allow_always" => PermissionOptionKind::AllowAlways,
        "reject_always" => PermissionOptionKind::RejectAlways,
        // Unknown kinds are never taken for an allow (fail closed).
        _ => PermissionOptionKind::RejectOnce,
    }
}

/// A `session/request_permission` request (its params) as a card, keyed by `id`.
pub fn permission_request(id: PermissionRequestId, request: &Value) -> PermissionRequest {
    let call = request.get("toolCall").cloned().unwrap_or(Value::Null);
    let options = request
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| {
            let option_id = str_at(o, "optionId")?;
            Some(PermissionOption {
                id: option_id.to_owned(),
                name: str_at(o, "name").unwrap_or(option_id).to_owned(),
                kind: option_kind(str_at(o, "kind").unwrap_or_default()),
            })
        })
        .collect();
    PermissionRequest {
        id,
        title: str_at(&call, "title")
            .unwrap_or("The agent asks for permission")
            .to_owned(),
        kind: tool_kind(str_at(&call, "kind").unwrap_or_default()),
        target: tool_target(&call),
        options,
    }
}

/// The first allow-once option of a request (what yolo approves), if any.
pub fn allow_once_option(request: &PermissionRequest) -> Option<&PermissionOption> {
    request
        .options
        .iter()
        .find(|o| o.kind == PermissionOptionKind::AllowOnce)
}

/// `session/prompt`'s `stopReason`.
pub fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "max_tokens" => StopReason::MaxTokens,
        "max_turn_requests" => StopReason::MaxTurnRequests,
        "refusal" => StopReason::Refusal,
        "cancelled" => StopReason::Cancelled,
        _ => StopReason::EndTurn,
    }
}

/// `initialize`'s `authMethods`, with a terminal-auth command when advertised
/// (`_meta["terminal-auth"] = {command, args}`).
pub fn auth_methods(init: &Value) -> Vec<AuthMethod> {
    init.get("authMethods")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let id = str_at(m, "id")?;
            let terminal = m.pointer("/_meta/terminal-auth").and_then(|t| {
                let mut argv = vec![str_at(t, "command")?.to_owned()];
                argv.extend(
                    t.get("args")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_owned),
                );
                Some(argv)
            });
            Some(AuthMethod {
                id: id.to_owned(),
                name: str_at(m, "name").unwrap_or(id).to_owned(),
                description: str_at(m, "description").map(str::to_owned),
                terminal_command: terminal,
            })
        })
        .collect()
}

/// The install command inside a registry message (the text between the
/// backticks after "Install it with"), else the hint sentence, else all of it.
pub fn install_hint(message: &str) -> String {
    if let Some(rest) = message.split("Install it with `").nth(1)
        && let Some(command) = rest.split('`').next()
    {
        return command.to_owned();
    }
    match message.split_once("on PATH. ") {
        Some((_, hint)) if !hint.trim().is_empty() => hint.trim().to_owned(),
        _ => message.to_owned(),
    }
}

/// What a failure to connect or to open a session shows: the setup screen
/// for a missing agent or required sign-in, else a failed connection.
pub fn open_failure(err: &ConnectionError, agent: &str, auth: &[AuthMethod]) -> DomainEvent {
    match err {
        ConnectionError::Master {
            kind: FailureKind::AgentUnavailable,
            agent: failed,
            message,
        } if message.contains("is not installed") => DomainEvent::AgentMissing {
            agent: failed.clone().unwrap_or_else(|| agent.to_owned()),
            install_hint: install_hint(message),
        },
        ConnectionError::Agent { code, .. } if *code == AUTH_REQUIRED_CODE => {
            DomainEvent::AuthRequired {
                agent: agent.to_owned(),
                methods: auth.to_vec(),
            }
        }
        other => DomainEvent::Connection(wta_state::ConnectionState::Failed(format!(
            "{other}. Type /restart to try again, or /agent to pick another agent."
        ))),
    }
}

#[cfg(test)]
#[path = "map_tests.rs"]
mod tests;
