//! The confirm guard through `update`, on the test clock: a card takes keys
//! only once it has been visible for the grace period, counted from when it
//! was last revealed (the card over it answered, the pane shown again, a
//! resize, the full view opened or closed), never from when it arrived.

use wta_protocol::{Action, Choice, Origin, ProposalId, ProposalPayload};

use super::guard::CARD_GRACE;
use super::proposal_card::CardSight;
use super::test_pane::*;
use super::*;

const GRACE_MS: u64 = CARD_GRACE.as_millis() as u64;

/// A one-choice card that types `ls`.
fn card(id: u8) -> AcceptedProposal {
    AcceptedProposal {
        id: pid(id),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: 1,
            choices: vec![Choice {
                choice: 1,
                title: "List".into(),
                rationale: "see what is there".into(),
                actions: vec![Action::Send { input: "ls".into() }],
            }],
        },
        target_pane: "%3".into(),
        target_cwd: None,
        origin: Origin::TerminalAgent,
        armed: true,
        delegate_agent: None,
    }
}

fn question(id: u64) -> QuestionRequest {
    QuestionRequest {
        id,
        question: "Which branch?".into(),
        choices: vec!["main".into(), "dev".into()],
        allow_freeform: false,
    }
}

impl Pane {
    /// A proposal card arrives and the view reports it read in full.
    fn proposal(&mut self, id: u8) {
        self.domain(DomainEvent::ProposalAccepted(Box::new(card(id))));
        self.read_card();
    }

    /// What the view reports after drawing the whole front card.
    fn read_card(&mut self) {
        let Some(front) = self.state.proposals.front() else {
            return;
        };
        let sight = CardSight {
            id: front.proposal.id,
            width: 40,
            total: 1,
            first: 0,
            shown: 1,
            full_view: None,
        };
        self.send(Event::CardShown(sight));
    }

    fn confirms(effects: &[Effect]) -> Vec<ProposalId> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::ConfirmProposal { id, .. } => Some(*id),
                _ => None,
            })
            .collect()
    }
}

fn pid(n: u8) -> ProposalId {
    ProposalId::from_bytes([n; 16])
}

#[test]
fn a_proposal_card_under_a_question_counts_from_the_answer() {
    let mut p = Pane::ready();
    p.proposal(1);
    p.at(100).domain(DomainEvent::Question(question(7)));
    assert_eq!(p.state.top_card(), Some(TopCard::Question(7)));
    assert_eq!(p.state.guard.visible_since(), Some(p.now));

    // Long after the card arrived, Enter answers the question…
    p.at(5_000);
    let fx = p.enter();
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::AnswerQuestion { id: 7, .. })),
        "{fx:?}"
    );
    // …and reveals the card, whose guard starts now, not at its arrival.
    assert_eq!(
        p.state.top_card(),
        Some(TopCard::Proposal {
            id: pid(1),
            full_view: false
        })
    );
    assert_eq!(p.state.guard.visible_since(), Some(p.now));
    assert!(!p.state.card_armed(p.now));

    // The second Enter 120 ms later is ignored: no confirm, nothing typed.
    let fx = p.at(5_120).enter();
    assert_eq!(Pane::confirms(&fx), []);
    assert_eq!(p.state.proposals.len(), 1);
    assert!(p.state.input.is_empty());
    assert!(p.state.guard.refused(), "the card says to read it first");
    assert!(p.state.needs_tick(), "ticks until the hint can go");

    p.at(5_000 + GRACE_MS - 1);
    assert!(!p.state.card_armed(p.now));
    p.at(5_000 + GRACE_MS);
    assert!(p.state.card_armed(p.now));
    assert_eq!(Pane::confirms(&p.enter()), [pid(1)]);
}

