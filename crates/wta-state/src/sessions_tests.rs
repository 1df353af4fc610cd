//! `/sessions`: the master's rows as a picker; Enter on a live one goes to
//! it, on an ended one resumes it; nothing known says so.

use std::time::Instant;

use super::*;

fn item(key: &str, live: bool) -> PickerItem {
    PickerItem {
        id: key.into(),
        label: format!("claude · {}", if live { "idle" } else { "ended" }),
        detail: "/src".into(),
        current: live,
    }
}

#[test]
fn a_picked_session_is_gone_to_or_resumed() {
    let mut state = AppState::new("demo");
    let now = Instant::now();
    let fx = update(&mut state, Event::Key(Key::ch('/')), now);
    assert!(fx.is_empty());
    state.input.clear();
    update(
        &mut state,
        Event::Domain(DomainEvent::SessionList(vec![
            item("live-1", true),
            item("old-2", false),
        ])),
        now,
    );
    let picker = state.picker.as_ref().expect("the sessions picker");
    assert_eq!(picker.kind, PickerKind::Sessions);
    assert_eq!(picker.selected, 0, "the live one first");
    update(&mut state, Event::Key(Key::plain(KeyCode::Down)), now);
    let fx = update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    assert_eq!(
        fx,
        [Effect::SessionAction {
            key: "old-2".into(),
            verb: SessionVerb::Resume
        }]
    );
    assert!(state.picker.is_none());
}

#[test]
fn ctrl_d_or_delete_closes_the_highlighted_session_only_in_that_picker() {
    let now = Instant::now();
    for key in [Key::ctrl('d'), Key::plain(KeyCode::Delete)] {
        let mut state = AppState::new("demo");
        update(
            &mut state,
            Event::Domain(DomainEvent::SessionList(vec![
                item("live-1", true),
                item("old-2", false),
            ])),
            now,
        );
        let fx = update(&mut state, Event::Key(key), now);
        assert_eq!(
            fx,
            [Effect::SessionAction {
                key: "live-1".into(),
                verb: SessionVerb::Close
            }],
            "{key:?}"
        );
        assert!(state.picker.is_none());
    }
    // In another picker the key does nothing.
    let mut state = AppState::new("demo");
    state.picker = Some(Picker {
        kind: PickerKind::Model,
        title: "Choose model".into(),
        items: vec![item("m1", true)],
        selected: 0,
    });
    let before = state.picker.clone();
    let fx = update(&mut state, Event::Key(Key::ctrl('d')), now);
    assert!(fx.is_empty());
    assert_eq!(state.picker, before);
}

#[test]
fn no_sessions_says_so() {
    let mut state = AppState::new("demo");
    update(
        &mut state,
        Event::Domain(DomainEvent::SessionList(Vec::new())),
        Instant::now(),
    );
    assert!(state.picker.is_none());
    let said = state.transcript.entries().iter().any(
        |e| matches!(&e.item, Item::System { text, .. } if text.contains("No agent sessions")),
    );
    assert!(said);
}
