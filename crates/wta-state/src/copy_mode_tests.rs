//! The select mode through the reducer: entering and leaving, each vi
//! motion, `v`/`V` and `y`, search with `n`/`N` and "no match"; a proptest
//! that any key sequence keeps the cursor and the selection inside the
//! transcript and never panics. Lines stand in for what the view writes.

use std::time::Instant;

use proptest::prelude::*;

use unicode_width::UnicodeWidthStr;

use crate::copy_motion::matches_in;
use crate::*;

const TEXT: [&str; 8] = [
    "• Here is the plan:",
    "",
    "  1. Build with cargo",
    "  2. Run the suite",
    "",
    "  then ship it, ship-it",
    "› next question",
    "• 世界 wide chars",
];

fn pane(lines: &[&str], rows: usize) -> AppState {
    let state = AppState::new("demo");
    state.viewport.set(Viewport {
        total_lines: lines.len(),
        rows,
    });
    state.transcript_text.replace(Some(TranscriptText {
        lines: lines.iter().map(|l| (*l).to_owned()).collect(),
    }));
    state
}

fn press(state: &mut AppState, keys: &[Key]) -> Vec<Effect> {
    let now = Instant::now();
    keys.iter()
        .flat_map(|k| update(state, Event::Key(*k), now))
        .collect()
}

fn chars(text: &str) -> Vec<Key> {
    text.chars().map(Key::ch).collect()
}

fn cursor(state: &AppState) -> (usize, usize) {
    let c = state.copy_mode.as_ref().expect("select mode on").cursor;
    (c.line, c.col)
}

#[test]
fn alt_v_enters_on_the_last_line_in_view_and_esc_gives_the_view_back() {
    let mut s = pane(&TEXT, 4);
    assert_eq!(s.scroll, Scroll::Follow);
    press(&mut s, &[SELECT_KEY]);
    assert_eq!(cursor(&s), (7, 0), "the bottom line of the view");
    assert_eq!(
        s.scroll,
        Scroll::Pinned { top: 4 },
        "the stream no longer moves it"
    );
    press(&mut s, &[Key::ch('g')]);
    assert_eq!(cursor(&s), (0, 0));
    assert_eq!(
        s.scroll,
        Scroll::Pinned { top: 0 },
        "scrolled to the cursor"
    );
    press(&mut s, &[Key::plain(KeyCode::Esc)]);
    assert!(s.copy_mode.is_none());
    assert_eq!(s.scroll, Scroll::Follow);
}

#[test]
fn keys_in_the_mode_never_reach_the_editor() {
    let mut s = pane(&TEXT, 8);
    press(&mut s, &[SELECT_KEY]);
    let fx = press(&mut s, &chars("hello world"));
    assert!(fx.is_empty());
    assert!(s.input.is_empty());
    press(&mut s, &[Key::ch('q')]);
    assert!(s.copy_mode.is_none(), "q leaves too");
    press(&mut s, &chars("ab"));
    assert_eq!(s.input.text(), "ab", "after leaving, keys type again");
}

#[test]
fn vi_motions_move_over_the_drawn_text() {
    let mut s = pane(&TEXT, 8);
    press(&mut s, &[SELECT_KEY, Key::ch('g')]);
    press(&mut s, &chars("jj"));
    assert_eq!(cursor(&s), (2, 0));
    press(&mut s, &[Key::ch('w')]);
    assert_eq!(cursor(&s), (2, 2), "to the first word");
    press(&mut s, &[Key::ch('w')]);
    assert_eq!(cursor(&s), (2, 3), "punctuation is a word of its own");
    press(&mut s, &[Key::ch('w')]);
    assert_eq!(cursor(&s), (2, 5));
    press(&mut s, &[Key::ch('$')]);
    assert_eq!(cursor(&s), (2, 20), "the last character");
    press(&mut s, &[Key::ch('w')]);
    assert_eq!(cursor(&s), (3, 2), "w crosses to the next line");
    press(&mut s, &[Key::ch('b')]);
    assert_eq!(cursor(&s), (2, 16), "b back across the line end");
    press(
        &mut s,
        &[Key::ch('0'), Key::ch('l'), Key::ch('l'), Key::ch('h')],
    );
    assert_eq!(cursor(&s), (2, 1));
    press(&mut s, &[Key::ch('j')]);
    assert_eq!(cursor(&s), (3, 1));
    press(&mut s, &[Key::ch('j')]);
    assert_eq!(cursor(&s), (4, 0), "an empty line has only column 0");
    press(&mut s, &[Key::ch('j')]);
    assert_eq!(cursor(&s), (5, 1), "and the next one gets the column back");
    press(&mut s, &[Key::ch('k'), Key::ch('0'), Key::ch('j')]);
    assert_eq!(cursor(&s), (5, 0), "any other motion forgets it");
    press(&mut s, &[Key::ch('G')]);
    assert_eq!(cursor(&s), (7, 0));
    press(&mut s, &chars("ll"));
    assert_eq!(
        cursor(&s),
        (7, 2),
        "l steps over a wide character's two columns"
    );
    press(&mut s, &[Key::ctrl('u')]);
    assert_eq!(cursor(&s), (3, 2), "half a page of 8 rows up");
    press(&mut s, &[Key::ctrl('d')]);
    assert_eq!(cursor(&s), (7, 2));
}

