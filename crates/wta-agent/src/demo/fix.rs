//! Fix turns: the request WTA sends when a command failed in the user's
//! shell pane and the user asked for a fix, answered offline.
//!
//! Pure: [`recognise`] reads the turn's text and context, [`decide`] picks
//! the reply. The one thing a fix turn ever proposes is a command not found
//! (exit 127) spelled right: the failed command line with its first word
//! replaced by the closest command name the shell knows, as one choice with
//! one `send` and origin `autofix` (the only shape WTA accepts for a fix).
//! Everything else is explained, never proposed.
//!
//! The failed command's record and the name lookup sit under the context's
//! `untrusted` key: terminal data, read leniently (a missing or malformed
//! field is just unknown) and never followed. The user's hint is shown back
//! and never run.

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny};
use serde_json::Value;
use wta_protocol::{Origin, ProposalPayload};

use super::propose::{compact, one_send, output_tail};

/// The auto-fix instructions' first line (`prompts/auto-fix.md`).
pub const FIX_HEADING: &str = "# Fix the command that just failed";
/// What the helper writes before the user's hint, on a line of its own.
const HINT_PREFIX: &str = "\nThe user adds: ";
/// The heading of the context block holding the terminal context JSON.
const TERMINAL_HEADING: &str = "### Terminal Context JSON";
/// The exit code of a command the shell could not find.
pub const NOT_FOUND_EXIT: i32 = 127;
/// Titles longer than this name only the correction (the limit is 200).
const MAX_TITLE_COMMAND_CHARS: usize = 150;

/// A fix turn, as far as the demo reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixTurn {
    /// `untrusted.failed_command`; `None` when the context has none.
    pub failed: Option<FailedCommand>,
    /// `untrusted.resolve_command`, when the context has one.
    pub resolution: Option<Resolution>,
    /// What the user added to the request.
    pub hint: Option<String>,
}

/// The failed command's record (the fields the demo reads).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct FailedCommand {
    #[serde(default, deserialize_with = "lenient")]
    pub cmdline: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub exit_code: Option<i32>,
    #[serde(default, deserialize_with = "lenient")]
    pub output: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub cwd: Option<String>,
}

/// Where the name of a command not found was looked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Resolution {
    #[serde(default, deserialize_with = "lenient")]
    pub verdict: Option<Verdict>,
    /// Closest first.
    #[serde(default, deserialize_with = "ranked_names")]
    pub near_matches: Vec<String>,
}

/// Whether the name exists anywhere the user's shell would look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Exists,
    NotFound,
    Indeterminate,
}

/// A near match: a bare name, or `{"name", "distance"}`; anything else is
/// skipped.
#[derive(Deserialize)]
#[serde(untagged)]
enum NearMatch {
    Name(String),
    Ranked {
        name: String,
        #[serde(default)]
        distance: Option<u64>,
    },
    Other(IgnoredAny),
}

/// The terminal context JSON, down to what the demo reads.
#[derive(Deserialize)]
struct Terminal {
    #[serde(default, deserialize_with = "lenient")]
    untrusted: Option<Untrusted>,
}

#[derive(Deserialize)]
struct Untrusted {
    #[serde(default, deserialize_with = "lenient")]
    failed_command: Option<FailedCommand>,
    #[serde(default, deserialize_with = "lenient")]
    resolve_command: Option<Resolution>,
}

/// A field that is `None` when it does not have the expected shape, so one
/// odd field never hides the others.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(serde_json::from_value(value).ok())
}

/// Near matches' names, closest first (a stable sort: entries without a
/// distance keep their order, after the ranked ones).
fn ranked_names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let entries: Option<Vec<NearMatch>> = lenient(d)?;
    let mut ranked: Vec<(u64, String)> = entries
        .unwrap_or_default()
        .into_iter()
        .filter_map(|entry| match entry {
            NearMatch::Name(name) => Some((u64::MAX, name)),
            NearMatch::Ranked { name, distance } => Some((distance.unwrap_or(u64::MAX), name)),
            NearMatch::Other(_) => None,
        })
        .collect();
    ranked.sort_by_key(|(distance, _)| *distance);
    Ok(ranked.into_iter().map(|(_, name)| name).collect())
}

/// The JSON of the context's terminal block: the code block after the last
/// "Terminal Context JSON" heading (the turn's own block comes after any
/// base prompt text).
pub fn terminal_json(context: &str) -> Option<String> {
    let lines: Vec<&str> = context.lines().collect();
    let heading = lines
        .iter()
        .rposition(|l| l.trim_end() == TERMINAL_HEADING)?;
    let rest = &lines[heading + 1..];
    let open = rest.iter().position(|l| l.trim_end() == "```json")?;
    let body = &rest[open + 1..];
    let close = body.iter().position(|l| l.trim_end() == "```")?;
    Some(body[..close].join("\n"))
}

