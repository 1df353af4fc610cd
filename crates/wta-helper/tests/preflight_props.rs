//! Properties of the permission preflight (DESIGN §4.2): a permission
//! request is allowed and armed only when its command is exactly the
//! canonical invocation for the live channel, built here with
//! `wta_protocol::build_invocation`, never a mutation of it (extra
//! arguments, pipes, redirects, here-docs, other spellings of the binary,
//! whitespace, another channel, other quoting), whatever shape the tool call
//! JSON takes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Value, json};
use wta_helper::proposals::Preflight;
use wta_helper::proposals::preflight::preflight;
use wta_protocol::invocation::INVOCATION_PREFIX;
use wta_protocol::{Channel, HelperId, TurnNonce, build_invocation};

/// The session's own MCP server: present, so no shape of a proposal command
/// is mistaken for one of its tools.
const SERVER: &str = "wta_0123456789abcdef0123";

fn channel() -> impl Strategy<Value = Channel> {
    (any::<[u8; 16]>(), any::<[u8; 16]>())
        .prop_map(|(h, n)| Channel::new(HelperId::from_bytes(h), TurnNonce::from_bytes(n)))
}

/// Payloads the canonical form can carry: non-empty, no control characters;
/// quotes, backslashes, `$`, backticks and unicode are all fair.
fn payload() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{1,120}",
        "[{}\":,a-z0-9 '\\\\$`|;&<>()*]{1,80}",
        Just(r#"{"schema_version":1,"it's":"a 'quoted' value"}"#.to_owned()),
    ]
}

/// The envelopes real agents use for one command string (claude, copilot,
/// codex with two shells, gemini).
fn shapes(command: &str) -> Vec<Value> {
    vec![
        json!({"kind": "execute", "title": "Run", "rawInput": {"command": command, "description": "d"}}),
        json!({"kind": "execute", "rawInput": {"command": command, "commands": [command]}}),
        json!({"kind": "execute", "rawInput": {"command": ["/bin/bash", "-lc", command]}}),
        json!({"kind": "execute", "rawInput": {"command": ["sh", "-c", command]}}),
        json!({"kind": "execute", "title": command}),
    ]
}

