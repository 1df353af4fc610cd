use super::*;

fn editor(text: &str) -> InputEditor {
    let mut e = InputEditor::default();
    e.insert_str(text);
    e
}

#[test]
fn word_motion_and_deletion() {
    let mut e = editor("git commit  -m fix");
    e.word_left(false);
    assert_eq!(&e.text()[e.cursor()..], "fix");
    e.word_left(false);
    e.word_left(false);
    assert_eq!(&e.text()[e.cursor()..], "commit  -m fix");
    e.word_right(false);
    assert_eq!(&e.text()[..e.cursor()], "git commit");
    e.delete_word_left();
    assert_eq!(e.text(), "git   -m fix");
    e.delete_word_right();
    assert_eq!(e.text(), "git  fix");
}

#[test]
fn multibyte_text_edits_on_char_boundaries() {
    let mut e = editor("héllo 世界");
    e.backspace();
    e.left(false);
    e.left(false);
    e.insert_char('ñ');
    assert_eq!(e.text(), "hélloñ 世");
    e.home(false);
    e.delete();
    assert_eq!(e.text(), "élloñ 世");
}

#[test]
fn home_end_and_vertical_moves_work_per_line() {
    let mut e = editor("first line\nsecond\nthird one");
    assert_eq!(e.cursor_line_col(), (2, 9));
    assert!(e.up());
    assert_eq!(
        e.cursor_line_col(),
        (1, 6),
        "column clamps to a shorter line"
    );
    e.home(false);
    assert_eq!(e.cursor_line_col(), (1, 0));
    assert!(e.up());
    e.end(false);
    assert_eq!(e.cursor_line_col(), (0, 10));
    assert!(!e.up());
    assert!(e.down() && e.down());
    assert!(!e.down());
}

#[test]
fn selection_is_replaced_by_typing_and_reported() {
    let mut e = editor("hello world");
    e.word_left(true);
    assert_eq!(e.selection(), Some("world"));
    e.insert_str("there");
    assert_eq!(e.text(), "hello there");
    assert_eq!(e.selection(), None);
}

#[test]
fn history_keeps_the_draft_and_skips_repeats() {
    let mut e = InputEditor::default();
    for prompt in ["one", "two", "two", "  "] {
        e.insert_str(prompt);
        e.submit();
    }
    assert_eq!(e.history(), ["one", "two"]);
    e.insert_str("draft");
    assert!(e.history_prev());
    assert_eq!(e.text(), "two");
    assert!(e.history_prev());
    assert_eq!(e.text(), "one");
    assert!(!e.history_prev());
    assert!(e.history_next());
    assert_eq!(e.text(), "two");
    assert!(e.history_next());
    assert_eq!(e.text(), "draft");
    assert!(!e.history_next());
}

#[test]
fn history_is_bounded() {
    let mut e = InputEditor::default();
    for i in 0..(HISTORY_LIMIT + 5) {
        e.insert_str(&format!("p{i}"));
        e.submit();
    }
    assert_eq!(e.history().len(), HISTORY_LIMIT);
    assert_eq!(e.history()[0], "p5");
}

#[test]
fn paste_normalises_line_endings_and_tabs() {
    let e = editor("a\r\nb\rc\td");
    assert_eq!(e.text(), "a\nb\nc    d");
}

#[test]
fn kill_line_left_and_right() {
    let mut e = editor("abc def\nxyz");
    e.up();
    e.left(false);
    e.kill_line_right();
    assert_eq!(e.text(), "ab\nxyz");
    e.kill_line_left();
    assert_eq!(e.text(), "\nxyz");
}
