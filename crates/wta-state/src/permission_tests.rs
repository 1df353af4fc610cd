//! Permission cards through `update`: the grace period, the FIFO queue,
//! and keys meant for the editor never answering a card.

use super::test_pane::*;
use super::*;

/// Enter and Esc are the card's whatever the draft holds; the draft stays.
#[test]
fn enter_and_esc_answer_a_permission_card_and_keep_the_draft() {
    let mut p = Pane::ready();
    p.typed("go");
    p.code(KeyCode::Enter);
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    p.domain(DomainEvent::PermissionRequest(permission(2)));
    p.at(1000);
    p.typed("wait");
    assert_eq!(p.state.card_enter(p.now), Some(CardEnter::Permission));
    assert!(p.state.draft_kept(p.now));
    assert_eq!(
        p.code(KeyCode::Enter),
        [Effect::AnswerPermission {
            request: PermissionRequestId(1),
            answer: PermissionAnswer::Selected("allow".into())
        }]
    );
    assert_eq!(p.state.input.text(), "wait", "the draft is kept");
    p.at(2000);
    assert!(matches!(
        p.code(KeyCode::Esc).as_slice(),
        [Effect::AnswerPermission {
            request: PermissionRequestId(2),
            ..
        }]
    ));
    assert_eq!(
        p.state.input.text(),
        "wait",
        "Esc answered, the draft stays"
    );
}

#[test]
fn permission_card_ignores_keys_in_its_grace_period() {
    let mut p = Pane::ready();
    p.typed("go");
    p.code(KeyCode::Enter);
    p.at(1000);
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    assert_eq!(
        p.state.activity(),
        Activity::WaitingForYou(UserWait::Permission)
    );
    // 100 ms after the card appeared, its keys do nothing: n neither
    // answers nor types, Enter does not answer; other letters type.
    p.at(1100);
    assert!(p.typed("n").is_empty());
    assert!(
        p.code(KeyCode::Enter).is_empty(),
        "Enter in grace does not answer"
    );
    assert_eq!(p.state.permissions.len(), 1);
    assert!(p.state.input.is_empty());
    p.typed("ok");
    // After the grace period, y answers (only with an empty input).
    p.at(1400);
    p.typed("y");
    assert_eq!(p.state.input.text(), "oky", "y with a draft is typing");
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
