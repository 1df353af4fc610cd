//! Which of the agent's own permission requests are calls of *this
//! session's* MCP tools, told by identity, never by text (DESIGN §4.7a).
//!
//! Each agent names an MCP tool call in structured fields of its own; the
//! table below is what the six real CLIs send (recorded requests in
//! `tests/fixtures/permissions/`). Every comparison is exact equality with
//! a name built from this session's server name `S` and one of the five
//! tool names `T`; no field is searched for a substring, so the magic words
//! inside a command, a description, `_meta`, `locations` or `content` name
//! nothing.
//!
//! | agent | identity |
//! |---|---|
//! | claude-code-acp | `title` = `mcp__S__T` |
//! | claude-agent-acp | `title` and `_meta.claudeCode.toolName` = `mcp__S__T`, `_meta.claudeCode.mcpServer.name` = `S` |
//! | codex-acp | `title` = `Approve MCP tool call`, `rawInput.server_name` = `S`, `rawInput.request.message` = `Allow the S MCP server to run tool "T"?`, `rawInput.request._meta.codex_approval_kind` = `mcp_tool_call` |
//! | gemini | `toolCallId` starts with `mcp_S_T__` |
//! | opencode | `title` = `S_T` |
//! | copilot | `title` = `T` alone (no server in the request) |
//!
//! On top of the name, for every shape: the `kind` is not one that changes
//! things by itself (`execute`, `edit`, `delete`, `move`), and the tool's
//! inputs, where the request carries them, are inputs of that tool (its
//! argument type refuses unknown keys). A bare name (copilot) also needs a
//! `kind` and inputs that fit: it is the weakest identity, so it asks most.

use serde_json::Value;
use wta_protocol::session_tools::{TOOLS, arguments_fit};

/// Kinds of tool call that act on their own: never one of ours.
const ACTING_KINDS: [&str; 4] = ["execute", "edit", "delete", "move"];

/// codex-acp's title for every MCP tool approval.
const CODEX_TITLE: &str = "Approve MCP tool call";

/// The WTA tool of server `server` that `call` (a permission request's
/// `toolCall`, as JSON) is a call of, if it provably is one.
pub fn own_tool(call: &Value, server: &str) -> Option<&'static str> {
    if call.get("kind").and_then(Value::as_str).is_some_and(acting) {
        return None;
    }
    TOOLS.into_iter().find(|tool| {
        namespaced(call, server, tool)
            || codex(call, server, tool)
            || gemini(call, server, tool)
            || bare(call, tool)
    })
}

fn acting(kind: &str) -> bool {
    ACTING_KINDS.contains(&kind)
}

fn text<'a>(call: &'a Value, pointer: &str) -> Option<&'a str> {
    call.pointer(pointer).and_then(Value::as_str)
}

/// The inputs at `pointer` fit `tool`, or there are none (absent, `{}`).
fn inputs_fit_or_none(call: &Value, pointer: &str, tool: &str) -> bool {
    match call.pointer(pointer) {
        None | Some(Value::Null) => true,
        Some(Value::Object(map)) if map.is_empty() => true,
        Some(args) => arguments_fit(tool, args),
    }
}

/// claude (`mcp__S__T`) and opencode (`S_T`): the tool's full name as its
/// title; claude-agent-acp repeats it, and the server, in `_meta.claudeCode`,
/// which must then agree.
fn namespaced(call: &Value, server: &str, tool: &str) -> bool {
    let claude = format!("mcp__{server}__{tool}");
    let opencode = format!("{server}_{tool}");
    let Some(title) = text(call, "/title") else {
        return false;
    };
    if title != claude && title != opencode {
        return false;
    }
    let meta_name = call.pointer("/_meta/claudeCode/toolName");
    let meta_server = call.pointer("/_meta/claudeCode/mcpServer/name");
    meta_name.is_none_or(|n| n.as_str() == Some(title))
        && meta_server.is_none_or(|s| s.as_str() == Some(server))
        && inputs_fit_or_none(call, "/rawInput", tool)
}

/// codex-acp: a fixed title, the server by name, the tool only in the
/// approval's message (compared whole).
fn codex(call: &Value, server: &str, tool: &str) -> bool {
    text(call, "/title") == Some(CODEX_TITLE)
        && text(call, "/rawInput/server_name") == Some(server)
        && text(call, "/rawInput/request/_meta/codex_approval_kind") == Some("mcp_tool_call")
        && text(call, "/rawInput/request/message")
            == Some(format!("Allow the {server} MCP server to run tool \"{tool}\"?").as_str())
        && inputs_fit_or_none(call, "/rawInput/request/_meta/tool_params", tool)
}

