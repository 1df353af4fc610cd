//! Each real agent's permission-request tool call, as measured
//! (acp-agents-offline.md §3.3 and the agents' ACP sources), through
//! extraction and classification.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use wta_protocol::{
    Channel, Extracted, Invocation, NonCanonical, build_invocation, classify_invocation,
    extract_command,
};

const CH: &str = "v1.0123456789abcdef0123456789abcdef.fedcba9876543210fedcba9876543210";
const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Run tests","actions":[{"type":"send","input":"cargo test"}]}]}"#;

fn canon() -> String {
    build_invocation(&Channel::parse(CH).unwrap(), PAYLOAD)
}

fn command_of(tool_call: &Value) -> String {
    match extract_command(tool_call) {
        Extracted::Command(c) => c,
        other => panic!("expected a command, got {other:?} from {tool_call}"),
    }
}

fn is_canonical(tool_call: &Value) -> bool {
    matches!(classify_invocation(&command_of(tool_call)), Invocation::Canonical(c) if c.payload == PAYLOAD)
}

// claude-code-acp 0.16 / claude-agent-acp: rawInput.command string.
fn claude(cmd: &str) -> Value {
    json!({"toolCallId":"toolu_fake1","kind":"execute","status":"pending","title":format!("`{cmd}`"),
        "rawInput":{"command":cmd,"description":"Propose terminal actions"},
        "_meta":{"claudeCode":{"toolName":"Bash"}}})
}

// codex-acp 0.16: argv through the user's shell.
fn codex(argv: Value) -> Value {
    json!({"toolCallId":"call_1","kind":"execute","status":"pending","title":"wta",
        "rawInput":{"command":argv,"cwd":"/home/u","proposed_execpolicy_amendment":["wta"]}})
}

// copilot 1.0: command plus the list it parsed out of it.
fn copilot(cmd: &str, commands: Value) -> Value {
    json!({"toolCallId":"call-9480410f","title":"Propose tests","kind":"execute","status":"pending",
        "rawInput":{"command":cmd,"commands":commands,"description":"Propose tests"}})
}

// gemini 0.61: no rawInput, the command is in the title with gemini's suffixes.
fn gemini(title: &str) -> Value {
    json!({"toolCallId":"run_shell_command-1","status":"pending","title":title,"content":[],
        "locations":[],"kind":"execute"})
}

// opencode 1.18 with permission.bash = "ask": rawInput is the permission metadata.
fn opencode(raw_input: Value) -> Value {
    json!({"toolCallId":"call_1","status":"pending","title":"bash","rawInput":raw_input,
        "kind":"execute","locations":[]})
}

#[test]
fn claude_canonical_and_not() {
    assert!(is_canonical(&claude(&canon())));
    let piped = claude(&format!("{} | tee log", canon()));
    assert_eq!(
        classify_invocation(&command_of(&piped)),
        Invocation::NonCanonical(NonCanonical::Pipeline)
    );
    assert_eq!(
        classify_invocation(&command_of(&claude("echo hi"))),
        Invocation::Unrelated
    );
}

#[test]
fn codex_shell_wrappers() {
    for shell in ["/bin/bash", "/bin/zsh", "/bin/sh", "bash", "/usr/bin/zsh"] {
        for flag in ["-lc", "-c"] {
            assert!(
                is_canonical(&codex(json!([shell, flag, canon()]))),
                "{shell} {flag}"
            );
        }
    }
    assert_eq!(
        command_of(&codex(json!(["/bin/bash", "-lc", "touch x && echo hi"]))),
        "touch x && echo hi"
    );
}

#[test]
fn codex_direct_argv_is_rendered_and_never_canonical() {
    let direct = codex(json!([
        "/home/u/.local/bin/wta",
        "propose-terminal-actions",
        "--channel",
        CH,
        "--payload-json",
        PAYLOAD
    ]));
    let cmd = command_of(&direct);
    assert!(
        cmd.starts_with("'/home/u/.local/bin/wta' 'propose-terminal-actions'"),
        "{cmd}"
    );
    assert_eq!(
        classify_invocation(&cmd),
        Invocation::NonCanonical(NonCanonical::BinarySpelling)
    );
    // An unknown shell or extra argv words are not the wrapper form either.
    for argv in [
        json!(["/tmp/bash", "-lc", canon()]),
        json!(["/bin/bash", "-lc", canon(), "x"]),
        json!(["python3", "-c", canon()]),
    ] {
        assert!(!is_canonical(&codex(argv.clone())), "{argv}");
    }
}

#[test]
fn codex_bad_argv_fails_closed() {
    assert!(matches!(
        extract_command(&codex(json!([]))),
        Extracted::UnknownShape(_)
    ));
    assert!(matches!(
        extract_command(&codex(json!(["/bin/bash", 1, "x"]))),
        Extracted::UnknownShape(_)
    ));
}

