//! Property tests of every parser on the trust boundary: channel,
//! invocation, envelope, frame reader, payload schema. Each must never
//! panic, keep memory bounded, and round-trip what it accepts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Value, json};
use wta_protocol::invocation::looks_like_proposal;
use wta_protocol::limits::MAX_PAYLOAD_BYTES;
use wta_protocol::{
    Channel, Extracted, FrameReader, HelperId, Invocation, ProposalPayload, ProposalRequest,
    ProtocolError, ResponseLine, TurnNonce, build_invocation, classify_invocation, extract_command,
    parse_payload,
};

fn channel_strategy() -> impl Strategy<Value = Channel> {
    (any::<[u8; 16]>(), any::<[u8; 16]>())
        .prop_map(|(h, n)| Channel::new(HelperId::from_bytes(h), TurnNonce::from_bytes(n)))
}

/// Strings biased toward the characters that matter to the parsers.
fn tricky_string(max: usize) -> impl Strategy<Value = String> {
    let alphabet = prop_oneof![
        Just('\''),
        Just('\\'),
        Just('"'),
        Just(' '),
        Just('\n'),
        Just('\r'),
        Just('|'),
        Just(';'),
        Just('&'),
        Just('$'),
        Just('('),
        Just(')'),
        Just('`'),
        Just('<'),
        Just('>'),
        Just('['),
        Just(']'),
        Just('.'),
        Just('v'),
        Just('1'),
        Just('a'),
        Just('{'),
        Just('}'),
        Just('é'),
        Just('\u{1b}'),
        any::<char>(),
    ];
    proptest::collection::vec(alphabet, 0..max).prop_map(|v| v.into_iter().collect())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        tricky_string(20).prop_map(Value::from),
        prop_oneof![
            Just("send"),
            Just("open"),
            Just("open_and_send"),
            Just("tab"),
            Just("execute"),
            Just("\"$WTA_CLI_PATH\" propose-terminal-actions"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("type".to_owned()),
                    Just("choices".to_owned()),
                    Just("actions".to_owned()),
                    Just("rawInput".to_owned()),
                    Just("command".to_owned()),
                    Just("kind".to_owned()),
                    Just("title".to_owned()),
                    "[a-z_]{1,8}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every string in `value`, at any depth.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// Noise, or the bytes of a valid payload, request line or response line
/// with up to three bytes inserted, removed or replaced.
fn near_valid_bytes() -> impl Strategy<Value = Vec<u8>> {
    let valid = prop_oneof![
        valid_payload().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        (channel_strategy(), valid_payload()).prop_map(|(ch, v)| {
            let line = ProposalRequest::new(ch, v.to_string()).to_line().unwrap();
            line.trim_ascii_end().to_vec()
        }),
        prop_oneof![
            Just(&include_bytes!("golden/validation_accepted.json")[..]),
            Just(&include_bytes!("golden/final_confirmed.json")[..]),
            Just(&include_bytes!("golden/execution_failed.json")[..]),
            Just(&include_bytes!("golden/next.json")[..]),
            Just(&include_bytes!("golden/end.json")[..]),
        ]
        .prop_map(|line| line.trim_ascii_end().to_vec()),
    ];
    let edits =
        proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 0..4);
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..600),
        (valid, edits).prop_map(|(mut bytes, edits)| {
            for (at, op, byte) in edits {
                let i = at.index(bytes.len() + 1);
                match op {
                    0 => bytes.insert(i, byte),
                    1 if i < bytes.len() => {
                        bytes.remove(i);
                    }
                    _ if i < bytes.len() => bytes[i] = byte,
                    _ => {}
                }
            }
            bytes
        }),
    ]
}

