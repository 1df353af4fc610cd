//! Key sequences and domain events through `update`, asserting both the
//! state and the emitted effects.

use std::time::{Duration, Instant};

use super::*;

struct Pane {
    state: AppState,
    t0: Instant,
    now: Instant,
}

impl Pane {
    fn ready() -> Self {
        let t0 = Instant::now();
        let mut pane = Pane {
            state: AppState::new("demo"),
            t0,
            now: t0,
        };
        pane.domain(DomainEvent::SessionStarted {
            session: "s1".into(),
            agent: "demo".into(),
            model: Some("m1".into()),
        });
        pane
    }

    fn at(&mut self, ms: u64) -> &mut Self {
        self.now = self.t0 + Duration::from_millis(ms);
        self
    }

    fn send(&mut self, event: Event) -> Vec<Effect> {
        update(&mut self.state, event, self.now)
    }

    fn key(&mut self, key: Key) -> Vec<Effect> {
        self.send(Event::Key(key))
    }

    fn code(&mut self, code: KeyCode) -> Vec<Effect> {
        self.key(Key::plain(code))
    }

    fn typed(&mut self, text: &str) -> Vec<Effect> {
        text.chars().flat_map(|c| self.key(Key::ch(c))).collect()
    }

    fn domain(&mut self, event: DomainEvent) -> Vec<Effect> {
        self.send(Event::Domain(event))
    }

    fn last_system(&self) -> Option<(SystemLevel, String)> {
        self.state
            .transcript
            .entries()
            .iter()
            .rev()
            .find_map(|e| match &e.item {
                Item::System { level, text } => Some((*level, text.clone())),
                _ => None,
            })
    }
}

fn permission(id: u64) -> PermissionRequest {
    let option = |id: &str, kind| PermissionOption {
        id: id.into(),
        name: format!("{id} name"),
        kind,
    };
    PermissionRequest {
        id: PermissionRequestId(id),
        title: "Run tests".into(),
        kind: ToolKind::Execute,
        target: Some("cargo test".into()),
        options: vec![
            option("allow", PermissionOptionKind::AllowOnce),
            option("always", PermissionOptionKind::AllowAlways),
            option("reject", PermissionOptionKind::RejectOnce),
        ],
    }
}

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
fn prompts_are_refused_before_connecting() {
    let mut fresh = Pane::ready();
    fresh.state.connection = ConnectionState::Connecting;
    fresh.typed("x");
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
    assert!(p.state.quitting);
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
fn unknown_slash_command_warns_and_sends_nothing() {
    let mut p = Pane::ready();
    p.typed("/foo bar");
    assert!(p.code(KeyCode::Enter).is_empty());
    let (level, text) = p.last_system().unwrap();
    assert_eq!(level, SystemLevel::Warn);
    assert!(text.contains("/foo"), "{text}");
    assert_eq!(p.state.input.text(), "/foo bar", "kept for fixing");
    p.state.input.clear();
    p.typed("//foo");
    assert_eq!(p.code(KeyCode::Enter), [Effect::SendPrompt("/foo".into())]);
}

#[test]
fn slash_commands_emit_their_effects() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::Agents(vec![
        AgentChoice {
            id: "demo".into(),
            name: "Demo".into(),
            install: None,
        },
        AgentChoice {
            id: "claude".into(),
            name: "Claude Code".into(),
            install: None,
        },
    ]));
    let mut run = |line: &str| {
        p.state.input.set_text(line);
        p.state.popup_dismissed = true;
        p.code(KeyCode::Enter)
    };
    assert_eq!(run("/new"), [Effect::NewSession]);
    assert_eq!(run("/sessions"), [Effect::OpenSessions]);
    assert_eq!(run("/yolo on"), [Effect::SetYolo(true)]);
    assert_eq!(run("/yolo off"), [Effect::SetYolo(false)]);
    assert_eq!(run("/yolo"), [], "bare /yolo only explains");
    assert_eq!(run("/model fast"), [Effect::SetModel("fast".into())]);
    assert_eq!(run("/agent claude"), [Effect::SwitchAgent("claude".into())]);
    assert_eq!(run("/agent nope"), []);
    assert_eq!(run("/stop"), []);
    assert_eq!(run("/restart"), [Effect::Restart]);
    assert_eq!(p.state.connection, ConnectionState::Connecting);
}

