//! How a tool call that runs the proposal CLI reads in the transcript: what
//! it proposes instead of the raw invocation (a channel id and a JSON payload
//! over several lines), and its answer lines as words instead of JSON, in
//! the user's language (the statuses and reasons inside stay the CLI's own
//! words). Pure.

use serde_json::Value;
use wta_i18n::tr;
use wta_protocol::invocation::looks_like_proposal;
use wta_protocol::{Invocation, classify_invocation};

/// Longest title shown for a proposal row, in characters.
const MAX_TITLE_CHARS: usize = 120;

/// A title for a tool call whose command runs the proposal CLI; `None` for
/// any other command.
pub fn title(command: &str) -> Option<String> {
    if !looks_like_proposal(command) {
        return None;
    }
    // An agent may wrap the command (`bash -lc …`): try it from the CLI on.
    let from_cli = command.find("\"$WTA_CLI_PATH\"").map(|i| &command[i..]);
    let canonical =
        std::iter::once(command)
            .chain(from_cli)
            .find_map(|c| match classify_invocation(c) {
                Invocation::Canonical(c) => Some(c),
                _ => None,
            });
    Some(match canonical {
        Some(c) => match choice_titles(&c.payload) {
            Some(titles) => tr!("helper.row.propose", what = cut(&titles, MAX_TITLE_CHARS)),
            None => tr!("helper.row.propose_actions"),
        },
        None => tr!("helper.row.not_canonical"),
    })
}

/// A title for a call of one of the session endpoint's tools (`name` is
/// how the agent names it, e.g. `mcp__wta_<hex>__run_command_in_current_shell`),
/// from its arguments; `None` for any other tool.
pub fn session_tool_title(name: &str, input: Option<&Value>) -> Option<String> {
    use wta_protocol::session_tools as t;
    let tool = t::session_tool_in(name)?;
    let arg = |key: &str| {
        input
            .and_then(|i| i.get(key))
            .and_then(Value::as_str)
            .map(|s| s.lines().next().unwrap_or_default().to_owned())
    };
    let cut_arg = |key: &str| arg(key).map(|t| cut(&t, MAX_TITLE_CHARS));
    Some(match tool {
        t::TOOL_RUN_COMMAND => match cut_arg("command") {
            Some(command) => tr!("helper.row.propose_run", command = command),
            None => tr!("helper.row.propose_run_any"),
        },
        t::TOOL_CREATE_WORKSPACE => match arg("target").as_deref() {
            Some("panel") => tr!("helper.row.propose_panel"),
            _ => tr!("helper.row.propose_tab"),
        },
        t::TOOL_DELEGATE_TASK => match cut_arg("task") {
            Some(task) => tr!("helper.row.propose_delegate", task = task),
            None => tr!("helper.row.propose_delegate_any"),
        },
        t::TOOL_USER_INPUT => match cut_arg("question") {
            Some(q) => tr!("helper.row.ask", question = q),
            None => tr!("helper.row.ask_any"),
        },
        _ => tr!("helper.row.check_result"),
    })
}

/// The choices' titles, `a / b / c`, when the payload is readable.
fn choice_titles(payload: &str) -> Option<String> {
    let value: Value = serde_json::from_str(payload).ok()?;
    let titles: Vec<&str> = value
        .get("choices")?
        .as_array()?
        .iter()
        .filter_map(|c| c.get("title")?.as_str())
        .collect();
    (!titles.is_empty()).then(|| titles.join(" / "))
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// The CLI's answer lines in words, when every line of `output` is one of
/// them (`{"phase":…}`); `None` leaves any other output as it is.
pub fn output(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return None;
    }
    let words: Option<Vec<String>> = lines.iter().map(|l| line_words(l)).collect();
    words.map(|w| w.join("\n"))
}

