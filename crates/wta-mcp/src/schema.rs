//! The five tools as `tools/list` advertises them: names, descriptions
//! that teach the agent how to use them, and input schemas whose limits
//! are the protocol crate's constants (so the schema and the checks behind
//! it cannot drift apart).
//!
//! `request_user_input`'s "at least one choice or allow_freeform" rule is
//! said in words, not as a top-level `anyOf`: several model APIs refuse
//! tool schemas with a top-level `anyOf`. The rule is enforced by
//! `UserInputArgs::validate` all the same.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use wta_protocol::limits::{MAX_CWD_CHARS, MAX_INPUT_CHARS, MAX_RATIONALE_CHARS, MAX_TITLE_CHARS};
use wta_protocol::session_tools::{
    DEFAULT_WAIT_SECS, MAX_INPUT_CHOICE_CHARS, MAX_INPUT_CHOICES, MAX_QUESTION_CHARS,
    MAX_TASK_CHARS, MAX_WAIT_SECS, TOOL_CREATE_WORKSPACE, TOOL_DELEGATE_TASK, TOOL_PROPOSAL_RESULT,
    TOOL_RUN_COMMAND, TOOL_USER_INPUT,
};

fn object(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let schema = json!({
        "type": "object",
        "additionalProperties": false,
        "required": required,
        "properties": properties,
    });
    let Value::Object(map) = schema else {
        unreachable!("json! of an object literal is an object")
    };
    Arc::new(map)
}

fn wait_secs() -> Value {
    json!({
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_WAIT_SECS,
        "default": DEFAULT_WAIT_SECS,
        "description": format!(
            "How long to wait for the user's decision and the result, in seconds \
             (default {DEFAULT_WAIT_SECS}, at most {MAX_WAIT_SECS}). When it runs out the \
             answer is status pending with a proposal_id."
        ),
    })
}

fn cwd() -> Value {
    json!({
        "type": "string", "minLength": 1, "maxLength": MAX_CWD_CHARS,
        "description": "Absolute working directory for the new shell; default: the current pane's."
    })
}

fn annotated(tool: Tool, read_only: bool) -> Tool {
    let mut hints = ToolAnnotations::default();
    hints.read_only_hint = Some(read_only);
    hints.destructive_hint = Some(!read_only);
    hints.open_world_hint = Some(false);
    tool.annotate(hints)
}

/// Every tool, in a stable order.
pub(crate) fn tools() -> Vec<Tool> {
    vec![
        annotated(
            Tool::new(
                TOOL_RUN_COMMAND,
                "Propose a shell command to run in the user's terminal pane. The user sees it on \
                 a card and decides; the result (decision, exit code, output) is returned when \
                 it arrives within wait_secs, else status pending with a proposal_id for \
                 get_proposal_result. Nothing runs without the user's consent. Give one \
                 command line (pipes and && are fine) and do not repeat it in the chat.",
                object(
                    json!({
                        "command": {
                            "type": "string", "minLength": 1, "maxLength": MAX_INPUT_CHARS,
                            "description": "The command line, exactly as it should be typed."
                        },
                        "explanation": {
                            "type": "string", "minLength": 1, "maxLength": MAX_RATIONALE_CHARS,
                            "description": "Why this command, shown to the user on the card."
                        },
                        "wait_secs": wait_secs(),
                    }),
                    &["command"],
                ),
            ),
            false,
        ),
        annotated(
            Tool::new(
                TOOL_CREATE_WORKSPACE,
                "Propose opening a new terminal tab or a panel (a split beside the current \
                 pane). The user confirms it on a card. The answer says whether it was opened, \
                 within wait_secs, else status pending with a proposal_id for \
                 get_proposal_result.",
                object(
                    json!({
                        "target": {
                            "type": "string", "enum": ["tab", "panel"],
                            "description": "tab: a new tmux window; panel: a split of the current one."
                        },
                        "cwd": cwd(),
                        "title": {
                            "type": "string", "minLength": 1, "maxLength": MAX_TITLE_CHARS,
                            "description": "Name for the new tab or panel."
                        },
                        "direction": {
                            "type": "string", "enum": ["right", "left", "up", "down", "auto"],
                            "description": "Where a panel opens (panels only; default auto)."
                        },
                        "wait_secs": wait_secs(),
                    }),
                    &["target"],
                ),
            ),
            false,
        ),
        annotated(
            Tool::new(
                TOOL_DELEGATE_TASK,
                "Propose handing a self-contained task to another agent in a new tab. The user \
                 confirms it on a card; the delegate works on its own, and this call reports \
                 whether it was started (within wait_secs, else status pending with a \
                 proposal_id for get_proposal_result), not the delegate's work. Write the task \
                 so that someone without this conversation can do it.",
                object(
                    json!({
                        "task": {
                            "type": "string", "minLength": 1, "maxLength": MAX_TASK_CHARS,
                            "description": "The task, complete and self-contained."
                        },
                        "cwd": cwd(),
                        "wait_secs": wait_secs(),
                    }),
                    &["task"],
                ),
            ),
            false,
        ),
        annotated(
            Tool::new(
                TOOL_PROPOSAL_RESULT,
                "Ask what became of a proposal that an earlier call left pending: the user's \
                 decision and, for a command, its exit code and output. Waits up to wait_secs \
                 for news; still pending then means ask again later.",
                object(
                    json!({
                        "proposal_id": {
                            "type": "string", "pattern": "^[0-9a-f]{32}$",
                            "description": "The proposal_id of the pending answer."
                        },
                        "wait_secs": wait_secs(),
                    }),
                    &["proposal_id"],
                ),
            ),
            true,
        ),
        annotated(
            Tool::new(
                TOOL_USER_INPUT,
                format!(
                    "Ask the user one question and wait for the answer (up to 10 minutes). \
                     Offer up to {MAX_INPUT_CHOICES} short choices, or allow a free-form \
                     answer, or both; at least one of the two is required. Use it only when \
                     you cannot go on without the user's decision. One question at a time: \
                     while one waits, another is answered unavailable. The answer is \
                     answered (with the text and the 0-based selected_index of a choice), \
                     cancelled, or unavailable."
                ),
                object(
                    json!({
                        "question": {
                            "type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS,
                            "description": "The question, as the user should read it."
                        },
                        "choices": {
                            "type": "array", "maxItems": MAX_INPUT_CHOICES,
                            "items": {
                                "type": "string", "minLength": 1, "maxLength": MAX_INPUT_CHOICE_CHARS
                            },
                            "description": "Answers to pick from, one line each."
                        },
                        "allow_freeform": {
                            "type": "boolean", "default": false,
                            "description": "Whether the user may type their own answer."
                        },
                    }),
                    &["question"],
                ),
            ),
            true,
        ),
    ]
}
