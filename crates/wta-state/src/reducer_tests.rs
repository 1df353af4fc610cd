//! Typing, turns and the view through `update`: the prompt and its queue,
//! the Ctrl+C ladder, history, scrolling and folding, the scripted front
//! end, asserting both the state and the emitted effects. Slash commands,
//! permission cards and the setup screen have files of their own.

use super::test_pane::*;
use super::*;

#[test]
fn enter_sends_the_prompt_and_opens_a_turn() {
    let mut p = Pane::ready();
    p.typed("hello");
    assert_eq!(p.code(KeyCode::Enter), [Effect::SendPrompt("hello".into())]);
    assert!(p.state.input.is_empty());
    assert!(p.state.transcript.turn_running());
    assert!(matches!(p.state.activity(), Activity::Thinking { .. }));
    p.domain(DomainEvent::AgentMessageChunk("hi".into()));
    p.domain(DomainEvent::TurnEnded(StopReason::EndTurn));
    assert_eq!(p.state.activity(), Activity::Ready);
}

#[test]
fn prompts_typed_during_a_turn_are_queued_and_sent_when_it_ends() {
    let mut p = Pane::ready();
    p.typed("one");
    assert_eq!(p.code(KeyCode::Enter), [Effect::SendPrompt("one".into())]);
    p.typed("two");
    assert!(p.code(KeyCode::Enter).is_empty(), "queued, not sent");
    p.typed("three");
    assert!(p.code(KeyCode::Enter).is_empty());
    assert_eq!(
        p.state.queued.as_deref(),
        Some("two\n\nthree"),
        "one message"
    );
    assert!(
        p.state.input.is_empty(),
        "the editor is free for the next draft"
    );
    p.typed("draft");
    assert_eq!(
        p.domain(DomainEvent::TurnEnded(StopReason::EndTurn)),
        [Effect::SendPrompt("two\n\nthree".into())]
    );
    assert!(
        p.state.transcript.turn_running(),
        "the queued message opened a turn"
    );
    assert_eq!(p.state.input.text(), "draft", "the draft is untouched");
    assert_eq!(p.state.queued, None);
}

#[test]
fn a_cancelled_turn_gives_the_queued_message_back_and_esc_takes_it_back() {
    let mut p = Pane::ready();
    p.typed("one");
    p.code(KeyCode::Enter);
    p.typed("two");
    p.code(KeyCode::Enter);
    p.typed("draft");
    assert!(
        p.domain(DomainEvent::TurnEnded(StopReason::Cancelled))
            .is_empty()
    );
    assert_eq!(
        p.state.input.text(),
        "two\ndraft",
        "back in the editor, first"
    );
    assert_eq!(p.last_system().map(|s| s.0), Some(SystemLevel::Info));

    p.code(KeyCode::Esc);
    p.typed("again");
    p.code(KeyCode::Enter);
    p.typed("later");
    p.code(KeyCode::Enter);
    assert_eq!(p.state.queued.as_deref(), Some("later"));
    p.code(KeyCode::Esc);
    assert_eq!(
        p.state.input.text(),
        "later",
        "Esc on an empty editor unqueues"
    );
    assert_eq!(p.state.queued, None);
    // A lost connection also returns it.
    p.code(KeyCode::Enter);
    p.domain(DomainEvent::Connection(ConnectionState::Failed(
        "gone".into(),
    )));
    assert_eq!(p.state.input.text(), "later");
}

#[test]
fn prompts_typed_while_connecting_are_queued_and_sent_once_the_session_opens() {
    let mut fresh = Pane::ready();
    fresh.state.connection = ConnectionState::Connecting;
    fresh.typed("x");
    assert!(fresh.code(KeyCode::Enter).is_empty(), "not sent yet");
    fresh.typed("y");
    assert!(fresh.code(KeyCode::Enter).is_empty());
    assert_eq!(fresh.state.queued.as_deref(), Some("x\n\ny"));
    assert!(fresh.state.input.is_empty(), "the editor is free");
    assert!(!fresh.state.transcript.turn_running());
    let effects = fresh.domain(DomainEvent::SessionStarted {
        agent: "demo".into(),
        model: None,
    });
    assert_eq!(effects, [Effect::SendPrompt("x\n\ny".into())]);
    assert!(fresh.state.transcript.turn_running());
    assert_eq!(fresh.state.queued, None);
}

