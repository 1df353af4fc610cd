//! Screen snapshots (insta over ratatui's TestBackend) of every part of the
//! pane, each at widths 40/80/120 and heights 10/40. States are built by
//! feeding events through the real reducer, as the helper does.

mod common;

use common::Fixture;
use wta_state::*;

const SIZES: [(u16, u16); 6] = [(40, 10), (80, 10), (120, 10), (40, 40), (80, 40), (120, 40)];

fn snapshot_all_sizes(name: &str, fixture: &Fixture) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), fixture.render(w, h));
    }
}

const REPLY: &str = "## Plan\n\nI'll check the **build** first, then run the `tests`:\n\n1. Build with cargo\n2. Run the suite\n   - unit tests\n   - the *tmux* end-to-end tests\n\n```rust\nfn main() {\n    println!(\"hello from a fairly long line of code that wraps\");\n}\n```\n\n| Step | Result |\n|---|---|\n| build | ok |\n| tests | 2 failed |\n\nSee [the docs](https://example.com/docs) for more";

#[test]
fn empty_pane() {
    snapshot_all_sizes("empty", &Fixture::ready());
}

#[test]
fn streaming_reply_with_markdown_and_code() {
    let mut f = Fixture::ready();
    f.prompt("How do I build and test this?");
    f.domain(DomainEvent::ThoughtChunk(
        "The user wants build steps.\nCheck Cargo.toml first.".into(),
    ));
    for chunk in REPLY.as_bytes().chunks(40) {
        f.chunk(std::str::from_utf8(chunk).unwrap());
    }
    f.domain(DomainEvent::Usage(Usage {
        used_tokens: 12_345,
        context_tokens: Some(200_000),
        cost: Some((0.042, "USD".into())),
    }));
    f.at(2300).send(Event::Tick);
    snapshot_all_sizes("streaming", &f);
}

fn tool(
    id: &str,
    title: &str,
    kind: ToolKind,
    status: ToolStatus,
    target: Option<&str>,
) -> ToolCall {
    ToolCall {
        id: ToolCallId(id.into()),
        title: title.into(),
        kind,
        status,
        target: target.map(Into::into),
        ..ToolCall::default()
    }
}

#[test]
fn tool_calls_in_every_status() {
    let mut f = Fixture::ready();
    f.prompt("run the tests");
    f.domain(DomainEvent::ToolCall(tool(
        "1",
        "Read Cargo.toml",
        ToolKind::Read,
        ToolStatus::Completed,
        Some("/home/ada/src/wta/Cargo.toml"),
    )));
    f.domain(DomainEvent::ToolCall(tool(
        "2",
        "Run tests",
        ToolKind::Execute,
        ToolStatus::Failed,
        Some("cargo test --workspace"),
    )));
    f.domain(DomainEvent::ToolCallUpdate(ToolCallUpdate {
        id: ToolCallId("2".into()),
        output: Some(
            (1..=9)
                .map(|i| format!("test case_{i} ... ok\n"))
                .collect::<String>()
                + "test result: FAILED. 8 passed; 1 failed",
        ),
        exit_code: Some(101),
        ..ToolCallUpdate::default()
    }));
    f.domain(DomainEvent::ToolCall(tool(
        "3",
        "Edit src/lib.rs",
        ToolKind::Edit,
        ToolStatus::InProgress,
        Some("src/lib.rs"),
    )));
    f.domain(DomainEvent::ToolCall(tool(
        "4",
        "Search for TODO",
        ToolKind::Search,
        ToolStatus::Pending,
        None,
    )));
    snapshot_all_sizes("tools", &f);
}

#[test]
fn plan() {
    let mut f = Fixture::ready();
    f.prompt("fix the failing test");
    let entry = |text: &str, status| PlanEntry {
        text: text.into(),
        status,
    };
    f.domain(DomainEvent::Plan(vec![
        entry("Reproduce the failure", PlanStatus::Completed),
        entry(
            "Find the off-by-one in the wrapping code that drops the last column",
            PlanStatus::InProgress,
        ),
        entry("Add a regression test", PlanStatus::Pending),
    ]));
    snapshot_all_sizes("plan", &f);
}

fn permission(id: u64, title: &str, target: &str) -> PermissionRequest {
    let option = |id: &str, name: &str, kind| PermissionOption {
        id: id.into(),
        name: name.into(),
        kind,
    };
    PermissionRequest {
        id: PermissionRequestId(id),
        title: title.into(),
        kind: ToolKind::Execute,
        target: Some(target.into()),
        options: vec![
            option("allow", "Allow once", PermissionOptionKind::AllowOnce),
            option(
                "always",
                "Always allow `cargo`",
                PermissionOptionKind::AllowAlways,
            ),
            option("reject", "Reject", PermissionOptionKind::RejectOnce),
        ],
    }
}