fn valid_payload() -> impl Strategy<Value = Value> {
    // Starts with a visible character: titles and inputs may not be blank.
    let text = "[a-zA-Z0-9'\"|;&$é✓-][a-zA-Z0-9 '\"|;&$é✓-]{0,39}";
    let action = prop_oneof![
        text.prop_map(|input| json!({"type":"send","input":input})),
        (prop_oneof![Just("tab"), Just("panel")], proptest::option::of(text), proptest::option::of(prop_oneof![Just("right"), Just("auto")]))
            .prop_map(|(target, cwd, direction)| {
                let mut v = json!({"type":"open","target":target});
                if let Some(cwd) = cwd { v["cwd"] = json!(cwd); }
                if let Some(d) = direction { v["direction"] = json!(d); }
                v
            }),
        (text, any::<bool>()).prop_map(|(input, delegate)| json!({"type":"open_and_send","target":"tab","input":input,"delegate":delegate})),
    ];
    let choice = (text, text, proptest::collection::vec(action, 1..=3));
    proptest::collection::vec(choice, 1..=3).prop_flat_map(|choices| {
        let n = choices.len() as u64;
        (Just(choices), 1..=n).prop_map(|(choices, recommended)| {
            let choices: Vec<Value> = choices
                .into_iter()
                .enumerate()
                .map(|(i, (title, rationale, actions))| {
                    json!({"choice": i as u64 + 1, "title": title, "rationale": rationale, "actions": actions})
                })
                .collect();
            json!({"schema_version":1,"origin":"terminal_agent","recommended_choice":recommended,"choices":choices})
        })
    })
}

/// Characters the card could not show as what runs, written out here
/// independently of the rules: C0 but `\n`, DEL, C1, line/paragraph
/// separators, bidi embeddings/overrides/isolates, zero-width characters and
/// marks, the BOM, and samples of the rest of Unicode Cf and the invisible
/// fillers.
fn refused_char() -> impl Strategy<Value = char> {
    prop_oneof![
        (0u32..=0x1f).prop_filter("newline is allowed", |c| *c != 0x0a),
        Just(0x7f),
        0x80u32..=0x9f,
        prop_oneof![Just(0x2028), Just(0x2029)],
        0x202au32..=0x202e,
        0x2066u32..=0x2069,
        0x200bu32..=0x200f,
        prop_oneof![
            Just(0xfeff),
            Just(0xad),
            Just(0x2060),
            Just(0x2064),
            Just(0x61c)
        ],
        prop_oneof![Just(0xe0001), 0xe0020u32..=0xe007f, 0xfff9u32..=0xfffb],
        prop_oneof![Just(0x3164), Just(0x115f), Just(0xffa0), Just(0x34f)],
        prop_oneof![0xfe00u32..=0xfe0f, 0xe0100u32..=0xe01ef, 0x180bu32..=0x180d],
    ]
    .prop_map(|c| char::from_u32(c).unwrap())
}

/// Visible text: printable ASCII, accents, wide characters, emoji,
/// combining marks, right-to-left letters.
fn shown_text(max: usize) -> impl Strategy<Value = String> {
    let c = prop_oneof![
        8 => (0x20u8..=0x7e).prop_map(char::from),
        1 => Just('é'),
        1 => Just('世'),
        1 => Just('🦀'),
        1 => Just('\u{301}'),
        1 => Just('א'),
        1 => Just('\u{a0}'),
    ];
    proptest::collection::vec(c, 0..max).prop_map(|v| v.into_iter().collect())
}

/// Which text field a string goes into, and whether it may hold `\n`.
#[derive(Debug, Clone, Copy)]
enum Field {
    Input,
    Rationale,
    Title,
    TabTitle,
    Cwd,
}

impl Field {
    fn multi_line(self) -> bool {
        matches!(self, Field::Input | Field::Rationale)
    }

    fn payload(self, text: &str) -> Value {
        let mut v = json!({"schema_version":1,"origin":"terminal_agent","recommended_choice":1,
            "choices":[{"choice":1,"title":"t","actions":[{"type":"send","input":"ls"}]}]});
        let choice = &mut v["choices"][0];
        match self {
            Field::Input => choice["actions"][0]["input"] = json!(text),
            Field::Rationale => choice["rationale"] = json!(text),
            Field::Title => choice["title"] = json!(text),
            Field::TabTitle => {
                choice["actions"][0] = json!({"type":"open","target":"tab","title":text});
            }
            Field::Cwd => choice["actions"][0] = json!({"type":"open","target":"tab","cwd":text}),
        }
        v
    }
}