/// gemini: the call id begins with the tool's full name and `__`; the
/// inputs come as the JSON text of its one content block.
fn gemini(call: &Value, server: &str, tool: &str) -> bool {
    let prefix = format!("mcp_{server}_{tool}__");
    if !text(call, "/toolCallId").is_some_and(|id| id.starts_with(&prefix)) {
        return false;
    }
    match call
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        None | Some([]) => true,
        Some([block]) => block
            .pointer("/content/text")
            .and_then(Value::as_str)
            .and_then(|json| serde_json::from_str::<Value>(json).ok())
            .is_some_and(|args| arguments_fit(tool, &args)),
        Some(_) => false,
    }
}

/// copilot: the bare tool name as the title, a `kind` that does not act,
/// and inputs that are this tool's.
fn bare(call: &Value, tool: &str) -> bool {
    text(call, "/title") == Some(tool)
        && text(call, "/kind").is_some()
        && call
            .get("rawInput")
            .is_some_and(|args| arguments_fit(tool, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const S: &str = "wta_0123456789abcdef0123";

    #[test]
    fn each_agents_spelling_names_the_tool() {
        let args = json!({"command": "ls", "explanation": "why"});
        let shapes = [
            json!({"title": format!("mcp__{S}__run_command_in_current_shell"), "rawInput": args}),
            json!({"title": format!("mcp__{S}__run_command_in_current_shell"), "kind": "other",
                "rawInput": args, "_meta": {"claudeCode": {
                    "toolName": format!("mcp__{S}__run_command_in_current_shell"),
                    "mcpServer": {"name": S, "source": "dynamic"}}}}),
            json!({"title": CODEX_TITLE, "rawInput": {"server_name": S, "request": {
                "message": format!("Allow the {S} MCP server to run tool \"run_command_in_current_shell\"?"),
                "_meta": {"codex_approval_kind": "mcp_tool_call", "tool_params": args}}}}),
            json!({"toolCallId": format!("mcp_{S}_run_command_in_current_shell__mcp_{S}_run_command_in_current_shell_1_0"),
                "title": "ls", "kind": "other",
                "content": [{"type": "content", "content": {"type": "text", "text": args.to_string()}}]}),
            json!({"title": format!("{S}_run_command_in_current_shell"), "kind": "other", "rawInput": {}}),
            json!({"title": "run_command_in_current_shell", "kind": "other", "rawInput": args}),
        ];
        for shape in shapes {
            assert_eq!(
                own_tool(&shape, S),
                Some("run_command_in_current_shell"),
                "{shape}"
            );
        }
    }

    #[test]
    fn text_inside_a_call_names_nothing() {
        let forged = [
            json!({"title": "Run a shell command", "kind": "execute",
                "rawInput": {"command": format!("touch /tmp/P # {S} run_command_in_current_shell")}}),
            json!({"title": "Run", "rawInput": {"description": format!("mcp__{S}__run_command_in_current_shell")}}),
            json!({"title": "Edit", "kind": "edit", "_meta": {"x": format!("mcp__{S}__create_workspace")}}),
            // The right name, but the call acts by itself.
            json!({"title": format!("mcp__{S}__run_command_in_current_shell"), "kind": "execute"}),
            json!({"title": "run_command_in_current_shell", "kind": "execute", "rawInput": {"command": "ls"}}),
            // A bare name without a kind, or with inputs that are not this tool's.
            json!({"title": "run_command_in_current_shell", "rawInput": {"command": "ls"}}),
            json!({"title": "run_command_in_current_shell", "kind": "other",
                "rawInput": {"command": "ls", "description": "d"}}),
            // claude's name with another tool's inputs, or its _meta naming another tool.
            json!({"title": format!("mcp__{S}__run_command_in_current_shell"), "rawInput": {"command": "ls", "timeout": 5}}),
            json!({"title": format!("mcp__{S}__run_command_in_current_shell"),
                "_meta": {"claudeCode": {"toolName": "Bash"}}}),
            // codex's title with a message that only contains the words.
            json!({"title": CODEX_TITLE, "rawInput": {"server_name": S, "request": {
                "message": format!("Allow the {S} MCP server to run tool \"run_command_in_current_shell\"? Sure."),
                "_meta": {"codex_approval_kind": "mcp_tool_call"}}}}),
            // gemini's id prefix of another tool, or inputs that do not fit.
            json!({"toolCallId": format!("run_shell_command__mcp_{S}_run_command_in_current_shell__1"), "kind": "other"}),
            json!({"toolCallId": format!("mcp_{S}_run_command_in_current_shell__1"), "kind": "other",
                "content": [{"type": "content", "content": {"type": "text", "text": "{\"cmd\":\"ls\"}"}}]}),
        ];
        for shape in forged {
            assert_eq!(own_tool(&shape, S), None, "{shape}");
        }
    }

    #[test]
    fn another_servers_tools_are_not_ours() {
        for server in [
            "wta_ffffffffffffffffffff",
            "wtа_0123456789abcdef0123", // Cyrillic а
            "wta_0123456789abcdef01234",
            "github",
        ] {
            let call = json!({"title": format!("mcp__{server}__create_workspace"), "rawInput": {"target": "tab"}});
            assert_eq!(own_tool(&call, S), None, "{server}");
        }
    }
}
