//! Pure mapping from typed ACP (the `agent-client-protocol` schema types, as
//! the connection received them) to the chat app's [`DomainEvent`]s:
//! `session/update`, `session/request_permission`, the `session/new` reply
//! (models, config options), `initialize`'s auth methods, stop reasons, and
//! connection errors (a missing agent → the setup screen).
//!
//! Parts that are free JSON in ACP itself (`rawInput`, `rawOutput`, `_meta`)
//! are read here by key, the only place that does. Nothing here does I/O.

use agent_client_protocol::v1::schema::{
    self as acp, ContentBlock, EmbeddedResourceResource, InitializeResponse, PlanEntryStatus,
    RequestPermissionRequest, SessionConfigKind, SessionConfigOption, SessionConfigOptionCategory,
    SessionConfigSelectOptions, SessionUpdate, ToolCallContent, ToolCallStatus,
};
use serde_json::Value;
use wta_protocol::helper_master::FailureKind;
use wta_state::{
    AuthMethod, ConfigOption, DomainEvent, ModelChoice, PermissionOption, PermissionOptionKind,
    PermissionRequest, PermissionRequestId, PlanEntry, PlanStatus, StopReason, ToolCall,
    ToolCallId, ToolCallUpdate, ToolKind, ToolStatus, Usage,
};

use super::proposal_row;
use super::{ConnectionError, SessionOpened};

/// ACP's `auth_required` error code.
pub const AUTH_REQUIRED_CODE: i32 = -32000;

/// Text of one ACP content block (text, resource link, embedded resource, image).
pub fn content_text(block: &ContentBlock) -> Option<String> {
    match block {
        ContentBlock::Text(text) => Some(text.text.clone()),
        ContentBlock::ResourceLink(link) => Some(format!("[{}]({})", link.name, link.uri)),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            EmbeddedResourceResource::TextResourceContents(r) => Some(r.text.clone()),
            EmbeddedResourceResource::BlobResourceContents(r) => Some(format!("[{}]", r.uri)),
            _ => None,
        },
        ContentBlock::Image(_) => Some("[image]".to_owned()),
        ContentBlock::Audio(_) => Some("[audio]".to_owned()),
        _ => None,
    }
}

/// One `session/update` as app events.
pub fn session_update(update: &SessionUpdate) -> Vec<DomainEvent> {
    let events: Vec<DomainEvent> = match update {
        SessionUpdate::AgentMessageChunk(c) => content_text(&c.content)
            .map(DomainEvent::AgentMessageChunk)
            .into_iter()
            .collect(),
        SessionUpdate::AgentThoughtChunk(c) => content_text(&c.content)
            .map(DomainEvent::ThoughtChunk)
            .into_iter()
            .collect(),
        SessionUpdate::UserMessageChunk(c) => content_text(&c.content)
            .map(DomainEvent::UserMessage)
            .into_iter()
            .collect(),
        SessionUpdate::ToolCall(call) => vec![DomainEvent::ToolCall(tool_call(call))],
        SessionUpdate::ToolCallUpdate(update) => {
            vec![DomainEvent::ToolCallUpdate(tool_call_update(update))]
        }
        SessionUpdate::Plan(plan) => vec![DomainEvent::Plan(plan_entries(&plan.entries))],
        SessionUpdate::UsageUpdate(u) => vec![DomainEvent::Usage(Usage {
            used_tokens: u.used,
            context_tokens: Some(u.size),
            cost: u.cost.as_ref().map(|c| (c.amount, c.currency.clone())),
        })],
        SessionUpdate::ConfigOptionUpdate(u) => config_events(&u.config_options),
        SessionUpdate::CurrentModeUpdate(u) => {
            vec![DomainEvent::Notice(wta_i18n::tr!(
                "helper.mode",
                mode = u.current_mode_id
            ))]
        }
        _ => Vec::new(),
    };
    events
}

