//! Schema v1 table tests: every rule, with the exact user-facing message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use wta_protocol::limits::MAX_PAYLOAD_BYTES;
use wta_protocol::mcp_forms::input_schema;
use wta_protocol::{
    Action, McpTerminalAction, OpenTarget, Origin, ProtocolError, ValidationStatus, parse_payload,
};

fn base() -> Value {
    json!({"schema_version":1,"origin":"terminal_agent","recommended_choice":1,
        "choices":[{"choice":1,"title":"Run tests","rationale":"Checks the fix.",
        "actions":[{"type":"send","input":"cargo test"}]}]})
}

fn parse(v: &Value) -> Result<wta_protocol::ProposalPayload, ProtocolError> {
    parse_payload(serde_json::to_string(v).unwrap().as_bytes())
}

fn err_of(v: &Value) -> String {
    parse(v).unwrap_err().to_string()
}

#[test]
fn accepts_the_design_example_with_all_three_action_types() {
    let raw = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":2,"choices":[{"choice":1,"title":"Run tests","rationale":"r","actions":[{"type":"send","input":"cargo test"}]},{"choice":2,"title":"Open and build","actions":[{"type":"open","target":"panel","cwd":"/tmp","title":"build","direction":"right"},{"type":"open_and_send","target":"tab","input":"make","delegate":false,"cwd":"/src"}]}]}"#;
    let p = parse_payload(raw.as_bytes()).unwrap();
    assert_eq!(p.recommended().unwrap().title, "Open and build");
    assert_eq!(p.choices[1].rationale, "", "rationale defaults to empty");
    assert!(matches!(
        p.choices[1].actions[0],
        Action::Open {
            target: OpenTarget::Panel,
            ..
        }
    ));
}

#[test]
fn key_order_and_whitespace_are_the_agents_business() {
    let raw = r#"{ "choices" : [ {"actions":[{"input":"ls","type":"send"}], "title":"List", "choice":1} ],
        "recommended_choice":1, "origin":"terminal_agent", "schema_version":1 }"#;
    assert!(parse_payload(raw.as_bytes()).is_ok());
}

#[test]
fn unknown_fields_are_denied_at_every_level() {
    let mut top = base();
    top["pane"] = json!("%1");
    let mut choice = base();
    choice["choices"][0]["helper"] = json!("x");
    let mut action = base();
    action["choices"][0]["actions"][0]["target_pane"] = json!("%3");
    let mut profile = base();
    profile["choices"][0]["actions"][0] = json!({"type":"open","target":"tab","profile":"x"});
    let mut send_with_target = base();
    send_with_target["choices"][0]["actions"][0]["target"] = json!("tab");
    for (v, field) in [
        (top, "pane"),
        (choice, "helper"),
        (action, "target_pane"),
        (profile, "profile"),
        (send_with_target, "target"),
    ] {
        let msg = err_of(&v);
        assert!(msg.contains(&format!("unknown field `{field}`")), "{msg}");
    }
}

#[test]
fn size_is_checked_on_raw_bytes_before_parsing() {
    // Not even JSON: the size error must win, proving no parse happened first.
    let huge = vec![b'x'; MAX_PAYLOAD_BYTES + 1];
    let err = parse_payload(&huge).unwrap_err();
    assert_eq!(
        err,
        ProtocolError::PayloadTooLarge {
            len: 8193,
            max: 8192
        }
    );
    assert_eq!(
        err.validation_answer(),
        (ValidationStatus::InvalidSchema, true)
    );
    // Exactly at the limit is fine (padding with spaces, which JSON allows).
    let mut raw = serde_json::to_string(&base()).unwrap().into_bytes();
    raw.resize(MAX_PAYLOAD_BYTES, b' ');
    assert!(parse_payload(&raw).is_ok());
}

