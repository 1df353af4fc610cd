//! The one encoder between the step vocabulary and ACP JSON: `session/update`
//! payloads and `session/request_permission` params out, the permission
//! answer in (read with the ACP crate's typed response).
//!
//! Outgoing shapes are written here rather than serialised from the ACP
//! crate's typed values because scripted agents stand in for real ones and
//! must send what real agents send: an explicit `"status": "pending"` on a
//! new tool call (the typed value leaves the default out), option kinds the
//! schema does not know. Pure functions, tested against exact JSON.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{RequestPermissionOutcome, RequestPermissionResponse};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::step::{Permission, PermissionAnswer, ToolCall, ToolContent, ToolUpdate, Update};

/// The `update` of a `session/update` notification.
pub(crate) fn update(update: &Update) -> Value {
    match update {
        Update::AgentText(text) => text_chunk("agent_message_chunk", text),
        Update::UserText(text) => text_chunk("user_message_chunk", text),
        Update::Plan(entries) => json!({"sessionUpdate": "plan", "entries": wire_value(entries)}),
        Update::ToolCall(call) => {
            let mut fields = tool_call(call);
            fields.insert("sessionUpdate".into(), json!("tool_call"));
            Value::Object(fields)
        }
        Update::ToolUpdate(update) => tool_update(update),
    }
}

/// `session/request_permission` params.
pub(crate) fn permission(session: &str, permission: &Permission) -> Value {
    let options: Vec<Value> = permission
        .options
        .iter()
        .map(|o| json!({"optionId": o.id, "name": o.name, "kind": o.kind}))
        .collect();
    json!({"sessionId": session, "toolCall": tool_call(&permission.call), "options": options})
}

/// The client's answer to a permission request.
pub(crate) fn permission_answer(response: Value) -> Result<PermissionAnswer, Error> {
    let response: RequestPermissionResponse =
        serde_json::from_value(response).map_err(Error::into_internal_error)?;
    Ok(match response.outcome {
        RequestPermissionOutcome::Selected(selected) => {
            PermissionAnswer::Selected(selected.option_id.0.to_string())
        }
        // Cancelled, or an outcome newer than this agent: nothing was chosen.
        _ => PermissionAnswer::Cancelled,
    })
}

fn text_chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

fn tool_call(call: &ToolCall) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("toolCallId".into(), json!(call.id));
    fields.insert("title".into(), json!(call.title));
    fields.insert("kind".into(), wire_value(&call.kind));
    if let Some(status) = &call.status {
        fields.insert("status".into(), wire_value(status));
    }
    if !call.locations.is_empty() {
        let locations: Vec<Value> = call.locations.iter().map(|p| json!({"path": p})).collect();
        fields.insert("locations".into(), Value::Array(locations));
    }
    if !call.content.is_empty() {
        fields.insert("content".into(), contents(&call.content));
    }
    if let Some(input) = &call.raw_input {
        fields.insert("rawInput".into(), input.clone());
    }
    fields
}

fn tool_update(update: &ToolUpdate) -> Value {
    let mut fields = Map::new();
    fields.insert("sessionUpdate".into(), json!("tool_call_update"));
    fields.insert("toolCallId".into(), json!(update.id));
    fields.insert("status".into(), wire_value(&update.status));
    if !update.content.is_empty() {
        fields.insert("content".into(), contents(&update.content));
    }
    if let Some(output) = &update.raw_output {
        fields.insert("rawOutput".into(), output.clone());
    }
    Value::Object(fields)
}

fn contents(content: &[ToolContent]) -> Value {
    content
        .iter()
        .map(|c| match c {
            ToolContent::Text(text) => {
                json!({"type": "content", "content": {"type": "text", "text": text}})
            }
            ToolContent::Terminal(id) => json!({"type": "terminal", "terminalId": id}),
        })
        .collect()
}

/// A schema value as its JSON (an enum's wire name); these never fail to
/// serialise.
fn wire_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripted::step::PermissionOption;
    use agent_client_protocol::v1::schema::{
        PlanEntry, PlanEntryPriority, PlanEntryStatus, ToolCallStatus, ToolKind,
    };

    #[test]
    fn chunks_and_plans() {
        assert_eq!(
            update(&Update::AgentText("hi".into())),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}})
        );
        assert_eq!(
            update(&Update::UserText("me".into())),
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "me"}})
        );
        let entries = vec![
            PlanEntry::new("a", PlanEntryPriority::High, PlanEntryStatus::Completed),
            PlanEntry::new("b", PlanEntryPriority::Low, PlanEntryStatus::InProgress),
        ];
        assert_eq!(
            update(&Update::Plan(entries)),
            json!({"sessionUpdate": "plan", "entries": [
                {"content": "a", "priority": "high", "status": "completed"},
                {"content": "b", "priority": "low", "status": "in_progress"}]})
        );
    }

    #[test]
    fn tool_calls_send_what_is_set() {
        let bare = ToolCall::new("t1", "Read", ToolKind::Read);
        assert_eq!(
            update(&Update::ToolCall(bare.clone())),
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read"})
        );
        let full = bare
            .status(ToolCallStatus::Pending)
            .location("README.md")
            .content(ToolContent::Terminal("term".into()))
            .content(ToolContent::Text("x".into()))
            .raw_input(json!({"command": "ls"}));
        assert_eq!(
            update(&Update::ToolCall(full)),
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read",
                "status": "pending", "locations": [{"path": "README.md"}],
                "content": [{"type": "terminal", "terminalId": "term"},
                            {"type": "content", "content": {"type": "text", "text": "x"}}],
                "rawInput": {"command": "ls"}})
        );
        assert_eq!(
            update(&Update::ToolUpdate(ToolUpdate::new(
                "t1",
                ToolCallStatus::InProgress
            ))),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"})
        );
        let done = ToolUpdate::new("t1", ToolCallStatus::Failed)
            .content(ToolContent::Text("out".into()))
            .raw_output(json!({"exitCode": 2}));
        assert_eq!(
            update(&Update::ToolUpdate(done)),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed",
                "content": [{"type": "content", "content": {"type": "text", "text": "out"}}],
                "rawOutput": {"exitCode": 2}})
        );
    }

    #[test]
    fn permission_requests_and_answers() {
        let ask = Permission {
            call: ToolCall::new("p", "rm x", ToolKind::Execute),
            options: vec![
                PermissionOption::new("yes", "Yes", "allow_once"),
                PermissionOption::new("odd", "Odd", "sometimes"),
            ],
        };
        assert_eq!(
            permission("s-1", &ask),
            json!({"sessionId": "s-1",
                "toolCall": {"toolCallId": "p", "title": "rm x", "kind": "execute"},
                "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"},
                            {"optionId": "odd", "name": "Odd", "kind": "sometimes"}]})
        );
        assert_eq!(
            permission_answer(json!({"outcome": {"outcome": "selected", "optionId": "yes"}})).ok(),
            Some(PermissionAnswer::Selected("yes".into()))
        );
        assert_eq!(
            permission_answer(json!({"outcome": {"outcome": "cancelled"}})).ok(),
            Some(PermissionAnswer::Cancelled)
        );
        assert!(permission_answer(json!({"outcome": "yes"})).is_err());
        assert!(permission_answer(json!(null)).is_err());
    }
}