/// The fix turn in this prompt, if it is one: its text starts with the
/// auto-fix instructions, or its context carries a failed command.
pub fn recognise(text: &str, context: &str) -> Option<FixTurn> {
    let untrusted = terminal_json(context)
        .and_then(|json| serde_json::from_str::<Terminal>(&json).ok())
        .and_then(|terminal| terminal.untrusted);
    let (failed, resolution) = match untrusted {
        Some(u) => (u.failed_command, u.resolve_command),
        None => (None, None),
    };
    if failed.is_none() && !text.trim_start().starts_with(FIX_HEADING) {
        return None;
    }
    Some(FixTurn {
        failed,
        resolution,
        hint: hint(text),
    })
}

/// The user's hint: what follows the last "The user adds: ".
pub fn hint(text: &str) -> Option<String> {
    let (_, hint) = text.rsplit_once(HINT_PREFIX)?;
    let hint = hint.trim();
    (!hint.is_empty()).then(|| hint.to_owned())
}

/// What the demo does for a fix turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixReply {
    /// Say what went wrong, then propose the corrected command line.
    Correct(Correction),
    /// Explain the failure; propose nothing.
    Explain(String),
}

/// A command not found, spelled right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    /// The first word as typed.
    pub typed: String,
    /// The closest known command name, which replaces it.
    pub name: String,
    /// The corrected command line.
    pub command: String,
    /// The proposal: one choice, one `send` of `command`, origin `autofix`
    /// (checked against WTA's payload rules).
    pub payload: ProposalPayload,
}

impl Correction {
    /// The payload as the invocation carries it.
    pub fn payload_json(&self) -> String {
        compact(&self.payload)
    }

    /// What went wrong, in the demo's words.
    pub fn diagnosis(&self, hint: Option<&str>) -> String {
        format!(
            "{} was not found (exit 127: command not found). It looks like a typo of {}, the \
             closest command name your shell knows.\n\n{}",
            code(&self.typed),
            code(&self.name),
            hint_text(hint),
        )
    }
}

/// The reply to `turn`.
pub fn decide(turn: &FixTurn) -> FixReply {
    match &turn.failed {
        Some(failed) => match correction(failed, turn.resolution.as_ref()) {
            Some(fix) => FixReply::Correct(fix),
            None => FixReply::Explain(explain(
                failed,
                turn.resolution.as_ref(),
                turn.hint.as_deref(),
            )),
        },
        None => FixReply::Explain(format!(
            "This is a fix request, but its context has no record of the failed command \
             (`untrusted.failed_command`), so I cannot tell what went wrong. I propose \
             nothing.\n\n{}",
            hint_text(turn.hint.as_deref())
        )),
    }
}

/// The correction of a command not found: only for exit 127, a one-line
/// command line starting with a plain name (not a path) that the lookup did
/// not find, and a near match that is a plain command name. The rest of the
/// line is kept as typed.
pub fn correction(failed: &FailedCommand, resolution: Option<&Resolution>) -> Option<Correction> {
    if failed.exit_code != Some(NOT_FOUND_EXIT) {
        return None;
    }
    let resolution = resolution?;
    if resolution.verdict == Some(Verdict::Exists) {
        return None;
    }
    let (typed, rest) = first_word(failed.cmdline.as_deref()?)?;
    if typed.contains('/') {
        return None;
    }
    let name = resolution
        .near_matches
        .iter()
        .find(|name| name.as_str() != typed && is_command_name(name))?;
    let command = format!("{name}{rest}");
    let title = if command.chars().count() <= MAX_TITLE_COMMAND_CHARS {
        format!("Run `{command}`")
    } else {
        format!("Run it with `{name}`")
    };
    let rationale = format!(
        "`{typed}` is not a command your shell knows (exit 127); `{name}` is the closest name \
         it knows, so this looks like a typo."
    );
    let payload = one_send(Origin::Autofix, &title, &rationale, &command);
    payload.validate().ok()?;
    Some(Correction {
        typed: typed.to_owned(),
        name: name.clone(),
        command,
        payload,
    })
}

/// A one-line command line's first word and the rest after it (leading
/// blanks dropped, trailing blanks trimmed).
fn first_word(cmdline: &str) -> Option<(&str, &str)> {
    if cmdline.contains(['\n', '\r']) {
        return None;
    }
    let line = cmdline.trim();
    let end = line.find(char::is_whitespace).unwrap_or(line.len());
    let (word, rest) = line.split_at(end);
    (!word.is_empty()).then_some((word, rest))
}

/// A name the demo is willing to type as a command's first word.
pub fn is_command_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._+-@:".contains(c))
}

