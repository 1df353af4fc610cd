//! Recommendation cards driven through the real reducer: keys in, effects
//! and transcript lines out.

use std::time::{Duration, Instant};

use wta_protocol::{Action, Choice, FinalStatus, OpenTarget, Origin, ProposalId, ProposalPayload};

use super::*;
use crate::{CardEnter, DomainEvent, Effect, Event, Key, KeyCode, update};

fn pid(n: u8) -> ProposalId {
    ProposalId::from_bytes([n; 16])
}

fn send(input: &str) -> Action {
    Action::Send {
        input: input.into(),
    }
}

fn choice(n: u64, title: &str, actions: Vec<Action>) -> Choice {
    Choice {
        choice: n,
        title: title.into(),
        rationale: format!("why {n}"),
        actions,
    }
}

pub(crate) fn accepted(id: u8, recommended: u64, choices: Vec<Choice>) -> AcceptedProposal {
    AcceptedProposal {
        id: pid(id),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: recommended,
            choices,
        },
        target_pane: "%3".into(),
        target_cwd: Some("/src".into()),
        origin: Origin::TerminalAgent,
        armed: true,
        delegate_agent: None,
    }
}

fn three() -> AcceptedProposal {
    accepted(
        1,
        2,
        vec![
            choice(1, "one", vec![send("echo 1")]),
            choice(2, "two", vec![send("echo 2")]),
            choice(
                3,
                "three",
                vec![Action::Open {
                    target: OpenTarget::Tab,
                    cwd: None,
                    title: None,
                    direction: None,
                }],
            ),
        ],
    )
}

struct F {
    state: AppState,
    t0: Instant,
    /// Milliseconds after `t0` of the last key.
    ms: u64,
}

impl F {
    fn new(p: AcceptedProposal) -> Self {
        let t0 = Instant::now();
        let mut state = AppState::new("demo");
        update(
            &mut state,
            Event::Domain(DomainEvent::ProposalAccepted(Box::new(p))),
            t0,
        );
        F { state, t0, ms: 0 }
    }
    fn key_at(&mut self, key: Key, ms: u64) -> Vec<Effect> {
        self.ms = ms;
        update(
            &mut self.state,
            Event::Key(key),
            self.t0 + Duration::from_millis(ms),
        )
    }
    /// A key a second after the last one: the card is armed, whatever
    /// the last key revealed (the full view opening or closing).
    fn key(&mut self, code: KeyCode) -> Vec<Effect> {
        self.key_at(Key::plain(code), self.ms + 1000)
    }
    /// What the driver feeds after a draw: rows `first..first + shown` of
    /// a full text of `total` rows at `width` were on screen.
    fn shown(&mut self, width: u16, total: usize, first: usize, shown: usize) -> bool {
        let sight = CardSight {
            id: self.state.proposals.front().unwrap().proposal.id,
            width,
            total,
            first,
            shown,
            full_view: self
                .state
                .proposals
                .full_view_open()
                .then_some(FullViewFrame {
                    top: first,
                    page: shown,
                    total,
                }),
        };
        let news = self.state.proposals.is_news(&sight);
        assert!(update(&mut self.state, Event::CardShown(sight), self.t0).is_empty());
        news
    }
    /// The whole card fitted on screen.
    fn read(&mut self) {
        self.shown(40, 9, 0, 9);
    }
    fn confirms(effects: &[Effect]) -> bool {
        effects
            .iter()
            .any(|e| matches!(e, Effect::ConfirmProposal { .. }))
    }
}

#[test]
fn recommended_choice_is_first_and_enter_runs_it() {
    let mut f = F::new(three());
    let card = f.state.proposals.front().unwrap();
    let titles: Vec<_> = card.choices().map(|c| c.title.as_str()).collect();
    assert_eq!(titles, ["two", "one", "three"]);
    f.read();
    assert_eq!(
        f.key(KeyCode::Enter),
        [Effect::ConfirmProposal {
            id: pid(1),
            choice: 2,
            mode: ConfirmMode::Run
        }]
    );
    assert!(f.state.proposals.is_empty());
}

