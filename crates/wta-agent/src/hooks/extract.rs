//! What `wta hook` keeps of a CLI's hook JSON: the CLI's session id, the cwd,
//! a tool's name and, for a notification, its short text. Everything else
//! (the prompt, a tool's input and output, transcripts) is dropped here and
//! never reaches the socket. Pure: the payload and the pane are inputs.
//!
//! The payload is untrusted and may be anything: not JSON, huge, nested,
//! wrongly typed. Only top-level string fields are read; a field that is not
//! a plausible id, path or label is left out rather than mangled into one.

use serde_json::{Map, Value};
use wta_protocol::PaneId;
use wta_protocol::agent_sessions::{HookCli, HookEvent, HookEventKind, MAX_HOOK_TEXT_CHARS};

/// The longest session id kept (CLIs use UUIDs and short ids).
pub const MAX_SESSION_ID_CHARS: usize = 128;
/// The longest cwd kept, in bytes (PATH_MAX).
pub const MAX_CWD_BYTES: usize = 4096;

const SESSION_ID_KEYS: &[&str] = &["session_id", "sessionId", "sessionID"];
const CWD_KEYS: &[&str] = &["cwd"];
const TOOL_KEYS: &[&str] = &["tool_name", "toolName", "tool"];
const MESSAGE_KEYS: &[&str] = &["message"];

fn first_str<'a>(obj: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
}

/// `text` on one line (control characters and runs of whitespace become one
/// space), trimmed and cut to `max` characters; `None` when nothing is left.
pub fn one_line(text: &str, max: usize) -> Option<String> {
    let mut out = String::new();
    let mut count = 0;
    for word in text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
    {
        if count > 0 {
            if count == max {
                break;
            }
            out.push(' ');
            count += 1;
        }
        for c in word.chars() {
            if count == max {
                break;
            }
            out.push(c);
            count += 1;
        }
    }
    (!out.is_empty()).then_some(out)
}

fn session_id(text: &str) -> Option<String> {
    let text = text.trim();
    let ok = !text.is_empty()
        && text.chars().count() <= MAX_SESSION_ID_CHARS
        && text.chars().all(|c| c.is_ascii_graphic());
    ok.then(|| text.to_owned())
}

fn cwd(text: &str) -> Option<String> {
    let ok =
        text.starts_with('/') && text.len() <= MAX_CWD_BYTES && !text.chars().any(char::is_control);
    ok.then(|| text.to_owned())
}

