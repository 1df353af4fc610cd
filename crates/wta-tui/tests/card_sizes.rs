//! One multi-choice, multi-action card at every pane size that matters:
//! a normal 80×24 pane, a 7-row pane (compact card), a 3-row pane (no row
//! for the card at all) and a 20-column pane, each on the card and in the
//! full view. The harness draws like the driver (draw, feed back what the
//! view reports, until nothing new), lets the card's grace period pass
//! after every input (a reader looks before the next key), and every
//! snapshot comes with the answer Enter gets at that point.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use wta_protocol::{Action, Choice, OpenTarget, Origin, ProposalId, ProposalPayload};
use wta_state::*;
use wta_tui::View;

fn proposal() -> AcceptedProposal {
    let send = |input: &str| Action::Send {
        input: input.into(),
    };
    AcceptedProposal {
        id: ProposalId::from_bytes([7; 16]),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: 2,
            choices: vec![
                Choice {
                    choice: 1,
                    title: "Rebuild, then test".into(),
                    rationale: "The lock file changed.\nRebuild before testing.".into(),
                    actions: vec![
                        send("cargo build --workspace"),
                        send(
                            "cargo test -p wta-tui\n\
                             cargo test -p wta-helper --lib\n\
                             cargo test -p wta-protocol\n\
                             cargo clippy --all-targets -- -D warnings\n\
                             cargo fmt --check",
                        ),
                    ],
                },
                Choice {
                    choice: 2,
                    title: "Watch the tests in a panel".into(),
                    rationale: "Your shell stays free.".into(),
                    actions: vec![Action::OpenAndSend {
                        target: OpenTarget::Panel,
                        input: "cargo watch -x test".into(),
                        delegate: false,
                        cwd: Some("/home/ada/src/wta".into()),
                    }],
                },
                Choice {
                    choice: 3,
                    title: "Ask another agent".into(),
                    rationale: String::new(),
                    actions: vec![
                        Action::Open {
                            target: OpenTarget::Tab,
                            cwd: Some("/home/ada/src/wta".into()),
                            title: Some("review".into()),
                            direction: None,
                        },
                        Action::OpenAndSend {
                            target: OpenTarget::Tab,
                            input: "Review the failing tests in crates/wta-tui".into(),
                            delegate: true,
                            cwd: None,
                        },
                    ],
                },
            ],
        },
        target_pane: "%3".into(),
        target_cwd: Some("/home/ada/src/wta".into()),
        origin: Origin::TerminalAgent,
        armed: true,
        delegate_agent: Some("claude".into()),
    }
}

struct Pane {
    state: AppState,
    view: View,
    terminal: Terminal<TestBackend>,
    now: Instant,
}

impl Pane {
    fn new(cols: u16, rows: u16) -> Self {
        let t0 = Instant::now();
        let mut state = AppState::new("demo");
        for event in [
            DomainEvent::SessionStarted {
                agent: "demo".into(),
                model: Some("demo-1".into()),
            },
            DomainEvent::TargetPane {
                pane: "%3".into(),
                cwd: Some("/home/ada/src/wta".into()),
            },
            DomainEvent::UserMessage("the tests fail".into()),
            DomainEvent::ProposalAccepted(Box::new(proposal())),
        ] {
            update(&mut state, Event::Domain(event), t0);
        }
        let now = t0 + Duration::from_secs(1);
        update(&mut state, Event::Tick, now);
        let mut pane = Pane {
            state,
            view: View::new(),
            terminal: Terminal::new(TestBackend::new(cols, rows)).unwrap(),
            now,
        };
        pane.draw();
        pane
    }

    /// Draws and feeds back like the driver; returns the screen.
    fn draw(&mut self) -> String {
        loop {
            let (state, view) = (&self.state, &mut self.view);
            self.terminal.draw(|f| view.render(state, f)).unwrap();
            match self.view.card_feedback(&self.state) {
                Some(event) => assert!(update(&mut self.state, event, self.now).is_empty()),
                None => return self.terminal.backend().to_string(),
            }
        }
    }

    /// A key, then the user reads what it showed for the card's grace
    /// period (the driver ticks meanwhile).
    fn press(&mut self, code: KeyCode) -> Vec<Effect> {
        let effects = update(&mut self.state, Event::Key(Key::plain(code)), self.now);
        self.draw();
        self.pause();
        effects
    }

    fn resize(&mut self, cols: u16, rows: u16) {
        self.terminal.backend_mut().resize(cols, rows);
        update(&mut self.state, Event::Resize { cols, rows }, self.now);
        self.draw();
        self.pause();
    }