#[test]
fn a_permission_card_over_a_proposal_card_answered_with_y_reveals_it() {
    let mut p = Pane::ready();
    p.proposal(1);
    p.at(200)
        .domain(DomainEvent::PermissionRequest(permission(4)));
    assert_eq!(
        p.state.top_card(),
        Some(TopCard::Permission(PermissionRequestId(4)))
    );
    let fx = p.at(3_000).typed("y");
    assert_eq!(
        fx,
        [Effect::AnswerPermission {
            request: PermissionRequestId(4),
            answer: PermissionAnswer::Selected("allow".into())
        }]
    );
    // The proposal card under it was covered all along: Enter 120 ms after
    // the answer is ignored, and so is a key the card would take.
    assert_eq!(Pane::confirms(&p.at(3_120).enter()), []);
    p.code(KeyCode::Down);
    assert!(p.state.input.is_empty(), "Down reached nothing");
    assert_eq!(Pane::confirms(&p.at(3_000 + GRACE_MS).enter()), [pid(1)]);
}

#[test]
fn a_question_under_a_permission_card_counts_from_the_answer() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::Question(question(7)));
    p.at(100)
        .domain(DomainEvent::PermissionRequest(permission(4)));
    p.at(2_000).typed("n");
    assert_eq!(p.state.top_card(), Some(TopCard::Question(7)));
    let early = p.at(2_100).enter();
    assert!(early.is_empty(), "{early:?}");
    assert!(p.state.question.is_some());
    let fx = p.at(2_000 + GRACE_MS).enter();
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::AnswerQuestion { id: 7, .. })),
        "{fx:?}"
    );
}

#[test]
fn a_question_covering_a_proposal_card_takes_no_key_meant_for_it() {
    let mut p = Pane::ready();
    p.proposal(1);
    p.domain(DomainEvent::Question(question(7)));
    // Keys the question does not use no longer reach the card under it.
    p.at(1_000).code(KeyCode::Right);
    p.typed("v");
    assert_eq!(p.state.proposals.front().map(|c| c.button), Some(0));
    assert!(!p.state.proposals.full_view_open());
    assert_eq!(p.state.input.text(), "v", "typed into the editor");
}

#[test]
fn hiding_the_pane_disarms_the_card_and_showing_it_restarts_the_guard() {
    let mut p = Pane::ready();
    p.proposal(1);
    p.at(1_000);
    assert!(p.state.card_armed(p.now));
    p.domain(DomainEvent::PaneHidden);
    assert_eq!(p.state.guard.visible_since(), None);
    assert!(!p.state.card_armed(p.now));
    assert_eq!(
        Pane::confirms(&p.at(9_000).enter()),
        [],
        "hidden: no confirm"
    );
    assert!(!p.state.needs_tick(), "a hidden card needs no ticks");

    p.at(10_000).domain(DomainEvent::PaneShown);
    assert_eq!(p.state.guard.visible_since(), Some(p.now));
    assert_eq!(Pane::confirms(&p.at(10_100).enter()), []);
    assert_eq!(Pane::confirms(&p.at(10_000 + GRACE_MS).enter()), [pid(1)]);
}

#[test]
fn a_resize_restarts_the_guard() {
    let mut p = Pane::ready();
    p.proposal(1);
    p.at(2_000).send(Event::Resize { cols: 60, rows: 20 });
    assert_eq!(p.state.guard.visible_since(), Some(p.now));
    // The frame at the new size reports the card read again.
    p.read_card();
    assert_eq!(Pane::confirms(&p.at(2_100).enter()), []);
    assert_eq!(Pane::confirms(&p.at(2_000 + GRACE_MS).enter()), [pid(1)]);
}

#[test]
fn opening_and_closing_the_full_view_restarts_the_guard() {
    let mut p = Pane::ready();
    p.proposal(1);
    p.at(1_000).typed("v");
    assert!(p.state.proposals.full_view_open());
    assert_eq!(p.state.guard.visible_since(), Some(p.now));
    // Holding Enter in the view that just opened confirms nothing.
    assert_eq!(Pane::confirms(&p.at(1_050).enter()), []);
    p.at(1_000 + GRACE_MS).typed("v");
    assert!(!p.state.proposals.full_view_open());
    assert_eq!(p.state.guard.visible_since(), Some(p.now));
    assert_eq!(Pane::confirms(&p.at(1_000 + GRACE_MS + 10).enter()), []);
    assert_eq!(
        Pane::confirms(&p.at(1_000 + 2 * GRACE_MS).enter()),
        [pid(1)]
    );
}