#[test]
fn the_cards_keys_do_nothing_in_the_grace_period_and_typing_goes_on() {
    let mut f = F::new(three());
    f.read();
    assert!(f.key_at(Key::plain(KeyCode::Enter), 100).is_empty());
    f.key_at(Key::ch('1'), 200);
    f.key_at(Key::plain(KeyCode::Down), 210);
    assert!(f.state.input.is_empty(), "the card's digit is not typed");
    assert_eq!(f.state.proposals.front().unwrap().selected, 0);
    assert_eq!(f.state.proposals.len(), 1);
    assert!(f.state.guard.refused());
    assert!(f.state.needs_tick());
    // A letter the card does not use is typing, in the grace period or not;
    // after it a digit with text in the editor still types.
    f.key_at(Key::ch('a'), 250);
    f.key_at(Key::ch('3'), 400);
    assert_eq!(f.state.input.text(), "a3");
}

/// The card owns Enter and Esc whatever the draft holds: Enter does what
/// the card says it does (`card_enter`), and the draft stays in the editor.
#[test]
fn enter_and_esc_belong_to_the_card_and_the_draft_is_kept() {
    let mut f = F::new(three());
    f.read();
    for c in "no, do not run that".chars() {
        f.key_at(Key::ch(c), 1000);
    }
    assert!(f.state.draft_kept(f.t0 + Duration::from_millis(1000)));
    assert_eq!(
        f.state.card_enter(f.t0 + Duration::from_millis(1000)),
        Some(CardEnter::Proposal(ProposalEnter::Confirm(
            ConfirmMode::Run
        )))
    );
    assert_eq!(
        f.key(KeyCode::Enter),
        [Effect::ConfirmProposal {
            id: pid(1),
            choice: 2,
            mode: ConfirmMode::Run
        }]
    );
    assert_eq!(f.state.input.text(), "no, do not run that", "draft kept");
    assert!(
        !f.state.draft_kept(f.t0 + Duration::from_millis(f.ms)),
        "no card"
    );

    let mut f = F::new(three());
    f.read();
    f.key_at(Key::ch('x'), 1000);
    assert_eq!(f.key(KeyCode::Esc), [Effect::CancelProposal { id: pid(1) }]);
    assert_eq!(
        f.state.input.text(),
        "x",
        "Esc cancelled the card, not the draft"
    );
}

/// What Enter is said to do is what it does, in every state of the card.
#[test]
fn enter_does_what_card_enter_says() {
    let at = |f: &F| f.t0 + Duration::from_millis(f.ms + 1000);
    // Unread: the full view opens; in it, Enter stays.
    let mut f = F::new(three());
    f.shown(40, 9, 0, 3);
    assert_eq!(
        f.state.card_enter(at(&f)),
        Some(CardEnter::Proposal(ProposalEnter::ReadAll))
    );
    f.key(KeyCode::Enter);
    assert!(f.state.proposals.full_view_open());
    f.shown(40, 9, 0, 3);
    assert_eq!(
        f.state.card_enter(at(&f)),
        Some(CardEnter::Proposal(ProposalEnter::ReadOn))
    );
    assert!(f.key(KeyCode::Enter).is_empty());
    assert!(f.state.proposals.full_view_open(), "stays");
    // Stale: Enter says why, then dismisses.
    let mut f = F::new(three());
    f.read();
    update(
        &mut f.state,
        Event::Domain(DomainEvent::ProposalResolved {
            id: pid(1),
            status: FinalStatus::Superseded,
            reason: None,
        }),
        f.t0,
    );
    assert_eq!(
        f.state.card_enter(at(&f)),
        Some(CardEnter::Proposal(ProposalEnter::Dismiss))
    );
    f.key(KeyCode::Enter);
    assert!(f.state.proposals.is_empty());
    // Too old: the first Enter says why.
    let mut f = F::new(three());
    f.read();
    f.ms = PROPOSAL_CARD_TIMEOUT.as_millis() as u64;
    assert_eq!(
        f.state.card_enter(at(&f)),
        Some(CardEnter::Proposal(ProposalEnter::ShowWhy))
    );
    assert!(!F::confirms(&f.key(KeyCode::Enter)));
    assert!(f.state.proposals.front().is_some_and(|c| c.stale.is_some()));
}