#[test]
fn copilot_commands_must_list_exactly_the_canonical_command() {
    assert!(is_canonical(&copilot(&canon(), json!([canon()]))));
    assert!(is_canonical(
        &json!({"kind":"execute","title":"t","rawInput":{"command":canon()}})
    ));
    let disagreeing = copilot(&canon(), json!([canon(), "rm -rf ~"]));
    assert!(matches!(
        extract_command(&disagreeing),
        Extracted::UnknownShape(_)
    ));
    let empty = copilot(&canon(), json!([]));
    assert!(matches!(
        extract_command(&empty),
        Extracted::UnknownShape(_)
    ));
    // An ordinary compound command keeps its split list and goes to the normal UI.
    let ordinary = copilot(
        "cargo build && cargo test",
        json!(["cargo build", "cargo test"]),
    );
    assert_eq!(
        classify_invocation(&command_of(&ordinary)),
        Invocation::Unrelated
    );
    let weird = copilot("ls", json!("ls"));
    assert!(matches!(
        extract_command(&weird),
        Extracted::UnknownShape(_)
    ));
}

#[test]
fn gemini_titles_with_their_suffixes() {
    let c = canon();
    for title in [
        c.clone(),
        format!("{c} [current working directory /home/u/app]"),
        format!("{c} [in /home/u/my app]"),
        format!("{c} [current working directory /home/u] (Propose running the tests, it's quick)"),
        format!("{c} [in src] [background] (desc)"),
        format!("{c} [current working directory /w] [timeout: 120000ms] (desc)"),
        format!("{c} (description only, from an older gemini)"),
    ] {
        assert!(is_canonical(&gemini(&title)), "{title}");
    }
}

#[test]
fn gemini_suffixes_that_could_hide_a_command_are_not_stripped() {
    let c = canon();
    for title in [
        format!("{c} [in /x; rm -rf ~]"),
        format!("{c} [in /x] [current working directory /c]"),
        format!("{c} [current working directory /c] (a) (b)"),
        format!("{c} [current working directory /c] (x; rm -rf ~)"),
        format!("{c} [current working directory /c] (run $(id))"),
        format!("{c} [current working directory /c] (see [docs])"),
        format!("{c} [in /it's]"),
        format!("{c} [timeout: ms]"),
        format!("{c} && rm -rf ~ [current working directory /c]"),
        format!("{c}; rm -rf ~"),
    ] {
        let extracted = extract_command(&gemini(&title));
        assert_eq!(extracted, Extracted::Command(title.clone()), "kept whole");
        assert!(
            matches!(classify_invocation(&title), Invocation::NonCanonical(_)),
            "{title}"
        );
    }
    assert_eq!(
        classify_invocation(&command_of(&gemini(
            "ls -la [current working directory /c]"
        ))),
        Invocation::Unrelated
    );
}

#[test]
fn opencode_shapes() {
    assert!(is_canonical(&opencode(
        json!({"command": canon(), "description": "d"})
    )));
    // Its bash permission often carries empty metadata: fail closed.
    assert!(matches!(
        extract_command(&opencode(json!({}))),
        Extracted::UnknownShape(_)
    ));
    // Edits are not commands.
    let edit = json!({"toolCallId":"c","status":"pending","title":"edit","kind":"edit",
        "rawInput":{"filepath":"/a","diff":"-x\n+y"}});
    assert_eq!(extract_command(&edit), Extracted::NotACommand);
}

#[test]
fn non_commands_and_unknown_shapes() {
    assert_eq!(
        extract_command(&json!({"kind":"read","title":"Read a.txt"})),
        Extracted::NotACommand
    );
    assert_eq!(
        extract_command(&json!({"kind":"edit","title":"x","rawInput":{"file_path":"/a"}})),
        Extracted::NotACommand
    );
    for shape in [
        json!("not an object"),
        json!({"kind":"execute"}),
        json!({"kind":"execute","rawInput":"ls"}),
        json!({"kind":"execute","rawInput":{"cmd":"ls"}}),
        json!({"kind":"execute","rawInput":{"command":42}}),
        json!({"kind":"execute","rawInput":{"command":{"argv":["ls"]}}}),
    ] {
        assert!(
            matches!(extract_command(&shape), Extracted::UnknownShape(_)),
            "{shape}"
        );
    }
}

#[test]
fn a_proposal_hidden_in_a_non_command_shape_fails_closed() {
    for shape in [
        json!({"kind":"other","title":canon()}),
        json!({"kind":"edit","rawInput":{"file_path":"/a","content":format!("#!/bin/sh\n{}", canon())}}),
        json!({"title":"x","rawInput":{"script":[["propose-terminal-actions"]]}}),
    ] {
        assert!(
            matches!(extract_command(&shape), Extracted::UnknownShape(_)),
            "{shape}"
        );
    }
}