#[test]
fn a_failed_connection_gives_the_queued_message_back_and_refuses_new_ones() {
    let mut fresh = Pane::ready();
    fresh.state.connection = ConnectionState::Connecting;
    fresh.typed("x");
    assert!(fresh.code(KeyCode::Enter).is_empty());
    fresh.domain(DomainEvent::Connection(ConnectionState::Failed(
        "no agent".into(),
    )));
    assert_eq!(fresh.state.queued, None);
    assert_eq!(fresh.state.input.text(), "x", "back in the editor");
    // Not connecting any more: refused, the draft kept.
    assert!(fresh.code(KeyCode::Enter).is_empty());
    assert_eq!(fresh.last_system().map(|s| s.0), Some(SystemLevel::Warn));
    assert_eq!(fresh.state.input.text(), "x", "draft kept");
}

#[test]
fn shift_enter_alt_enter_and_backslash_enter_insert_newlines() {
    let mut p = Pane::ready();
    p.typed("a");
    p.key(Key::new(KeyCode::Enter, Mods::SHIFT));
    p.typed("b");
    p.key(Key::new(KeyCode::Enter, Mods::ALT));
    p.typed("c\\");
    assert!(p.code(KeyCode::Enter).is_empty());
    assert_eq!(p.state.input.text(), "a\nb\nc\n");
}

#[test]
fn ctrl_c_ladder_copy_cancel_clear_then_quit_within_window() {
    let mut p = Pane::ready();
    // 1. selection → copy
    p.typed("abc def");
    p.key(Key::new(
        KeyCode::Left,
        Mods {
            shift: true,
            ctrl: true,
            alt: false,
        },
    ));
    assert_eq!(
        p.key(Key::ctrl('c')),
        [Effect::CopyToClipboard("def".into())]
    );
    assert_eq!(p.state.input.text(), "abc def");
    // 2. running turn → cancel (and pending permissions are cancelled first)
    p.state.input.clear();
    p.typed("go");
    p.code(KeyCode::Enter);
    p.domain(DomainEvent::PermissionRequest(permission(7)));
    p.typed("draft");
    let fx = p.key(Key::ctrl('c'));
    assert_eq!(
        fx,
        [
            Effect::AnswerPermission {
                request: PermissionRequestId(7),
                answer: PermissionAnswer::Cancelled
            },
            Effect::Cancel
        ]
    );
    p.domain(DomainEvent::TurnEnded(StopReason::Cancelled));
    // 3. draft → cleared
    assert!(p.key(Key::ctrl('c')).is_empty());
    assert!(p.state.input.is_empty());
    // 4. arm, then a press after the window re-arms instead of quitting
    p.at(1000);
    assert!(p.key(Key::ctrl('c')).is_empty());
    assert!(p.state.quit_armed());
    p.at(2600);
    assert!(p.key(Key::ctrl('c')).is_empty());
    // 5. second press within 1.5 s quits
    p.at(3000);
    assert_eq!(p.key(Key::ctrl('c')), [Effect::Quit]);
}

#[test]
fn armed_quit_expires_on_tick_so_the_hint_goes_away() {
    let mut p = Pane::ready();
    p.key(Key::ctrl('c'));
    assert!(p.state.needs_tick());
    p.at(1600);
    p.send(Event::Tick);
    assert_eq!(p.state.quit_armed_at, None);
    assert!(!p.state.needs_tick(), "idle pane needs no ticks");
}

#[test]
fn history_up_down_keeps_the_draft() {
    let mut p = Pane::ready();
    for prompt in ["first", "second"] {
        p.typed(prompt);
        p.code(KeyCode::Enter);
        p.domain(DomainEvent::TurnEnded(StopReason::EndTurn));
    }
    p.typed("dra");
    p.code(KeyCode::Up);
    assert_eq!(p.state.input.text(), "second");
    p.code(KeyCode::Up);
    assert_eq!(p.state.input.text(), "first");
    p.code(KeyCode::Down);
    p.code(KeyCode::Down);
    assert_eq!(p.state.input.text(), "dra");
    p.code(KeyCode::Esc);
    assert!(p.state.input.is_empty());
}

#[test]
fn page_up_pins_the_view_and_streaming_does_not_move_it() {
    let mut p = Pane::ready();
    p.state.viewport.set(Viewport {
        total_lines: 100,
        rows: 20,
    });
    p.code(KeyCode::PageUp);
    assert_eq!(p.state.scroll, Scroll::Pinned { top: 62 });
    p.domain(DomainEvent::AgentMessageChunk("more".into()));
    p.state.viewport.set(Viewport {
        total_lines: 150,
        rows: 20,
    });
    assert_eq!(
        p.state.scroll,
        Scroll::Pinned { top: 62 },
        "reading position kept"
    );
    p.send(Event::Mouse(Mouse::WheelDown));
    assert_eq!(p.state.scroll, Scroll::Pinned { top: 65 });
    for _ in 0..5 {
        p.code(KeyCode::PageDown);
    }
    assert_eq!(
        p.state.scroll,
        Scroll::Follow,
        "reaching the bottom follows again"
    );
    p.send(Event::Mouse(Mouse::WheelUp));
    assert_eq!(p.state.scroll, Scroll::Pinned { top: 127 });
    p.typed("x");
    p.code(KeyCode::Enter);
    assert_eq!(
        p.state.scroll,
        Scroll::Follow,
        "sending returns to the bottom"
    );
}

