//! Extraction of the shell command from each real agent's
//! `session/request_permission` tool call, failing closed on shapes we do
//! not know.
//!
//! Shapes (acp-agents-offline.md §3.3 and the agents' ACP sources):
//! - claude (claude-code-acp, claude-agent-acp): `rawInput.command` string
//!   (plus `description`, `timeout`, …).
//! - copilot: `rawInput.command` string and `rawInput.commands`, the list it
//!   parsed out of it; a canonical command must list exactly itself.
//! - codex: `rawInput.command` = `["/bin/bash","-lc",cmd]` (any POSIX shell,
//!   `-lc` or `-c`); other argv arrays are rendered as sh words, which can
//!   never be canonical.
//! - opencode: `rawInput` is the permission's metadata, often `{}` for bash:
//!   an execute call without a command is an [`Extracted::UnknownShape`].
//! - gemini: no `rawInput`; `title` is the command followed by gemini's own
//!   suffixes (` [in <dir>]` or ` [current working directory <dir>]`,
//!   ` [background]`, ` [timeout: Nms]`, ` (<description>)`). A suffix is
//!   removed only behind a canonical command and only when it parses
//!   exactly; otherwise the whole title is the command (never canonical).
//!   Directory and description may not contain shell operators or brackets,
//!   so whatever part of a title we strip can never hide a second command
//!   from the shell (see `gemini_suffix_ok`).

use serde_json::Value;

use crate::invocation::{looks_like_proposal, parse_canonical_prefix, sh_single_quote};

/// What a permission request's tool call asks to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extracted {
    /// A shell command string, to classify with
    /// [`crate::invocation::classify_invocation`].
    Command(String),
    /// Not a command (an edit, a read, a fetch…): the normal permission UI.
    NotACommand,
    /// An execute-like call whose shape we do not understand: fail closed
    /// and show the integration problem.
    UnknownShape(&'static str),
}

/// Extracts the command from the `toolCall` object of a permission request.
pub fn extract_command(tool_call: &Value) -> Extracted {
    let Some(call) = tool_call.as_object() else {
        return Extracted::UnknownShape("the tool call is not a JSON object");
    };
    let kind = call.get("kind").and_then(Value::as_str);
    let execute = kind == Some("execute");
    let extracted = match call.get("rawInput") {
        Some(Value::Object(raw)) => match raw.get("command") {
            Some(Value::String(command)) => copilot_consistent(command, raw.get("commands")),
            Some(Value::Array(argv)) => from_argv(argv),
            Some(_) => {
                Extracted::UnknownShape("rawInput.command is neither a string nor an argv array")
            }
            None if execute => {
                Extracted::UnknownShape("an execute tool call without rawInput.command")
            }
            None => Extracted::NotACommand,
        },
        None | Some(Value::Null) if execute => match call.get("title") {
            Some(Value::String(title)) => from_gemini_title(title),
            _ => Extracted::UnknownShape("an execute tool call with neither rawInput nor title"),
        },
        Some(_) if execute => Extracted::UnknownShape("rawInput is not an object"),
        _ => Extracted::NotACommand,
    };
    // A proposal attempt must never slip into the normal UI through a shape
    // we did not recognise as a command.
    if extracted == Extracted::NotACommand && mentions_proposal(tool_call, 0) {
        return Extracted::UnknownShape(
            "a proposal command in a tool call that is not a known command shape",
        );
    }
    extracted
}

/// copilot: `commands`, when present, must be strings; for a canonical
/// command it must be exactly `[command]` (else what copilot runs and what
/// we approve could differ).
fn copilot_consistent(command: &str, commands: Option<&Value>) -> Extracted {
    let Some(commands) = commands else {
        return Extracted::Command(command.to_owned());
    };
    let Some(list) = commands.as_array() else {
        return Extracted::UnknownShape("rawInput.commands is not an array");
    };
    if !list.iter().all(Value::is_string) {
        return Extracted::UnknownShape("rawInput.commands holds a non-string");
    }
    let is_canonical = parse_canonical_prefix(command).is_some_and(|(_, end)| end == command.len());
    if is_canonical && !(list.len() == 1 && list[0].as_str() == Some(command)) {
        return Extracted::UnknownShape("rawInput.commands disagrees with rawInput.command");
    }
    Extracted::Command(command.to_owned())
}