fn line_words(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).ok()?;
    let status = v.get("status")?.as_str()?.replace('_', " ");
    let reason = v.get("reason").and_then(Value::as_str);
    let with_reason = |text: String| match reason {
        Some(r) => tr!("helper.row.with_reason", text = text, reason = r),
        None => text,
    };
    Some(match v.get("phase")?.as_str()? {
        "validation" if status == "accepted" => tr!("helper.row.accepted"),
        "validation" => with_reason(tr!("helper.row.refused", status = status)),
        "final" => with_reason(tr!("helper.row.decision", status = status)),
        "execution" => {
            let action = v.get("action").and_then(Value::as_u64).unwrap_or(1);
            let text = match v.get("exit_code").and_then(Value::as_i64) {
                Some(code) => tr!(
                    "helper.row.action_exit",
                    action = action,
                    status = status,
                    code = code
                ),
                None => tr!("helper.row.action", action = action, status = status),
            };
            with_reason(text)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use wta_protocol::{Channel, HelperId, TurnNonce, build_invocation};

    use super::*;

    const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Run the tests","actions":[{"type":"send","input":"cargo test"}]},{"choice":2,"title":"Build it's release","actions":[{"type":"send","input":"cargo build"}]}]}"#;

    fn invocation() -> String {
        let channel = Channel::new(
            HelperId::from_bytes([1; 16]),
            TurnNonce::from_bytes([2; 16]),
        );
        build_invocation(&channel, PAYLOAD)
    }

    #[test]
    fn a_canonical_invocation_reads_as_what_it_proposes() {
        let command = invocation();
        assert_eq!(
            title(&command).as_deref(),
            Some("Propose: Run the tests / Build it's release")
        );
        let wrapped = format!("/bin/bash -lc {command}");
        assert_eq!(
            title(&wrapped),
            title(&command),
            "codex wraps it in bash -lc"
        );
    }

    #[test]
    fn other_commands_keep_their_title_and_bent_ones_say_so() {
        assert_eq!(title("cargo test"), None);
        let piped = format!("{} | cat", invocation());
        assert_eq!(
            title(&piped).as_deref(),
            Some("Proposal command not in the canonical form (refused)")
        );
    }

    #[test]
    fn answer_lines_read_as_words_and_other_output_is_left_alone() {
        let lines = [
            r#"{"phase":"validation","status":"accepted","proposal_id":"11111111111111111111111111111111","retryable":false}"#,
            r#"{"phase":"final","status":"confirmed","proposal_id":"11111111111111111111111111111111","choice":1}"#,
            r#"{"phase":"execution","status":"failed","proposal_id":"1","execution_id":"2","action":1,"exit_code":2,"output":"x"}"#,
        ];
        assert_eq!(
            output(&lines.join("\n")).as_deref(),
            Some(
                "accepted: the card is on screen\nthe user's decision: confirmed\naction 1: failed, exit 2"
            )
        );
        let refused = r#"{"phase":"validation","status":"invalid_schema","reason":"choices: 1 to 3","retryable":true}"#;
        assert_eq!(
            output(refused).as_deref(),
            Some("refused (invalid schema): choices: 1 to 3")
        );
        assert_eq!(
            output("hello\n{\"phase\":\"final\",\"status\":\"x\"}"),
            None
        );
        assert_eq!(output(""), None);
    }

    #[test]
    fn session_tool_calls_read_as_what_they_propose() {
        let name = |tool: &str| format!("mcp__wta_0123456789abcdef0123__{tool}");
        let args = serde_json::json!({"command": "cargo test\n--all", "target": "panel",
            "task": "fix the build", "question": "Deploy where?"});
        for (tool, title) in [
            ("run_command_in_current_shell", "Propose: Run `cargo test`"),
            ("create_workspace", "Propose: open a new panel"),
            (
                "delegate_task_in_new_workspace",
                "Propose: delegate `fix the build`",
            ),
            ("request_user_input", "Ask you: Deploy where?"),
            ("get_proposal_result", "Check what became of a proposal"),
        ] {
            assert_eq!(
                session_tool_title(&name(tool), Some(&args)).as_deref(),
                Some(title)
            );
        }
        assert_eq!(
            session_tool_title("mcp__github__create_workspace", Some(&args)),
            None
        );
        assert_eq!(
            session_tool_title(&name("run_command_in_current_shell"), None).as_deref(),
            Some("Propose: Run a command")
        );
    }
}
