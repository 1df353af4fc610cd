//! Table tests of the canonical invocation: the builder, the exact parser,
//! and every non-canonical variant the permission preflight must cancel.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use wta_protocol::{
    Channel, Invocation, NonCanonical, PayloadDigest, build_invocation, classify_invocation,
};

const CH: &str = "v1.0123456789abcdef0123456789abcdef.fedcba9876543210fedcba9876543210";
const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Run","actions":[{"type":"send","input":"echo hi | wc -c > out; ls && pwd"}]}]}"#;

fn channel() -> Channel {
    Channel::parse(CH).unwrap()
}

fn canonical() -> String {
    build_invocation(&channel(), PAYLOAD)
}

#[test]
fn builds_the_posix_form() {
    assert_eq!(
        build_invocation(&channel(), r#"{"a":"it's"}"#),
        format!(
            r#""$WTA_CLI_PATH" propose-terminal-actions --channel {CH} --payload-json '{{"a":"it'\''s"}}'"#
        )
    );
}

#[test]
fn canonical_round_trips_exact_payload_bytes() {
    for payload in [
        PAYLOAD,
        r#"{"a":"it's"}"#,
        "'",
        "''",
        r"'\''",
        r#"{ "b" : 2 , "a" : 1 }"#, // spacing and key order are the agent's business
        "not json at all: the helper's schema check answers it",
        "ünïcødé ✓ 'quoted' \"double\" $HOME `x` $(y) ; | & > <",
    ] {
        let command = build_invocation(&channel(), payload);
        let Invocation::Canonical(c) = classify_invocation(&command) else {
            panic!("not canonical: {command}");
        };
        assert_eq!(c.channel, channel());
        assert_eq!(c.payload, payload);
        assert_eq!(
            PayloadDigest::of(c.payload.as_bytes()),
            PayloadDigest::of(payload.as_bytes())
        );
    }
}

#[test]
fn every_non_canonical_variant_is_cancelled_with_its_reason() {
    use NonCanonical as N;
    let canon = canonical();
    let q = format!("'{PAYLOAD}'");
    let tail = format!("propose-terminal-actions --channel {CH} --payload-json {q}");
    let cases: Vec<(String, NonCanonical)> = vec![
        // stdin and other payload routes
        (
            format!(
                "echo {q} | \"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json -"
            ),
            N::Pipeline,
        ),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json -"),
            N::PayloadNotInline,
        ),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-stdin"),
            N::PayloadNotInline,
        ),
        (
            format!(
                "\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-file /tmp/p.json"
            ),
            N::PayloadNotInline,
        ),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} < /tmp/p.json"),
            N::Redirect,
        ),
        // pipes, lists, redirects
        (format!("{canon} | cat"), N::Pipeline),
        (format!("{canon}; rm -rf ~"), N::CommandList),
        (format!("{canon} && echo ok"), N::CommandList),
        (format!("{canon} || true"), N::CommandList),
        (format!("{canon} &"), N::CommandList),
        (format!("true && {canon}"), N::CommandList),
        (format!("{canon} > /tmp/out"), N::Redirect),
        (format!("{canon} 2>/dev/null"), N::Redirect),
        (format!("{canon} >> log"), N::Redirect),
        // here-docs and substitutions
        (
            format!(
                "\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json \"$(cat <<'EOF'\n{PAYLOAD}\nEOF\n)\""
            ),
            N::MultiLine,
        ),
        (
            format!(
                "\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json - <<EOF"
            ),
            N::HereDoc,
        ),
        (
            format!(
                "\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json \"$(cat p.json)\""
            ),
            N::CommandSubstitution,
        ),
        (
            format!(
                "\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json `cat p.json`"
            ),
            N::CommandSubstitution,
        ),
        (format!("{canon}\n"), N::MultiLine),
        (format!("{canon}\nrm -rf ~"), N::MultiLine),
        // env prefixes
        (format!("FOO=1 {canon}"), N::EnvPrefix),
        (format!("WTA_CLI_PATH=/tmp/evil {canon}"), N::EnvPrefix),
        (format!("env FOO=1 {canon}"), N::BinarySpelling),
        // other spellings of the binary
        (format!("wta {tail}"), N::BinarySpelling),
        (format!("./wta {tail}"), N::BinarySpelling),
        (format!("/usr/bin/wta {tail}"), N::BinarySpelling),
        (format!("$WTA_CLI_PATH {tail}"), N::BinarySpelling),
        (format!("${{WTA_CLI_PATH}} {tail}"), N::BinarySpelling),
        (format!("\"${{WTA_CLI_PATH}}\" {tail}"), N::BinarySpelling),
        (format!("'$WTA_CLI_PATH' {tail}"), N::BinarySpelling),
        (format!("exec \"$WTA_CLI_PATH\" {tail}"), N::BinarySpelling),
        (
            format!("command \"$WTA_CLI_PATH\" {tail}"),
            N::BinarySpelling,
        ),
        (
            format!("sh -c '\"$WTA_CLI_PATH\" {tail}'"),
            N::BinarySpelling,
        ),
        // extra, missing or reordered arguments
        (format!("{canon} --verbose"), N::Arguments),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --payload-json {q} --channel {CH}"),
            N::Arguments,
        ),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --channel={CH} --payload-json {q}"),
            N::Arguments,
        ),
        (
            format!(
                "\"$WTA_CLI_PATH\" --debug propose-terminal-actions --channel {CH} --payload-json {q}"
            ),
            N::Arguments,
        ),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --payload-json {q}"),
            N::Arguments,
        ),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH}"),
            N::PayloadNotInline,
        ),
        // channel
        (canon.replace(CH, &CH.to_uppercase()), N::Channel),
        (canon.replace(CH, &format!("{CH}0")), N::Channel),
        (canon.replace(CH, "v1.abc.def"), N::Channel),
        // quoting of the payload
        (
            format!(
                "\"$WTA_CLI_PATH\" {}",
                tail.replace(&q, &format!("\"{}\"", PAYLOAD.replace('"', "\\\"")))
            ),
            N::Quoting,
        ),
        (
            build_invocation(&channel(), "it's").replace(r"'\''", r#"'"'"'"#),
            N::Quoting,
        ),
        (
            build_invocation(&channel(), "it's").replace(r"'\''", r"'\'"),
            N::Quoting,
        ),
        (
            format!(
                "\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json {PAYLOAD}"
            ),
            N::Quoting,
        ),
        (
            format!("\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json ''"),
            N::PayloadContent,
        ),
        (build_invocation(&channel(), "a\tb"), N::PayloadContent),
        // whitespace
        (format!(" {canon}"), N::Whitespace),
        (format!("{canon} "), N::Whitespace),
        (
            canon.replacen(" --channel", "  --channel", 1),
            N::Whitespace,
        ),
    ];
    for (command, want) in cases {
        assert_eq!(
            classify_invocation(&command),
            Invocation::NonCanonical(want),
            "\ncommand: {command:?}"
        );
    }
}

#[test]
fn unrelated_commands_go_to_the_normal_ui() {
    for command in [
        "ls -la",
        "cargo test",
        "wta pane --help",
        "echo propose",
        "",
        "'",
        "\"$HOME\"/bin/x",
    ] {
        assert_eq!(
            classify_invocation(command),
            Invocation::Unrelated,
            "{command:?}"
        );
    }
}

#[test]
fn a_payload_that_closes_the_quote_cannot_smuggle_a_command() {
    // The agent writes a payload containing a raw quote instead of '\''.
    let smuggled = format!(
        "\"$WTA_CLI_PATH\" propose-terminal-actions --channel {CH} --payload-json '{{\"a\":\"x'; rm -rf ~; echo '\"}}'"
    );
    assert_eq!(
        classify_invocation(&smuggled),
        Invocation::NonCanonical(NonCanonical::CommandList)
    );
}

#[test]
fn fd_duplication_is_a_redirect_not_a_background_job() {
    let command = format!("{} 2>&1", canonical());
    assert_eq!(
        classify_invocation(&command),
        Invocation::NonCanonical(NonCanonical::Redirect)
    );
}
