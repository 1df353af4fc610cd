//! Classification over each CLI's whole sample log (the sequence of statuses
//! with their tools and ids), single-record rows for the edges, and proptests
//! over any string or JSON value (what is classified, and when).

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Value, json};
use wta_protocol::agent_sessions::{AgentStatus, HookCli, MAX_HOOK_TEXT_CHARS};

use super::{LogSignal, classify, is_codex_subagent_fork, is_user_input_tool};

use AgentStatus::{Attention, Error, Idle, Working};

pub(super) fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/session_logs")
        .join(rel)
}

pub(super) const CLAUDE: &str =
    "claude/-home-ada-src-demo/5b0c1f5e-8a51-4b8e-9a0e-2d6c7f1e3a44.jsonl";
pub(super) const COPILOT: &str = "copilot/2f8e6a1c-54b7-4d0e-8c3a-9b1d7e2f4a60/events.jsonl";
pub(super) const CODEX: &str =
    "codex/2025/06/14/rollout-2025-06-14T10-22-31-0197a6b2-3c4d-7e8f-9a0b-1c2d3e4f5a6b.jsonl";
pub(super) const CODEX_FORK: &str =
    "codex/2025/06/14/rollout-2025-06-14T10-40-02-0197a6c4-1a2b-7c3d-8e4f-5a6b7c8d9e0f.jsonl";
pub(super) const GEMINI: &str = "gemini/9c1e4b7a2d5f8e3c6b0a1d4e7f2a5c8b3e6d9f0a1b4c7e2d5f8a3b6c9e0d1f4a/chats/session-2025-06-14T12-10-3b44bc68.jsonl";

fn signals(cli: HookCli, rel: &str) -> Vec<LogSignal> {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    text.lines()
        .filter_map(|line| classify(cli, line))
        .collect()
}

/// (status, tool) per signal.
fn statuses(signals: &[LogSignal]) -> Vec<(AgentStatus, Option<&str>)> {
    signals
        .iter()
        .map(|s| (s.status, s.tool.as_deref()))
        .collect()
}

#[test]
fn claude_sample_gives_its_turns_in_order() {
    let got = signals(HookCli::Claude, CLAUDE);
    assert_eq!(
        statuses(&got),
        vec![
            (Working, None),                      // the prompt
            (Working, Some("Bash")),              // stop_reason tool_use
            (Attention, Some("AskUserQuestion")), // a question to the user
            (Idle, None),                         // end_turn (the null-stop text block is skipped)
            (Working, None),                      // next prompt (meta and local command skipped)
            (Idle, None),                         // interrupted (the sidechain end_turn is skipped)
            (Error, None),                        // isApiErrorMessage
        ]
    );
    for signal in &got {
        assert_eq!(
            signal.session_id.as_deref(),
            Some("5b0c1f5e-8a51-4b8e-9a0e-2d6c7f1e3a44")
        );
        assert_eq!(signal.cwd.as_deref(), Some("/home/ada/src/demo"));
        assert_eq!(signal.title, None);
    }
}

#[test]
fn copilot_sample_gives_its_turns_in_order() {
    let got = signals(HookCli::Copilot, COPILOT);
    assert_eq!(
        statuses(&got),
        vec![
            (Idle, None), // session.start
            (Working, None),
            (Working, Some("bash")),
            (Attention, Some("bash")),
            (Idle, None),
            (Working, None),
            (Error, None),
        ]
    );
    assert_eq!(
        got[0].session_id.as_deref(),
        Some("2f8e6a1c-54b7-4d0e-8c3a-9b1d7e2f4a60")
    );
    assert_eq!(got[0].cwd.as_deref(), Some("/home/ada/src/demo"));
}

#[test]
fn codex_sample_gives_its_turns_in_order() {
    let got = signals(HookCli::Codex, CODEX);
    assert_eq!(
        statuses(&got),
        vec![
            (Idle, None), // session_meta
            (Working, None),
            (Working, Some("shell")),
            (Attention, Some("shell")), // require_escalated
            (Working, Some("apply_patch")),
            (Idle, None), // task_complete
            (Working, None),
            (Idle, None), // turn_aborted
        ]
    );
    assert_eq!(
        got[0].session_id.as_deref(),
        Some("0197a6b2-3c4d-7e8f-9a0b-1c2d3e4f5a6b")
    );
    assert_eq!(got[0].cwd.as_deref(), Some("/home/ada/src/demo"));
}