#[test]
fn arrows_digits_and_tab_choose_choice_and_button() {
    let mut f = F::new(three());
    f.read();
    f.key(KeyCode::Right);
    assert_eq!(
        f.state.proposals.front().unwrap().selected_mode(),
        Some(ConfirmMode::Insert)
    );
    f.key(KeyCode::Tab);
    assert_eq!(
        f.state.proposals.front().unwrap().selected_mode(),
        Some(ConfirmMode::Run),
        "buttons wrap"
    );
    f.key(KeyCode::BackTab);
    f.key(KeyCode::Down);
    assert_eq!(
        f.state.proposals.front().unwrap().button,
        0,
        "a new choice starts on its first button"
    );
    assert_eq!(
        f.key(KeyCode::Enter),
        [Effect::ConfirmProposal {
            id: pid(1),
            choice: 1,
            mode: ConfirmMode::Run
        }]
    );
    let mut f = F::new(three());
    f.read();
    f.key(KeyCode::Char('3'));
    f.key(KeyCode::Down);
    assert_eq!(
        f.state.proposals.front().unwrap().buttons(),
        [ConfirmMode::Open]
    );
    f.key(KeyCode::Char('9')); // no such choice: ignored
    assert_eq!(
        f.key(KeyCode::Enter),
        [Effect::ConfirmProposal {
            id: pid(1),
            choice: 3,
            mode: ConfirmMode::Open
        }]
    );
}

#[test]
fn insert_is_offered_unless_a_choice_delegates() {
    let delegate = choice(
        1,
        "d",
        vec![Action::OpenAndSend {
            target: OpenTarget::Tab,
            input: "fix it".into(),
            delegate: true,
            cwd: None,
        }],
    );
    assert_eq!(buttons(&delegate), [ConfirmMode::Run]);
    let mut mixed = delegate.clone();
    mixed.actions = vec![
        Action::Open {
            target: OpenTarget::Panel,
            cwd: None,
            title: None,
            direction: None,
        },
        send("ls"),
    ];
    assert_eq!(buttons(&mixed), [ConfirmMode::Run, ConfirmMode::Insert]);
}

#[test]
fn esc_cancels_and_the_next_card_gets_its_own_grace() {
    let mut f = F::new(three());
    update(
        &mut f.state,
        Event::Domain(DomainEvent::ProposalAccepted(Box::new(accepted(
            2,
            1,
            vec![choice(1, "x", vec![send("x")])],
        )))),
        f.t0,
    );
    assert_eq!(f.key(KeyCode::Esc), [Effect::CancelProposal { id: pid(1) }]);
    assert!(f.key_at(Key::plain(KeyCode::Enter), 1100).is_empty());
    assert_eq!(f.state.proposals.len(), 1);
    f.shown(40, 2, 0, 2);
    assert_eq!(
        f.key_at(Key::plain(KeyCode::Enter), 1300),
        [Effect::ConfirmProposal {
            id: pid(2),
            choice: 1,
            mode: ConfirmMode::Run
        }]
    );
}

#[test]
fn a_stale_card_shows_why_cannot_confirm_and_dismisses() {
    let mut f = F::new(three());
    update(
        &mut f.state,
        Event::Domain(DomainEvent::ProposalResolved {
            id: pid(1),
            status: FinalStatus::Superseded,
            reason: None,
        }),
        f.t0,
    );
    let card = f.state.proposals.front().unwrap();
    assert_eq!(
        card.stale.as_ref().map(Stale::describe).as_deref(),
        Some("a newer turn replaced this proposal")
    );
    assert!(f.key(KeyCode::Enter).is_empty());
    assert!(f.state.proposals.is_empty(), "Enter dismisses a stale card");
    let mut f = F::new(three());
    update(
        &mut f.state,
        Event::Domain(DomainEvent::ProposalResolved {
            id: pid(1),
            status: FinalStatus::TimedOut,
            reason: None,
        }),
        f.t0,
    );
    assert!(
        f.key(KeyCode::Esc).is_empty(),
        "no cancel for a dead proposal"
    );
    assert!(f.state.proposals.is_empty());
}