/// The event `cli`'s hook for `event` reports, from its stdin `payload`.
pub fn extract(
    cli: HookCli,
    event: HookEventKind,
    pane: Option<PaneId>,
    payload: &[u8],
) -> HookEvent {
    let parsed: Option<Value> = serde_json::from_slice(payload).ok();
    let empty = Map::new();
    let obj = parsed.as_ref().and_then(Value::as_object).unwrap_or(&empty);
    HookEvent {
        cli,
        event,
        pane,
        session_id: first_str(obj, SESSION_ID_KEYS).and_then(session_id),
        cwd: first_str(obj, CWD_KEYS).and_then(cwd),
        tool: first_str(obj, TOOL_KEYS).and_then(|t| one_line(t, MAX_HOOK_TEXT_CHARS)),
        message: match event {
            HookEventKind::Notification => {
                first_str(obj, MESSAGE_KEYS).and_then(|m| one_line(m, MAX_HOOK_TEXT_CHARS))
            }
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn pane() -> Option<PaneId> {
        PaneId::parse("%7").ok()
    }

    #[test]
    fn claude_keeps_ids_and_drops_the_prompt() {
        let payload = json!({
            "session_id": "abc-123", "cwd": "/work/x", "hook_event_name": "UserPromptSubmit",
            "prompt": "my secret plan", "transcript_path": "/home/u/.claude/t.jsonl"
        });
        let e = extract(
            HookCli::Claude,
            HookEventKind::PromptSubmit,
            pane(),
            payload.to_string().as_bytes(),
        );
        assert_eq!(
            e,
            HookEvent {
                cli: HookCli::Claude,
                event: HookEventKind::PromptSubmit,
                pane: pane(),
                session_id: Some("abc-123".into()),
                cwd: Some("/work/x".into()),
                tool: None,
                message: None,
            }
        );
    }

    #[test]
    fn camel_case_payloads_and_tools() {
        let payload = json!({"sessionId": "s1", "cwd": "/w", "toolName": "bash",
            "toolArgs": {"command": "rm -rf /"}, "toolResult": "lots"});
        let e = extract(
            HookCli::Copilot,
            HookEventKind::ToolStarting,
            None,
            payload.to_string().as_bytes(),
        );
        assert_eq!(e.session_id.as_deref(), Some("s1"));
        assert_eq!(e.tool.as_deref(), Some("bash"));
        let text = serde_json::to_string(&e).unwrap();
        assert!(!text.contains("rm -rf") && !text.contains("lots"), "{text}");
        let gemini = json!({"session_id": "g", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
        let e = extract(
            HookCli::Gemini,
            HookEventKind::ToolStarting,
            None,
            gemini.to_string().as_bytes(),
        );
        assert_eq!(e.tool.as_deref(), Some("run_shell_command"));
    }

    #[test]
    fn a_notification_keeps_one_short_line() {
        let long = format!("Claude needs\nyour permission {}", "x".repeat(500));
        let payload = json!({"session_id": "s", "message": long});
        let e = extract(
            HookCli::Claude,
            HookEventKind::Notification,
            None,
            payload.to_string().as_bytes(),
        );
        let m = e.message.unwrap();
        assert!(m.starts_with("Claude needs your permission x"), "{m}");
        assert_eq!(m.chars().count(), MAX_HOOK_TEXT_CHARS);
        // Only a notification carries a message.
        let e = extract(
            HookCli::Claude,
            HookEventKind::Stop,
            None,
            payload.to_string().as_bytes(),
        );
        assert_eq!(e.message, None);
    }

    #[test]
    fn junk_gives_an_event_without_fields() {
        for junk in [
            &b""[..],
            b"not json",
            b"[1,2]",
            b"{\"session_id\": 5}",
            b"\xff\xfe",
            b"{\"cwd\": \"relative\"}",
        ] {
            let e = extract(HookCli::Codex, HookEventKind::Stop, pane(), junk);
            assert_eq!(
                (e.session_id, e.cwd, e.tool, e.message),
                (None, None, None, None)
            );
            assert_eq!(e.pane, pane());
        }
        let bad_id = json!({"session_id": "has space", "cwd": "/a\nb"});
        let e = extract(
            HookCli::Codex,
            HookEventKind::Stop,
            None,
            bad_id.to_string().as_bytes(),
        );
        assert_eq!((e.session_id, e.cwd), (None, None));
    }

    #[test]
    fn one_line_cuts_by_characters() {
        assert_eq!(one_line("  a \t b\r\n c ", 10).as_deref(), Some("a b c"));
        assert_eq!(one_line("ééééé", 3).as_deref(), Some("ééé"));
        assert_eq!(one_line("ab cd", 3).as_deref(), Some("ab "));
        assert_eq!(one_line(" \n ", 3), None);
    }

    const SECRET: &str = "SECRET-PROMPT-7f3a";

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "\\PC{0,40}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map("[a-zA-Z_]{1,12}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn no_input_panics(bytes in prop::collection::vec(any::<u8>(), 0..512), k in 0..7usize) {
            let kind = HookEventKind::ALL[k];
            let e = extract(HookCli::Claude, kind, None, &bytes);
            prop_assert!(e.message.as_ref().is_none_or(|m| m.chars().count() <= MAX_HOOK_TEXT_CHARS));
        }

        #[test]
        fn the_prompt_and_tool_io_never_reach_the_event(
            base in any_json(),
            k in 0..7usize,
            c in 0..5usize,
            tool in "[a-z_]{0,20}",
        ) {
            let mut obj = match base { Value::Object(m) => m, other => {
                let mut m = Map::new();
                m.insert("other".into(), other);
                m
            }};
            for key in ["prompt", "tool_input", "toolArgs", "tool_response", "toolResult", "transcript"] {
                obj.insert(key.into(), Value::from(format!("{SECRET} {key}")));
            }
            obj.insert("tool_name".into(), Value::from(tool));
            let payload = Value::Object(obj).to_string();
            let e = extract(HookCli::ALL[c], HookEventKind::ALL[k], None, payload.as_bytes());
            let wire = serde_json::to_string(&e).unwrap();
            prop_assert!(!wire.contains(SECRET), "{}", wire);
        }
    }
}
