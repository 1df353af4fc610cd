//! The canonical proposal invocation, its builder, and a strict classifier
//! of shell command strings.
//!
//! Canonical form (POSIX sh), byte for byte:
//! `"$WTA_CLI_PATH" propose-terminal-actions --channel <channel> --payload-json '<payload>'`
//! with every `'` in the payload written as `'\''` and nothing before or
//! after. Only that form is auto-allowed by the permission preflight, because
//! only there can we prove the shell runs our CLI and nothing else: the
//! payload sits in one single-quoted word, where sh expands nothing.
//!
//! The payload is opaque here: it is returned exactly as the CLI will
//! receive it in argv, and digested as such. It is never re-encoded, so key
//! order and spacing stay the agent's business (the original compared with
//! serde's re-encoding and silently cancelled valid proposals). Schema and
//! size are the helper's checks, which answer with a readable reason instead
//! of a silent cancel. The classifier does refuse control characters in the
//! payload: they cannot come from compact JSON and could hide text.

use crate::channel::{CHANNEL_LEN, Channel};

/// Everything before the channel.
pub const INVOCATION_PREFIX: &str = "\"$WTA_CLI_PATH\" propose-terminal-actions --channel ";
/// Between the channel and the quoted payload.
const PAYLOAD_FLAG: &str = " --payload-json ";
/// Words that make a command proposal-looking.
pub const PROPOSAL_MARKERS: [&str; 3] =
    ["propose-terminal-actions", "WTA_CLI_PATH", "--payload-json"];

/// The canonical invocation for `channel` and `payload`.
/// What stands for the payload in an invocation shown to the agent.
pub const PAYLOAD_PLACEHOLDER: &str = "<compact-json-payload>";

/// The canonical invocation for `channel` with [`PAYLOAD_PLACEHOLDER`].
pub fn invocation_template(channel: &Channel) -> String {
    build_invocation(channel, PAYLOAD_PLACEHOLDER)
}

pub fn build_invocation(channel: &Channel, payload: &str) -> String {
    format!(
        "{INVOCATION_PREFIX}{channel}{PAYLOAD_FLAG}{}",
        sh_single_quote(payload)
    )
}

/// `text` as one POSIX sh single-quoted word, `'` written as `'\''`.
pub fn sh_single_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A command that is exactly the canonical invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalInvocation {
    pub channel: Channel,
    /// The payload as the CLI receives it (the sh quoting undone, nothing else).
    pub payload: String,
}

/// What a command string is, for the permission preflight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    /// Exactly canonical: allow silently once the channel is checked live.
    Canonical(CanonicalInvocation),
    /// Mentions the proposal CLI but is not canonical: cancel silently.
    NonCanonical(NonCanonical),
    /// Not about proposals: the normal permission UI.
    Unrelated,
}

/// Why a proposal-looking command is not canonical (for the log line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NonCanonical {
    #[error("spans several lines")]
    MultiLine,
    #[error("uses a here-document")]
    HereDoc,
    #[error("uses command substitution ($() or backticks)")]
    CommandSubstitution,
    #[error("is part of a pipeline")]
    Pipeline,
    #[error("chains commands (;, &&, || or &)")]
    CommandList,
    #[error("redirects input or output")]
    Redirect,
    #[error("sets environment variables before the command")]
    EnvPrefix,
    #[error("spells the binary another way than \"$WTA_CLI_PATH\"")]
    BinarySpelling,
    #[error("does not pass the payload inline with --payload-json")]
    PayloadNotInline,
    #[error("has missing, extra or reordered arguments")]
    Arguments,
    #[error("has a malformed channel")]
    Channel,
    #[error("quotes the payload another way than one '…' word with '\\'' escapes")]
    Quoting,
    #[error("has a payload with control characters or no payload")]
    PayloadContent,
    #[error("has extra whitespace")]
    Whitespace,
}

/// Classifies a shell command string. Pure, linear in the input.
pub fn classify_invocation(command: &str) -> Invocation {
    match parse_canonical_prefix(command) {
        Some((canonical, end)) if end == command.len() => Invocation::Canonical(canonical),
        _ if looks_like_proposal(command) => Invocation::NonCanonical(diagnose(command)),
        _ => Invocation::Unrelated,
    }
}

/// Whether the text mentions the proposal CLI at all.
pub fn looks_like_proposal(text: &str) -> bool {
    PROPOSAL_MARKERS.iter().any(|m| text.contains(m))
}