#[test]
fn every_rule_has_a_specific_message() {
    let long = |n: usize| "é".repeat(n);
    let set = |path: &[&str], value: Value| {
        let mut v = base();
        let mut at = &mut v;
        for key in path {
            at = match key.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*key],
            };
        }
        *at = value;
        v
    };
    let send = |input: &str| json!({"type":"send","input":input});
    let choice = |n: u64| json!({"choice":n,"title":"t","actions":[send("ls")]});
    let cases: Vec<(Value, &str)> = vec![
        (
            set(&["schema_version"], json!(2)),
            "schema_version 2 is not supported; use 1",
        ),
        (
            set(&["choices"], json!([])),
            "a proposal needs 1 to 3 choices; it has 0",
        ),
        (
            set(
                &["choices"],
                json!([choice(1), choice(2), choice(3), choice(1)]),
            ),
            "a proposal needs 1 to 3 choices; it has 4",
        ),
        (
            set(&["choices", "0", "choice"], json!(4)),
            "choice numbers must be 1, 2 or 3; found 4",
        ),
        (
            set(&["choices", "0", "choice"], json!(0)),
            "choice numbers must be 1, 2 or 3; found 0",
        ),
        (
            set(&["choices"], json!([choice(1), choice(1)])),
            "choice number 1 is used twice",
        ),
        (
            set(&["recommended_choice"], json!(2)),
            "recommended_choice 2 is not one of the choices",
        ),
        (
            set(&["choices", "0", "actions"], json!([])),
            "choice 1 needs 1 to 3 actions; it has 0",
        ),
        (
            set(
                &["choices", "0", "actions"],
                json!([send("a"), send("b"), send("c"), send("d")]),
            ),
            "choice 1 needs 1 to 3 actions; it has 4",
        ),
        (
            set(&["choices", "0", "title"], json!("  ")),
            "choice 1 title must not be empty",
        ),
        (
            set(&["choices", "0", "title"], json!(long(201))),
            "choice 1 title is 201 characters; the limit is 200",
        ),
        (
            set(&["choices", "0", "rationale"], json!(long(2001))),
            "choice 1 rationale is 2001 characters; the limit is 2000",
        ),
        (
            set(
                &["choices", "0", "actions", "0", "input"],
                json!("x".repeat(8001)),
            ),
            "choice 1 action 1 (send) input is 8001 characters; the limit is 8000",
        ),
        (
            set(&["choices", "0", "actions", "0", "input"], json!("")),
            "choice 1 action 1 (send) input must not be empty",
        ),
        (
            set(
                &["choices", "0", "actions", "0", "input"],
                json!("ls\u{1b}[2J"),
            ),
            "choice 1 action 1 (send) input contains U+001B (ESC) at character 3; remove it: the card must show every character that will be typed",
        ),
        (
            set(&["choices", "0", "title"], json!("a\nb")),
            "choice 1 title contains U+000A (LF) at character 2; keep this field on one line: the card must show every character that will be typed",
        ),
        (
            set(
                &["choices", "0", "actions", "0"],
                json!({"type":"open","target":"tab","cwd":"/a\rb"}),
            ),
            "choice 1 action 1 (open) cwd contains U+000D (CR) at character 3; keep this field on one line: the card must show every character that will be typed",
        ),
        (
            set(&["origin"], json!("autofix_agent")),
            "unknown variant `autofix_agent`",
        ),
        (
            set(
                &["choices", "0", "actions", "0"],
                json!({"type":"open","target":"window"}),
            ),
            "unknown variant `window`, expected `tab` or `panel`",
        ),
        (
            set(
                &["choices", "0", "actions", "0"],
                json!({"type":"open","target":"tab","direction":"automatic"}),
            ),
            "unknown variant `automatic`",
        ),
        (
            set(
                &["choices", "0", "actions", "0"],
                json!({"type":"open_and_send","target":"tab","input":"x"}),
            ),
            "missing field `delegate`",
        ),
        (
            set(
                &["choices", "0", "actions", "0"],
                json!({"type":"run","input":"x"}),
            ),
            "unknown variant `run`",
        ),
    ];
    for (v, want) in cases {
        let msg = err_of(&v);
        assert!(msg.contains(want), "want {want:?}\n got {msg:?}");
        assert_eq!(
            parse(&v).unwrap_err().validation_answer(),
            (ValidationStatus::InvalidSchema, true)
        );
    }
}