#[test]
fn permission_card() {
    let mut f = Fixture::ready();
    f.prompt("clean and rebuild");
    f.chunk("I'll clean the target directory first.");
    f.domain(DomainEvent::PermissionRequest(permission(
        1,
        "Run cargo clean",
        "cargo clean && cargo build --release",
    )));
    f.domain(DomainEvent::PermissionRequest(permission(
        2,
        "Run cargo test",
        "cargo test",
    )));
    f.at(1000).send(Event::Tick);
    snapshot_all_sizes("permission", &f);
}

#[test]
fn slash_popup() {
    let mut f = Fixture::ready();
    f.typed("/");
    snapshot_all_sizes("slash_popup", &f);
}

#[test]
fn setup_screen_not_installed_and_needs_auth() {
    let mut f = Fixture::ready();
    f.domain(DomainEvent::AgentMissing {
        agent: "claude".into(),
        install_hint: "npm install -g @zed-industries/claude-code-acp".into(),
    });
    snapshot_all_sizes("setup_missing", &f);
    let mut f = Fixture::ready();
    f.domain(DomainEvent::AuthRequired {
        agent: "gemini".into(),
        methods: vec![
            AuthMethod {
                id: "login".into(),
                name: "Log in with Google".into(),
                description: None,
                terminal_command: Some(vec!["gemini".into(), "--login".into()]),
            },
            AuthMethod {
                id: "key".into(),
                name: "Use GEMINI_API_KEY".into(),
                description: Some("Reads the key from the environment".into()),
                terminal_command: None,
            },
        ],
    });
    snapshot_all_sizes("setup_auth", &f);
}

#[test]
fn debug_panel() {
    let mut f = Fixture::ready();
    f.prompt("hi");
    f.chunk("Hello! How can I help?");
    f.domain(DomainEvent::TurnEnded(StopReason::EndTurn));
    let lines = [
        (
            Direction::Out,
            r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}"#,
        ),
        (
            Direction::In,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk"}}}"#,
        ),
        (
            Direction::In,
            r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#,
        ),
    ];
    for (direction, line) in lines {
        f.domain(DomainEvent::Traffic {
            direction,
            line: line.into(),
        });
    }
    f.send(Event::Key(Key::plain(KeyCode::F(12))));
    snapshot_all_sizes("debug", &f);
}

#[test]
fn folded_turn_and_system_lines() {
    let mut f = Fixture::ready();
    f.prompt("first question");
    f.domain(DomainEvent::ThoughtChunk("Thinking about it".into()));
    f.chunk("First answer.");
    f.domain(DomainEvent::TurnEnded(StopReason::EndTurn));
    f.prompt("second question");
    f.chunk("Partial answ");
    f.domain(DomainEvent::TurnEnded(StopReason::Cancelled));
    f.state.input.set_text("/yolo on");
    f.state.popup_dismissed = true;
    f.send(Event::Key(Key::plain(KeyCode::Enter)));
    // The helper's machine decides and answers.
    f.domain(DomainEvent::Yolo {
        state: YoloState {
            on: true,
            blocked: None,
        },
        answer: Some(YoloAnswer::TurnedOn),
    });
    f.prompt("/nope");
    f.state.input.clear();
    // Fold the first turn: Tab walks up from the newest foldable.
    for _ in 0..2 {
        f.send(Event::Key(Key::plain(KeyCode::Tab)));
    }
    f.send(Event::Key(Key::plain(KeyCode::Enter)));
    insta::assert_snapshot!("folded_80x40", f.render(80, 40));
}

#[test]
fn multi_line_input_with_cursor() {
    let mut f = Fixture::ready();
    f.typed("first line");
    f.send(Event::Key(Key::new(KeyCode::Enter, Mods::SHIFT)));
    f.typed("second line that is long enough to wrap around in a narrow pane");
    insta::assert_snapshot!("input_40x10", f.render(40, 10));
}

