//! Property tests of the response-line decoder (`ResponseLine::from_frame`)
//! as its readers use it, the CLI on its socket and the transcript on a
//! tool call's output: every typed line of every phase round-trips through
//! its own encoding, and any text decodes to an error or to a line of one of
//! the five phases, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::Value;
use wta_protocol::limits::MAX_RESPONSE_LINE_BYTES;
use wta_protocol::{
    Channel, EndLine, ExecutionId, ExecutionLine, ExecutionStatus, FinalLine, FinalStatus,
    HelperId, NextLine, ProposalId, ResponseLine, TurnNonce, ValidationLine, ValidationStatus,
    build_invocation,
};

const PHASES: [&str; 5] = ["validation", "final", "execution", "next", "end"];

/// Text with the characters JSON and terminals care about.
fn text(max: usize) -> impl Strategy<Value = String> {
    let c = prop_oneof![
        Just('"'),
        Just('\\'),
        Just('\n'),
        Just('\r'),
        Just('\u{1b}'),
        Just('{'),
        Just('}'),
        Just('é'),
        Just('界'),
        any::<char>(),
    ];
    proptest::collection::vec(c, 0..max).prop_map(|v| v.into_iter().collect())
}

fn validation() -> impl Strategy<Value = ValidationLine> {
    let refused = proptest::sample::select(&ValidationStatus::ALL[1..]);
    prop_oneof![
        any::<[u8; 16]>().prop_map(|id| ValidationLine::accepted(ProposalId::from_bytes(id))),
        (refused, text(60), any::<bool>())
            .prop_map(|(status, reason, left)| ValidationLine::refused(status, reason, left)),
    ]
}

fn final_line() -> impl Strategy<Value = FinalLine> {
    (
        proptest::sample::select(&FinalStatus::ALL[..]),
        any::<[u8; 16]>(),
        proptest::option::of(1u64..=3),
        proptest::option::of(text(60)),
    )
        .prop_map(|(status, id, choice, reason)| FinalLine {
            status,
            proposal_id: ProposalId::from_bytes(id),
            choice,
            reason,
        })
}

fn execution() -> impl Strategy<Value = ExecutionLine> {
    (
        (
            proptest::sample::select(&ExecutionStatus::ALL[..]),
            any::<[u8; 16]>(),
            any::<[u8; 16]>(),
            1u64..=3,
            proptest::option::of(any::<i32>()),
            proptest::option::of(text(200)),
        ),
        (
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<u64>()),
            proptest::option::of(text(30)),
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<bool>()),
            proptest::option::of(text(60)),
        ),
    )
        .prop_map(
            |(
                (status, proposal, execution, action, exit_code, output),
                (truncated, duration_ms, cwd, still_running, interactive, interrupted, reason),
            )| {
                let mut line = ExecutionLine::new(
                    status,
                    ProposalId::from_bytes(proposal),
                    ExecutionId::from_bytes(execution),
                    action,
                );
                line.exit_code = exit_code;
                line.output = output;
                line.truncated = truncated;
                line.duration_ms = duration_ms;
                line.cwd = cwd;
                line.still_running = still_running;
                line.interactive = interactive;
                line.interrupted = interrupted;
                line.reason = reason;
                line
            },
        )
}

fn next() -> impl Strategy<Value = NextLine> {
    (any::<[u8; 16]>(), any::<[u8; 16]>(), any::<u32>()).prop_map(|(h, n, remaining)| {
        let channel = Channel::new(HelperId::from_bytes(h), TurnNonce::from_bytes(n));
        NextLine {
            invocation: build_invocation(&channel, "<compact-json-payload>"),
            channel,
            remaining,
        }
    })
}

fn response_line() -> impl Strategy<Value = ResponseLine> {
    prop_oneof![
        validation().prop_map(ResponseLine::Validation),
        final_line().prop_map(ResponseLine::Final),
        execution().prop_map(ResponseLine::Execution),
        next().prop_map(ResponseLine::Next),
        text(80).prop_map(|reason| ResponseLine::End(EndLine { reason })),
    ]
}

/// A line as a transcript may hold it: noise, a valid line's text with a few
/// characters changed, or JSON with a `phase` and fields of any kind.
fn any_line() -> impl Strategy<Value = String> {
    let edited = (
        response_line(),
        proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<char>()), 0..4),
    )
        .prop_map(|(line, edits)| {
            let encoded = String::from_utf8(line.to_line().unwrap()).unwrap();
            let mut chars: Vec<char> = encoded.trim_end().chars().collect();
            for (at, op, c) in edits {
                let i = at.index(chars.len() + 1);
                match op {
                    0 => chars.insert(i, c),
                    1 if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ if i < chars.len() => chars[i] = c,
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect()
        });
    let field = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        text(20).prop_map(Value::from),
        proptest::sample::select(&PHASES[..]).prop_map(Value::from),
    ];
    let key = prop_oneof![
        Just("status".to_owned()),
        Just("reason".to_owned()),
        Just("proposal_id".to_owned()),
        Just("retryable".to_owned()),
        Just("remaining".to_owned()),
        "[a-z_]{1,10}",
    ];
    let tagged = (
        proptest::sample::select(&PHASES[..]),
        proptest::collection::btree_map(key, field, 0..6),
    )
        .prop_map(|(phase, fields)| {
            let mut object: serde_json::Map<String, Value> = fields.into_iter().collect();
            object.insert("phase".into(), phase.into());
            Value::Object(object).to_string()
        });
    prop_oneof![text(200), edited, tagged]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Every typed line encodes to one line under the limit that decodes
    /// back to itself, tagged with its phase.
    #[test]
    fn every_typed_line_round_trips(line in response_line()) {
        let bytes = line.to_line().unwrap();
        prop_assert_eq!(bytes.last(), Some(&b'\n'));
        let frame = &bytes[..bytes.len() - 1];
        prop_assert!(!frame.contains(&b'\n'));
        prop_assert_eq!(ResponseLine::from_frame(frame).unwrap(), line.clone());
        let value: Value = serde_json::from_slice(frame).unwrap();
        let phase = match line {
            ResponseLine::Validation(_) => "validation",
            ResponseLine::Final(_) => "final",
            ResponseLine::Execution(_) => "execution",
            ResponseLine::Next(_) => "next",
            ResponseLine::End(_) => "end",
        };
        prop_assert_eq!(value["phase"].as_str(), Some(phase));
    }

    /// Any text decodes without a panic; what it accepts is a JSON object
    /// under the limit tagged with one of the five phases, and reads back
    /// the same from its own encoding. Anything else is an error.
    #[test]
    fn any_text_is_a_typed_line_or_an_error(line in any_line()) {
        match ResponseLine::from_frame(line.as_bytes()) {
            Ok(typed) => {
                prop_assert!(line.len() <= MAX_RESPONSE_LINE_BYTES);
                let value: Value = serde_json::from_str(&line).unwrap();
                let phase = value["phase"].as_str().unwrap_or_default();
                prop_assert!(PHASES.contains(&phase), "{line}");
                let again = typed.to_line().unwrap();
                prop_assert_eq!(ResponseLine::from_frame(again.trim_ascii_end()).unwrap(), typed);
            }
            Err(err) => prop_assert!(!err.to_string().is_empty()),
        }
    }
}
