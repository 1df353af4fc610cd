//! The confirm guard on screen: until the card on top has been visible for
//! the grace period its keys line says to read it first, and the hint goes
//! once it takes keys. A card revealed from under another (the question
//! over it answered) starts over, however long it has been waiting.

mod common;

use common::Fixture;
use wta_protocol::{Action, Choice, Origin, ProposalId, ProposalPayload};
use wta_state::*;

const HINT: &str = "read the card first";
const GRACE_MS: u64 = CARD_GRACE.as_millis() as u64;

fn proposal() -> AcceptedProposal {
    AcceptedProposal {
        id: ProposalId::from_bytes([7; 16]),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: 1,
            choices: vec![Choice {
                choice: 1,
                title: "Run the test suite".into(),
                rationale: "The build passed.".into(),
                actions: vec![Action::Send {
                    input: "cargo test --workspace".into(),
                }],
            }],
        },
        target_pane: "%3".into(),
        target_cwd: Some("/home/ada/src/wta".into()),
        origin: Origin::TerminalAgent,
        armed: true,
        delegate_agent: None,
    }
}

fn question() -> QuestionRequest {
    QuestionRequest {
        id: 1,
        question: "Run the whole workspace?".into(),
        choices: vec!["yes".into(), "only wta-tui".into()],
        allow_freeform: false,
    }
}

fn permission() -> PermissionRequest {
    PermissionRequest {
        id: PermissionRequestId(1),
        title: "Run cargo clean".into(),
        kind: ToolKind::Execute,
        target: Some("cargo clean".into()),
        options: vec![
            PermissionOption {
                id: "allow".into(),
                name: "Allow once".into(),
                kind: PermissionOptionKind::AllowOnce,
            },
            PermissionOption {
                id: "reject".into(),
                name: "Reject".into(),
                kind: PermissionOptionKind::RejectOnce,
            },
        ],
    }
}

#[test]
fn a_proposal_card_revealed_by_an_answer_says_to_read_it_first() {
    let mut f = Fixture::ready();
    f.prompt("test it");
    f.domain(DomainEvent::ProposalAccepted(Box::new(proposal())));
    f.domain(DomainEvent::Question(question()));
    // Long after the card came, the question over it is answered.
    f.at(5_000).send(Event::Key(Key::plain(KeyCode::Enter)));
    assert!(f.state.question.is_none());
    insta::assert_snapshot!("proposal_revealed_80x14", f.render(80, 14));
    // Enter 120 ms later does nothing but make the hint stand out.
    let effects = f.at(5_120).send(Event::Key(Key::plain(KeyCode::Enter)));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(f.render(80, 14).contains(HINT));
    // Armed: the hint gives way to the keys.
    f.at(5_000 + GRACE_MS).send(Event::Tick);
    let armed = f.render(80, 14);
    assert!(!armed.contains(HINT), "{armed}");
    assert!(armed.contains("Enter"), "{armed}");
}

#[test]
fn a_permission_card_says_to_read_it_first_until_it_is_armed() {
    let mut f = Fixture::ready();
    f.prompt("clean it");
    f.domain(DomainEvent::PermissionRequest(permission()));
    insta::assert_snapshot!("permission_unarmed_80x12", f.render(80, 12));
    // The compact card (a short pane) says it too.
    let compact = f.render(80, 6);
    assert!(compact.contains(HINT), "{compact}");
    f.at(GRACE_MS).send(Event::Tick);
    for (w, h) in [(80, 12), (80, 6)] {
        let armed = f.render(w, h);
        assert!(!armed.contains(HINT), "{w}x{h}: {armed}");
    }
}

#[test]
fn a_question_says_to_read_it_first_until_it_is_armed() {
    let mut f = Fixture::ready();
    f.prompt("deploy it");
    f.domain(DomainEvent::Question(question()));
    for (w, h) in [(80, 12), (80, 6)] {
        let screen = f.render(w, h);
        assert!(screen.contains(HINT), "{w}x{h}: {screen}");
    }
    f.at(GRACE_MS).send(Event::Tick);
    for (w, h) in [(80, 12), (80, 6)] {
        let screen = f.render(w, h);
        assert!(!screen.contains(HINT), "{w}x{h}: {screen}");
    }
}
