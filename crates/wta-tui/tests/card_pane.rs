//! The card and what the helper knows of the pane it types into, at 80 and
//! 40 columns: a busy pane (Run and Insert dark, the reason above them,
//! standing out after Enter; a choice that opens a panel still runs), the
//! same pane idle again, a full-screen program, text typed at the prompt
//! (kept by the hand-off, cleared when typed as keys), the compact card and
//! the full view. No fact at all draws the card as before. The harness
//! draws like the driver (draw, feed back what the view reports, until
//! nothing new) and lets the grace period pass after every input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;
use wta_protocol::{Action, Choice, OpenTarget, Origin, ProposalId, ProposalPayload};
use wta_state::*;
use wta_tui::View;

const ID: ProposalId = ProposalId::from_bytes([7; 16]);

/// Run the tests here (recommended), or watch them in a new panel.
fn proposal() -> AcceptedProposal {
    AcceptedProposal {
        id: ID,
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: 1,
            choices: vec![
                Choice {
                    choice: 1,
                    title: "Run the tests".into(),
                    rationale: "The build is green; the tests say what broke.".into(),
                    actions: vec![Action::Send {
                        input: "cargo test --workspace".into(),
                    }],
                },
                Choice {
                    choice: 2,
                    title: "Watch them in a panel".into(),
                    rationale: String::new(),
                    actions: vec![Action::OpenAndSend {
                        target: OpenTarget::Panel,
                        input: "cargo watch -x test".into(),
                        delegate: false,
                        cwd: None,
                    }],
                },
            ],
        },
        target_pane: "%3".into(),
        target_cwd: Some("/home/ada/src/wta".into()),
        origin: Origin::TerminalAgent,
        armed: true,
        delegate_agent: None,
    }
}

fn running(command: &str) -> PaneFacts {
    PaneFacts {
        busy: Some(Busy::Running {
            command: command.into(),
        }),
        ..PaneFacts::default()
    }
}

struct Pane {
    state: AppState,
    view: View,
    terminal: Terminal<TestBackend>,
    now: Instant,
}