/// The card must show every character that will be typed: control and
/// invisible characters are refused in every text field, with a reason that
/// names the field, the character and its position, and says what to do.
#[test]
fn control_and_invisible_characters_are_refused_with_a_fix() {
    let with_actions = |actions: Value| {
        let mut v = base();
        v["choices"][0]["actions"] = actions;
        v
    };
    let tail = "the card must show every character that will be typed";
    let cases: Vec<(Value, String)> = vec![
        (
            with_actions(json!([{"type":"send","input":"git st\tus"}])),
            format!(
                "choice 1 action 1 (send) input contains U+0009 (TAB) at character 7; \
                 use spaces, or a real newline to start a line: {tail}"
            ),
        ),
        (
            with_actions(json!([{"type":"send","input":"ls"},
                {"type":"open_and_send","target":"tab","input":"make\r\nmake install","delegate":false}])),
            format!(
                "choice 1 action 2 (open_and_send) input contains U+000D (CR) at character 5; \
                 end lines with a real newline (\\n) only: {tail}"
            ),
        ),
        (
            with_actions(json!([{"type":"send","input":"echo 1\u{2028}rm -rf ~"}])),
            format!(
                "choice 1 action 1 (send) input contains U+2028 (LINE SEPARATOR) at character 7; \
                 use a real newline (\\n) instead: {tail}"
            ),
        ),
        (
            with_actions(json!([{"type":"send","input":"cat \u{9b}31m"}])),
            format!(
                "choice 1 action 1 (send) input contains U+009B (C1 control) at character 5; \
                 remove it: {tail}"
            ),
        ),
        (
            with_actions(json!([{"type":"send","input":"ls \u{200b}-la"}])),
            format!(
                "choice 1 action 1 (send) input contains U+200B (ZERO WIDTH SPACE) at character 4; \
                 remove it: {tail}"
            ),
        ),
        (
            with_actions(json!([{"type":"open","target":"tab","title":"logs\u{202e}gol"}])),
            format!(
                "choice 1 action 1 (open) title contains U+202E (RIGHT-TO-LEFT OVERRIDE) at character 5; \
                 remove it: {tail}"
            ),
        ),
        (
            with_actions(json!([{"type":"open","target":"tab","title":"a\tb"}])),
            format!(
                "choice 1 action 1 (open) title contains U+0009 (TAB) at character 2; use spaces: {tail}"
            ),
        ),
        (
            with_actions(
                json!([{"type":"open_and_send","target":"panel","input":"make",
                "delegate":false,"cwd":"/src/\u{feff}x"}]),
            ),
            format!(
                "choice 1 action 1 (open_and_send) cwd contains U+FEFF (ZERO WIDTH NO-BREAK SPACE) \
                 at character 6; remove it: {tail}"
            ),
        ),
        (
            with_actions(json!([{"type":"open","target":"panel","cwd":"/src\nx"}])),
            format!(
                "choice 1 action 1 (open) cwd contains U+000A (LF) at character 5; \
                 keep this field on one line: {tail}"
            ),
        ),
        (
            {
                let mut v = base();
                v["choices"][0]["rationale"] = json!("First line.\n\tIndented.");
                v
            },
            format!(
                "choice 1 rationale contains U+0009 (TAB) at character 13; \
                 use spaces, or a real newline to start a line: {tail}"
            ),
        ),
        (
            {
                let mut v = base();
                v["choices"][0]["title"] = json!("Run \u{2066}tests");
                v
            },
            format!(
                "choice 1 title contains U+2066 (LEFT-TO-RIGHT ISOLATE) at character 5; remove it: {tail}"
            ),
        ),
    ];
    for (v, want) in cases {
        let err = parse(&v).unwrap_err();
        assert_eq!(err.to_string(), want);
        assert_eq!(
            err.validation_answer(),
            (ValidationStatus::InvalidSchema, true),
            "the agent can send a corrected payload"
        );
    }
    // The same rules hold for the MCP flat forms.
    let msg = mcp(json!({"type":"send","title":"t","input":"ls\t"}))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("input contains U+0009 (TAB) at character 3"),
        "{msg}"
    );
}

#[test]
fn newlines_and_visible_unicode_are_accepted_where_lines_are_allowed() {
    let mut v = base();
    v["choices"][0]["rationale"] = json!("Two steps:\n1. build\n2. test ✓");
    v["choices"][0]["title"] = json!("Build 世界 🦀 e\u{301}");
    v["choices"][0]["actions"] = json!([
        {"type":"send","input":"cargo build &&\n  cargo test -- --nocapture 'naïve ❤'"},
        {"type":"open","target":"tab","title":"日本語 logs","cwd":"/home/ada/src/ü"},
    ]);
    let p = parse(&v).unwrap();
    assert_eq!(p.choices[0].actions.len(), 2);
}

#[test]
fn malformed_json_reports_where() {
    let msg = parse_payload(br#"{"schema_version":1,"#)
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with("payload is not a valid proposal: EOF while parsing"),
        "{msg}"
    );
    assert!(msg.contains("(at column 20)"), "{msg}");
}

#[test]
fn autofix_is_exactly_one_choice_with_one_send() {
    let mut ok = base();
    ok["origin"] = json!("autofix");
    assert!(parse(&ok).is_ok());
    let mut two_actions = ok.clone();
    two_actions["choices"][0]["actions"] =
        json!([{"type":"send","input":"a"},{"type":"send","input":"b"}]);
    let mut open = ok.clone();
    open["choices"][0]["actions"] = json!([{"type":"open","target":"tab"}]);
    let mut two_choices = ok.clone();
    two_choices["choices"] = json!([ok["choices"][0].clone(),
        {"choice":2,"title":"t","actions":[{"type":"send","input":"b"}]}]);
    for v in [two_actions, open, two_choices] {
        assert_eq!(parse(&v).unwrap_err(), ProtocolError::AutofixShape);
    }
}

