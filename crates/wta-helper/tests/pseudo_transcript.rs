//! What the transcript and the status-line mark say about proposals goes
//! through wta-i18n (issue 27, item 9): with the pseudo-locale on, a
//! session tool call's row (`Propose: Run …`, `Ask you: …`) and the text
//! of the mark of a card waiting in a hidden pane are bracketed
//! pseudo-text, while the command, the question and the indicator's
//! machine word keep their shape.
//!
//! The language is process-wide: this file is its own test binary, and its
//! one test sets `pseudo` and puts `en` back at the end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agent_client_protocol::v1::schema::SessionUpdate;
use serde_json::json;
use wta_helper::machine::acp_map::session_update;
use wta_helper::machine::hidden_card::CardKind;
use wta_state::DomainEvent;

/// The row title of a call of the session endpoint's `tool` with `input`.
fn row_title(tool: &str, input: serde_json::Value) -> String {
    let update: SessionUpdate = serde_json::from_value(json!({
        "sessionUpdate": "tool_call",
        "toolCallId": "t1",
        "title": format!("mcp__wta_0123456789abcdef0123__{tool}"),
        "rawInput": input,
    }))
    .unwrap();
    match session_update(&update).as_slice() {
        [DomainEvent::ToolCall(call)] => call.title.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn proposal_rows_and_the_hidden_card_mark_are_translated() {
    let english = row_title(
        "run_command_in_current_shell",
        json!({"command": "cargo test"}),
    );
    assert_eq!(english, "Propose: Run `cargo test`");
    wta_i18n::set_language(wta_i18n::PSEUDO);
    let rows = [
        row_title(
            "run_command_in_current_shell",
            json!({"command": "cargo test"}),
        ),
        row_title("run_command_in_current_shell", json!({})),
        row_title("create_workspace", json!({"target": "panel"})),
        row_title("create_workspace", json!({})),
        row_title("delegate_task_in_new_workspace", json!({"task": "fix it"})),
        row_title("request_user_input", json!({"question": "Deploy where?"})),
        row_title("get_proposal_result", json!({})),
    ];
    let marks = [
        CardKind::Proposal.shown(),
        CardKind::Permission.shown(),
        CardKind::Question.shown(),
    ];
    let word = CardKind::Proposal.as_str();
    wta_i18n::set_language("en");
    for text in rows.iter().chain(&marks) {
        assert!(
            text.starts_with('[') && text.ends_with(']') && !text.contains("Propose"),
            "{text}"
        );
    }
    assert!(rows[0].contains("`cargo test`"), "{}", rows[0]);
    assert!(rows[5].contains("Deploy where?"), "{}", rows[5]);
    assert_eq!(word, "proposal", "the indicator stays a machine word");
    assert_eq!(CardKind::Proposal.shown(), "proposal waits");
}
