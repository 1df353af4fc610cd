//! Tests of the card reader in `card.rs` (pure: screens in, verdicts out).
//! Included by one test binary only (`proposal_e2e`), not by every user of
//! `pane_tui_common`.

use crate::pane_tui_common::card::{Card, Seen, seen};

fn screen(rows: &[&str]) -> String {
    rows.join("\n")
}

const ARMED: &[&str] = &[
    "› run the tests",
    "• Propose: Run `cargo test` in %3",
    "╭ Terminal action ─────────────────────────────────────────╮",
    "│ › 1. Run the test suite  recommended                     │",
    "│ [ Run ] [ Insert ]  Insert types without Enter           │",
    "╰ ↑↓ choice · ←→ button · Enter confirm · Esc cancel ──────╯",
    "› Ask demo anything · / for commands",
];

#[test]
fn a_proposal_card_is_found_by_its_button_row_and_armed_by_its_keys() {
    let armed = screen(ARMED);
    assert!(matches!(
        seen(&armed, &Card::proposal(" Run ")),
        Seen::Armed(_)
    ));
    assert!(matches!(
        seen(&armed, &Card::proposal("[ Insert ]")),
        Seen::Armed(_)
    ));
    assert_eq!(seen(&armed, &Card::proposal("Open")), Seen::Absent);
    assert_eq!(seen(&armed, &Card::Permission), Seen::Absent);
    let mut rows = ARMED.to_vec();
    rows[5] = "╰ read the card first ────────────────────────────────────╯";
    assert_eq!(seen(&screen(&rows), &Card::proposal("Run")), Seen::Unarmed);
}

#[test]
fn the_transcript_row_or_a_box_cut_mid_frame_is_no_card() {
    // Only the transcript says "Run": no card yet.
    assert_eq!(
        seen(&screen(&ARMED[..2]), &Card::proposal(" Run ")),
        Seen::Absent
    );
    // The box drawn, its bottom not yet.
    assert_eq!(
        seen(&screen(&ARMED[..5]), &Card::proposal(" Run ")),
        Seen::Absent
    );
    // The buttons not the last row: not the card's button row.
    let mut rows = ARMED.to_vec();
    rows.swap(3, 4);
    assert_eq!(seen(&screen(&rows), &Card::proposal("Run")), Seen::Absent);
}

#[test]
fn permission_and_question_cards_go_by_title_and_keys() {
    let permission = screen(&[
        "╭ Permission needed ───────────────────────────────────────────╮",
        "│ › 1. Allow once (y)                                          │",
        "╰ ↑↓ choose · Enter confirm · y allow · n reject · Esc ────────╯",
    ]);
    assert!(matches!(
        seen(&permission, &Card::Permission),
        Seen::Armed(_)
    ));
    assert_eq!(seen(&permission, &Card::Question), Seen::Absent);
    let question = screen(&[
        "╭ The agent asks ─────────────────────────────────────────────╮",
        "│ Which one?                                                   │",
        "╰ read the card first ─────────────────────────────────────────╯",
    ]);
    assert_eq!(seen(&question, &Card::Question), Seen::Unarmed);
}

#[test]
#[should_panic(expected = "not a proposal button")]
fn a_label_no_card_has_is_refused() {
    Card::proposal("Delegate");
}