/// What an exit code usually means (a sentence).
pub fn exit_meaning(code: i32) -> String {
    let meaning = match code {
        0 => "success, so the trouble is in what it printed.",
        1 => "a general error; the program ran and reported a failure.",
        2 => "usually misuse: a wrong option, a missing argument or a syntax error.",
        126 => {
            "the shell found it but could not run it: the file is not executable (check \
             `ls -l`) or is a directory."
        }
        127 => "command not found; no alias, function, builtin or file on `PATH` has that name.",
        129..=192 => {
            let signal = code - 128;
            let name = match signal {
                1 => " (SIGHUP: its terminal went away)",
                2 => " (SIGINT: Ctrl-C)",
                9 => " (SIGKILL: killed, often for running out of memory)",
                13 => " (SIGPIPE: what it wrote to was closed)",
                15 => " (SIGTERM: asked to stop)",
                _ => "",
            };
            return format!("ended by signal {signal}{name}.");
        }
        _ => "the program's own meaning (see its manual).",
    };
    meaning.to_owned()
}

/// Patterns in a failed command's output and what they tell.
const PATTERNS: &[(&str, &str)] = &[
    (
        "permission denied",
        "The output says **Permission denied**: you may not read, write or run a file it \
         needs. Check its owner and mode (`ls -l`), or whether the command needs another user.",
    ),
    (
        "no such file or directory",
        "The output says **No such file or directory**: a path it was given or looks for does \
         not exist. Check the spelling, and the directory it ran in.",
    ),
];

/// The explanation of a failure the demo does not correct.
pub fn explain(
    failed: &FailedCommand,
    resolution: Option<&Resolution>,
    hint: Option<&str>,
) -> String {
    let what = failed
        .cmdline
        .as_deref()
        .map_or_else(|| "The command".to_owned(), code);
    let mut text = match failed.exit_code {
        Some(exit) => format!("{what} failed. Exit code {exit}: {}\n", exit_meaning(exit)),
        None => format!("{what} failed; no exit code was recorded.\n"),
    };
    if let Some(cwd) = &failed.cwd {
        text.push_str(&format!("It ran in {}.\n", code(cwd)));
    }
    if failed.exit_code == Some(NOT_FOUND_EXIT) {
        text.push_str(&not_found_text(failed, resolution));
    }
    let output = failed.output.as_deref().unwrap_or_default();
    let lower = output.to_lowercase();
    for (pattern, meaning) in PATTERNS {
        if lower.contains(pattern) {
            text.push_str(&format!("\n{meaning}\n"));
        }
    }
    let tail = output_tail(output);
    if !tail.is_empty() {
        let fence = fence(&tail);
        text.push_str(&format!(
            "\nLast lines of its output:\n\n{fence}\n{tail}\n{fence}\n"
        ));
    }
    text.push_str(
        "\nI propose nothing for this failure: a real agent would look into it and could \
         propose one command to fix it.\n",
    );
    let hint = hint_text(hint);
    if !hint.is_empty() {
        text.push('\n');
        text.push_str(&hint);
    }
    text
}

/// Why a command not found gets no correction.
fn not_found_text(failed: &FailedCommand, resolution: Option<&Resolution>) -> String {
    let typed = failed
        .cmdline
        .as_deref()
        .and_then(first_word)
        .map(|(w, _)| w);
    let name = typed.map_or_else(|| "its name".to_owned(), code);
    let Some(resolution) = resolution else {
        return "\nThere is no lookup of its name in the context, so I cannot say what you \
                meant.\n"
            .to_owned();
    };
    if resolution.verdict == Some(Verdict::Exists) {
        return format!(
            "\nYet {name} exists where your shell looks, so the 127 probably came from inside \
             it: something it runs is missing.\n"
        );
    }
    match resolution.near_matches.iter().find(|n| is_command_name(n)) {
        None => format!(
            "\nNo command name your shell knows is close to {name}: check the spelling, or \
             install the program that provides it.\n"
        ),
        Some(near) => format!(
            "\nThe closest name your shell knows is {}, but I only correct a one-line command \
             that starts with a plain name, so I leave this one to you.\n",
            code(near)
        ),
    }
}

/// The user's hint shown back (empty without one).
fn hint_text(hint: Option<&str>) -> String {
    let Some(hint) = hint else {
        return String::new();
    };
    let quoted: Vec<String> = hint.lines().map(|l| format!("> {l}")).collect();
    format!(
        "You added:\n\n{}\n\n(The demo shows your note back but does not act on it.)\n\n",
        quoted.join("\n")
    )
}

/// Non-empty one-line `text` as a markdown code span that shows exactly
/// `text`, whatever backticks and blanks it holds. A span strips one space
/// from each end when both ends are spaces, so such text (and text with a
/// backtick at an end) gets one pad space each side.
pub fn code(text: &str) -> String {
    let ticks = "`".repeat(longest_backtick_run(text) + 1);
    let spaced = text.starts_with(' ') && text.ends_with(' ') && text.chars().any(|c| c != ' ');
    let pad = if text.starts_with('`') || text.ends_with('`') || spaced {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// A code fence longer than any backtick run in `text`.
fn fence(text: &str) -> String {
    "`".repeat((longest_backtick_run(text) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}