#[test]
fn yolo_blocked_by_policy_is_refused() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::Yolo {
        on: false,
        blocked: true,
    });
    p.state.input.set_text("/yolo on");
    p.state.popup_dismissed = true;
    assert!(p.code(KeyCode::Enter).is_empty());
    assert!(!p.state.yolo.on);
    assert!(p.last_system().unwrap().1.contains("policy"));
}

#[test]
fn slash_popup_filters_navigates_and_runs() {
    let mut p = Pane::ready();
    p.typed("/s");
    let labels: Vec<String> = p.state.completions().into_iter().map(|c| c.label).collect();
    assert_eq!(labels[..2], ["/stop".to_owned(), "/sessions".to_owned()]);
    p.code(KeyCode::Down);
    assert_eq!(p.code(KeyCode::Enter), [Effect::OpenSessions]);
    // A partly typed command runs as completed: bare `/yolo` explains.
    p.typed("/yo");
    assert!(p.code(KeyCode::Enter).is_empty());
    assert_eq!(p.state.input.text(), "");
    assert!(p.last_system().unwrap().1.starts_with("Yolo is off"));
    // A value picked with the arrows runs with its command.
    p.typed("/yolo ");
    p.code(KeyCode::Down);
    assert_eq!(p.code(KeyCode::Enter), [Effect::SetYolo(false)]);
    // Esc hides the popup, typing brings it back.
    p.typed("/he");
    p.code(KeyCode::Esc);
    assert!(p.state.completions().is_empty());
    p.typed("l");
    assert_eq!(p.state.completions().len(), 1);
}

#[test]
fn enter_and_esc_with_a_draft_never_answer_a_permission_card() {
    let mut p = Pane::ready();
    p.typed("go");
    p.code(KeyCode::Enter);
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    p.at(1000);
    p.typed("wait");
    assert!(p.code(KeyCode::Enter).is_empty(), "Enter kept the draft");
    assert_eq!(p.state.permissions.len(), 1);
    p.code(KeyCode::Esc);
    assert_eq!(p.state.permissions.len(), 1, "Esc cleared the draft only");
    assert!(p.state.input.is_empty());
    assert!(matches!(
        p.code(KeyCode::Esc).as_slice(),
        [Effect::AnswerPermission { .. }]
    ));
}

#[test]
fn permission_card_ignores_keys_in_its_grace_period() {
    let mut p = Pane::ready();
    p.typed("go");
    p.code(KeyCode::Enter);
    p.at(1000);
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    assert_eq!(p.state.activity(), Activity::WaitingForPermission);
    // Typed 100 ms after the card appeared: goes to the editor, not the card.
    p.at(1100);
    assert!(p.typed("n").is_empty());
    assert!(
        p.code(KeyCode::Enter).is_empty(),
        "Enter in grace does not answer"
    );
    assert_eq!(p.state.permissions.len(), 1);
    assert_eq!(p.state.input.text(), "n");
    // After the grace period, y answers (only with an empty input).
    p.at(1400);
    p.typed("y");
    assert_eq!(p.state.input.text(), "ny", "y with a draft is typing");
    p.state.input.clear();
    let fx = p.typed("y");
    assert_eq!(
        fx,
        [Effect::AnswerPermission {
            request: PermissionRequestId(1),
            answer: PermissionAnswer::Selected("allow".into())
        }]
    );
}

#[test]
fn permission_queue_is_fifo_with_arrows_enter_and_n() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    p.domain(DomainEvent::PermissionRequest(permission(2)));
    p.at(500);
    p.code(KeyCode::Down);
    let fx = p.code(KeyCode::Enter);
    assert_eq!(
        fx,
        [Effect::AnswerPermission {
            request: PermissionRequestId(1),
            answer: PermissionAnswer::Selected("always".into())
        }]
    );
    assert!(
        p.typed("n").is_empty(),
        "second card just reached the front: grace again"
    );
    p.state.input.clear();
    p.at(900);
    assert_eq!(
        p.typed("n"),
        [Effect::AnswerPermission {
            request: PermissionRequestId(2),
            answer: PermissionAnswer::Selected("reject".into())
        }]
    );
    assert!(p.state.permissions.is_empty());
}

