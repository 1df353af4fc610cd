//! The pane watcher's facts through the machine: the app hears those of
//! the target pane and of the panes cards type into, a card arriving after
//! its pane went busy says so at once, a busy pane's card confirms nothing
//! until the pane is idle again, and the record stays bounded.

use wta_protocol::{PaneId, ProposalId};
use wta_state::proposal_card::CardSight;
use wta_state::{Busy, CARD_GRACE, Key, KeyCode, PaneFacts};

use super::*;

const ID: ProposalId = ProposalId::from_bytes([4; 16]);

fn ms(t: Instant, ms: u64) -> Instant {
    t + Duration::from_millis(ms)
}

fn pane(n: u32) -> PaneId {
    PaneId::from_number(n)
}

fn busy(command: &str) -> PaneFacts {
    PaneFacts {
        busy: Some(Busy::Running {
            command: command.into(),
        }),
        ..PaneFacts::default()
    }
}

fn facts(n: u32, facts: PaneFacts) -> Input {
    Input::PaneFacts {
        pane: pane(n),
        facts,
    }
}

fn enter() -> Input {
    Input::App(Event::Key(Key::plain(KeyCode::Enter)))
}

fn confirms(commands: &[Command]) -> bool {
    commands
        .iter()
        .any(|c| matches!(c, Command::ConfirmCard { id, .. } if *id == ID))
}

/// A live session whose target pane is `%3`.
fn with_target() -> Machine {
    let mut config = config();
    config.target_pane = Some(pane(3));
    let mut m = Machine::new(config);
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, opened("s1", json!({})), t0());
    m
}

/// A one-choice `send` card on pane `%N` arrives at `t` and is read.
fn card_on(m: &mut Machine, n: u32, t: Instant) {
    let payload = json!({"schema_version": 1,
        "origin": "terminal_agent", "recommended_choice": 1, "choices": [{"choice": 1,
        "title": "Build", "actions": [{"type": "send", "input": "make"}]}]});
    let target = pane(n).to_string();
    step(
        m,
        card_input(
            ID,
            payload,
            &target,
            wta_protocol::Origin::TerminalAgent,
            true,
        ),
        t,
    );
    let sight = CardSight {
        id: ID,
        width: 40,
        total: 1,
        first: 0,
        shown: 1,
        full_view: None,
    };
    step(m, Input::App(Event::CardShown(sight)), t);
}

#[test]
fn the_target_panes_facts_reach_the_app_and_a_foreign_panes_do_not() {
    let mut m = with_target();
    assert!(step(&mut m, facts(3, busy("sleep 15")), t0()).is_empty());
    assert_eq!(m.app.facts_of("%3"), &busy("sleep 15"));
    step(&mut m, facts(9, busy("top")), t0());
    assert!(
        !m.app.pane_facts.contains_key("%9"),
        "no card types into %9"
    );
    assert_eq!(m.pane.pane_facts.get(&pane(9)), Some(&busy("top")));
}

#[test]
fn a_busy_target_panes_card_confirms_only_once_it_is_idle() {
    let t = Instant::now();
    let mut m = with_target();
    step(&mut m, facts(3, busy("sleep 15")), t);
    card_on(&mut m, 3, t);
    assert!(!confirms(&step(&mut m, enter(), ms(t, 1_000))));
    assert_eq!(m.app.proposals.len(), 1, "the card waits for the pane");
    step(&mut m, facts(3, PaneFacts::default()), ms(t, 2_000));
    // What the card says changed: the grace period starts over.
    assert!(!confirms(&step(&mut m, enter(), ms(t, 2_100))));
    assert!(confirms(&step(&mut m, enter(), ms(t, 2_000) + CARD_GRACE)));
}

#[test]
fn a_card_for_another_pane_gets_that_panes_last_facts() {
    let t = Instant::now();
    let mut m = with_target();
    // %5 went busy before any card typed into it: the machine keeps it.
    step(&mut m, facts(5, busy("cargo build")), t);
    assert!(!m.app.pane_facts.contains_key("%5"));
    card_on(&mut m, 5, t);
    assert_eq!(m.app.facts_of("%5"), &busy("cargo build"));
    assert!(!confirms(&step(&mut m, enter(), ms(t, 1_000))));
    // While its card is up, %5's news reaches the app.
    step(&mut m, facts(5, PaneFacts::default()), ms(t, 2_000));
    assert_eq!(m.app.facts_of("%5"), &PaneFacts::default());
    assert!(confirms(&step(&mut m, enter(), ms(t, 3_000))));
}

#[test]
fn a_card_for_a_pane_never_told_of_says_nothing() {
    let t = Instant::now();
    let mut m = with_target();
    card_on(&mut m, 7, t);
    assert!(!m.app.pane_facts.contains_key("%7"));
    assert!(confirms(&step(&mut m, enter(), ms(t, 1_000))));
}

#[test]
fn the_record_is_bounded_and_keeps_the_target_pane() {
    let mut m = with_target();
    step(&mut m, facts(3, busy("sleep 15")), t0());
    for n in 100..200 {
        step(&mut m, facts(n, busy("top")), t0());
    }
    assert_eq!(
        m.pane.pane_facts.len(),
        crate::machine::pane_facts::MAX_PANES
    );
    assert_eq!(m.pane.pane_facts.get(&pane(3)), Some(&busy("sleep 15")));
    assert!(
        m.pane.pane_facts.contains_key(&pane(199)),
        "the newest kept"
    );
    assert_eq!(m.app.facts_of("%3"), &busy("sleep 15"));
}
