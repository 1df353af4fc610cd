//! What the pane waits for, through `update` on the test clock: the status
//! line's activity (the agent, the user, the connection, each with the
//! time it counts), and the card on top owning Enter over a draft (issue
//! 27: a failed `/help me` left in the editor no longer steals the fix
//! card's Enter).

use std::time::Duration;

use wta_protocol::{Action, Choice, Origin, ProposalId, ProposalPayload};

use super::proposal_card::CardSight;
use super::test_pane::*;
use super::*;

fn fix_card() -> AcceptedProposal {
    AcceptedProposal {
        id: ProposalId::from_bytes([5; 16]),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::Autofix,
            recommended_choice: 1,
            choices: vec![Choice {
                choice: 1,
                title: "Run it as intended".into(),
                rationale: "a typo".into(),
                actions: vec![Action::Send {
                    input: "echo hi".into(),
                }],
            }],
        },
        target_pane: "%3".into(),
        target_cwd: None,
        origin: Origin::Autofix,
        armed: true,
        delegate_agent: None,
    }
}

impl Pane {
    /// The fix card arrives and the view reports it read in full.
    fn fix_card_shown(&mut self) {
        self.domain(DomainEvent::ProposalAccepted(Box::new(fix_card())));
        self.send(Event::CardShown(CardSight {
            id: ProposalId::from_bytes([5; 16]),
            width: 40,
            total: 1,
            first: 0,
            shown: 1,
            full_view: None,
        }));
    }

    fn failed(&mut self) {
        self.domain(DomainEvent::Failure(FailureNotice {
            generation: 1,
            pane: "%3".into(),
            command: Some("ehco hi".into()),
            exit_code: 127,
        }));
    }
}

const CARD: Activity = Activity::WaitingForYou(UserWait::Card);

#[test]
fn a_failed_command_in_the_editor_does_not_take_the_fix_cards_enter() {
    let mut p = Pane::ready();
    p.typed("/help me");
    assert!(p.enter().is_empty(), "/help takes no argument");
    assert_eq!(p.state.input.text(), "/help me", "kept, selected");
    p.failed();
    let fx = p.at(1_000).key(Key::ctrl('f'));
    assert!(matches!(fx.as_slice(), [Effect::Fix { generation: 1, .. }]));
    p.at(2_000).fix_card_shown();
    // In the grace period Enter does nothing at all: not the card, and not
    // the draft (which would run `/help me` again).
    assert!(p.at(2_100).enter().is_empty());
    assert_eq!(p.state.input.text(), "/help me");
    assert!(p.state.guard.refused());
    // Armed: Enter does what the card says, and the draft stays.
    p.at(2_400);
    assert_eq!(
        p.state.card_enter(p.now),
        Some(CardEnter::Proposal(ProposalEnter::Confirm(
            ConfirmMode::Run
        )))
    );
    assert!(p.state.draft_kept(p.now), "the card says the draft is kept");
    assert_eq!(
        p.enter(),
        [Effect::ConfirmProposal {
            id: ProposalId::from_bytes([5; 16]),
            choice: 1,
            mode: ConfirmMode::Run
        }]
    );
    assert_eq!(p.state.input.text(), "/help me", "the draft is kept");
    assert!(!p.state.draft_kept(p.now), "no card, nothing to say");
    assert_eq!(
        p.last_system(),
        Some((SystemLevel::Info, "Run: Run it as intended".into()))
    );
    // With the card gone, Enter is the editor's again.
    p.enter();
    assert_eq!(
        p.last_system(),
        Some((
            SystemLevel::Warn,
            "/help takes no argument (got `me`)".into()
        ))
    );
}

#[test]
fn the_status_says_what_the_pane_waits_for() {
    let mut p = Pane::ready();
    p.at(1_000).typed("fix the build");
    p.enter();
    p.at(4_000).send(Event::Tick);
    assert_eq!(
        p.state.activity(),
        Activity::Thinking {
            elapsed: Duration::from_secs(3)
        },
        "waiting for the agent, counted from the prompt"
    );
    // The agent proposes: the turn waits for the user's answer, and so
    // does the status line (no thinking time running on).
    p.fix_card_shown();
    p.at(330_000).send(Event::Tick);
    assert_eq!(p.state.activity(), CARD);
    // A permission card over it, then a question: each one on top is what
    // the pane waits for.
    p.domain(DomainEvent::PermissionRequest(permission(1)));
    assert_eq!(
        p.state.activity(),
        Activity::WaitingForYou(UserWait::Permission)
    );
    p.at(331_000).typed("y");
    assert_eq!(p.state.activity(), CARD);
    p.domain(DomainEvent::Question(QuestionRequest {
        id: 4,
        question: "Which branch?".into(),
        choices: vec!["main".into()],
        allow_freeform: false,
    }));
    assert_eq!(
        p.state.activity(),
        Activity::WaitingForYou(UserWait::Question)
    );
    p.at(332_000).enter();
    assert_eq!(p.state.activity(), CARD);
    // Answered: the agent again, its turn's whole time.
    p.at(333_000).enter();
    assert!(p.state.proposals.is_empty());
    assert_eq!(
        p.state.activity(),
        Activity::Thinking {
            elapsed: Duration::from_secs(332)
        }
    );
    p.domain(DomainEvent::TurnEnded(StopReason::EndTurn));
    assert_eq!(p.state.activity(), Activity::Ready);
    // A card left after its turn ended still waits for the user.
    p.fix_card_shown();
    assert_eq!(p.state.activity(), CARD);
}

#[test]
fn connecting_counts_from_when_the_wait_began() {
    let mut p = Pane::ready();
    p.at(5_000).typed("/restart");
    assert_eq!(p.enter(), [Effect::Restart]);
    // The session machine says the session is being opened again.
    p.domain(DomainEvent::Connection(ConnectionState::Connecting));
    assert_eq!(
        p.state.activity(),
        Activity::Connecting {
            elapsed: Duration::ZERO,
            reconnect: false
        }
    );
    assert!(p.state.needs_tick(), "the elapsed time moves");
    p.at(12_000).send(Event::Tick);
    assert_eq!(
        p.state.activity(),
        Activity::Connecting {
            elapsed: Duration::from_secs(7),
            reconnect: false
        }
    );
    p.domain(DomainEvent::SessionStarted {
        agent: "demo".into(),
        model: None,
    });
    assert_eq!(p.state.activity(), Activity::Ready);
    assert_eq!(p.state.connecting_since, None);
    // The next wait counts from its own start.
    p.at(20_000)
        .domain(DomainEvent::Connection(ConnectionState::Connecting));
    p.at(20_500).send(Event::Tick);
    assert_eq!(
        p.state.activity(),
        Activity::Connecting {
            elapsed: Duration::from_millis(500),
            reconnect: false
        }
    );
    // The setup screen waits for the user, not the connection.
    p.domain(DomainEvent::AgentMissing {
        agent: "claude".into(),
        install_hint: "npm i".into(),
    });
    assert_eq!(p.state.activity(), Activity::Setup);
    assert_eq!(p.state.connecting_since, None);
}