/// `allow_all` picked in `/config` is `/yolo`: the policy gate applies and
/// the session state follows, instead of a raw `set_config_option`.
#[test]
fn allow_all_in_config_goes_through_yolo_and_its_policy() {
    for blocked in [false, true] {
        let mut p = Pane::ready();
        p.domain(DomainEvent::Yolo { on: false, blocked });
        p.domain(DomainEvent::ConfigOptions(vec![ConfigOption {
            id: "allow_all".into(),
            name: "Allow all".into(),
            current: "off".into(),
            values: vec![("off".into(), "Off".into()), ("on".into(), "On".into())],
        }]));
        p.state.input.set_text("/config");
        p.state.popup_dismissed = true;
        p.code(KeyCode::Enter);
        p.code(KeyCode::Enter);
        p.code(KeyCode::Down);
        let effects = p.code(KeyCode::Enter);
        if blocked {
            assert_eq!(effects, [], "the policy blocks the /config path too");
            assert!(!p.state.yolo.on);
            assert!(p.last_system().unwrap().1.contains("policy"));
        } else {
            assert_eq!(effects, [Effect::SetYolo(true)]);
            assert!(p.state.yolo.on);
        }
    }
}

#[test]
fn pickers_choose_agent_model_and_config_values() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::Models(vec![
        ModelChoice {
            id: "m1".into(),
            name: "Model One".into(),
        },
        ModelChoice {
            id: "m2".into(),
            name: "Model Two".into(),
        },
    ]));
    p.domain(DomainEvent::ConfigOptions(vec![ConfigOption {
        id: "mode".into(),
        name: "Mode".into(),
        current: "ask".into(),
        values: vec![("ask".into(), "Ask".into()), ("code".into(), "Code".into())],
    }]));
    p.state.input.set_text("/model");
    p.state.popup_dismissed = true;
    p.code(KeyCode::Enter);
    assert_eq!(
        p.state.picker.as_ref().map(|x| x.selected),
        Some(0),
        "current model highlighted"
    );
    p.code(KeyCode::Down);
    assert_eq!(p.code(KeyCode::Enter), [Effect::SetModel("m2".into())]);
    assert_eq!(
        p.state.model.as_deref(),
        Some("m1"),
        "the status line waits for the agent"
    );
    p.domain(DomainEvent::ModelChanged("m2".into()));
    assert_eq!(p.state.model.as_deref(), Some("m2"));
    p.state.input.set_text("/config");
    p.state.popup_dismissed = true;
    p.code(KeyCode::Enter);
    p.code(KeyCode::Enter);
    assert_eq!(
        p.state.picker.as_ref().map(|x| x.title.as_str()),
        Some("Mode")
    );
    p.code(KeyCode::Down);
    assert_eq!(
        p.code(KeyCode::Enter),
        [Effect::SetConfigOption {
            option: "mode".into(),
            value: "code".into()
        }]
    );
    p.state.input.set_text("/agent");
    p.state.popup_dismissed = true;
    p.code(KeyCode::Enter);
    assert!(p.state.picker.is_none(), "no agents known: warning instead");
}

/// The setup screen waits for the user: no spinner, so no ticks (an idle
/// pane on it must not redraw ten times a second).
#[test]
fn the_setup_screen_needs_no_ticks() {
    let now = Instant::now();
    let mut state = AppState::new("claude");
    assert!(state.needs_tick(), "connecting shows a spinner");
    update(
        &mut state,
        Event::Domain(DomainEvent::AgentMissing {
            agent: "claude".into(),
            install_hint: "npm install -g @zed-industries/claude-code-acp".into(),
        }),
        now,
    );
    assert_eq!(state.activity(), Activity::Setup);
    assert!(!state.needs_tick());
}

#[test]
fn setup_screen_runs_terminal_auth_or_authenticate() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::AuthRequired {
        agent: "gemini".into(),
        methods: vec![
            AuthMethod {
                id: "key".into(),
                name: "API key".into(),
                description: None,
                terminal_command: None,
            },
            AuthMethod {
                id: "login".into(),
                name: "Log in".into(),
                description: None,
                terminal_command: Some(vec!["gemini".into(), "login".into()]),
            },
        ],
    });
    assert_eq!(p.state.activity(), Activity::Setup);
    assert_eq!(
        p.code(KeyCode::Enter),
        [Effect::Authenticate {
            agent: "gemini".into(),
            method: "key".into()
        }]
    );
    p.code(KeyCode::Down);
    assert_eq!(
        p.code(KeyCode::Enter),
        [Effect::RunAuthInWindow {
            agent: "gemini".into(),
            method: "login".into(),
            command: vec!["gemini".into(), "login".into()]
        }]
    );
    p.domain(DomainEvent::SessionStarted {
        session: "s2".into(),
        agent: "gemini".into(),
        model: None,
    });
    assert_eq!(p.state.activity(), Activity::Ready);
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