/// One way to change the canonical command's bytes outside its payload (or
/// its quoting), each of which a shell would run differently or which
/// spells the invocation differently.
#[derive(Debug, Clone)]
enum Mutation {
    Append(&'static str),
    Prepend(&'static str),
    Binary(&'static str),
    /// Insert this character at this byte offset of the part before the payload.
    InsertInPrefix(usize, char),
    /// Delete the character at this byte offset of the part before the payload.
    DeleteInPrefix(usize),
    /// The payload in double quotes.
    DoubleQuoted,
    /// `'` in the payload written as `'"'"'` instead of `'\''`.
    OtherQuoteEscape,
    /// The closing quote removed.
    Unclosed,
    /// `--payload-json=<quoted>` instead of two words.
    EqualsFlag,
    /// Another channel (still well-formed).
    OtherChannel(Channel),
    Uppercase,
}

const APPENDS: [&str; 16] = [
    " --extra",
    " x",
    " | cat",
    " | sh",
    "; rm -rf ~",
    " && echo ok",
    " || true",
    " &",
    " > /tmp/out",
    " 2>&1",
    " < /dev/null",
    " <<'EOF'\nhi\nEOF",
    "\n",
    " ",
    "\t",
    " $(id)",
];
const PREPENDS: [&str; 9] = [
    "X=1 ", "cat f | ", "true && ", " ", "exec ", "command ", "env ", "sudo ", "`id`",
];
const BINARIES: [&str; 9] = [
    "$WTA_CLI_PATH",
    "'$WTA_CLI_PATH'",
    "\"${WTA_CLI_PATH}\"",
    "${WTA_CLI_PATH}",
    "wta",
    "/usr/bin/wta",
    "\"$WTA_CLI_PATH\" ",
    "\"$WTA_CLI_PATH\"\t",
    "\"$WTA_CLI_PATH \"",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        proptest::sample::select(APPENDS.to_vec()).prop_map(Mutation::Append),
        proptest::sample::select(PREPENDS.to_vec()).prop_map(Mutation::Prepend),
        proptest::sample::select(BINARIES.to_vec()).prop_map(Mutation::Binary),
        (
            any::<usize>(),
            prop_oneof![
                Just(' '),
                Just('\t'),
                Just('x'),
                Just('\''),
                Just('"'),
                Just('a'),
                Just('-')
            ]
        )
            .prop_map(|(i, c)| Mutation::InsertInPrefix(i, c)),
        any::<usize>().prop_map(Mutation::DeleteInPrefix),
        Just(Mutation::DoubleQuoted),
        Just(Mutation::OtherQuoteEscape),
        Just(Mutation::Unclosed),
        Just(Mutation::EqualsFlag),
        channel().prop_map(Mutation::OtherChannel),
        Just(Mutation::Uppercase),
    ]
}

/// The part of the canonical command before its quoted payload.
fn prefix(live: &Channel) -> String {
    format!("{INVOCATION_PREFIX}{live} --payload-json ")
}

fn char_boundary_at(text: &str, i: usize) -> usize {
    let mut i = i % (text.len() + 1);
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(m: &Mutation, live: &Channel, payload: &str) -> String {
    let canonical = build_invocation(live, payload);
    let head = prefix(live);
    let quoted = &canonical[head.len()..];
    match m {
        Mutation::Append(s) => format!("{canonical}{s}"),
        Mutation::Prepend(s) => format!("{s}{canonical}"),
        Mutation::Binary(b) => canonical.replacen("\"$WTA_CLI_PATH\"", b, 1),
        Mutation::InsertInPrefix(i, c) => {
            let mut head = head.clone();
            head.insert(char_boundary_at(&head, *i), *c);
            format!("{head}{quoted}")
        }
        Mutation::DeleteInPrefix(i) => {
            let mut head = head.clone();
            let at = char_boundary_at(&head, *i).min(head.len() - 1);
            head.remove(at);
            format!("{head}{quoted}")
        }
        Mutation::DoubleQuoted => format!("{head}\"{payload}\""),
        Mutation::OtherQuoteEscape => format!("{head}'{}'", payload.replace('\'', "'\"'\"'")),
        Mutation::Unclosed => canonical[..canonical.len() - 1].to_owned(),
        Mutation::EqualsFlag => canonical.replacen("--payload-json ", "--payload-json=", 1),
        Mutation::OtherChannel(other) => build_invocation(other, payload),
        Mutation::Uppercase => {
            canonical.replacen("propose-terminal-actions", "Propose-Terminal-Actions", 1)
        }
    }
}

fn armed(decision: &Preflight) -> bool {
    matches!(decision, Preflight::AllowAndArm { .. })
}

/// Every string inside `value`, at any depth.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings(v, out);
        }),
        _ => {}
    }
}