#[test]
fn a_card_older_than_the_timeout_refuses_locally() {
    let mut f = F::new(three());
    let late = PROPOSAL_CARD_TIMEOUT.as_millis() as u64 + 1;
    assert!(f.key_at(Key::plain(KeyCode::Enter), late).is_empty());
    let card = f.state.proposals.front().unwrap();
    assert_eq!(
        card.stale.as_ref().map(|s| s.status),
        Some(FinalStatus::TimedOut)
    );
    assert!(f.key_at(Key::plain(KeyCode::Enter), late + 1).is_empty());
    assert!(f.state.proposals.is_empty());
}

#[test]
fn a_queued_stale_card_is_dropped_with_a_note_and_unknown_ids_are_ignored() {
    let mut f = F::new(three());
    update(
        &mut f.state,
        Event::Domain(DomainEvent::ProposalAccepted(Box::new(accepted(
            2,
            1,
            vec![choice(1, "later", vec![send("x")])],
        )))),
        f.t0,
    );
    for id in [pid(2), pid(9)] {
        update(
            &mut f.state,
            Event::Domain(DomainEvent::ProposalResolved {
                id,
                status: FinalStatus::SessionReplaced,
                reason: Some("/new".into()),
            }),
            f.t0,
        );
    }
    assert_eq!(f.state.proposals.len(), 1);
    assert!(f.state.proposals.front().unwrap().stale.is_none());
}

#[test]
fn the_permission_card_keeps_precedence() {
    use crate::{
        PermissionOption, PermissionOptionKind, PermissionRequest, PermissionRequestId, ToolKind,
    };
    let mut f = F::new(three());
    let request = PermissionRequest {
        id: PermissionRequestId(7),
        title: "Run".into(),
        kind: ToolKind::Execute,
        target: Some("ls".into()),
        options: vec![PermissionOption {
            id: "once".into(),
            name: "Allow".into(),
            kind: PermissionOptionKind::AllowOnce,
        }],
    };
    update(
        &mut f.state,
        Event::Domain(DomainEvent::PermissionRequest(request)),
        f.t0,
    );
    let fx = f.key(KeyCode::Enter);
    assert!(matches!(fx.as_slice(), [Effect::AnswerPermission { .. }]));
    assert_eq!(f.state.proposals.len(), 1);
}

// ---- what the user confirms is what the card showed ----

#[test]
fn digits_select_the_choice_by_its_payload_number() {
    let mut f = F::new(three());
    f.key(KeyCode::Char('1'));
    assert_eq!(
        f.state.proposals.front().unwrap().selected,
        1,
        "choice 1 is row 1"
    );
    f.key(KeyCode::Char('2'));
    assert_eq!(f.state.proposals.front().unwrap().selected, 0);
    f.key(KeyCode::Char('3'));
    let card = f.state.proposals.front().unwrap();
    assert_eq!(card.selected_choice().map(|c| c.choice), Some(3));
}

#[test]
fn run_and_insert_wait_until_every_row_was_on_screen() {
    let mut f = F::new(three());
    // The card showed a shortened form: nothing of the full text counts.
    assert!(f.shown(40, 10, 0, 0));
    assert!(!f.shown(40, 10, 0, 0), "the same report is no news");
    let fx = f.key(KeyCode::Enter);
    assert!(!F::confirms(&fx), "{fx:?}");
    assert!(
        f.state.proposals.full_view_open(),
        "Enter on an unread card opens the full view"
    );
    assert!(f.shown(40, 10, 0, 4));
    assert!(!F::confirms(&f.key(KeyCode::Enter)), "rows 4..10 unread");
    assert!(f.state.proposals.full_view_open(), "Enter never scrolls");
    f.key(KeyCode::PageDown);
    assert_eq!(f.state.proposals.front().unwrap().full_view.unwrap().top, 4);
    f.shown(40, 10, 4, 4);
    f.key(KeyCode::End);
    assert_eq!(f.state.proposals.front().unwrap().full_view.unwrap().top, 6);
    f.key(KeyCode::Right);
    assert!(!F::confirms(&f.key(KeyCode::Enter)), "row 9 unread");
    f.shown(40, 10, 6, 4);
    assert!(f.state.proposals.front().unwrap().read_in_full());
    assert_eq!(
        f.key(KeyCode::Enter),
        [Effect::ConfirmProposal {
            id: pid(1),
            choice: 2,
            mode: ConfirmMode::Insert
        }],
        "the button chosen in the full view"
    );
}