#[test]
fn tab_selects_foldables_and_enter_folds_a_completed_turn() {
    let mut p = Pane::ready();
    p.typed("q");
    p.code(KeyCode::Enter);
    p.domain(DomainEvent::AgentMessageChunk("a".into()));
    p.domain(DomainEvent::TurnEnded(StopReason::EndTurn));
    p.code(KeyCode::Tab);
    let focus = p.state.fold_focus.unwrap();
    p.code(KeyCode::Enter);
    assert!(matches!(
        p.state
            .transcript
            .entries()
            .iter()
            .find(|e| e.id == focus)
            .map(|e| &e.item),
        Some(Item::TurnEnd {
            collapsed: true,
            ..
        })
    ));
    assert_eq!(p.state.transcript.visible().count(), 2);
    p.code(KeyCode::Esc);
    assert_eq!(p.state.fold_focus, None);
}

#[test]
fn connection_failure_closes_the_turn_and_cancels_cards() {
    let mut p = Pane::ready();
    p.typed("q");
    p.code(KeyCode::Enter);
    p.domain(DomainEvent::PermissionRequest(permission(3)));
    let fx = p.domain(DomainEvent::Connection(ConnectionState::Failed(
        "agent exited; /restart".into(),
    )));
    assert_eq!(
        fx,
        [Effect::AnswerPermission {
            request: PermissionRequestId(3),
            answer: PermissionAnswer::Cancelled
        }]
    );
    assert!(!p.state.transcript.turn_running());
    assert!(matches!(p.state.activity(), Activity::Failed(_)));
}

#[test]
fn f12_toggles_debug_and_paste_inserts_verbatim() {
    let mut p = Pane::ready();
    p.key(Key::plain(KeyCode::F(12)));
    assert!(p.state.debug.visible);
    p.domain(DomainEvent::Traffic {
        direction: Direction::In,
        line: "{\"jsonrpc\":\"2.0\"}".into(),
    });
    assert_eq!(p.state.debug.len(), 1);
    assert!(p.send(Event::Paste("line1\nline2".into())).is_empty());
    assert_eq!(p.state.input.text(), "line1\nline2");
}

/// While F12 is open, PageUp/PageDown, the wheel and Home/End scroll the
/// traffic panel, never the transcript behind it; closed, they are the
/// transcript's again.
#[test]
fn the_open_traffic_panel_takes_the_scroll_keys() {
    let mut p = Pane::ready();
    // A transcript long enough to scroll, as the view measured it.
    p.state.viewport.set(Viewport {
        total_lines: 100,
        rows: 10,
    });
    p.key(Key::plain(KeyCode::F(12)));
    for i in 0..133 {
        p.domain(DomainEvent::Traffic {
            direction: Direction::In,
            line: format!("{{\"id\":{i}}}"),
        });
    }
    // What the panel drew: 16 rows of 133.
    p.state.debug.area.set(TrafficArea {
        width: 40,
        rows: 16,
        total_rows: 133,
    });
    p.code(KeyCode::PageUp);
    assert_eq!(p.state.debug.scroll, Scroll::Pinned { top: 103 });
    assert_eq!(p.state.scroll, Scroll::Follow, "the transcript stays");
    p.send(Event::Mouse(Mouse::WheelUp));
    assert_eq!(p.state.debug.scroll, Scroll::Pinned { top: 100 });
    p.code(KeyCode::Home);
    assert_eq!(p.state.debug.scroll, Scroll::Pinned { top: 0 });
    p.send(Event::Mouse(Mouse::WheelDown));
    assert_eq!(p.state.debug.scroll, Scroll::Pinned { top: 3 });
    p.code(KeyCode::PageDown);
    assert_eq!(p.state.debug.scroll, Scroll::Pinned { top: 17 });
    p.code(KeyCode::End);
    assert_eq!(p.state.debug.scroll, Scroll::Follow);
    // With a draft, plain Home/End move in it; Ctrl+Home still scrolls.
    p.typed("ab");
    p.code(KeyCode::Home);
    assert_eq!(p.state.debug.scroll, Scroll::Follow);
    assert_eq!(p.state.input.cursor(), 0);
    p.key(Key::new(KeyCode::Home, Mods::CTRL));
    assert_eq!(p.state.debug.scroll, Scroll::Pinned { top: 0 });
    // Closed (and opened again at the newest rows): the transcript's keys.
    p.key(Key::plain(KeyCode::F(12)));
    p.code(KeyCode::PageUp);
    assert_eq!(p.state.scroll, Scroll::Pinned { top: 82 });
    p.key(Key::plain(KeyCode::F(12)));
    assert_eq!(p.state.debug.scroll, Scroll::Follow);
}