/// The status line keeps the yolo state in view when space is short: it is a
/// safety setting and outranks the target pane, which drops first.
#[test]
fn yolo_state_outranks_the_target_pane_in_a_crowded_status_line() {
    for (on, blocked, label) in [
        (false, false, "yolo off"),
        (true, false, "yolo on"),
        (false, true, "yolo blocked by policy"),
    ] {
        let mut f = Fixture::ready();
        f.domain(DomainEvent::TargetPane {
            pane: "%12".into(),
            cwd: Some("/check/a/very/long/checkout/path/work/main/crates/wta".into()),
        });
        let blocked = blocked.then_some(YoloBlock::Policy);
        f.domain(DomainEvent::Yolo {
            state: YoloState { on, blocked },
            answer: None,
        });
        f.prompt("clean");
        f.domain(DomainEvent::PermissionRequest(permission(
            1,
            "Run",
            "cargo clean",
        )));
        let screen = f.render(80, 10);
        let status = screen.lines().last().unwrap();
        assert!(status.contains("Waiting for you: permission"), "{status}");
        assert!(status.contains(label), "{label}: {status}");
    }
}

/// Where the line is crowded the target's cwd shortens, then goes, but the
/// pane cards run in stays named (a long checkout path once hid it).
#[test]
fn the_target_pane_stays_named_when_its_cwd_does_not_fit() {
    let cwd = "/check/a/very/long/checkout/path/work/main/crates/wta";
    for width in [80, 72, 64] {
        let mut f = Fixture::ready();
        f.domain(DomainEvent::TargetPane {
            pane: "%12".into(),
            cwd: Some(cwd.into()),
        });
        f.prompt("clean");
        f.domain(DomainEvent::PermissionRequest(permission(
            1,
            "Run",
            "cargo clean",
        )));
        let screen = f.render(width, 10);
        let status = screen.lines().last().unwrap();
        assert!(status.contains("Waiting for you: permission"), "{status}");
        assert!(status.contains("%12"), "{width} columns: {status}");
        assert!(status.contains("yolo off"), "{width} columns: {status}");
    }
}

#[test]
fn a_message_typed_during_a_turn_waits_above_the_prompt() {
    let mut f = Fixture::ready();
    f.prompt("build it");
    f.chunk("Building…");
    f.typed("then run the tests and tell me what failed");
    f.send(Event::Key(Key::plain(KeyCode::Enter)));
    f.typed("next draft");
    insta::assert_snapshot!("queued_80x10", f.render(80, 10));
    insta::assert_snapshot!("queued_40x10", f.render(40, 10));
}

/// Autofix's pill: what failed, where, and the key; it stays in view next
/// to the target pane and goes once the fix turn starts.
#[test]
fn a_failure_pill_names_the_exit_the_pane_and_the_key() {
    let mut f = Fixture::ready();
    f.domain(DomainEvent::TargetPane {
        pane: "%1".into(),
        cwd: Some("/src/app".into()),
    });
    f.domain(DomainEvent::Failure(FailureNotice {
        generation: 1,
        pane: "%3".into(),
        command: Some("cargo tset".into()),
        exit_code: 101,
    }));
    snapshot_all_sizes("failure_pill", &f);
    let status = f.render(80, 10).lines().last().unwrap().to_owned();
    assert!(status.contains("✗ exit 101 in %3 · Ctrl+F fix"), "{status}");
    let narrow = f.render(40, 10).lines().last().unwrap().to_owned();
    assert!(narrow.contains("✗ 101 %3 ^F"), "the short form: {narrow}");
    // "yolo on" is never crowded out by the pill.
    f.domain(DomainEvent::Yolo {
        state: YoloState {
            on: true,
            blocked: None,
        },
        answer: None,
    });
    let narrow = f.render(40, 10).lines().last().unwrap().to_owned();
    assert!(narrow.contains("yolo on"), "{narrow}");
    f.send(Event::Key(Key::ctrl('f')));
    let status = f.render(80, 10).lines().last().unwrap().to_owned();
    assert!(!status.contains("Ctrl+F fix"), "{status}");
}

/// The agent's question: the question, its choices with the highlighted
/// one, the free-form hint and the keys; the compact form when short.
#[test]
fn the_agents_question() {
    let mut f = Fixture::ready();
    f.prompt("deploy it");
    f.domain(DomainEvent::Question(QuestionRequest {
        id: 1,
        question:
            "Which environment should I deploy to?\nStaging is safe; production needs a review."
                .into(),
        choices: vec!["staging".into(), "production".into()],
        allow_freeform: true,
    }));
    // Armed: the keys line shows the keys.
    f.at(1000).send(Event::Tick);
    snapshot_all_sizes("question", &f);
    let tall = f.render(80, 40);
    assert!(tall.contains("› 1. staging"), "{tall}");
    assert!(tall.contains("Or type your own answer"), "{tall}");
    assert!(tall.contains("Waiting for you: question"), "{tall}");
}