#[test]
fn origin_must_match_the_turn_and_mismatch_is_rejected() {
    let p = parse(&base()).unwrap();
    assert!(p.check_origin(Origin::TerminalAgent).is_ok());
    let err = p.check_origin(Origin::Autofix).unwrap_err();
    assert_eq!(
        err.to_string(),
        "origin is terminal_agent but this turn is autofix"
    );
    assert_eq!(err.validation_answer(), (ValidationStatus::Rejected, false));
}

#[test]
fn serialization_round_trips() {
    let p = parse(&base()).unwrap();
    let again = parse_payload(p.to_json().unwrap().as_bytes()).unwrap();
    assert_eq!(p, again);
}

// ---- MCP flat forms ----

fn mcp(v: Value) -> Result<wta_protocol::ProposalPayload, ProtocolError> {
    McpTerminalAction::from_value(&v)?.into_proposal(Origin::TerminalAgent)
}

#[test]
fn mcp_flat_forms_become_one_choice_proposals() {
    let p = mcp(json!({"type":"send","title":"Run","input":"make"})).unwrap();
    assert_eq!(p.recommended_choice, 1);
    assert_eq!(p.choices.len(), 1);
    assert_eq!(
        p.choices[0].actions,
        vec![Action::Send {
            input: "make".into()
        }]
    );

    let p =
        mcp(json!({"type":"open","title":"Logs","target":"panel","direction":"down","cwd":"/var"}))
            .unwrap();
    assert_eq!(p.choices[0].actions[0].kind(), "open");

    let p = mcp(
        json!({"type":"open_and_send","title":"Delegate","rationale":"r",
        "target":"tab","input":"fix it","delegate":true}),
    )
    .unwrap();
    assert!(matches!(
        p.choices[0].actions[0],
        Action::OpenAndSend { delegate: true, .. }
    ));
    assert_eq!(p.choices[0].rationale, "r");
}

#[test]
fn mcp_field_rules_are_enforced() {
    let cases = [
        (
            json!({"type":"send","title":"t","input":"x","target":"tab"}),
            "`target` is not allowed on a send action",
        ),
        (
            json!({"type":"send","title":"t","input":"x","delegate":false}),
            "`delegate` is not allowed on a send action",
        ),
        (
            json!({"type":"send","title":"t","input":"x","cwd":"/"}),
            "`cwd` is not allowed on a send action",
        ),
        (
            json!({"type":"send","title":"t","input":"x","direction":"up"}),
            "`direction` is not allowed on a send action",
        ),
        (
            json!({"type":"send","title":"t"}),
            "`input` is required on a send action",
        ),
        (
            json!({"type":"open","title":"t"}),
            "`target` is required on a open action",
        ),
        (
            json!({"type":"open","title":"t","target":"tab","input":"x"}),
            "`input` is not allowed on a open action",
        ),
        (
            json!({"type":"open","title":"t","target":"tab","delegate":true}),
            "`delegate` is not allowed on a open action",
        ),
        (
            json!({"type":"open_and_send","title":"t","input":"x"}),
            "`target` is required on a open_and_send action",
        ),
        (
            json!({"type":"open_and_send","title":"t","target":"tab"}),
            "`input` is required on a open_and_send action",
        ),
        (
            json!({"type":"open_and_send","title":"t","target":"tab","input":"x","direction":"up"}),
            "`direction` is not allowed on a open_and_send action",
        ),
        (
            json!({"type":"send","title":"t","input":"x","profile":"p"}),
            "unknown field `profile`",
        ),
        (
            json!({"type":"send","title":"","input":"x"}),
            "choice 1 title must not be empty",
        ),
        (json!({"title":"t","input":"x"}), "missing field `type`"),
    ];
    for (v, want) in cases {
        let msg = mcp(v).unwrap_err().to_string();
        assert!(msg.contains(want), "want {want:?}\n got {msg:?}");
    }
}

#[test]
fn mcp_input_schema_lists_exactly_the_accepted_fields() {
    let schema = input_schema();
    let mut props: Vec<_> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    props.sort();
    assert_eq!(
        props,
        [
            "cwd",
            "delegate",
            "direction",
            "input",
            "rationale",
            "target",
            "title",
            "type"
        ]
    );
    assert_eq!(schema["additionalProperties"], json!(false));
}