    /// The grace period passes: whatever the last input revealed is armed.
    fn pause(&mut self) {
        self.now += CARD_GRACE;
        update(&mut self.state, Event::Tick, self.now);
        self.draw();
    }

    fn read(&self) -> bool {
        self.state.proposals.front().unwrap().read_in_full()
    }

    /// Pages down the full view until every row was on screen.
    fn read_to_the_end(&mut self) {
        for _ in 0..100 {
            if self.read() {
                return;
            }
            self.press(KeyCode::PageDown);
        }
        panic!("still unread after 100 pages");
    }
}

fn confirms(effects: &[Effect]) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, Effect::ConfirmProposal { .. }))
}

#[test]
fn normal_pane_80x24_shows_every_action() {
    let mut pane = Pane::new(80, 24);
    insta::assert_snapshot!("card_80x24", pane.draw());
    assert!(pane.read(), "the rationales made room for every action");
    assert_eq!(
        pane.press(KeyCode::Enter),
        [Effect::ConfirmProposal {
            id: ProposalId::from_bytes([7; 16]),
            choice: 2,
            mode: ConfirmMode::Run
        }]
    );
}

#[test]
fn short_pane_80x12_needs_the_full_view() {
    let mut pane = Pane::new(80, 12);
    insta::assert_snapshot!("card_80x12", pane.draw());
    assert!(!pane.read(), "choices 1 and 3 are folded to their titles");
    // Enter opens the full view instead of running.
    assert!(!confirms(&pane.press(KeyCode::Enter)));
    insta::assert_snapshot!("card_80x12_full_top", pane.draw());
    assert!(
        !confirms(&pane.press(KeyCode::Enter)),
        "Enter never scrolls"
    );
    pane.read_to_the_end();
    insta::assert_snapshot!("card_80x12_full_read", pane.draw());
    // Back on the card, the buttons are live; choice 2 runs.
    pane.press(KeyCode::Char('v'));
    insta::assert_snapshot!("card_80x12_read", pane.draw());
    assert_eq!(
        pane.press(KeyCode::Enter),
        [Effect::ConfirmProposal {
            id: ProposalId::from_bytes([7; 16]),
            choice: 2,
            mode: ConfirmMode::Run
        }]
    );
}

#[test]
fn tall_pane_shows_everything_and_runs() {
    let mut pane = Pane::new(80, 40);
    insta::assert_snapshot!("card_80x40", pane.draw());
    assert!(pane.read());
    assert!(confirms(&pane.press(KeyCode::Enter)));
}

#[test]
fn seven_row_pane_compact() {
    let mut pane = Pane::new(80, 7);
    insta::assert_snapshot!("card_80x7", pane.draw());
    assert!(!confirms(&pane.press(KeyCode::Enter)));
    insta::assert_snapshot!("card_80x7_full_top", pane.draw());
    pane.read_to_the_end();
    insta::assert_snapshot!("card_80x7_full_read", pane.draw());
    assert!(confirms(&pane.press(KeyCode::Enter)));
}

#[test]
fn three_row_pane_has_no_room_for_the_card() {
    let mut pane = Pane::new(60, 3);
    insta::assert_snapshot!("card_60x3", pane.draw());
    assert!(!confirms(&pane.press(KeyCode::Enter)));
    insta::assert_snapshot!("card_60x3_full_top", pane.draw());
    pane.read_to_the_end();
    insta::assert_snapshot!("card_60x3_full_read", pane.draw());
    assert!(confirms(&pane.press(KeyCode::Enter)));
}

#[test]
fn twenty_column_pane() {
    let mut pane = Pane::new(20, 24);
    insta::assert_snapshot!("card_20x24", pane.draw());
    pane.press(KeyCode::Char('v'));
    insta::assert_snapshot!("card_20x24_full_top", pane.draw());
    pane.read_to_the_end();
    insta::assert_snapshot!("card_20x24_full_read", pane.draw());
    assert!(confirms(&pane.press(KeyCode::Enter)));
}

#[test]
fn a_narrower_pane_asks_to_read_again_and_esc_always_cancels() {
    let mut pane = Pane::new(80, 40);
    assert!(pane.read());
    pane.resize(80, 12);
    assert!(pane.read(), "the same width: rows seen stay seen");
    pane.resize(50, 12);
    assert!(!pane.read(), "another width re-wraps the text");
    insta::assert_snapshot!("card_50x12_after_resize", pane.draw());
    assert_eq!(
        pane.press(KeyCode::Esc),
        [Effect::CancelProposal {
            id: ProposalId::from_bytes([7; 16])
        }]
    );
    assert!(pane.state.proposals.is_empty());
}