#[test]
fn v_selects_characters_and_y_copies_them_and_leaves() {
    let mut s = pane(&TEXT, 8);
    press(&mut s, &[SELECT_KEY, Key::ch('g'), Key::ch('w')]);
    assert_eq!(cursor(&s), (0, 2));
    press(&mut s, &[Key::ch('v'), Key::ch('j'), Key::ch('j')]);
    assert_eq!(cursor(&s), (2, 2), "the column kept across the empty line");
    let selection = s.selection.expect("a selection");
    assert_eq!(selection.unit, Unit::Char);
    assert_eq!(
        press(&mut s, &[Key::ch('y')]),
        [Effect::CopyToClipboard("Here is the plan:\n\n  1".into())]
    );
    assert!(s.copy_mode.is_none() && s.selection.is_none());
}

#[test]
fn capital_v_selects_whole_lines_and_y_without_a_selection_copies_the_line() {
    let mut s = pane(&TEXT, 8);
    press(
        &mut s,
        &[
            SELECT_KEY,
            Key::ch('g'),
            Key::ch('j'),
            Key::ch('j'),
            Key::ch('l'),
        ],
    );
    press(&mut s, &[Key::ch('V'), Key::ch('j')]);
    assert_eq!(
        press(&mut s, &[Key::plain(KeyCode::Enter)]),
        [Effect::CopyToClipboard(
            "  1. Build with cargo\n  2. Run the suite".into()
        )]
    );
    press(&mut s, &[SELECT_KEY, Key::ch('k')]);
    assert_eq!(
        press(&mut s, &[Key::ch('y')]),
        [Effect::CopyToClipboard("› next question".into())]
    );
    press(
        &mut s,
        &[
            SELECT_KEY,
            Key::ch('k'),
            Key::ch('k'),
            Key::ch('V'),
            Key::ch('V'),
        ],
    );
    assert!(s.selection.is_none(), "V again ends the selection");
    press(&mut s, &[Key::ch('v'), Key::ch('V')]);
    assert_eq!(
        s.selection.map(|s| s.unit),
        Some(Unit::Line),
        "v then V switches"
    );
}

#[test]
fn search_finds_wraps_and_says_when_nothing_matches() {
    let mut s = pane(&TEXT, 3);
    press(&mut s, &[SELECT_KEY, Key::ch('g'), Key::ch('/')]);
    press(&mut s, &chars("ship"));
    let mode = s.copy_mode.as_ref().unwrap();
    assert_eq!(
        mode.search.shown_query(),
        Some("ship"),
        "highlighted as typed"
    );
    assert_eq!(cursor(&s), (0, 0), "nothing moves before Enter");
    press(&mut s, &[Key::plain(KeyCode::Enter)]);
    assert_eq!(cursor(&s), (5, 7));
    assert_eq!(s.copy_mode.as_ref().unwrap().search.hit, Some((1, 2)));
    assert_eq!(
        s.scroll,
        Scroll::Pinned { top: 3 },
        "the view scrolled to it"
    );
    press(&mut s, &[Key::ch('n')]);
    assert_eq!(cursor(&s), (5, 16));
    press(&mut s, &[Key::ch('n')]);
    assert_eq!(cursor(&s), (5, 7), "n wraps to the first match");
    press(&mut s, &[Key::ch('N')]);
    assert_eq!(cursor(&s), (5, 16), "N wraps back to the last");
    assert_eq!(s.copy_mode.as_ref().unwrap().search.hit, Some((2, 2)));

    press(&mut s, &[Key::ch('/')]);
    press(&mut s, &chars("nowhere"));
    press(&mut s, &[Key::plain(KeyCode::Enter)]);
    let search = &s.copy_mode.as_ref().unwrap().search;
    assert!(search.no_match);
    assert_eq!(search.hit, None);
    assert_eq!(cursor(&s), (5, 16), "the cursor stays");

    press(
        &mut s,
        &[Key::ch('/'), Key::ch('x'), Key::plain(KeyCode::Esc)],
    );
    let search = &s.copy_mode.as_ref().unwrap().search;
    assert_eq!(search.typing, None, "Esc cancels the query, not the mode");
    assert_eq!(search.query.as_deref(), Some("nowhere"));
}

#[test]
fn a_question_mark_searches_upwards_and_n_keeps_that_way() {
    let mut s = pane(&TEXT, 8);
    press(&mut s, &[SELECT_KEY, Key::ch('?')]);
    press(&mut s, &chars("ship"));
    press(&mut s, &[Key::plain(KeyCode::Enter)]);
    assert_eq!(cursor(&s), (5, 16), "the nearest match above the last line");
    press(&mut s, &[Key::ch('n')]);
    assert_eq!(cursor(&s), (5, 7), "n goes on upwards");
    press(&mut s, &[Key::ch('N')]);
    assert_eq!(cursor(&s), (5, 16), "N goes back down");
}