/// ACP tool kind → glyph kind.
pub fn tool_kind(kind: &acp::ToolKind) -> ToolKind {
    match kind {
        acp::ToolKind::Read => ToolKind::Read,
        acp::ToolKind::Edit => ToolKind::Edit,
        acp::ToolKind::Delete => ToolKind::Delete,
        acp::ToolKind::Move => ToolKind::Move,
        acp::ToolKind::Search => ToolKind::Search,
        acp::ToolKind::Execute => ToolKind::Execute,
        acp::ToolKind::Think => ToolKind::Think,
        acp::ToolKind::Fetch => ToolKind::Fetch,
        acp::ToolKind::SwitchMode => ToolKind::SwitchMode,
        _ => ToolKind::Other,
    }
}

fn tool_status(status: &ToolCallStatus) -> ToolStatus {
    match status {
        ToolCallStatus::InProgress => ToolStatus::InProgress,
        ToolCallStatus::Completed => ToolStatus::Completed,
        ToolCallStatus::Failed => ToolStatus::Failed,
        _ => ToolStatus::Pending,
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The command line (`rawInput.command`, string or argv) or the paths a tool acts on.
pub fn tool_target(
    raw_input: Option<&Value>,
    locations: &[acp::ToolCallLocation],
) -> Option<String> {
    let command = raw_input.and_then(|r| r.get("command").or_else(|| r.get("cmd")));
    match command {
        Some(Value::String(s)) if !s.is_empty() => return Some(s.clone()),
        Some(Value::Array(parts)) if !parts.is_empty() => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            return Some(words.join(" "));
        }
        _ => {}
    }
    if !locations.is_empty() {
        let paths: Vec<String> = locations
            .iter()
            .map(|l| l.path.to_string_lossy().into_owned())
            .collect();
        return Some(paths.join(", "));
    }
    raw_input
        .and_then(|r| {
            ["path", "file_path", "filePath", "url"]
                .iter()
                .find_map(|k| str_at(r, k))
        })
        .map(str::to_owned)
}

/// Text output of a tool call: its content blocks, else `rawOutput.output`.
fn tool_output(content: &[ToolCallContent], raw_output: Option<&Value>) -> Option<String> {
    let parts: Vec<String> = content
        .iter()
        .filter_map(|c| match c {
            ToolCallContent::Content(c) => content_text(&c.content),
            ToolCallContent::Diff(d) => Some(format!("edited {}", d.path.display())),
            _ => None,
        })
        .collect();
    if !parts.is_empty() {
        return Some(parts.join("\n"));
    }
    match raw_output? {
        Value::String(s) => Some(s.clone()),
        raw => ["output", "stdout"]
            .iter()
            .find_map(|k| str_at(raw, k))
            .map(str::to_owned),
    }
}

fn exit_code(raw_output: Option<&Value>) -> Option<i32> {
    let raw = raw_output?;
    ["exitCode", "exit_code"]
        .iter()
        .find_map(|k| raw.get(k).and_then(Value::as_i64))
        .and_then(|c| i32::try_from(c).ok())
}

/// The agent terminal a tool call's content embeds, if any.
fn terminal_of(content: &[ToolCallContent]) -> Option<String> {
    content.iter().find_map(|c| match c {
        ToolCallContent::Terminal(t) => Some(t.terminal_id.0.to_string()),
        _ => None,
    })
}

fn shown_output(text: String) -> String {
    proposal_row::output(&text).unwrap_or(text)
}

fn tool_call(call: &acp::ToolCall) -> ToolCall {
    let target = tool_target(call.raw_input.as_ref(), &call.locations);
    let mut out = ToolCall {
        id: ToolCallId(call.tool_call_id.0.to_string()),
        title: call.title.clone(),
        kind: tool_kind(&call.kind),
        status: tool_status(&call.status),
        target,
        exit_code: exit_code(call.raw_output.as_ref()),
        terminal: terminal_of(&call.content),
        ..ToolCall::default()
    };
    if out.title.is_empty() {
        "Tool call".clone_into(&mut out.title);
    }
    if let Some(title) = proposal_title(Some(&out.title), out.target.as_deref()) {
        (out.title, out.target) = (title, None);
    }
    let named = tool_name(call.meta.as_ref()).unwrap_or(&call.title);
    if let Some(title) = proposal_row::session_tool_title(named, call.raw_input.as_ref()) {
        (out.title, out.target) = (title, None);
    }
    if let Some(text) = tool_output(&call.content, call.raw_output.as_ref()) {
        out.set_output(&shown_output(text));
    }
    out
}

fn tool_call_update(update: &acp::ToolCallUpdate) -> ToolCallUpdate {
    let f = &update.fields;
    let locations = f.locations.as_deref().unwrap_or_default();
    let content = f.content.as_deref().unwrap_or_default();
    let mut out = ToolCallUpdate {
        id: ToolCallId(update.tool_call_id.0.to_string()),
        title: f.title.clone(),
        kind: f.kind.as_ref().map(tool_kind),
        status: f.status.as_ref().map(tool_status),
        target: tool_target(f.raw_input.as_ref(), locations),
        output: tool_output(content, f.raw_output.as_ref()).map(shown_output),
        exit_code: exit_code(f.raw_output.as_ref()),
        terminal: terminal_of(content),
    };
    if let Some(title) = proposal_title(out.title.as_deref(), out.target.as_deref()) {
        (out.title, out.target) = (Some(title), None);
    }
    let named = tool_name(update.meta.as_ref()).or(f.title.as_deref());
    if let Some(title) =
        named.and_then(|n| proposal_row::session_tool_title(n, f.raw_input.as_ref()))
    {
        (out.title, out.target) = (Some(title), None);
    }
    out
}

/// The tool's own name where the agent puts it apart from the title
/// (claude: `_meta.claudeCode.toolName`).
fn tool_name(meta: Option<&serde_json::Map<String, serde_json::Value>>) -> Option<&str> {
    meta?.get("claudeCode")?.get("toolName")?.as_str()
}

/// A tool call running the proposal CLI reads as what it proposes (its
/// title or command holds the raw invocation).
fn proposal_title(title: Option<&str>, target: Option<&str>) -> Option<String> {
    target
        .and_then(proposal_row::title)
        .or_else(|| title.and_then(proposal_row::title))
}

fn plan_entries(entries: &[acp::PlanEntry]) -> Vec<PlanEntry> {
    entries
        .iter()
        .map(|e| PlanEntry {
            text: e.content.clone(),
            status: match e.status {
                PlanEntryStatus::Completed => PlanStatus::Completed,
                PlanEntryStatus::InProgress => PlanStatus::InProgress,
                _ => PlanStatus::Pending,
            },
        })
        .collect()
}

/// Select-type config options (flat or grouped values); other types are skipped.
pub fn config_options(options: &[SessionConfigOption]) -> Vec<ConfigOption> {
    options
        .iter()
        .filter_map(|o| {
            let SessionConfigKind::Select(select) = &o.kind else {
                return None;
            };
            let values = match &select.options {
                SessionConfigSelectOptions::Ungrouped(values) => values.iter().collect(),
                SessionConfigSelectOptions::Grouped(groups) => {
                    groups.iter().flat_map(|g| &g.options).collect()
                }
                _ => Vec::new(),
            };
            Some(ConfigOption {
                id: o.id.0.to_string(),
                name: if o.name.is_empty() {
                    o.id.0.to_string()
                } else {
                    o.name.clone()
                },
                current: select.current_value.0.to_string(),
                values: values
                    .into_iter()
                    .map(|v| (v.value.0.to_string(), v.name.clone()))
                    .collect(),
            })
        })
        .collect()
}

/// The config option that picks the model, if the agent exposes one: the
/// one in category `model`, else one with id `model`.
pub fn model_option(options: &[SessionConfigOption]) -> Option<String> {
    options
        .iter()
        .find(|o| matches!(o.category, Some(SessionConfigOptionCategory::Model)))
        .or_else(|| options.iter().find(|o| &*o.id.0 == "model"))
        .map(|o| o.id.0.to_string())
}

/// A new option list: the models it offers (if one option picks the model),
/// then the options themselves.
pub fn config_events(raw: &[SessionConfigOption]) -> Vec<DomainEvent> {
    let options = config_options(raw);
    let mut events = Vec::new();
    if let Some(id) = model_option(raw)
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
    pub model_control: ModelControl,
    /// Events to apply, in order, ending with `SessionStarted`.
    pub events: Vec<DomainEvent>,
}

/// Maps a `session/new` reply for `agent`.
pub fn session_started(agent: &str, reply: &SessionOpened) -> SessionFacts {
    let raw_options = reply.response.config_options.as_deref().unwrap_or_default();
    let options = config_options(raw_options);
    let mut control = ModelControl::None;
    let mut model = None;
    let mut models = Vec::new();
    if let Some(state) = &reply.models {
        control = ModelControl::SetModel;
        models = state
            .available_models
            .iter()
            .map(|m| ModelChoice {
                id: m.model_id.clone(),
                name: m.name.clone().unwrap_or_else(|| m.model_id.clone()),
            })
            .collect();
        model.clone_from(&state.current_model_id);
    } else if let Some(id) = model_option(raw_options)
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
            agent: agent.to_owned(),
            model,
        },
    ];
    SessionFacts {
        model_control: control,
        events,
    }
}

