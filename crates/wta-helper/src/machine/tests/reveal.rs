//! A card in a pane that was hidden: the status probe saying the pane is
//! hidden or shown again, and input reaching a hidden pane, reach the app
//! as `PaneHidden`/`PaneShown`, so a card confirms only once it has been
//! on screen for the grace period since the pane was shown again. A probe
//! that never saw the pane on screen (no client attached to the tmux
//! server: scripts, tests) hides nothing.

use wta_protocol::ProposalId;
use wta_state::proposal_card::CardSight;
use wta_state::{CARD_GRACE, Key, KeyCode};

use super::*;

const ID: ProposalId = ProposalId::from_bytes([9; 16]);

fn ms(t: Instant, ms: u64) -> Instant {
    t + Duration::from_millis(ms)
}

fn probe(visible: bool) -> Input {
    Input::Status(Probe {
        cwd: Some("/src".into()),
        visible,
        owner_gone: false,
    })
}

fn enter() -> Input {
    Input::App(Event::Key(Key::plain(KeyCode::Enter)))
}

fn confirms(commands: &[Command]) -> bool {
    commands
        .iter()
        .any(|c| matches!(c, Command::ConfirmCard { id, .. } if *id == ID))
}

/// A live session with a one-choice card up since `t`, read in full;
/// `seen`: the status probe has seen the pane on screen.
fn with_card(t: Instant, seen: bool) -> Machine {
    let (mut m, _) = ready();
    if seen {
        step(&mut m, probe(true), t);
        assert!(m.pane.probe_saw_it && !m.app.pane_hidden);
    }
    let payload = json!({"schema_version": 1,
        "origin": "terminal_agent", "recommended_choice": 1, "choices": [{"choice": 1,
        "title": "List", "actions": [{"type": "send", "input": "ls"}]}]});
    step(
        &mut m,
        card_input(ID, payload, "%5", wta_protocol::Origin::TerminalAgent, true),
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
    step(&mut m, Input::App(Event::CardShown(sight)), t);
    assert!(m.app.card_armed(ms(t, 1_000)));
    m
}

#[test]
fn a_pane_shown_again_starts_its_cards_guard_over() {
    let t = Instant::now();
    let mut m = with_card(t, true);
    step(&mut m, probe(false), ms(t, 1_000));
    assert!(m.app.pane_hidden);
    assert!(!m.app.card_armed(ms(t, 4_000)), "hidden: never armed");

    step(&mut m, probe(true), ms(t, 5_000));
    assert!(!m.app.pane_hidden);
    assert_eq!(m.app.guard.visible_since(), Some(ms(t, 5_000)));
    assert!(!confirms(&step(&mut m, enter(), ms(t, 5_100))));
    let armed = ms(t, 5_000) + CARD_GRACE;
    assert!(confirms(&step(&mut m, enter(), armed)));
}

#[test]
fn input_reaching_a_hidden_pane_reveals_its_card_before_it_counts() {
    let t = Instant::now();
    let mut m = with_card(t, true);
    step(&mut m, probe(false), ms(t, 1_000));
    // tmux shows the pane before the slow probe notices: the first key
    // marks it seen, and the card it reveals ignores that key.
    assert!(!confirms(&step(&mut m, enter(), ms(t, 3_000))));
    assert!(m.pane.visible && !m.app.pane_hidden);
    assert_eq!(m.app.guard.visible_since(), Some(ms(t, 3_000)));
    assert!(m.app.guard.refused(), "the card says to read it first");
    assert!(confirms(&step(&mut m, enter(), ms(t, 3_000) + CARD_GRACE)));
}

#[test]
fn a_probe_with_no_news_leaves_the_guard_and_a_resize_starts_it_over() {
    let t = Instant::now();
    let mut m = with_card(t, true);
    // A probe that says nothing new tells the app nothing.
    step(&mut m, probe(true), ms(t, 1_000));
    assert_eq!(m.app.guard.visible_since(), Some(t));
    let resize = Input::App(Event::Resize { cols: 60, rows: 20 });
    step(&mut m, resize, ms(t, 2_000));
    assert_eq!(m.app.guard.visible_since(), Some(ms(t, 2_000)));
}

#[test]
fn a_probe_that_never_saw_the_pane_hides_nothing() {
    let t = Instant::now();
    let mut m = with_card(t, false);
    // No client attached: every probe says hidden, yet keys are the user's.
    step(&mut m, probe(false), ms(t, 500));
    assert!(!m.pane.visible && !m.app.pane_hidden);
    assert!(m.app.card_armed(ms(t, 1_000)));
    assert!(confirms(&step(&mut m, enter(), ms(t, 1_000))));
    assert!(m.pane.visible, "input makes it seen for the status line");
}
