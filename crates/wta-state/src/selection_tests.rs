//! Transcript mouse selection through `update`: drag selects transcript
//! lines (anchored to content, not screen rows), a click clears, Ctrl+C
//! copies the drawn text before the rest of the ladder. The geometry and the
//! drawn text are written here the way the view writes them after a frame.

use std::time::Instant;

use super::*;

/// A pane showing 10 of 100 transcript lines in a 40x10 area at row 2.
fn pane() -> (AppState, Instant) {
    let now = Instant::now();
    let mut state = AppState::new("demo");
    update(
        &mut state,
        Event::Domain(DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: None,
        }),
        now,
    );
    state.viewport.set(Viewport {
        total_lines: 100,
        rows: 10,
    });
    state.transcript_area.set(Some(TranscriptArea {
        x: 0,
        y: 2,
        width: 40,
        height: 10,
    }));
    (state, now)
}

fn mouse(state: &mut AppState, now: Instant, mouse: Mouse) -> Vec<Effect> {
    update(state, Event::Mouse(mouse), now)
}

fn drag(state: &mut AppState, now: Instant, from: (u16, u16), to: (u16, u16)) {
    mouse(
        state,
        now,
        Mouse::Down {
            col: from.0,
            row: from.1,
        },
    );
    mouse(
        state,
        now,
        Mouse::Drag {
            col: to.0,
            row: to.1,
        },
    );
    mouse(
        state,
        now,
        Mouse::Up {
            col: to.0,
            row: to.1,
        },
    );
}

fn point(line: usize, col: usize) -> TextPoint {
    TextPoint { line, col }
}

/// What the view records after drawing the current selection.
fn draw(state: &AppState, text: &str) {
    let selection = state.selection.expect("a selection to draw");
    state.selected_text.replace(Some(SelectedText {
        selection,
        text: text.into(),
    }));
}

#[test]
fn drag_selects_transcript_points_and_scrolling_keeps_them() {
    let (mut state, now) = pane();
    // Following: the view shows lines 90..100, screen row 2 is line 90.
    drag(&mut state, now, (4, 3), (9, 6));
    let selection = state.selection.expect("selected");
    assert!(selection.dragged);
    assert_eq!(selection.range(), (point(91, 4), point(94, 9)));
    assert_eq!(selection.columns(92), Some((0, usize::MAX)));
    assert_eq!(selection.columns(95), None);

    mouse(&mut state, now, Mouse::WheelUp);
    assert_eq!(state.scroll, Scroll::Pinned { top: 87 });
    assert_eq!(
        state.selection,
        Some(selection),
        "the selection stays on its lines while the view scrolls"
    );
}

#[test]
fn a_backwards_drag_past_the_edges_scrolls_and_clamps() {
    let (mut state, now) = pane();
    mouse(&mut state, now, Mouse::Down { col: 5, row: 8 });
    // Above the area: scrolls up one line, selects from the top row.
    mouse(&mut state, now, Mouse::Drag { col: 60, row: 0 });
    assert_eq!(state.scroll, Scroll::Pinned { top: 89 });
    let selection = state.selection.expect("selected");
    assert_eq!(selection.range(), (point(89, 39), point(96, 5)));
    // Below the area: scrolls back down and follows again.
    mouse(&mut state, now, Mouse::Drag { col: 0, row: 30 });
    assert_eq!(state.scroll, Scroll::Follow);
    assert_eq!(
        state.selection.map(|s| s.range()),
        Some((point(96, 5), point(99, 0)))
    );
}

#[test]
fn a_click_without_drag_clears_and_so_does_a_click_outside() {
    let (mut state, now) = pane();
    drag(&mut state, now, (0, 2), (5, 4));
    assert!(state.selection.is_some());
    mouse(&mut state, now, Mouse::Down { col: 3, row: 3 });
    mouse(&mut state, now, Mouse::Up { col: 3, row: 3 });
    assert_eq!(state.selection, None);

    drag(&mut state, now, (0, 2), (5, 4));
    mouse(&mut state, now, Mouse::Down { col: 3, row: 15 });
    assert_eq!(state.selection, None, "a click below the transcript clears");
    mouse(&mut state, now, Mouse::Drag { col: 3, row: 5 });
    assert_eq!(
        state.selection, None,
        "a drag that began outside selects nothing"
    );
}

#[test]
fn no_transcript_on_screen_means_nothing_to_select() {
    let (mut state, now) = pane();
    state.transcript_area.set(None);
    drag(&mut state, now, (0, 2), (5, 4));
    assert_eq!(state.selection, None);
}