/// codex: `[<posix shell>, "-lc" | "-c", cmd]`, else argv rendered as sh words.
fn from_argv(argv: &[Value]) -> Extracted {
    let words: Option<Vec<&str>> = argv.iter().map(Value::as_str).collect();
    let Some(words) = words else {
        return Extracted::UnknownShape("rawInput.command array holds a non-string");
    };
    match words.as_slice() {
        [] => Extracted::UnknownShape("rawInput.command is an empty array"),
        [shell, flag, command] if is_posix_shell(shell) && matches!(*flag, "-lc" | "-c") => {
            Extracted::Command((*command).to_owned())
        }
        _ => Extracted::Command(
            words
                .iter()
                .map(|w| sh_single_quote(w))
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

fn is_posix_shell(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dir_ok = !path.contains('/')
        || matches!(
            path,
            "/bin/bash"
                | "/usr/bin/bash"
                | "/bin/sh"
                | "/usr/bin/sh"
                | "/bin/zsh"
                | "/usr/bin/zsh"
                | "/bin/dash"
                | "/usr/bin/dash"
                | "/usr/local/bin/bash"
                | "/usr/local/bin/zsh"
                | "/opt/homebrew/bin/bash"
                | "/opt/homebrew/bin/zsh"
        );
    dir_ok && matches!(name, "bash" | "sh" | "zsh" | "dash")
}

/// gemini: strip gemini's suffix only behind a canonical command.
fn from_gemini_title(title: &str) -> Extracted {
    if let Some((_, end)) = parse_canonical_prefix(title)
        && gemini_suffix_ok(&title[end..])
    {
        return Extracted::Command(title[..end].to_owned());
    }
    Extracted::Command(title.to_owned())
}

/// `rest` is empty, or one optional directory group followed by at most one
/// each of ` [background]`, ` [timeout: <digits>ms]`, ` (<description>)`.
///
/// Why this is safe to strip: newer gemini always appends a directory group;
/// since descriptions cannot contain `[`, that group is the first `[` of the
/// suffix, so the real command ends exactly where we cut. Older gemini may
/// omit the group, in which case part of what we strip could be the agent's
/// own text; it then contains no shell operator, quote-free directory, and no
/// brackets, so the shell can only pass it to our CLI as extra arguments
/// (which the CLI rejects) or fail to parse the line.
fn gemini_suffix_ok(mut rest: &str) -> bool {
    if rest.is_empty() {
        return true;
    }
    for open in [" [in ", " [current working directory "] {
        if let Some(after) = rest.strip_prefix(open) {
            let Some(close) = after.find(']') else {
                return false;
            };
            let dir = &after[..close];
            if dir.is_empty()
                || !dir
                    .chars()
                    .all(|c| safe_suffix_char(c) && c != '\'' && c != '"')
            {
                return false;
            }
            rest = &after[close + 1..];
            break;
        }
    }
    let (mut background, mut timeout, mut description) = (false, false, false);
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(" [background]").filter(|_| !background) {
            background = true;
            rest = after;
        } else if let Some(after) = rest.strip_prefix(" [timeout: ").filter(|_| !timeout) {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let Some(after) = after[digits..].strip_prefix("ms]").filter(|_| digits > 0) else {
                return false;
            };
            timeout = true;
            rest = after;
        } else if let Some(after) = rest.strip_prefix(" (").filter(|_| !description) {
            let Some(close) = after.find(')') else {
                return false;
            };
            if !after[..close].chars().all(safe_suffix_char) {
                return false;
            }
            description = true;
            rest = &after[close + 1..];
        } else {
            return false;
        }
    }
    true
}

/// No shell operator, substitution, escape, bracket, paren or control.
fn safe_suffix_char(c: char) -> bool {
    !c.is_control()
        && !matches!(
            c,
            ';' | '&' | '|' | '<' | '>' | '$' | '`' | '\\' | '(' | ')' | '[' | ']'
        )
}

/// Whether any string inside the tool call mentions the proposal CLI.
fn mentions_proposal(value: &Value, depth: usize) -> bool {
    if depth > 16 {
        return true; // absurd nesting: treat as suspicious, fail closed
    }
    match value {
        Value::String(s) => looks_like_proposal(s),
        Value::Array(items) => items.iter().any(|v| mentions_proposal(v, depth + 1)),
        Value::Object(map) => map.values().any(|v| mentions_proposal(v, depth + 1)),
        _ => false,
    }
}