/// Parses a canonical invocation at the start of `text` and returns it with
/// the byte offset where it ends (just after the closing quote). Used as is
/// by envelope parsers that must find where the command ends.
pub(crate) fn parse_canonical_prefix(text: &str) -> Option<(CanonicalInvocation, usize)> {
    let rest = text.strip_prefix(INVOCATION_PREFIX)?;
    let channel = Channel::parse(rest.get(..CHANNEL_LEN)?).ok()?;
    let rest = rest[CHANNEL_LEN..].strip_prefix(PAYLOAD_FLAG)?;
    let (payload, quoted_len) = unquote_canonical(rest)?;
    if payload.is_empty() || payload.chars().any(|c| c.is_control()) {
        return None;
    }
    let end = text.len() - rest.len() + quoted_len;
    // Belt and braces: the parse must be the inverse of the builder.
    let canonical = CanonicalInvocation { channel, payload };
    (build_invocation(&canonical.channel, &canonical.payload) == text[..end])
        .then_some((canonical, end))
}

/// Reads `'…'` with `'\''` escapes from the start of `text`; returns the
/// content and the bytes consumed. Stops at the first `'` that is not the
/// start of `'\''`.
fn unquote_canonical(text: &str) -> Option<(String, usize)> {
    let mut rest = text.strip_prefix('\'')?;
    let mut content = String::new();
    loop {
        let close = rest.find('\'')?;
        content.push_str(&rest[..close]);
        rest = &rest[close + 1..];
        match rest.strip_prefix("\\''") {
            Some(after) => {
                content.push('\'');
                rest = after;
            }
            None => return Some((content, text.len() - rest.len())),
        }
    }
}

/// Best-effort reason for a non-canonical proposal command: shell operators
/// first (found outside quotes), then the words.
fn diagnose(command: &str) -> NonCanonical {
    let scan = scan_shell(command);
    if let Some(op) = scan.operator {
        return op;
    }
    let words = &scan.words;
    let Some(first) = words.first() else {
        return NonCanonical::Arguments;
    };
    if is_assignment(first) {
        return NonCanonical::EnvPrefix;
    }
    if first != "\"$WTA_CLI_PATH\"" {
        return NonCanonical::BinarySpelling;
    }
    let payload_at = words.iter().position(|w| w == "--payload-json");
    let inline = payload_at
        .and_then(|i| words.get(i + 1))
        .is_some_and(|v| v != "-");
    if !inline
        || words
            .iter()
            .any(|w| w.starts_with("--payload-") && w != "--payload-json")
    {
        return NonCanonical::PayloadNotInline;
    }
    let order_ok = words.len() == 6
        && words[1] == "propose-terminal-actions"
        && words[2] == "--channel"
        && payload_at == Some(4);
    if !order_ok {
        return NonCanonical::Arguments;
    }
    if Channel::parse(&words[3]).is_err() {
        return NonCanonical::Channel;
    }
    if command.trim() != command || command.contains("  ") {
        return NonCanonical::Whitespace;
    }
    match unquote_canonical(&words[5]) {
        Some((payload, n))
            if n == words[5].len()
                && (payload.is_empty() || payload.chars().any(char::is_control)) =>
        {
            NonCanonical::PayloadContent
        }
        _ => NonCanonical::Quoting,
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !name.as_bytes()[0].is_ascii_digit()
    })
}

struct Scan {
    /// The first shell operator found outside single quotes, by priority.
    operator: Option<NonCanonical>,
    /// Words split on unquoted blanks, quotes kept as written.
    words: Vec<String>,
}

/// A small sh lexer: enough to tell operators outside quotes from text
/// inside them. It never decides canonicity (the exact parser does); it only
/// names the problem.
fn scan_shell(text: &str) -> Scan {
    use NonCanonical as N;
    let mut found: Vec<NonCanonical> = Vec::new();
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut single, mut double) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if single {
            single = c != '\'';
            word.push(c);
            continue;
        }
        let next = chars.peek().copied();
        match c {
            '\\' => {
                word.push(c);
                if let Some(n) = chars.next() {
                    word.push(n);
                }
                continue;
            }
            '\'' if !double => single = true,
            '"' => double = !double,
            '`' => found.push(N::CommandSubstitution),
            '$' if next == Some('(') => found.push(N::CommandSubstitution),
            '\n' | '\r' => found.push(N::MultiLine),
            _ if double => {}
            '<' if next == Some('<') => {
                found.push(N::HereDoc);
                chars.next();
            }
            // `2>&1`, `<&3`: the & belongs to the redirect.
            '<' | '>' => {
                found.push(N::Redirect);
                if next == Some('&') {
                    chars.next();
                }
            }
            '|' | '&' if next == Some(c) => {
                found.push(N::CommandList);
                chars.next();
            }
            '|' => found.push(N::Pipeline),
            ';' | '&' => found.push(N::CommandList),
            ' ' | '\t' => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                continue;
            }
            _ => {}
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    let priority = [
        N::MultiLine,
        N::HereDoc,
        N::CommandSubstitution,
        N::Pipeline,
        N::CommandList,
        N::Redirect,
    ];
    let operator = priority.into_iter().find(|p| found.contains(p));
    Scan { operator, words }
}