#[test]
fn esc_cancels_whatever_was_read() {
    // On the card, nothing read.
    let mut f = F::new(three());
    f.shown(40, 10, 0, 0);
    assert_eq!(f.key(KeyCode::Esc), [Effect::CancelProposal { id: pid(1) }]);
    // In the full view, half read, even with a draft in the editor.
    let mut f = F::new(three());
    f.key(KeyCode::Char('v'));
    f.shown(40, 10, 0, 5);
    f.state.input.set_text("wait");
    assert_eq!(f.key(KeyCode::Esc), [Effect::CancelProposal { id: pid(1) }]);
    assert!(f.state.proposals.is_empty());
}

#[test]
fn the_full_view_takes_every_key_and_v_closes_it() {
    let mut f = F::new(three());
    f.key(KeyCode::Char('v'));
    assert!(f.state.proposals.full_view_open());
    f.shown(40, 10, 0, 4);
    // Past the grace period of the view that opened at 1 s.
    for c in "rm".chars() {
        f.key_at(Key::ch(c), 1500);
    }
    f.key(KeyCode::Backspace);
    assert!(
        f.state.input.is_empty(),
        "nothing types into the hidden editor"
    );
    f.key(KeyCode::Char('3'));
    assert_eq!(
        f.state
            .proposals
            .front()
            .unwrap()
            .selected_choice()
            .map(|c| c.choice),
        Some(3)
    );
    update(&mut f.state, Event::Mouse(crate::Mouse::WheelDown), f.t0);
    assert_eq!(f.state.proposals.front().unwrap().full_view.unwrap().top, 3);
    f.key(KeyCode::Home);
    assert_eq!(f.state.proposals.front().unwrap().full_view.unwrap().top, 0);
    f.key(KeyCode::Char('v'));
    assert!(!f.state.proposals.full_view_open());
    assert!(
        f.state.proposals.front().unwrap().reading.unseen() == 6,
        "rows seen in the full view stay seen"
    );
}

#[test]
fn a_resize_waits_for_the_next_frame_and_a_new_width_reads_again() {
    let mut f = F::new(three());
    f.read();
    update(&mut f.state, Event::Resize { cols: 50, rows: 10 }, f.t0);
    assert!(
        !F::confirms(&f.key(KeyCode::Enter)),
        "no confirm between a resize and the frame that shows the new size"
    );
    assert!(f.state.proposals.full_view_open());
    // Same width, only shorter: what was seen stays seen.
    assert!(f.shown(40, 9, 0, 3));
    assert!(f.state.proposals.front().unwrap().read_in_full());
    // Narrower: the text re-wraps into other rows, read it again.
    assert!(f.shown(30, 12, 0, 3));
    assert!(!F::confirms(&f.key(KeyCode::Enter)));
    f.shown(30, 12, 3, 9);
    assert!(F::confirms(&f.key(KeyCode::Enter)));
}

#[test]
fn reports_about_another_card_are_ignored() {
    let mut f = F::new(three());
    let sight = CardSight {
        id: pid(9),
        width: 40,
        total: 3,
        first: 0,
        shown: 3,
        full_view: None,
    };
    assert!(!f.state.proposals.is_news(&sight));
    update(&mut f.state, Event::CardShown(sight), f.t0);
    assert!(!f.state.proposals.front().unwrap().read_in_full());
}