fn field() -> impl Strategy<Value = Field> {
    prop_oneof![
        Just(Field::Input),
        Just(Field::Rationale),
        Just(Field::Title),
        Just(Field::TabTitle),
        Just(Field::Cwd),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn channel_parse_accepts_only_its_own_spelling(text in tricky_string(80)) {
        if let Ok(ch) = Channel::parse(&text) {
            prop_assert_eq!(ch.to_string(), text);
        }
    }

    #[test]
    fn channel_round_trips(ch in channel_strategy()) {
        let text = ch.to_string();
        prop_assert_eq!(Channel::parse(&text).unwrap(), ch);
        prop_assert!(Channel::parse(&text.to_uppercase()).is_err() || text == text.to_uppercase());
        let file = ch.socket_file_name();
        prop_assert!(file.starts_with("proposal-") && file.ends_with(".sock") && !file.contains('/'));
    }

    #[test]
    fn invocation_round_trips_any_payload(ch in channel_strategy(), payload in tricky_string(120)) {
        let command = build_invocation(&ch, &payload);
        let result = classify_invocation(&command);
        if payload.is_empty() || payload.chars().any(char::is_control) {
            prop_assert!(matches!(result, Invocation::NonCanonical(_)), "{:?}", result);
        } else {
            match result {
                Invocation::Canonical(c) => {
                    prop_assert_eq!(c.channel, ch);
                    prop_assert_eq!(c.payload, payload);
                }
                other => prop_assert!(false, "not canonical: {:?}", other),
            }
        }
    }

    #[test]
    fn canonical_means_exactly_the_builder_output(
        ch in channel_strategy(),
        payload in tricky_string(60),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, tricky_string(2)), 1..4),
    ) {
        // Mutate a real canonical command (insert, delete, replace) and
        // check that whatever still classifies as canonical is exactly
        // what the builder produces for the parsed parts.
        let mut text: Vec<char> = build_invocation(&ch, &payload).chars().collect();
        for (at, op, insert) in edits {
            let i = at.index(text.len() + 1);
            match op {
                0 => { text.splice(i..i, insert.chars()); }
                1 if i < text.len() => { text.remove(i); }
                _ if i < text.len() => { text.splice(i..=i, insert.chars()); }
                _ => {}
            }
        }
        let text: String = text.into_iter().collect();
        if let Invocation::Canonical(c) = classify_invocation(&text) {
            prop_assert_eq!(build_invocation(&c.channel, &c.payload), text.clone());
        }
        prop_assert!(!matches!(classify_invocation(&text), Invocation::Canonical(_)) || !text.contains('\n'));
    }

    #[test]
    fn random_text_is_canonical_only_as_the_builder_prints_it(text in tricky_string(120)) {
        if let Invocation::Canonical(c) = classify_invocation(&text) {
            prop_assert_eq!(build_invocation(&c.channel, &c.payload), text);
        }
    }

    #[test]
    fn anything_after_a_canonical_command_makes_it_non_canonical(
        ch in channel_strategy(),
        payload in "[a-z{}\":,]{1,40}",
        tail in tricky_string(20).prop_filter("non-empty", |t| !t.is_empty()),
    ) {
        let command = format!("{}{tail}", build_invocation(&ch, &payload));
        match classify_invocation(&command) {
            // A tail can only extend the quoted word itself: `'\''…'`.
            Invocation::Canonical(c) => prop_assert_eq!(build_invocation(&c.channel, &c.payload), command),
            Invocation::NonCanonical(_) => {}
            Invocation::Unrelated => prop_assert!(false, "lost the proposal markers"),
        }
    }

    /// Extraction fails closed: anything but an object is an unknown
    /// shape; an execute call is a command or an unknown shape, never the
    /// normal permission UI; a string `rawInput.command` is the command as
    /// written; and a call taken as no command mentions no proposal anywhere.
    #[test]
    fn envelope_extraction_fails_closed(value in json_value()) {
        if !value.is_object() {
            prop_assert!(matches!(extract_command(&value), Extracted::UnknownShape(_)));
        }
        let execute = json!({"kind":"execute","rawInput": value.clone()});
        let got = extract_command(&execute);
        prop_assert_ne!(&got, &Extracted::NotACommand);
        if let (Some(command), None) = (
            value.get("command").and_then(Value::as_str),
            value.get("commands"),
        ) {
            prop_assert_eq!(&got, &Extracted::Command(command.to_owned()));
        }
        let titled = json!({"kind":"execute","title": value.to_string()});
        prop_assert_ne!(extract_command(&titled), Extracted::NotACommand);
        let edit = json!({"kind":"edit","title":"t","rawInput": value.clone()});
        if extract_command(&edit) == Extracted::NotACommand {
            prop_assert!(!strings(&value).iter().any(|s| looks_like_proposal(s)), "{}", value);
        }
    }

    #[test]
    fn frame_reader_reassembles_lines_across_any_chunking(
        lines in proptest::collection::vec(proptest::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..40), 0..8),
        cuts in proptest::collection::vec(0usize..400, 0..10),
        crlf in any::<bool>(),
        max in 1usize..48,
    ) {
        let mut stream = Vec::new();
        for line in &lines {
            stream.extend_from_slice(line);
            stream.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (stream.len() + 1)).collect();
        cuts.sort_unstable();
        let mut reader = FrameReader::new(max);
        let mut got = Vec::new();
        let mut failed = false;
        let mut start = 0;
        for end in cuts.into_iter().chain([stream.len()]) {
            match reader.push(&stream[start..end]) {
                Ok(frames) => got.extend(frames),
                Err(_) => { failed = true; break; }
            }
            prop_assert!(reader.pending() <= max + 1, "buffer grew to {}", reader.pending());
            start = end;
        }
        // The expected frames: each line with one trailing \r removed when CRLF.
        let expected: Vec<Vec<u8>> = lines.iter().map(|l| {
            let mut l = l.clone();
            if !crlf && l.last() == Some(&b'\r') { l.pop(); }
            l
        }).collect();
        let first_too_long = expected.iter().position(|l| l.len() > max);
        match first_too_long {
            Some(i) => {
                prop_assert!(failed, "line {} of {} bytes passed a {}-byte limit", i, expected[i].len(), max);
                prop_assert_eq!(&got[..], &expected[..got.len()]);
                prop_assert!(got.len() <= i);
            }
            None => {
                prop_assert!(!failed);
                prop_assert_eq!(got, expected);
                prop_assert!(reader.finish().is_ok());
            }
        }
    }

    #[test]
    fn frame_reader_memory_stays_bounded_on_garbage(chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..20)) {
        let mut reader = FrameReader::new(64);
        for chunk in chunks {
            match reader.push(&chunk) {
                Ok(frames) => for f in frames { prop_assert!(f.len() <= 64); },
                Err(_) => break,
            }
            prop_assert!(reader.pending() <= 65);
        }
    }

    /// Whatever bytes arrive (noise, or a valid payload, request or
    /// response line with a few bytes changed): what a parser accepts is
    /// within its size limit and reads back the same from its own encoding.
    #[test]
    fn accepted_bytes_are_in_bounds_and_round_trip(raw in near_valid_bytes()) {
        if let Ok(payload) = parse_payload(&raw) {
            prop_assert!(raw.len() <= MAX_PAYLOAD_BYTES);
            prop_assert_eq!(parse_payload(payload.to_json().unwrap().as_bytes()).unwrap(), payload);
        }
        if let Ok(request) = ProposalRequest::from_frame(&raw) {
            let line = request.to_line().unwrap();
            prop_assert_eq!(ProposalRequest::from_frame(line.trim_ascii_end()).unwrap(), request);
        }
        if let Ok(response) = ResponseLine::from_frame(&raw) {
            let line = response.to_line().unwrap();
            prop_assert_eq!(ResponseLine::from_frame(line.trim_ascii_end()).unwrap(), response);
        }
    }

    /// JSON accepted as a payload, or as an MCP terminal action turned into
    /// one, is a valid payload that reads back the same from its encoding.
    #[test]
    fn accepted_json_is_a_valid_payload(value in json_value()) {
        let raw = serde_json::to_vec(&value).unwrap();
        if let Ok(payload) = parse_payload(&raw) {
            prop_assert_eq!(parse_payload(payload.to_json().unwrap().as_bytes()).unwrap(), payload);
        }
        let action = wta_protocol::McpTerminalAction::from_value(&value)
            .and_then(|a| a.into_proposal(wta_protocol::Origin::TerminalAgent));
        if let Ok(payload) = action {
            prop_assert!(payload.validate().is_ok(), "{:?}", payload);
            prop_assert_eq!(parse_payload(payload.to_json().unwrap().as_bytes()).unwrap(), payload);
        }
    }

    #[test]
    fn valid_payloads_round_trip(value in valid_payload()) {
        let raw = serde_json::to_vec(&value).unwrap();
        prop_assume!(raw.len() <= MAX_PAYLOAD_BYTES);
        let parsed = parse_payload(&raw).unwrap();
        let again: ProposalPayload = parse_payload(parsed.to_json().unwrap().as_bytes()).unwrap();
        prop_assert_eq!(&parsed, &again);
        prop_assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
    }

    #[test]
    fn request_lines_round_trip(ch in channel_strategy(), payload in tricky_string(120)) {
        let request = ProposalRequest::new(ch, payload);
        let line = request.to_line().unwrap();
        let mut reader = FrameReader::new(wta_protocol::limits::MAX_REQUEST_LINE_BYTES);
        let frames = reader.push(&line).unwrap();
        prop_assert_eq!(frames.len(), 1);
        prop_assert_eq!(ProposalRequest::from_frame(&frames[0]).unwrap(), request);
    }
    /// Any text with a refused character is refused for that character, at
    /// its position; the same text without it is not refused for a character.
    #[test]
    fn refused_characters_are_refused_and_only_they(
        field in field(),
        text in shown_text(60),
        newlines in proptest::collection::vec(any::<prop::sample::Index>(), 0..3),
        bad in proptest::option::of((any::<prop::sample::Index>(), refused_char())),
    ) {
        // "x" first: a blank title or input is refused for another reason.
        let mut chars: Vec<char> = std::iter::once('x').chain(text.chars()).collect();
        if field.multi_line() {
            for at in newlines {
                let i = 1 + at.index(chars.len());
                chars.insert(i, '\n');
            }
        }
        let clean: String = chars.iter().collect();
        let ok = parse_payload(&serde_json::to_vec(&field.payload(&clean)).unwrap());
        prop_assert!(ok.is_ok(), "{:?}: {:?}", clean, ok);
        if let Some((at, c)) = bad {
            let i = 1 + at.index(chars.len());
            chars.insert(i, c);
            let dirty: String = chars.iter().collect();
            let err = parse_payload(&serde_json::to_vec(&field.payload(&dirty)).unwrap()).unwrap_err();
            match err {
                ProtocolError::ControlCharacter { code, position, .. } => {
                    prop_assert_eq!(code, u32::from(c));
                    prop_assert_eq!(position, i + 1);
                    let text = err.to_string();
                    let named = format!("U+{:04X} (", u32::from(c));
                    prop_assert!(text.contains(&named), "{}", text);
                    prop_assert!(text.ends_with("the card must show every character that will be typed"), "{}", text);
                }
                other => prop_assert!(false, "refused for another reason: {}", other),
            }
        }
    }

    /// Whatever else a field holds, an ASCII or C1 control other than `\n`
    /// in a multi-line field is refused (checked against the standard
    /// library's own notion of a control character).
    #[test]
    fn every_control_character_is_refused(field in field(), c in any::<char>()) {
        let text = format!("x{c}y");
        let result = parse_payload(&serde_json::to_vec(&field.payload(&text)).unwrap());
        let allowed_newline = c == '\n' && field.multi_line();
        if c.is_control() && !allowed_newline {
            let refused = matches!(result, Err(ProtocolError::ControlCharacter { position: 2, .. }));
            prop_assert!(refused, "{:?} accepted in {:?}: {:?}", c, field, result);
        }
        if !c.is_control() && c.is_alphanumeric() {
            prop_assert!(result.is_ok(), "{:?} refused in {:?}: {:?}", c, field, result);
        }
    }
}
