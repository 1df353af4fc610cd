//! Snapshot of the agent pane after a confirmed card ran: the execution
//! result shows under the card (exit code, duration, a short output tail),
//! built from the executor's real outcomes and the real reducer.

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use wta_helper::executor::{ActionOutcome, RunReport};
use wta_protocol::{Action, Choice, Origin, ProposalId, ProposalPayload};
use wta_state::*;
use wta_tui::View;

fn report(exit: Option<i32>, output: &str, ms: u64) -> RunReport {
    RunReport {
        pane: "%3".into(),
        exit,
        output: output.into(),
        truncated: false,
        duration_ms: Some(ms),
        cwd: Some("/home/ada/src/wta".into()),
        cmdline: None,
        cmdline_matches: true,
        interactive: false,
        end: None,
        note: None,
    }
}

fn render(state: &AppState, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let mut view = View::new();
    terminal.draw(|frame| view.render(state, frame)).unwrap();
    terminal.backend().to_string()
}

#[test]
fn result_under_the_confirmed_card() {
    let t0 = Instant::now();
    let mut state = AppState::new("demo");
    let feed = |state: &mut AppState, e: DomainEvent, ms: u64| {
        update(state, Event::Domain(e), t0 + Duration::from_millis(ms));
    };
    feed(
        &mut state,
        DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: Some("demo-1".into()),
        },
        0,
    );
    feed(
        &mut state,
        DomainEvent::UserMessage("list the missing dir, then build".into()),
        0,
    );
    let id = ProposalId::from_bytes([7; 16]);
    feed(
        &mut state,
        DomainEvent::ProposalAccepted(Box::new(AcceptedProposal {
            id,
            payload: ProposalPayload {
                schema_version: 1,
                origin: Origin::TerminalAgent,
                recommended_choice: 1,
                choices: vec![Choice {
                    choice: 1,
                    title: "Check the dir, then build".into(),
                    rationale: "See why the path is missing.".into(),
                    actions: vec![
                        Action::Send {
                            input: "ls /nope".into(),
                        },
                        Action::Send {
                            input: "cargo build".into(),
                        },
                    ],
                }],
            },
            target_pane: "%3".into(),
            target_cwd: Some("/home/ada/src/wta".into()),
            origin: Origin::TerminalAgent,
            armed: true,
            delegate_agent: None,
        })),
        0,
    );
    // The card is drawn whole (the driver feeds back what it showed), and
    // the user presses Run (Enter) after the grace period.
    let later = t0 + Duration::from_secs(2);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut view = View::new();
    terminal.draw(|frame| view.render(&state, frame)).unwrap();
    let shown = view
        .card_feedback(&state)
        .expect("the card reports what it showed");
    update(&mut state, shown, later);
    let effects = update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), later);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::ConfirmProposal { id: p, .. } if *p == id)),
        "{effects:?}"
    );
    let failed = ActionOutcome::Finished(report(
        Some(2),
        "ls: cannot access '/nope': No such file or directory",
        412,
    ));
    let built = ActionOutcome::Finished(report(
        Some(0),
        "   Compiling wta v0.1.0\n    Finished dev [unoptimized] target(s) in 3.1s\nwarning: 1 unused import\nbuild ok",
        3100,
    ));
    feed(&mut state, DomainEvent::Notice(failed.display(1)), 2500);
    feed(&mut state, DomainEvent::Notice(built.display(2)), 6000);
    update(&mut state, Event::Tick, t0 + Duration::from_secs(7));
    insta::assert_snapshot!("execution_result_80x24", render(&state, 80, 24));
}