#[test]
fn ctrl_c_copies_the_drawn_selection_before_cancelling_the_turn() {
    let (mut state, now) = pane();
    state.input.set_text("go");
    update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    assert!(state.transcript.turn_running());
    drag(&mut state, now, (2, 3), (6, 4));
    draw(&state, "• hello\n  world");
    assert_eq!(
        update(&mut state, Event::Key(Key::ctrl('c')), now),
        [Effect::CopyToClipboard("• hello\n  world".into())]
    );
    assert_eq!(state.selection, None, "copying clears the selection");
    assert!(state.transcript.turn_running(), "the turn keeps running");
    assert_eq!(
        update(&mut state, Event::Key(Key::ctrl('c')), now),
        [Effect::Cancel],
        "without a selection the ladder goes on as before"
    );
}

#[test]
fn ctrl_c_copies_nothing_for_a_selection_the_view_has_not_drawn() {
    let (mut state, now) = pane();
    drag(&mut state, now, (2, 3), (6, 4));
    draw(&state, "old text");
    mouse(&mut state, now, Mouse::Drag { col: 8, row: 5 });
    assert!(update(&mut state, Event::Key(Key::ctrl('c')), now).is_empty());
    assert_eq!(state.selection, None);
    assert!(
        state.quit_armed_at.is_none(),
        "the press did not arm quitting"
    );
}

#[test]
fn ctrl_c_ladder_is_unchanged_after_a_plain_click() {
    let (mut state, now) = pane();
    mouse(&mut state, now, Mouse::Down { col: 3, row: 3 });
    mouse(&mut state, now, Mouse::Up { col: 3, row: 3 });
    state.input.set_text("draft");
    assert!(update(&mut state, Event::Key(Key::ctrl('c')), now).is_empty());
    assert!(state.input.is_empty(), "the draft is cleared");
    assert!(update(&mut state, Event::Key(Key::ctrl('c')), now).is_empty());
    assert_eq!(
        update(&mut state, Event::Key(Key::ctrl('c')), now),
        [Effect::Quit]
    );
}

#[test]
fn resize_and_clear_drop_the_selection() {
    let (mut state, now) = pane();
    drag(&mut state, now, (0, 2), (5, 4));
    update(&mut state, Event::Resize { cols: 50, rows: 20 }, now);
    assert_eq!(state.selection, None);
    drag(&mut state, now, (0, 2), (5, 4));
    state.input.set_text("/clear");
    update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    assert_eq!(state.selection, None);
}

fn click(state: &mut AppState, at: Instant, col: u16, row: u16) {
    mouse(state, at, Mouse::Down { col, row });
    mouse(state, at, Mouse::Up { col, row });
}

#[test]
fn double_and_triple_clicks_select_words_then_lines_and_a_fourth_starts_over() {
    let (mut state, t0) = pane();
    let ms = |n| t0 + std::time::Duration::from_millis(n);
    click(&mut state, ms(0), 4, 3);
    assert_eq!(state.selection, None, "a single click selects nothing");
    click(&mut state, ms(200), 4, 3);
    let word = state.selection.expect("a double click selects");
    assert_eq!((word.unit, word.dragged), (Unit::Word, true));
    assert_eq!(word.range(), (point(91, 4), point(91, 4)));
    click(&mut state, ms(400), 4, 3);
    let line = state.selection.expect("a triple click selects");
    assert_eq!(line.unit, Unit::Line);
    assert_eq!(line.columns(91), Some((0, usize::MAX)));
    click(&mut state, ms(600), 4, 3);
    assert_eq!(
        state.selection, None,
        "the fourth press is a new single click"
    );
}

#[test]
fn slow_or_distant_second_clicks_stay_single() {
    let (mut state, t0) = pane();
    click(&mut state, t0, 4, 3);
    click(&mut state, t0 + MULTI_CLICK + MULTI_CLICK, 4, 3);
    assert_eq!(state.selection, None, "too slow");
    let t1 = t0 + MULTI_CLICK * 4;
    click(&mut state, t1, 4, 3);
    click(&mut state, t1, 5, 3);
    assert_eq!(state.selection, None, "another cell");
}

#[test]
fn dragging_after_a_double_click_extends_by_words() {
    let (mut state, t0) = pane();
    click(&mut state, t0, 4, 3);
    mouse(&mut state, t0, Mouse::Down { col: 4, row: 3 });
    mouse(&mut state, t0, Mouse::Drag { col: 9, row: 5 });
    mouse(&mut state, t0, Mouse::Up { col: 9, row: 5 });
    let s = state.selection.expect("selected");
    assert_eq!(s.unit, Unit::Word);
    assert_eq!(s.range(), (point(91, 4), point(93, 9)));
}