#[test]
fn a_scripted_front_end_takes_the_same_paths_as_the_keys() {
    let mut p = Pane::ready();
    let script = |s| Event::Script(s);
    // Submit: a prompt opens a turn, a slash command runs.
    assert_eq!(
        p.send(script(Scripted::Submit("hello".into()))),
        [Effect::SendPrompt("hello".into())]
    );
    assert!(p.state.transcript.turn_running());
    // A second prompt during the turn is queued, as typed ones are.
    assert!(p.send(script(Scripted::Submit("later".into()))).is_empty());
    assert_eq!(p.state.queued.as_deref(), Some("later"));
    // Answer: the oldest card, at once (nothing is typed, so no grace), with
    // an option it offers; an option it does not offer dismisses it.
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    p.domain(DomainEvent::PermissionRequest(permission(2)));
    assert_eq!(
        p.send(script(Scripted::Answer(Some("always".into())))),
        [Effect::AnswerPermission {
            request: PermissionRequestId(1),
            answer: PermissionAnswer::Selected("always".into())
        }]
    );
    assert_eq!(
        p.send(script(Scripted::Answer(Some("not-offered".into())))),
        [Effect::AnswerPermission {
            request: PermissionRequestId(2),
            answer: PermissionAnswer::Cancelled
        }]
    );
    assert!(
        p.send(script(Scripted::Answer(None))).is_empty(),
        "no card left"
    );
    // Cancel: only a running turn.
    let fx = p.send(script(Scripted::Cancel));
    assert!(fx.contains(&Effect::Cancel), "{fx:?}");
    p.domain(DomainEvent::TurnEnded(StopReason::Cancelled));
    assert!(!p.send(script(Scripted::Cancel)).contains(&Effect::Cancel));
    assert_eq!(
        p.send(script(Scripted::Submit("/new".into()))),
        [Effect::NewSession]
    );
    assert_eq!(
        p.send(script(Scripted::SetOption {
            option: "mode".into(),
            value: "plan".into()
        })),
        [Effect::SetConfigOption {
            option: "mode".into(),
            value: "plan".into()
        }]
    );
}

#[test]
fn a_tool_call_in_an_agent_terminal_shows_its_command_output_and_end() {
    let mut p = Pane::ready();
    p.typed("go");
    p.code(KeyCode::Enter);
    let view = |lines: &[&str], exit: Option<&str>| TerminalView {
        id: "term-1".into(),
        command: "cargo test".into(),
        exit: exit.map(str::to_owned),
        last_lines: lines.iter().map(|l| (*l).to_owned()).collect(),
    };
    // The terminal is seen before the tool call names it (create first).
    p.domain(DomainEvent::Terminal(view(&["compiling"], None)));
    p.domain(DomainEvent::ToolCall(ToolCall {
        id: ToolCallId("t1".into()),
        title: "Run tests".into(),
        kind: ToolKind::Execute,
        terminal: Some("term-1".into()),
        ..ToolCall::default()
    }));
    let tool = |p: &Pane| {
        p.state
            .transcript
            .entries()
            .iter()
            .find_map(|e| match &e.item {
                Item::Tool(call) => Some(call.clone()),
                _ => None,
            })
            .unwrap()
    };
    let call = tool(&p);
    assert_eq!(call.target.as_deref(), Some("cargo test"));
    assert_eq!(call.output, ["compiling"]);
    p.domain(DomainEvent::Terminal(view(
        &["ok", "2 passed"],
        Some("exit 0"),
    )));
    let call = tool(&p);
    assert_eq!(call.output, ["ok", "2 passed"]);
    assert_eq!(call.exit_code, Some(0));
    // Another terminal's news changes nothing here.
    p.domain(DomainEvent::Terminal(TerminalView {
        id: "term-2".into(),
        ..view(&["other"], Some("exit 1"))
    }));
    assert_eq!(tool(&p).output, ["ok", "2 passed"]);
}
