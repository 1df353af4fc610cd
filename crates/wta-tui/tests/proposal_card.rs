//! Snapshots of the recommendation card at widths 40/80/120 and heights
//! 10/40: one choice, three choices with every action kind, a long
//! multi-line command, an unarmed proposal and a stale card. States are
//! built through the real reducer.

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use wta_protocol::{
    Action, Choice, Direction, FinalStatus, OpenTarget, Origin, ProposalId, ProposalPayload,
};
use wta_state::*;
use wta_tui::View;

const SIZES: [(u16, u16); 6] = [(40, 10), (80, 10), (120, 10), (40, 40), (80, 40), (120, 40)];

fn state_with(proposal: AcceptedProposal, extra: &[Event]) -> (AppState, Instant) {
    let t0 = Instant::now();
    let mut state = AppState::new("demo");
    update(
        &mut state,
        Event::Domain(DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: Some("demo-1".into()),
        }),
        t0,
    );
    update(
        &mut state,
        Event::Domain(DomainEvent::TargetPane {
            pane: "%3".into(),
            cwd: Some("/home/ada/src/wta".into()),
        }),
        t0,
    );
    update(
        &mut state,
        Event::Domain(DomainEvent::UserMessage("run the tests".into())),
        t0,
    );
    update(
        &mut state,
        Event::Domain(DomainEvent::ProposalAccepted(Box::new(proposal))),
        t0,
    );
    let later = t0 + Duration::from_secs(1);
    for event in extra {
        update(&mut state, event.clone(), later);
    }
    update(&mut state, Event::Tick, later);
    (state, later)
}

fn render(state: &AppState, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let mut view = View::new();
    terminal.draw(|frame| view.render(state, frame)).unwrap();
    terminal.backend().to_string()
}

fn snapshot_all_sizes(name: &str, state: &AppState) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), render(state, w, h));
    }
}

fn proposal(armed: bool, recommended: u64, choices: Vec<Choice>) -> AcceptedProposal {
    AcceptedProposal {
        id: ProposalId::from_bytes([7; 16]),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: recommended,
            choices,
        },
        target_pane: "%3".into(),
        target_cwd: Some("/home/ada/src/wta".into()),
        origin: Origin::TerminalAgent,
        armed,
        delegate_agent: Some("claude".into()),
    }
}

fn choice(n: u64, title: &str, rationale: &str, actions: Vec<Action>) -> Choice {
    Choice {
        choice: n,
        title: title.into(),
        rationale: rationale.into(),
        actions,
    }
}

fn send(input: &str) -> Action {
    Action::Send {
        input: input.into(),
    }
}

#[test]
fn one_choice() {
    let (state, _) = state_with(
        proposal(
            true,
            1,
            vec![choice(
                1,
                "Run the test suite",
                "The build passed; the tests tell us what broke.",
                vec![send("cargo test --workspace")],
            )],
        ),
        &[],
    );
    snapshot_all_sizes("proposal_one", &state);
}

fn three_choices() -> AcceptedProposal {
    proposal(
        true,
        2,
        vec![
            choice(
                1,
                "Build first",
                "Cheaper than the tests.",
                vec![send("cargo build")],
            ),
            choice(
                2,
                "Run tests in a side panel",
                "Keeps your shell free while the suite runs.",
                vec![Action::OpenAndSend {
                    target: OpenTarget::Panel,
                    input: "cargo test".into(),
                    delegate: false,
                    cwd: Some("/home/ada/src/wta".into()),
                }],
            ),
            choice(
                3,
                "Hand the failures to another agent",
                "",
                vec![
                    Action::Open {
                        target: OpenTarget::Panel,
                        cwd: Some("/tmp".into()),
                        title: Some("logs".into()),
                        direction: Some(Direction::Down),
                    },
                    Action::OpenAndSend {
                        target: OpenTarget::Tab,
                        input: "Fix the failing tests in crates/wta-shell".into(),
                        delegate: true,
                        cwd: None,
                    },
                ],
            ),
        ],
    )
}

#[test]
fn three_choices_recommended_first() {
    let (state, _) = state_with(three_choices(), &[]);
    snapshot_all_sizes("proposal_three", &state);
}

#[test]
fn three_choices_third_selected_insert_button() {
    let (state, _) = state_with(
        three_choices(),
        &[
            // Choice 1, shown second (the recommended one comes first).
            Event::Key(Key::ch('1')),
            Event::Key(Key::plain(KeyCode::Right)),
        ],
    );
    let card = state.proposals.front().unwrap();
    assert_eq!(card.selected_mode(), Some(ConfirmMode::Insert));
    snapshot_all_sizes("proposal_three_insert", &state);
}

#[test]
fn long_multiline_command_unarmed() {
    let long = "for f in $(git ls-files '*.rs'); do rustfmt --edition 2024 --check \"$f\" || echo \"needs fmt: $f\"; done\necho done";
    let (state, _) = state_with(
        proposal(
            false,
            1,
            vec![choice(
                1,
                "Check formatting file by file, printing each file that needs rustfmt",
                "",
                vec![send(long)],
            )],
        ),
        &[],
    );
    snapshot_all_sizes("proposal_long_unarmed", &state);
}

#[test]
fn stale_card_says_why() {
    let (state, _) = state_with(
        proposal(true, 1, vec![choice(1, "ls", "", vec![send("ls -la")])]),
        &[Event::Domain(DomainEvent::ProposalResolved {
            id: ProposalId::from_bytes([7; 16]),
            status: FinalStatus::Superseded,
            reason: None,
        })],
    );
    insta::assert_snapshot!("proposal_stale_80x40", render(&state, 80, 40));
    insta::assert_snapshot!("proposal_stale_40x10", render(&state, 40, 10));
}