#[test]
fn codex_fork_is_told_by_its_first_record_only() {
    let text = std::fs::read_to_string(fixture(CODEX_FORK)).unwrap();
    let mut lines = text.lines();
    let meta = lines.next().unwrap();
    assert!(is_codex_subagent_fork(meta));
    assert_eq!(classify(HookCli::Codex, meta), None);
    // Later records do not say they are a fork: SessionLog drops them.
    assert!(lines.any(|l| classify(HookCli::Codex, l).is_some()));
    let main = std::fs::read_to_string(fixture(CODEX)).unwrap();
    assert!(!main.lines().any(is_codex_subagent_fork));
}

#[test]
fn codex_fork_spellings() {
    for source in [
        json!({"subagent": "review"}),
        json!({"subagent": {"thread_spawn": {"parent_thread_id": "p", "depth": 1}}}),
        json!({"subagent": {"other": "guardian"}}),
        json!("subagent"),
    ] {
        let line = json!({"type":"session_meta","payload":{"id":"c","source":source}}).to_string();
        assert!(is_codex_subagent_fork(&line), "{line}");
    }
    let by_thread = json!({"type":"session_meta","payload":{"id":"c","thread_source":"subagent"}});
    assert!(is_codex_subagent_fork(&by_thread.to_string()));
    for source in [
        json!("cli"),
        json!("vscode"),
        json!("exec"),
        json!({"mcp": 1}),
    ] {
        let line = json!({"type":"session_meta","payload":{"id":"c","source":source}}).to_string();
        assert!(!is_codex_subagent_fork(&line), "{line}");
    }
    let not_meta = json!({"type":"event_msg","payload":{"source":{"subagent":"review"}}});
    assert!(!is_codex_subagent_fork(&not_meta.to_string()));
}

#[test]
fn gemini_sample_is_working_only_with_attention() {
    let got = signals(HookCli::Gemini, GEMINI);
    assert_eq!(
        statuses(&got),
        vec![
            (Idle, None), // the header
            (Working, None),
            (Working, Some("read_file")),
            (Attention, Some("run_shell_command")), // awaiting_approval
            (Attention, Some("ask_user")),
            (Working, None), // a reply: no turn end exists ($set, info, /stats skipped)
            (Working, None),
            (Error, None),
        ]
    );
    assert_eq!(
        got[0].session_id.as_deref(),
        Some("3b44bc68-9d2e-4f1a-b6c0-7e5d4a3b2c1f")
    );
}

#[test]
fn opencode_classifies_nothing() {
    for rel in [CLAUDE, COPILOT, CODEX, GEMINI] {
        assert!(signals(HookCli::Opencode, rel).is_empty(), "{rel}");
    }
}

#[test]
fn a_cli_does_not_read_another_clis_records() {
    // Each sample's records mean nothing (or far less) to the other
    // classifiers: the shapes do not overlap.
    for (cli, rel) in [
        (HookCli::Claude, COPILOT),
        (HookCli::Claude, CODEX),
        (HookCli::Claude, GEMINI),
        (HookCli::Copilot, CLAUDE),
        (HookCli::Copilot, CODEX),
        (HookCli::Copilot, GEMINI),
        (HookCli::Codex, CLAUDE),
        (HookCli::Codex, COPILOT),
        (HookCli::Codex, GEMINI),
        (HookCli::Gemini, COPILOT),
        (HookCli::Gemini, CODEX),
    ] {
        assert!(signals(cli, rel).is_empty(), "{cli:?} on {rel}");
    }
}