/// Random tool call JSON: known keys and shapes mixed with junk, strings
/// drawn from the canonical command, its mutations and noise.
fn tool_call(pool: Vec<String>) -> impl Strategy<Value = Value> {
    let text = prop_oneof![
        3 => proptest::sample::select(pool),
        1 => "\\PC{0,24}",
        1 => proptest::sample::select(vec![
            "execute".to_owned(), "edit".to_owned(), "read".to_owned(),
            "/bin/bash".to_owned(), "-lc".to_owned(), "-c".to_owned(), "sh".to_owned(),
        ]),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        text.prop_map(Value::String),
    ];
    let key = proptest::sample::select(vec![
        "kind",
        "rawInput",
        "command",
        "commands",
        "title",
        "description",
        "toolCallId",
        "content",
        "_meta",
        "x",
    ]);
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(key.clone(), inner, 0..5).prop_map(|m| Value::Object(
                m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_canonical_command_for_the_live_channel_arms_in_every_shape(
        live in channel(),
        payload in payload(),
    ) {
        let canonical = build_invocation(&live, &payload);
        for shape in shapes(&canonical) {
            prop_assert_eq!(
                preflight(Some(&live), Some(SERVER), &shape),
                Preflight::AllowAndArm { channel: live, payload: payload.clone() },
                "{}", shape
            );
        }
        // Not live (no turn, or another turn): never armed.
        let other = Channel::new(live.helper(), TurnNonce::from_bytes([0xee; 16]));
        prop_assume!(other != live);
        for shape in shapes(&canonical) {
            prop_assert!(!armed(&preflight(None, Some(SERVER), &shape)), "{}", shape);
            prop_assert!(!armed(&preflight(Some(&other), Some(SERVER), &shape)), "{}", shape);
        }
    }

    #[test]
    fn a_mutated_command_is_never_armed_and_is_cancelled_silently(
        live in channel(),
        payload in payload(),
        m in mutation(),
    ) {
        let canonical = build_invocation(&live, &payload);
        let mutated = apply(&m, &live, &payload);
        prop_assume!(mutated != canonical);
        // A mutation that quotes the payload another way can, for a payload
        // without `'`, produce the same bytes: excluded above. Anything else
        // changes the bytes and must never be allowed.
        for shape in shapes(&mutated) {
            let decision = preflight(Some(&live), Some(SERVER), &shape);
            prop_assert!(
                !armed(&decision),
                "{:?} armed {:?}", m, mutated
            );
        }
        let claude = json!({"kind": "execute", "rawInput": {"command": mutated}});
        prop_assert!(
            matches!(preflight(Some(&live), Some(SERVER), &claude), Preflight::SilentCancel { .. }),
            "{:?}: {:?} -> {:?}", m, mutated, preflight(Some(&live), Some(SERVER), &claude)
        );
    }

    #[test]
    fn random_tool_calls_arm_only_what_they_hold_exactly(
        (live, payload, value) in (channel(), payload(), proptest::collection::vec(mutation(), 4))
            .prop_flat_map(|(live, payload, ms)| {
                let canonical = build_invocation(&live, &payload);
                let mut pool: Vec<String> = ms.iter().map(|m| apply(m, &live, &payload)).collect();
                pool.push(canonical);
                pool.push(payload.clone());
                (Just(live), Just(payload), tool_call(pool))
            }),
    ) {
        let decision = preflight(Some(&live), Some(SERVER), &value);
        if let Preflight::AllowAndArm { channel, payload: armed } = decision {
            prop_assert_eq!(channel, live);
            // What was armed is a canonical command for the live channel
            // that the tool call holds verbatim (gemini's title may follow
            // it with its own suffix).
            let expected = build_invocation(&live, &armed);
            let mut held = Vec::new();
            strings(&value, &mut held);
            prop_assert!(held.iter().any(|s| s.starts_with(&expected)), "{}", value);
            prop_assert_eq!(armed, payload);
        }
    }

    #[test]
    fn the_canonical_command_beside_another_one_that_runs_is_never_armed(
        live in channel(),
        payload in payload(),
        runs in prop_oneof![Just("ls -la".to_owned()), "\\PC{0,40}"],
    ) {
        let canonical = build_invocation(&live, &payload);
        prop_assume!(runs != canonical);
        let calls = [
            json!({"kind": "execute", "title": canonical, "rawInput": {"command": runs}}),
            json!({"kind": "execute", "rawInput": {"command": runs, "description": canonical}}),
            json!({"kind": "execute", "rawInput": {"command": runs, "commands": [canonical]}}),
            json!({"kind": "execute", "rawInput": {"command": canonical, "commands": [runs]}}),
            json!({"kind": "execute", "rawInput": {"command": [canonical, "-lc", runs]}}),
            json!({"kind": "execute", "rawInput": {"command": ["/bin/bash", "-lc", runs, canonical]}}),
            json!({"kind": "execute", "rawInput": {"command": ["/bin/bash", "-lc", canonical, runs]}}),
            json!({"kind": "execute", "rawInput": {"command": ["python3", "-c", canonical]}}),
            json!({"kind": "edit", "rawInput": {"path": canonical}}),
        ];
        for call in calls {
            prop_assert!(
                !armed(&preflight(Some(&live), Some(SERVER), &call)),
                "{}", call
            );
        }
    }
}