impl Pane {
    /// The card up in a `cols`×`rows` pane, its pane's `facts` told (none
    /// for `None`), read and armed.
    fn new(cols: u16, rows: u16, facts: Option<PaneFacts>) -> Self {
        let t0 = Instant::now();
        let mut state = AppState::new("demo");
        let mut events = vec![
            DomainEvent::SessionStarted {
                agent: "demo".into(),
                model: Some("demo-1".into()),
            },
            DomainEvent::TargetPane {
                pane: "%3".into(),
                cwd: Some("/home/ada/src/wta".into()),
            },
            DomainEvent::UserMessage("test it".into()),
            DomainEvent::ProposalAccepted(Box::new(proposal())),
        ];
        events.extend(facts.map(|facts| DomainEvent::PaneFacts {
            pane: "%3".into(),
            facts,
        }));
        for event in events {
            update(&mut state, Event::Domain(event), t0);
        }
        let mut pane = Pane {
            state,
            view: View::new(),
            terminal: Terminal::new(TestBackend::new(cols, rows)).unwrap(),
            now: t0,
        };
        pane.draw();
        pane.pause();
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

    fn pause(&mut self) {
        self.now += CARD_GRACE + Duration::from_millis(1);
        update(&mut self.state, Event::Tick, self.now);
        self.draw();
    }

    fn press(&mut self, code: KeyCode) -> Vec<Effect> {
        let effects = update(&mut self.state, Event::Key(Key::plain(code)), self.now);
        self.draw();
        self.pause();
        effects
    }

    fn facts(&mut self, facts: PaneFacts) {
        let event = DomainEvent::PaneFacts {
            pane: "%3".into(),
            facts,
        };
        update(&mut self.state, Event::Domain(event), self.now);
        self.draw();
        self.pause();
    }

    /// The screen row holding `text`, and whether all of its cells that
    /// hold `text` are bold and reversed.
    fn stands_out(&self, text: &str) -> bool {
        let buffer = self.terminal.backend().buffer();
        let area = buffer.area;
        (0..area.height).any(|y| {
            let row: String = (0..area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect();
            row.contains(text)
                && (0..area.width).any(|x| {
                    let m = buffer[(x, y)].modifier;
                    m.contains(Modifier::BOLD) && m.contains(Modifier::REVERSED)
                })
        })
    }
}

fn confirmed(effects: &[Effect]) -> Option<(u64, ConfirmMode)> {
    effects.iter().find_map(|e| match e {
        Effect::ConfirmProposal { choice, mode, .. } => Some((*choice, *mode)),
        _ => None,
    })
}

#[test]
fn a_busy_pane_darkens_run_and_insert_and_says_why() {
    for cols in [80, 40] {
        let mut pane = Pane::new(cols, 16, Some(running("sleep 15")));
        insta::assert_snapshot!(format!("pane_busy_{cols}"), pane.draw());
        assert!(pane.state.proposals.front().unwrap().read_in_full());
        assert!(!pane.stands_out("sleep 15"));
        assert_eq!(confirmed(&pane.press(KeyCode::Enter)), None);
        assert!(
            pane.stands_out("sleep 15"),
            "Enter made the reason stand out"
        );
        // The other choice opens a panel: the busy pane does not hold it.
        pane.press(KeyCode::Down);
        assert!(!pane.draw().contains("sleep 15"));
        assert_eq!(
            confirmed(&pane.press(KeyCode::Enter)),
            Some((2, ConfirmMode::Run))
        );
    }
}

#[test]
fn the_pane_idle_again_draws_the_card_as_before_and_runs() {
    for cols in [80, 40] {
        let plain = Pane::new(cols, 16, None).draw();
        let mut pane = Pane::new(cols, 16, Some(running("sleep 15")));
        assert_eq!(confirmed(&pane.press(KeyCode::Enter)), None);
        pane.facts(PaneFacts::default());
        assert_eq!(pane.draw(), plain, "{cols}: nothing left of the reason");
        assert_eq!(
            confirmed(&pane.press(KeyCode::Enter)),
            Some((1, ConfirmMode::Run))
        );
    }
}

#[test]
fn no_fact_draws_the_card_as_before() {
    for (cols, rows) in [(80, 16), (40, 16), (40, 7), (80, 7)] {
        let plain = Pane::new(cols, rows, None).draw();
        let told = Pane::new(cols, rows, Some(PaneFacts::default())).draw();
        assert_eq!(plain, told, "{cols}x{rows}");
    }
}

#[test]
fn a_full_screen_program() {
    let facts = PaneFacts {
        busy: Some(Busy::FullScreen {
            command: "vim".into(),
        }),
        typed_text: false,
        keys: KeyPath::Handoff,
        untracked: None,
    };
    let mut pane = Pane::new(40, 16, Some(facts));
    insta::assert_snapshot!("pane_full_screen_40", pane.draw());
    assert_eq!(confirmed(&pane.press(KeyCode::Enter)), None);
}

#[test]
fn text_typed_at_the_prompt_is_kept() {
    let facts = PaneFacts {
        typed_text: true,
        ..PaneFacts::default()
    };
    for cols in [80, 40] {
        let mut pane = Pane::new(cols, 16, Some(facts.clone()));
        insta::assert_snapshot!(format!("pane_typed_kept_{cols}"), pane.draw());
        assert_eq!(
            confirmed(&pane.press(KeyCode::Enter)),
            Some((1, ConfirmMode::Run)),
            "a note disables nothing"
        );
    }
}

#[test]
fn typed_as_keys_over_typed_text() {
    let facts = PaneFacts {
        typed_text: true,
        keys: KeyPath::TypedKeys,
        busy: None,
        untracked: None,
    };
    for cols in [80, 40] {
        let mut pane = Pane::new(cols, 18, Some(facts.clone()));
        insta::assert_snapshot!(format!("pane_typed_keys_{cols}"), pane.draw());
    }
    let keys_only = PaneFacts {
        keys: KeyPath::TypedKeys,
        ..PaneFacts::default()
    };
    let mut pane = Pane::new(40, 16, Some(keys_only));
    insta::assert_snapshot!("pane_keys_only_40", pane.draw());
}

/// A shell without WTA's integration: the card says before Run that no
/// exit status will come back (instead of the keystrokes note it implies),
/// and Run still works.
#[test]
fn a_shell_without_integration_says_nothing_comes_back() {
    let facts = PaneFacts {
        keys: KeyPath::TypedKeys,
        untracked: Some(wta_state::Untracked {
            program: "bash".into(),
            rc_line: Some(r#"eval "$(wta shell-integration bash)"   # in ~/.bashrc"#.into()),
        }),
        ..PaneFacts::default()
    };
    for cols in [80, 40] {
        let mut pane = Pane::new(cols, 16, Some(facts.clone()));
        let screen = pane.draw();
        assert!(!screen.contains("keystrokes"), "{screen}");
        insta::assert_snapshot!(format!("pane_untracked_{cols}"), screen);
        assert_eq!(
            confirmed(&pane.press(KeyCode::Enter)),
            Some((1, ConfirmMode::Run)),
            "the note disables nothing"
        );
    }
}

#[test]
fn a_short_pane_keeps_the_reason() {
    // Seven rows: the compact card. Unread, it says so and why it waits;
    // read (in the full view), the reason takes the buttons' row and the
    // dark buttons follow.
    for cols in [80, 40] {
        let mut pane = Pane::new(cols, 7, Some(running("sleep 15")));
        insta::assert_snapshot!(format!("pane_busy_compact_{cols}"), pane.draw());
        pane.press(KeyCode::Char('v'));
        for _ in 0..20 {
            pane.press(KeyCode::PageDown);
        }
        pane.press(KeyCode::Char('v'));
        assert!(pane.state.proposals.front().unwrap().read_in_full());
        insta::assert_snapshot!(format!("pane_busy_compact_read_{cols}"), pane.draw());
        assert_eq!(confirmed(&pane.press(KeyCode::Enter)), None);
    }
    // Ten rows at 40 columns: the card is short; the reason's short form.
    let mut pane = Pane::new(40, 11, Some(running("sleep 15")));
    insta::assert_snapshot!("pane_busy_40x11", pane.draw());
}

#[test]
fn the_full_view_says_why_too() {
    let mut pane = Pane::new(40, 14, Some(running("sleep 15")));
    pane.press(KeyCode::Char('v'));
    assert!(pane.state.proposals.full_view_open());
    insta::assert_snapshot!("pane_busy_full_40x14", pane.draw());
    assert_eq!(confirmed(&pane.press(KeyCode::Enter)), None);
    assert!(pane.stands_out("sleep 15"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Whatever the watcher names as the busy command, the card draws
    /// within its pane, on the rows it has, without a control character.
    #[test]
    fn any_busy_command_draws_printable_and_within_the_pane(command in any::<String>(), full in any::<bool>()) {
        let busy = if full {
            Busy::FullScreen { command }
        } else {
            Busy::Running { command }
        };
        let facts = PaneFacts { busy: Some(busy), ..PaneFacts::default() };
        for cols in [40u16, 80] {
            let pane = Pane::new(cols, 16, Some(facts.clone()));
            let buffer = pane.terminal.backend().buffer();
            for cell in &buffer.content {
                prop_assert!(!cell.symbol().chars().any(char::is_control));
            }
            prop_assert!(pane.state.proposals.front().is_some());
        }
    }
}
