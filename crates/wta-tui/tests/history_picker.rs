//! The `/history` picker as drawn (issue 30): entries newest first, the
//! commands with when, the decision, the exit status and where; Enter
//! asks for a new card (the state's effect), Esc closes it. States come
//! from the real reducer, as in the helper.

mod common;

use common::Fixture;
use wta_state::history_picker::HistoryEffect;
use wta_state::*;

fn item(id: &str, label: &str, detail: &str) -> PickerItem {
    PickerItem {
        id: id.into(),
        label: label.into(),
        detail: detail.into(),
        current: false,
    }
}

#[test]
fn the_history_picker_lists_entries_and_enter_asks_for_a_card() {
    let mut f = Fixture::ready();
    f.typed("/history");
    assert_eq!(f.enter(), [Effect::History(HistoryEffect::Read)]);
    f.domain(DomainEvent::HistoryList(vec![
        item(
            "p3",
            "cargo test",
            "2026-12-02 04:31:00 · run · exit 101 · %1 · box",
        ),
        item("p2", "ls -la", "2026-12-02 04:30:10 · cancelled · %1 · box"),
        item(
            "p1",
            "git status ; git diff",
            "2026-12-02 04:29:00 · inserted · %1 · build-box",
        ),
    ]));
    insta::assert_snapshot!("history_picker_80x14", f.render(80, 14));
    f.send(Event::Key(Key::plain(KeyCode::Down)));
    assert_eq!(
        f.enter(),
        [Effect::History(HistoryEffect::Repropose {
            entry: "p2".into()
        })]
    );
}

#[test]
fn esc_closes_the_history_picker() {
    let mut f = Fixture::ready();
    f.domain(DomainEvent::HistoryList(vec![item("p1", "ls", "run")]));
    assert!(f.send(Event::Key(Key::plain(KeyCode::Esc))).is_empty());
    insta::assert_snapshot!("history_picker_closed_80x8", f.render(80, 8));
}
