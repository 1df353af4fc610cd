//! Paste chips in the editor: long pastes become one chip sent whole,
//! motions and deletions treat a chip as one character, Ctrl+O's expansion;
//! proptests: whatever is pasted and however the editor is moved around it,
//! the text sent is exactly the paste (line ends made `\n`).

use proptest::prelude::*;

use super::*;
use crate::input::InputEditor;

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn only_long_pastes_become_chips() {
    assert!(!wants_chip("one\ntwo\nthree"));
    assert!(
        !wants_chip("one\ntwo\nthree\n"),
        "a final newline ends a line"
    );
    assert!(wants_chip("1\n2\n3\n4"));
    assert!(wants_chip("1\r2\r3\r4\r"), "tmux pastes carriage returns");
    assert!(!wants_chip(&"x".repeat(CHIP_MIN_CHARS)));
    assert!(wants_chip(&"x".repeat(CHIP_MIN_CHARS + 1)));
}

#[test]
fn a_chip_says_how_much_was_pasted() {
    assert_eq!(label(&lines(40)), "[Pasted 40 lines]");
    assert_eq!(label(&"é".repeat(812)), "[Pasted 812 characters]");
}

#[test]
fn a_long_paste_is_one_chip_and_is_sent_whole() {
    let mut e = InputEditor::default();
    e.insert_str("see ");
    let pasted = lines(40).replace('\n', "\r\n");
    e.paste(&pasted);
    e.insert_str(" thanks");
    assert_eq!(e.raw(), format!("see {CHIP} thanks"));
    assert_eq!(e.chips(), [lines(40)]);
    assert_eq!(e.text(), format!("see {} thanks", lines(40)));
    assert_eq!(e.submit(), format!("see {} thanks", lines(40)));
    assert!(e.chips().is_empty() && e.raw().is_empty());
}

#[test]
fn a_short_paste_is_text_as_before() {
    let mut e = InputEditor::default();
    e.paste("a\tb\r\nc");
    assert_eq!(e.raw(), "a    b\nc");
    assert!(e.chips().is_empty());
}

#[test]
fn tabs_in_a_chip_are_kept_exactly() {
    let mut e = InputEditor::default();
    let pasted = "\tone\n\ttwo\n\tthree\n\tfour";
    e.paste(pasted);
    assert_eq!(e.text(), pasted);
}

#[test]
fn motions_and_backspace_treat_a_chip_as_one_character() {
    let mut e = InputEditor::default();
    e.insert_str("ab");
    e.paste(&lines(5));
    e.insert_str("cd");
    e.left(false);
    e.left(false);
    assert_eq!(&e.raw()[..e.cursor()], format!("ab{CHIP}"));
    e.left(false);
    assert_eq!(e.cursor(), 2, "one step over the whole chip");
    e.right(false);
    e.backspace();
    assert_eq!(
        e.text(),
        "abcd",
        "Backspace right after the chip removes all of it"
    );
    assert!(e.chips().is_empty());
}

#[test]
fn several_chips_keep_their_own_content() {
    let mut e = InputEditor::default();
    e.paste(&lines(4));
    e.insert_str("-");
    e.paste(&lines(6));
    e.insert_str("-");
    e.paste(&lines(8));
    assert_eq!(e.chips().len(), 3);
    // Remove the middle one: the others stay with their content.
    e.home(false);
    e.right(false);
    e.right(false);
    e.right(false);
    e.backspace();
    assert_eq!(e.text(), format!("{}--{}", lines(4), lines(8)));
    assert_eq!(e.chips(), [lines(4), lines(8)]);
}

#[test]
fn ctrl_o_expands_the_chip_before_the_cursor_into_text() {
    let mut e = InputEditor::default();
    e.insert_str("x ");
    e.paste("a\tb\nc\nd\ne");
    assert!(e.expand_chip());
    assert_eq!(e.raw(), "x a    b\nc\nd\ne", "cleaned as typed text");
    assert_eq!(e.cursor(), e.raw().len());
    assert!(e.chips().is_empty());
    assert!(!e.expand_chip(), "no chip left");
    e.home(false);
    e.paste(&lines(4));
    e.home(false);
    assert!(
        e.expand_chip(),
        "the chip at the cursor when none is before it"
    );
    assert!(e.chips().is_empty());
}

#[test]
fn a_selection_over_a_chip_copies_its_content_and_deletes_it_whole() {
    let mut e = InputEditor::default();
    e.insert_str("a");
    e.paste(&lines(4));
    e.insert_str("b");
    e.select_all();
    assert_eq!(e.selected_text(), Some(format!("a{}b", lines(4))));
    e.insert_str("z");
    assert_eq!(e.text(), "z");
    assert!(e.chips().is_empty());
}

