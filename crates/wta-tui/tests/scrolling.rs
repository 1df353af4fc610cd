//! The view stays put while the user reads history and follows the stream
//! otherwise; PageUp/PageDown use the geometry the last frame measured.

use std::time::Instant;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use wta_state::*;
use wta_tui::View;

/// A pane whose session has started.
fn connected(now: Instant) -> AppState {
    let mut state = AppState::new("demo");
    update(
        &mut state,
        Event::Domain(DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: None,
        }),
        now,
    );
    state
}

fn rows(terminal: &Terminal<TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn reading_history_is_not_disturbed_by_streaming_and_following_resumes() {
    let now = Instant::now();
    let mut state = connected(now);
    state.input.set_text("count");
    update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    let numbers: String = (1..=60).map(|i| format!("line {i}\n\n")).collect();
    update(
        &mut state,
        Event::Domain(DomainEvent::AgentMessageChunk(numbers)),
        now,
    );

    let mut terminal = Terminal::new(TestBackend::new(40, 12)).unwrap();
    let mut view = View::new();
    let mut draw = |state: &AppState, terminal: &mut Terminal<TestBackend>| {
        terminal.draw(|f| view.render(state, f)).unwrap();
        rows(terminal)
    };
    let following = draw(&state, &mut terminal);
    assert!(
        following[..9].iter().any(|r| r.contains("line 60")),
        "{following:#?}"
    );

    update(&mut state, Event::Key(Key::plain(KeyCode::PageUp)), now);
    let reading = draw(&state, &mut terminal);
    assert!(!reading.iter().any(|r| r.contains("line 60")));
    assert!(
        reading[11].contains("history"),
        "status shows we are reading: {:?}",
        reading[11]
    );

    update(
        &mut state,
        Event::Domain(DomainEvent::AgentMessageChunk("\n\nline 61".into())),
        now,
    );
    let still = draw(&state, &mut terminal);
    assert_eq!(
        reading[..9],
        still[..9],
        "new content below does not move the page"
    );

    update(
        &mut state,
        Event::Key(Key::new(KeyCode::End, Mods::CTRL)),
        now,
    );
    let back = draw(&state, &mut terminal);
    assert!(back[..9].iter().any(|r| r.contains("line 61")), "{back:#?}");
}

#[test]
fn live_thought_shows_its_latest_lines_then_folds_to_one() {
    let now = Instant::now();
    let mut state = connected(now);
    state.input.set_text("think");
    update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    let thought = "step one\nstep two\nstep three\nstep four";
    update(
        &mut state,
        Event::Domain(DomainEvent::ThoughtChunk(thought.into())),
        now,
    );
    let mut terminal = Terminal::new(TestBackend::new(40, 10)).unwrap();
    let mut view = View::new();
    terminal.draw(|f| view.render(&state, f)).unwrap();
    insta::assert_snapshot!("thought_live_40x10", terminal.backend());
    update(
        &mut state,
        Event::Domain(DomainEvent::AgentMessageChunk("Done.".into())),
        now,
    );
    terminal.draw(|f| view.render(&state, f)).unwrap();
    insta::assert_snapshot!("thought_settled_40x10", terminal.backend());
}

/// The F12 panel (issue 27): 133 lines, each whole (wrapped, never cut
/// with `…`), scrolled by PageUp/PageDown, the wheel and Home/End while it
/// is open; the transcript behind it does not move. Its title says which
/// rows are in view.
#[test]
fn the_traffic_panel_scrolls_and_shows_whole_lines() {
    let now = Instant::now();
    let mut state = connected(now);
    state.input.set_text("count");
    update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    let numbers: String = (1..=60).map(|i| format!("line {i}\n\n")).collect();
    update(
        &mut state,
        Event::Domain(DomainEvent::AgentMessageChunk(numbers)),
        now,
    );
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"session/prompt","params":{{"prompt":[{{"type":"text","text":"{}"}}]}}}}"#,
        "word ".repeat(30).trim_end()
    );
    update(
        &mut state,
        Event::Domain(DomainEvent::Traffic {
            direction: Direction::Out,
            line: long.clone(),
        }),
        now,
    );
    for i in 1..133 {
        update(
            &mut state,
            Event::Domain(DomainEvent::Traffic {
                direction: Direction::In,
                line: format!(
                    r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"n":{i}}}}}"#
                ),
            }),
            now,
        );
    }
    update(&mut state, Event::Key(Key::plain(KeyCode::F(12))), now);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut view = View::new();
    let mut draw = |state: &AppState, terminal: &mut Terminal<TestBackend>| {
        terminal.draw(|f| view.render(state, f)).unwrap();
        rows(terminal)
    };
    let newest = draw(&state, &mut terminal);
    assert!(
        newest.iter().any(|r| r.contains(r#""n":132"#)),
        "{newest:#?}"
    );
    insta::assert_snapshot!("traffic_newest_80x24", newest.join("\n"));
    let transcript_before = state.scroll;

    let key = |state: &mut AppState, key: Key| {
        update(state, Event::Key(key), now);
    };
    key(&mut state, Key::plain(KeyCode::PageUp));
    let page_up = draw(&state, &mut terminal);
    assert_eq!(state.scroll, transcript_before, "the transcript stays");
    assert!(!page_up.iter().any(|r| r.contains(r#""n":132"#)));
    update(&mut state, Event::Mouse(Mouse::WheelUp), now);
    let wheel = draw(&state, &mut terminal);
    assert_ne!(wheel, page_up, "the wheel scrolls the panel");

    key(&mut state, Key::plain(KeyCode::Home));
    let oldest = draw(&state, &mut terminal);
    insta::assert_snapshot!("traffic_oldest_80x24", oldest.join("\n"));
    // The long first line is there whole, over as many rows as it needs.
    let shown = oldest[14..18].join("\n");
    assert_eq!(shown.matches("word").count(), 30, "{oldest:#?}");
    assert!(shown.contains(r#"word"}]}}"#), "{oldest:#?}");
    assert!(!oldest.iter().any(|r| r.contains('…')), "{oldest:#?}");

    key(&mut state, Key::plain(KeyCode::End));
    assert_eq!(draw(&state, &mut terminal), newest);
}