#[test]
fn a_card_that_was_never_visible_cannot_be_confirmed() {
    // Arrived while the pane was hidden: nothing confirms it, however late.
    let mut p = Pane::ready();
    p.domain(DomainEvent::PaneHidden);
    p.proposal(1);
    assert_eq!(p.state.guard.visible_since(), None);
    for ms in [500, 5_000, 60_000] {
        assert_eq!(Pane::confirms(&p.at(ms).enter()), []);
        assert!(!p.state.card_armed(p.now));
    }
    assert_eq!(p.state.proposals.len(), 1);

    // Covered by a question from the start (one that waits for a typed
    // answer): Enter goes to the question, never to the card.
    let mut p = Pane::ready();
    p.domain(DomainEvent::Question(QuestionRequest {
        choices: Vec::new(),
        allow_freeform: true,
        ..question(7)
    }));
    p.proposal(1);
    for ms in [1_000, 2_000, 60_000] {
        assert_eq!(Pane::confirms(&p.at(ms).enter()), []);
        assert!(p.state.question.is_some());
    }
    assert_eq!(p.state.proposals.len(), 1);

    // Queued behind another card: only the front one is ever on top.
    let mut p = Pane::ready();
    p.proposal(1);
    p.domain(DomainEvent::ProposalAccepted(Box::new(card(2))));
    assert_eq!(Pane::confirms(&p.at(1_000).enter()), [pid(1)]);
    p.read_card();
    assert_eq!(
        Pane::confirms(&p.at(1_100).enter()),
        [],
        "the next card was revealed at 1 s"
    );
}

#[test]
fn keys_before_the_guard_are_ignored_but_typing_with_a_draft_goes_on() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::PermissionRequest(permission(4)));
    // On an empty editor, the card's own keys do nothing: not answered,
    // not typed.
    assert!(p.at(100).typed("y").is_empty());
    assert!(p.code(KeyCode::Enter).is_empty());
    assert!(p.code(KeyCode::Esc).is_empty());
    assert!(p.typed("2").is_empty());
    assert_eq!(p.state.permissions.len(), 1);
    assert!(p.state.input.is_empty());
    assert!(p.state.guard.refused());
    // Other letters are typing: they reach the editor, and once there is a
    // draft, y and n are typing too.
    p.typed("why");
    assert_eq!(p.state.input.text(), "why");
    assert_eq!(p.state.permissions.len(), 1);
    p.at(1_000).typed(" no");
    assert_eq!(p.state.input.text(), "why no", "armed, but a draft types");
}

#[test]
fn the_next_card_of_a_queue_is_revealed_when_the_front_one_goes() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    p.domain(DomainEvent::PermissionRequest(permission(2)));
    p.at(1_000).typed("n");
    assert_eq!(
        p.state.top_card(),
        Some(TopCard::Permission(PermissionRequestId(2)))
    );
    assert!(p.at(1_100).typed("n").is_empty());
    // Withdrawing the front one reveals the next just the same.
    p.domain(DomainEvent::PermissionRequest(permission(3)));
    p.at(2_000)
        .domain(DomainEvent::PermissionWithdrawn(PermissionRequestId(2)));
    assert_eq!(p.state.guard.visible_since(), Some(p.now));
    assert!(p.at(2_100).typed("y").is_empty());
    assert_eq!(p.at(2_000 + GRACE_MS).typed("y").len(), 1);
}

#[test]
fn a_scripted_answer_needs_no_guard() {
    let mut p = Pane::ready();
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    let fx = p.send(Event::Script(Scripted::Answer(Some("allow".into()))));
    assert_eq!(fx.len(), 1, "nothing is typed, so nothing to guard: {fx:?}");
}
