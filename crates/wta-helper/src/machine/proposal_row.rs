//! How a tool call that runs the proposal CLI reads in the transcript: what
//! it proposes instead of the raw invocation (a channel id and a JSON payload
//! over several lines), and its answer lines as words instead of JSON, in
//! the user's language (the statuses and reasons inside stay the CLI's own
//! words). Answer lines are decoded once into wta-protocol's typed
//! [`ResponseLine`]s, every phase has words (`next` and `end` too), and a
//! line that is not one is shown as it came (only a markdown fence around
//! the answer is dropped): the row invents nothing. Pure.

use serde_json::Value;
use wta_i18n::tr;
use wta_protocol::invocation::looks_like_proposal;
use wta_protocol::{Invocation, ResponseLine, ValidationStatus, classify_invocation};

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

/// The CLI's answer lines in words, each decoded once into the protocol's
/// typed line ([`ResponseLine::from_frame`]); `None` when no line of
/// `output` is one, which leaves any other tool's output as it is.
///
/// A line that is not a valid answer line (an error the CLI printed on
/// stderr, a line the agent cut or added) stays as it is, so the row never
/// hides what came back; a markdown fence an agent put around the output
/// is dropped once the lines inside read as words.
pub fn output(output: &str) -> Option<String> {
    let lines: Vec<Line<'_>> = output
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(Line::read)
        .collect();
    if !lines.iter().any(|l| matches!(l, Line::Answer(_))) {
        return None;
    }
    let words: Vec<String> = lines
        .iter()
        .filter_map(|line| match line {
            Line::Answer(answer) => Some(answer_words(answer)),
            Line::Other(text) if is_fence(text) => None,
            // A carriage return left at a line's end (`\r\r\n`) shows nothing.
            Line::Other(text) => Some(text.trim_end_matches('\r').to_owned()),
        })
        .collect();
    Some(words.join("\n"))
}

/// One line of a tool call's output.
enum Line<'a> {
    Answer(ResponseLine),
    Other(&'a str),
}

impl<'a> Line<'a> {
    /// Every tool's output comes through here: a line that cannot be a
    /// JSON object is not decoded at all.
    fn read(text: &'a str) -> Self {
        let frame = text.trim();
        if !frame.starts_with('{') {
            return Self::Other(text);
        }
        match ResponseLine::from_frame(frame.as_bytes()) {
            Ok(answer) => Self::Answer(answer),
            Err(_) => Self::Other(text),
        }
    }
}

/// A markdown code fence line: three backticks and at most a language word.
fn is_fence(text: &str) -> bool {
    text.trim()
        .strip_prefix("```")
        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// An answer line in words. Statuses and reasons stay the CLI's own words
/// (what the agent read), the rest is in the user's language.
fn answer_words(answer: &ResponseLine) -> String {
    let with_reason = |text: String, reason: Option<&str>| match reason {
        Some(r) => tr!("helper.row.with_reason", text = text, reason = one_line(r)),
        None => text,
    };
    let word = |wire: &str| wire.replace('_', " ");
    match answer {
        ResponseLine::Validation(v) if v.status == ValidationStatus::Accepted => {
            tr!("helper.row.accepted")
        }
        ResponseLine::Validation(v) => with_reason(
            tr!("helper.row.refused", status = word(v.status.as_str())),
            v.reason.as_deref(),
        ),
        ResponseLine::Final(f) => {
            let status = word(f.status.as_str());
            let text = match f.choice {
                Some(choice) => tr!(
                    "helper.row.decision_choice",
                    status = status,
                    choice = choice
                ),
                None => tr!("helper.row.decision", status = status),
            };
            with_reason(text, f.reason.as_deref())
        }
        ResponseLine::Execution(e) => {
            let status = word(e.status.as_str());
            let text = match e.exit_code {
                Some(code) => tr!(
                    "helper.row.action_exit",
                    action = e.action,
                    status = status,
                    code = code
                ),
                None => tr!("helper.row.action", action = e.action, status = status),
            };
            with_reason(text, e.reason.as_deref())
        }
        ResponseLine::Next(n) => tr!("helper.row.next", remaining = n.remaining),
        ResponseLine::End(e) => tr!("helper.row.end", reason = one_line(&e.reason)),
    }
}

/// A reason on the answer's one row line: line breaks and tabs as spaces,
/// other controls (decoded from JSON escapes) as U+FFFD.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
#[path = "proposal_row_tests.rs"]
mod tests;