#[test]
fn history_keeps_the_sent_text_and_the_draft_keeps_its_chips() {
    let mut e = InputEditor::default();
    e.paste(&lines(4));
    let sent = e.submit();
    e.paste(&lines(9));
    assert!(e.history_prev());
    assert_eq!(e.text(), sent);
    assert!(e.history_next());
    assert_eq!(e.raw(), CHIP.to_string(), "the draft comes back as a chip");
    assert_eq!(e.text(), lines(9));
}

#[test]
fn a_literal_chip_character_is_sent_as_itself() {
    let mut e = InputEditor::default();
    e.insert_str(&format!("a{CHIP}b"));
    e.paste(&lines(4));
    e.set_text(&format!("{CHIP}{CHIP}"));
    assert_eq!(e.text(), format!("{CHIP}{CHIP}"));
    e.insert_char(CHIP);
    assert_eq!(e.text(), format!("{CHIP}{CHIP}{CHIP}"));
}

/// One editing step of the proptest.
#[derive(Debug, Clone)]
enum Step {
    Paste(String),
    Type(String),
    Left(bool),
    Right(bool),
    WordLeft,
    WordRight,
    Home,
    End,
    Up,
    Down,
    Backspace,
    Delete,
    DeleteWordLeft,
    KillLeft,
    KillRight,
    Expand,
    SelectAll,
}

fn step() -> impl Strategy<Value = Step> {
    let text = "[a-c \\n\\r\\t\u{FFFC}é世]{0,12}";
    prop_oneof![
        3 => prop::collection::vec(text, 1..8).prop_map(|l| Step::Paste(l.join("\n"))),
        2 => text.prop_map(Step::Type),
        1 => any::<bool>().prop_map(Step::Left),
        1 => any::<bool>().prop_map(Step::Right),
        1 => Just(Step::WordLeft),
        1 => Just(Step::WordRight),
        1 => Just(Step::Home),
        1 => Just(Step::End),
        1 => Just(Step::Up),
        1 => Just(Step::Down),
        1 => Just(Step::Backspace),
        1 => Just(Step::Delete),
        1 => Just(Step::DeleteWordLeft),
        1 => Just(Step::KillLeft),
        1 => Just(Step::KillRight),
        1 => Just(Step::Expand),
        1 => Just(Step::SelectAll),
    ]
}

fn apply(e: &mut InputEditor, step: &Step) {
    match step {
        Step::Paste(t) => e.paste(t),
        Step::Type(t) => e.insert_str(t),
        Step::Left(s) => e.left(*s),
        Step::Right(s) => e.right(*s),
        Step::WordLeft => e.word_left(false),
        Step::WordRight => e.word_right(false),
        Step::Home => e.home(false),
        Step::End => e.end(false),
        Step::Up => drop(e.up()),
        Step::Down => drop(e.down()),
        Step::Backspace => e.backspace(),
        Step::Delete => e.delete(),
        Step::DeleteWordLeft => e.delete_word_left(),
        Step::KillLeft => e.kill_line_left(),
        Step::KillRight => e.kill_line_right(),
        Step::Expand => drop(e.expand_chip()),
        Step::SelectAll => e.select_all(),
    }
}

proptest! {
    /// Whatever is pasted around whatever typed text, with the cursor moved
    /// anywhere in between, the text sent is the typed text with each paste
    /// in its place exactly (only line ends made `\n`).
    #[test]
    fn chip_text_round_trips_exactly(
        before in "[a-z \\n\u{FFFC}]{0,20}",
        pasted in prop::collection::vec("[ -~\\t\u{FFFC}é]{0,30}", 5..40),
        moves in prop::collection::vec(0u8..6, 0..10),
        after in "[a-z ]{0,20}",
    ) {
        let pasted = pasted.join("\r\n");
        let mut e = InputEditor::default();
        e.insert_str(&before);
        let typed_before = e.text().to_owned();
        e.paste(&pasted);
        for m in &moves {
            match m {
                0 => e.left(false),
                1 => e.right(false),
                2 => e.word_left(false),
                3 => e.word_right(false),
                4 => e.home(false),
                _ => e.end(false),
            }
        }
        e.end(false);
        while e.down() {}
        e.end(false);
        e.insert_str(&after);
        prop_assert_eq!(e.chips().len(), 1 + before.matches(CHIP).count());
        let want = format!("{typed_before}{}{after}", newlines(&pasted));
        prop_assert_eq!(e.submit(), want);
    }

    /// Any edit sequence keeps the editor's invariant: one chip per CHIP of
    /// the raw text, the cursor on a char boundary inside it, and the sent
    /// text the raw text with the chips' contents in place.
    #[test]
    fn chips_stay_in_step_with_the_raw_text(steps in prop::collection::vec(step(), 0..40)) {
        let mut e = InputEditor::default();
        for s in &steps {
            apply(&mut e, s);
            prop_assert_eq!(e.raw().matches(CHIP).count(), e.chips().len());
            prop_assert!(e.cursor() <= e.raw().len());
            prop_assert!(e.raw().is_char_boundary(e.cursor()));
            prop_assert_eq!(e.text(), expand(e.raw(), e.chips()));
        }
    }
}
