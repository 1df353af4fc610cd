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
            session: "s1".into(),
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