#[test]
fn a_paste_goes_to_the_query_or_ends_the_mode_for_the_editor() {
    let mut s = pane(&TEXT, 8);
    let now = Instant::now();
    press(&mut s, &[SELECT_KEY, Key::ch('/')]);
    update(&mut s, Event::Paste("ship\r\nit".into()), now);
    let search = &s.copy_mode.as_ref().unwrap().search;
    assert_eq!(search.typing.as_deref(), Some("ship it"));
    assert!(s.input.is_empty());
    press(&mut s, &[Key::plain(KeyCode::Enter)]);
    assert_eq!(cursor(&s), (5, 7));
    update(&mut s, Event::Paste("draft".into()), now);
    assert!(
        s.copy_mode.is_none(),
        "a paste outside a query leaves the mode"
    );
    assert_eq!(s.input.text(), "draft");
}

#[test]
fn matches_ignore_case_unless_the_query_has_a_capital() {
    assert_eq!(
        matches_in("Ship ship SHIP", "ship"),
        [(0, 4), (5, 9), (10, 14)]
    );
    assert_eq!(matches_in("Ship ship SHIP", "Ship"), [(0, 4)]);
    assert_eq!(
        matches_in("aaaa", "aa"),
        [(0, 2), (2, 4)],
        "not overlapping"
    );
    assert_eq!(matches_in("ab 世界x", "界x"), [(5, 8)], "display columns");
    assert!(matches_in("abc", "").is_empty());
}

#[test]
fn without_drawn_lines_motions_stay_in_the_geometry() {
    let mut s = pane(&[], 5);
    s.viewport.set(Viewport {
        total_lines: 30,
        rows: 5,
    });
    press(&mut s, &[SELECT_KEY]);
    assert_eq!(cursor(&s), (29, 0));
    press(&mut s, &chars("kk"));
    assert_eq!(cursor(&s), (27, 0));
    press(&mut s, &chars("wbl$/x"));
    press(&mut s, &[Key::plain(KeyCode::Enter)]);
    assert!(s.copy_mode.as_ref().unwrap().search.no_match);
    assert!(
        press(&mut s, &[Key::ch('y')]).is_empty(),
        "nothing drawn, nothing copied"
    );
}

fn key() -> impl Strategy<Value = Key> {
    let code = prop_oneof![
        prop::sample::select("hjklwb0$gGvVynNq/? ax".chars().collect::<Vec<_>>())
            .prop_map(KeyCode::Char),
        Just(KeyCode::Esc),
        Just(KeyCode::Enter),
        Just(KeyCode::Backspace),
        Just(KeyCode::Up),
        Just(KeyCode::Down),
        Just(KeyCode::Left),
        Just(KeyCode::Right),
        Just(KeyCode::Home),
        Just(KeyCode::End),
        Just(KeyCode::PageUp),
        Just(KeyCode::PageDown),
    ];
    let mods = prop::sample::select(vec![
        Mods::NONE,
        Mods::NONE,
        Mods::NONE,
        Mods::CTRL,
        Mods::ALT,
    ]);
    (code, mods).prop_map(|(code, mods)| match (code, mods) {
        // Ctrl+C would run the pane's ladder (quit, cancel): not this mode's.
        (KeyCode::Char('c'), _) => Key::ch('c'),
        (code, mods) => Key::new(code, mods),
    })
}

proptest! {
    /// Any key sequence over any text: no panic, and while the mode is on
    /// the cursor sits on a character of a transcript line and the
    /// selection's ends are transcript lines.
    #[test]
    fn any_keys_keep_the_cursor_and_the_selection_in_bounds(
        lines in prop::collection::vec("[a-c ._世]{0,12}", 0..12),
        rows in 0usize..6,
        keys in prop::collection::vec(key(), 0..60),
    ) {
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let mut s = pane(&refs, rows);
        press(&mut s, &[SELECT_KEY]);
        for k in keys {
            press(&mut s, &[k]);
            if s.copy_mode.is_none() {
                press(&mut s, &[SELECT_KEY]);
            }
            let c = s.copy_mode.as_ref().unwrap().cursor;
            let total = lines.len();
            prop_assert!(c.line < total.max(1));
            let width = lines.get(c.line).map_or(0, |l| l.width());
            prop_assert!(c.col <= width.saturating_sub(1));
            if let Some(sel) = s.selection {
                prop_assert!(sel.anchor.line < total.max(1));
                prop_assert!(sel.head.line < total.max(1));
            }
            if rows > 0 && total > 0 {
                let top = s.viewport.get().top(s.scroll);
                prop_assert!(c.line >= top && c.line < top + rows, "cursor in view");
            }
        }
    }
}