/// The status and tool a row expects.
type Expect = (AgentStatus, Option<&'static str>);

#[test]
fn edge_rows() {
    let long = "x".repeat(MAX_HOOK_TEXT_CHARS * 3);
    let rows: Vec<(HookCli, Value, Option<Expect>)> = vec![
        // Claude: a stop reason of an unexpected type says nothing.
        (
            HookCli::Claude,
            json!({"type":"assistant","message":{"stop_reason":7}}),
            None,
        ),
        (
            HookCli::Claude,
            json!({"type":"assistant","message":{"stop_reason":"max_tokens"}}),
            Some((Idle, None)),
        ),
        // A streamed tool_use block before the stop reason is known.
        (
            HookCli::Claude,
            json!({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit"}]}}),
            Some((Working, Some("Edit"))),
        ),
        (HookCli::Claude, json!({"type":"user"}), None),
        (
            HookCli::Claude,
            json!({"type":"user","message":{"content":42}}),
            None,
        ),
        // An MCP-qualified user-input tool.
        (
            HookCli::Claude,
            json!({"type":"assistant","message":{"stop_reason":"tool_use","content":[{"type":"tool_use","name":"mcp__wta__request_user_input"}]}}),
            Some((Attention, Some("mcp__wta__request_user_input"))),
        ),
        (
            HookCli::Copilot,
            json!({"type":"tool.execution_start","data":{"toolName":"ask_user"}}),
            Some((Attention, Some("ask_user"))),
        ),
        (HookCli::Copilot, json!({"type":"session.start"}), None),
        (
            HookCli::Codex,
            json!({"type":"event_msg","payload":{"type":"exec_approval_request"}}),
            Some((Attention, None)),
        ),
        (
            HookCli::Codex,
            json!({"type":"event_msg","payload":{"type":"turn_started"}}),
            Some((Working, None)),
        ),
        (
            HookCli::Codex,
            json!({"type":"event_msg","payload":{"type":"error","message":"boom"}}),
            Some((Error, None)),
        ),
        (HookCli::Codex, json!({"type":"event_msg"}), None),
        // The older escalation flag, and arguments that are not JSON.
        (
            HookCli::Codex,
            json!({"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"with_escalated_permissions\":true}"}}),
            Some((Attention, Some("shell"))),
        ),
        (
            HookCli::Codex,
            json!({"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{not json"}}),
            Some((Working, Some("shell"))),
        ),
        (
            HookCli::Codex,
            json!({"type":"response_item","payload":{"type":"message"}}),
            None,
        ),
        // An answered ask_user no longer waits.
        (
            HookCli::Gemini,
            json!({"type":"gemini","toolCalls":[{"name":"ask_user","status":"success"}]}),
            Some((Working, Some("ask_user"))),
        ),
        (
            HookCli::Gemini,
            json!({"$set":{"messages":[{"type":"user"}]}}),
            None,
        ),
        (HookCli::Gemini, json!({"sessionId":"s"}), None),
        (HookCli::Gemini, json!({"type":"warning"}), None),
    ];
    for (cli, record, want) in rows {
        let got = classify(cli, &record.to_string());
        let got = got.as_ref().map(|s| (s.status, s.tool.as_deref()));
        assert_eq!(got, want, "{cli:?} {record}");
    }

    // Long strings from a record are cut.
    let record = json!({"type":"assistant","sessionId":long,"message":{"stop_reason":"tool_use","content":[{"type":"tool_use","name":long}]}});
    let got = classify(HookCli::Claude, &record.to_string()).unwrap();
    assert_eq!(got.tool.unwrap().chars().count(), MAX_HOOK_TEXT_CHARS);
    assert_eq!(got.session_id.unwrap().chars().count(), MAX_HOOK_TEXT_CHARS);
    let cwd = "é".repeat(5000);
    let record = json!({"type":"session_meta","payload":{"id":"i","cwd":cwd}});
    let got = classify(HookCli::Codex, &record.to_string()).unwrap();
    assert!(got.cwd.unwrap().len() <= 4096);
}

#[test]
fn malformed_lines_say_nothing() {
    for cli in HookCli::ALL {
        for line in [
            "",
            "   ",
            "{",
            "null",
            "[]",
            "\"type\"",
            "{\"type\":",
            "42",
            "{}",
        ] {
            assert_eq!(classify(cli, line), None, "{cli:?} {line:?}");
        }
    }
}

#[test]
fn user_input_tools() {
    for name in [
        "AskUserQuestion",
        "ask_user",
        "request_user_input",
        "mcp__x__request_user_input",
        "intellterm_0a/request_user_input",
    ] {
        assert!(is_user_input_tool(name), "{name}");
    }
    for name in ["Bash", "ask", "user", "", "request_user_input_x"] {
        assert!(!is_user_input_tool(name), "{name}");
    }
}

/// JSON values built from the keys and words the classifiers look at, so the
/// deep paths are reached, not only the `None` at the top.
fn json_value() -> impl Strategy<Value = Value> {
    const WORDS: &[&str] = &[
        "type",
        "user",
        "assistant",
        "message",
        "content",
        "stop_reason",
        "tool_use",
        "tool_result",
        "text",
        "name",
        "sessionId",
        "cwd",
        "isSidechain",
        "isMeta",
        "isApiErrorMessage",
        "data",
        "toolName",
        "session.start",
        "assistant.turn_start",
        "tool.execution_start",
        "context",
        "payload",
        "session_meta",
        "event_msg",
        "response_item",
        "function_call",
        "arguments",
        "source",
        "subagent",
        "task_started",
        "id",
        "$set",
        "startTime",
        "gemini",
        "toolCalls",
        "status",
        "awaiting_approval",
        "ask_user",
        "AskUserQuestion",
    ];
    let word = proptest::sample::select(WORDS).prop_map(str::to_owned);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        word.clone().prop_map(Value::from),
        ".*".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((word.clone(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

fn any_cli() -> impl Strategy<Value = HookCli> {
    proptest::sample::select(HookCli::ALL.to_vec())
}

/// A classified record's texts stay within the hook limit.
fn bounded(signal: &LogSignal) -> bool {
    let short = |t: &Option<String>| {
        t.as_ref()
            .is_none_or(|t| t.chars().count() <= MAX_HOOK_TEXT_CHARS)
    };
    matches!(signal.status, Working | Idle | Attention | Error)
        && short(&signal.tool)
        && short(&signal.session_id)
}

proptest! {
    /// A line is classified only when it is a JSON object (and never for
    /// opencode), the same whatever blanks surround it; only a JSON
    /// `session_meta` record can be a subagent's fork.
    #[test]
    fn only_json_objects_are_classified_whatever_blanks_surround_them(
        cli in any_cli(),
        line in prop_oneof![".*", json_value().prop_map(|v| v.to_string())],
    ) {
        let parsed = serde_json::from_str::<Value>(line.trim()).ok();
        let object = parsed.as_ref().is_some_and(Value::is_object);
        let signal = classify(cli, &line);
        if !object || cli == HookCli::Opencode {
            prop_assert_eq!(&signal, &None);
        }
        prop_assert_eq!(classify(cli, &format!(" \t{line}\n")), signal);
        if is_codex_subagent_fork(&line) {
            prop_assert_eq!(parsed.as_ref().and_then(|v| v["type"].as_str()), Some("session_meta"));
        }
    }

    /// Whether a tool asks the user depends only on its name's last
    /// segment (after `/`, `.` or `__`).
    #[test]
    fn a_tool_asks_the_user_by_its_last_name_segment_only(
        prefix in "[a-z_/.]{0,12}",
        sep in prop_oneof![Just("/"), Just("."), Just("__")],
        name in prop_oneof![
            proptest::sample::select(
                &["AskUserQuestion", "ask_user", "request_user_input", "user_input", "run_command"][..]
            ).prop_map(str::to_owned),
            "[a-zA-Z_]{1,12}",
        ],
    ) {
        prop_assert_eq!(is_user_input_tool(&format!("{prefix}{sep}{name}")), is_user_input_tool(&name));
    }

    /// Any JSON record, bare or wrapped as the CLIs wrap records: what is
    /// classified is within the limits, and only a `session_meta` record's
    /// `payload` can make a subagent's fork.
    #[test]
    fn classified_json_is_bounded_and_only_session_meta_forks(cli in any_cli(), value in json_value()) {
        let line = value.to_string();
        if let Some(signal) = classify(cli, &line) {
            prop_assert!(bounded(&signal), "{:?}", signal);
        }
        for wrapper in ["message", "payload", "data"] {
            for kind in ["user", "assistant", "event_msg", "response_item", "session_meta", "gemini"] {
                let wrapped = json!({"type": kind, wrapper: value.clone()}).to_string();
                if let Some(signal) = classify(cli, &wrapped) {
                    prop_assert!(bounded(&signal), "{:?}", signal);
                }
                if is_codex_subagent_fork(&wrapped) {
                    prop_assert_eq!((kind, wrapper), ("session_meta", "payload"));
                }
            }
        }
    }
}