fn option_kind(kind: &acp::PermissionOptionKind) -> PermissionOptionKind {
    match kind {
        acp::PermissionOptionKind::AllowOnce => PermissionOptionKind::AllowOnce,
        acp::PermissionOptionKind::AllowAlways => PermissionOptionKind::AllowAlways,
        acp::PermissionOptionKind::RejectAlways => PermissionOptionKind::RejectAlways,
        // Unknown kinds are never taken for an allow (fail closed).
        _ => PermissionOptionKind::RejectOnce,
    }
}

/// A `session/request_permission` request as a card, keyed by `id`.
pub fn permission_request(
    id: PermissionRequestId,
    request: &RequestPermissionRequest,
) -> PermissionRequest {
    let call = &request.tool_call.fields;
    let options = request
        .options
        .iter()
        .map(|o| PermissionOption {
            id: o.option_id.0.to_string(),
            name: if o.name.is_empty() {
                o.option_id.0.to_string()
            } else {
                o.name.clone()
            },
            kind: option_kind(&o.kind),
        })
        .collect();
    PermissionRequest {
        id,
        title: call
            .title
            .clone()
            .unwrap_or_else(|| "The agent asks for permission".to_owned()),
        kind: call.kind.as_ref().map_or(ToolKind::Other, tool_kind),
        target: tool_target(
            call.raw_input.as_ref(),
            call.locations.as_deref().unwrap_or_default(),
        ),
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
pub fn stop_reason(reason: &acp::StopReason) -> StopReason {
    match reason {
        acp::StopReason::MaxTokens => StopReason::MaxTokens,
        acp::StopReason::MaxTurnRequests => StopReason::MaxTurnRequests,
        acp::StopReason::Refusal => StopReason::Refusal,
        acp::StopReason::Cancelled => StopReason::Cancelled,
        _ => StopReason::EndTurn,
    }
}

/// `_meta["terminal-auth"]` of an auth method: the command to run in a
/// terminal to sign in (claude-code-acp's shape).
#[derive(Debug, serde::Deserialize)]
struct TerminalAuthMeta {
    command: String,
    #[serde(default)]
    args: Vec<String>,
}

/// `initialize`'s `authMethods`, with a terminal-auth command when advertised.
pub fn auth_methods(init: &InitializeResponse) -> Vec<AuthMethod> {
    init.auth_methods
        .iter()
        .map(|m| {
            let terminal = m
                .meta()
                .and_then(|meta| meta.get("terminal-auth"))
                .and_then(|t| serde_json::from_value::<TerminalAuthMeta>(t.clone()).ok())
                .map(|t| std::iter::once(t.command).chain(t.args).collect());
            AuthMethod {
                id: m.id().0.to_string(),
                name: m.name().to_owned(),
                description: m.description().map(str::to_owned),
                terminal_command: terminal,
            }
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
        other => {
            // What to do next right after what happened; a failed start's
            // command and stderr lines below that.
            let (summary, details) = other.localized_parts();
            let mut text = wta_i18n::tr!("helper.session.open_failed", err = summary);
            if let Some(details) = details {
                text.push('\n');
                text.push_str(&details);
            }
            DomainEvent::Connection(wta_state::ConnectionState::Failed(text))
        }
    }
}

#[cfg(test)]
#[path = "acp_map_tests.rs"]
mod tests;
