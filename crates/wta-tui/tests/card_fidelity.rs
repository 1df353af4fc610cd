//! The card's promise as a property: for any accepted payload, at any pane
//! size, whatever keys the user presses (resizes included), a confirm
//! (Run, Insert or Open) is emitted only after every character of every
//! action's `input`, `cwd` and tab `title` of every choice has been on
//! screen in some frame. The harness is the driver's loop: draw, feed back
//! what the view reports, apply one input, draw again. Inputs come 50 ms
//! apart, or after a pause as long as the card's grace period (a reader
//! waiting for the card to take keys).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use unicode_width::UnicodeWidthStr;
use wta_protocol::{
    Action, Choice, Direction, OpenTarget, Origin, ProposalId, ProposalPayload, parse_payload,
};
use wta_state::*;
use wta_tui::View;

// ---- payloads ----

fn line(max: usize) -> impl Strategy<Value = String> {
    let c = prop_oneof![
        12 => (0x21u8..=0x7e).prop_map(char::from),
        3 => Just(' '),
        1 => Just('世'),
        1 => Just('🦀'),
        1 => Just('é'),
        1 => Just('ß'),
    ];
    // Starts visible: blank inputs and titles are refused by the schema.
    (
        (0x21u8..=0x7e).prop_map(char::from),
        proptest::collection::vec(c, 0..max),
    )
        .prop_map(|(first, rest)| std::iter::once(first).chain(rest).collect())
}

/// Short commands, long lines and many lines.
fn input() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => line(30),
        1 => line(300),
        1 => proptest::collection::vec(line(60), 1..12).prop_map(|l| l.join("\n")),
    ]
}

fn target() -> impl Strategy<Value = OpenTarget> {
    prop_oneof![Just(OpenTarget::Tab), Just(OpenTarget::Panel)]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        3 => input().prop_map(|input| Action::Send { input }),
        1 => (
            target(),
            proptest::option::of(line(80)),
            proptest::option::of(line(40)),
            proptest::option::of(prop_oneof![Just(Direction::Right), Just(Direction::Down)]),
        )
            .prop_map(|(target, cwd, title, direction)| Action::Open {
                target,
                cwd,
                title,
                direction,
            }),
        1 => (target(), input(), any::<bool>(), proptest::option::of(line(80))).prop_map(
            |(target, input, delegate, cwd)| Action::OpenAndSend {
                target,
                input,
                delegate,
                cwd,
            }
        ),
    ]
}

fn choice() -> impl Strategy<Value = (String, String, Vec<Action>)> {
    (
        line(60),
        prop_oneof![Just(String::new()), line(120)],
        proptest::collection::vec(action(), 1..=3),
    )
}

/// Payloads the schema accepts: 1–3 choices with their own numbers (not
/// necessarily 1..n), any of them recommended.
fn payload() -> impl Strategy<Value = ProposalPayload> {
    (
        proptest::collection::vec(choice(), 1..=3),
        Just(vec![1u64, 2, 3]).prop_shuffle(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(choices, numbers, rec)| {
            let choices: Vec<Choice> = choices
                .into_iter()
                .zip(numbers)
                .map(|((title, rationale, actions), choice)| Choice {
                    choice,
                    title,
                    rationale,
                    actions,
                })
                .collect();
            let recommended_choice = choices[rec.index(choices.len())].choice;
            ProposalPayload {
                schema_version: 1,
                origin: Origin::TerminalAgent,
                recommended_choice,
                choices,
            }
        })
        .prop_filter("accepted by the schema", |p| {
            p.to_json()
                .is_ok_and(|json| parse_payload(json.as_bytes()).is_ok())
        })
}

// ---- what the user does ----

#[derive(Debug, Clone)]
enum Op {
    Key(Key),
    Resize(u16, u16),
    /// The user reads for a while: the grace period passes (with the
    /// driver's ticks).
    Pause,
}

fn op() -> impl Strategy<Value = Op> {
    let key = prop_oneof![
        4 => Just(KeyCode::Enter),
        1 => Just(KeyCode::Esc),
        2 => Just(KeyCode::Up),
        2 => Just(KeyCode::Down),
        1 => Just(KeyCode::PageUp),
        4 => Just(KeyCode::PageDown),
        1 => Just(KeyCode::Home),
        1 => Just(KeyCode::End),
        3 => Just(KeyCode::Char('v')),
        1 => Just(KeyCode::Tab),
        1 => Just(KeyCode::Right),
        1 => Just(KeyCode::Char('1')),
        1 => Just(KeyCode::Char('2')),
        1 => Just(KeyCode::Char('3')),
        1 => Just(KeyCode::Char('x')),
        1 => Just(KeyCode::Backspace),
    ]
    .prop_map(|code| Op::Key(Key::plain(code)));
    prop_oneof![
        12 => key,
        1 => (20u16..120, 3u16..40).prop_map(|(c, r)| Op::Resize(c, r)),
        4 => Just(Op::Pause),
    ]
}

// ---- the harness ----

struct Pane {
    state: AppState,
    view: View,
    terminal: Terminal<TestBackend>,
    now: Instant,
    /// Every row of every frame drawn so far, whitespace removed, once each.
    seen_rows: HashMap<Vec<char>, ()>,
}

impl Pane {
    fn new(payload: ProposalPayload, armed: bool, cols: u16, rows: u16) -> Self {
        let t0 = Instant::now();
        let mut state = AppState::new("demo");
        for event in [
            DomainEvent::SessionStarted {
                agent: "demo".into(),
                model: None,
            },
            DomainEvent::TargetPane {
                pane: "%3".into(),
                cwd: Some("/home/ada".into()),
            },
            DomainEvent::ProposalAccepted(Box::new(AcceptedProposal {
                id: ProposalId::from_bytes([7; 16]),
                origin: payload.origin,
                payload,
                target_pane: "%3".into(),
                target_cwd: Some("/home/ada".into()),
                armed,
                delegate_agent: Some("claude".into()),
            })),
        ] {
            update(&mut state, Event::Domain(event), t0);
        }
        let mut pane = Pane {
            state,
            view: View::new(),
            terminal: Terminal::new(TestBackend::new(cols, rows)).unwrap(),
            // Past the card's grace period.
            now: t0 + Duration::from_secs(1),
            seen_rows: HashMap::new(),
        };
        pane.draw();
        pane
    }

    /// What the driver does after any input: draw, and feed back what the
    /// view reports until it reports nothing new.
    fn draw(&mut self) {
        for _ in 0..4 {
            let (state, view) = (&self.state, &mut self.view);
            // The frame as drawn (the test backend itself keeps stale
            // symbols in cells a wide character covered in an earlier frame).
            let frame = self.terminal.draw(|f| view.render(state, f)).unwrap();
            let buffer = frame.buffer;
            for y in 0..buffer.area.height {
                // What a terminal shows: a wide character covers the cell
                // after it.
                let mut row = Vec::new();
                let mut x = 0;
                while x < buffer.area.width {
                    let symbol = buffer[(x, y)].symbol();
                    row.extend(symbol.chars().filter(|c| !c.is_whitespace()));
                    x += symbol.width().max(1) as u16;
                }
                // The card's side borders are not text.
                if row.last() == Some(&'│') {
                    row.pop();
                }
                if row.first() == Some(&'│') {
                    row.remove(0);
                }
                self.seen_rows.insert(row, ());
            }
            if !self.feed() {
                return;
            }
        }
        panic!("the view kept reporting news after four draws");
    }

    /// The driver's feedback step; true when it changed the state.
    fn feed(&mut self) -> bool {
        match self.view.card_feedback(&self.state) {
            Some(event) => {
                let effects = update(&mut self.state, event, self.now);
                assert!(effects.is_empty(), "feedback has no effects: {effects:?}");
                true
            }
            None => false,
        }
    }

    /// Applies one input; returns the confirm it emitted, if any.
    fn apply(&mut self, op: &Op) -> bool {
        let effects = match *op {
            Op::Key(key) => update(&mut self.state, Event::Key(key), self.now),
            Op::Resize(cols, rows) => {
                self.terminal.backend_mut().resize(cols, rows);
                update(&mut self.state, Event::Resize { cols, rows }, self.now)
            }
            Op::Pause => {
                self.now += CARD_GRACE;
                update(&mut self.state, Event::Tick, self.now)
            }
        };
        self.now += Duration::from_millis(50);
        let confirmed = effects
            .iter()
            .any(|e| matches!(e, Effect::ConfirmProposal { .. }));
        if !confirmed {
            self.draw();
        }
        confirmed
    }

    /// Whether `text` (whitespace removed) can be read off the frames so
    /// far: it splits into pieces that each occur in a drawn row, and each
    /// piece but the last ends where its row ends (a wrapped line goes on
    /// in the next row).
    fn shown(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut at: HashMap<char, Vec<(&[char], usize)>> = HashMap::new();
        for row in self.seen_rows.keys() {
            for (j, c) in row.iter().enumerate() {
                at.entry(*c).or_default().push((row.as_slice(), j));
            }
        }
        let mut p = 0;
        while p < text.len() {
            let mut best = 0;
            for (row, j) in at.get(&text[p]).map_or(&[][..], Vec::as_slice) {
                let k = row[*j..]
                    .iter()
                    .zip(&text[p..])
                    .take_while(|(a, b)| a == b)
                    .count();
                if p + k == text.len() || j + k == row.len() {
                    best = best.max(k);
                }
            }
            if best == 0 {
                return false;
            }
            p += best;
        }
        true
    }
}

/// Every string the confirmed actions hand to the terminal or to tmux.
fn typed_fields(payload: &ProposalPayload) -> Vec<&str> {
    let mut fields = Vec::new();
    for action in payload.choices.iter().flat_map(|c| &c.actions) {
        match action {
            Action::Send { input } => fields.push(input.as_str()),
            Action::Open { cwd, title, .. } => {
                fields.extend(cwd.iter().chain(title).map(|s| s.as_str()))
            }
            Action::OpenAndSend { input, cwd, .. } => {
                fields.push(input.as_str());
                fields.extend(cwd.as_deref());
            }
        }
    }
    fields
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn nothing_is_confirmed_before_every_action_was_on_screen(
        payload in payload(),
        armed in any::<bool>(),
        cols in 20u16..120,
        rows in 3u16..40,
        ops in proptest::collection::vec(op(), 0..40),
    ) {
        let mut pane = Pane::new(payload.clone(), armed, cols, rows);
        for op in &ops {
            if pane.apply(op) {
                for field in typed_fields(&payload) {
                    prop_assert!(
                        pane.shown(field),
                        "confirmed at {}x{} after {:?} but never showed {:?}",
                        cols, rows, ops, field
                    );
                }
                break;
            }
        }
    }

    /// The gate never locks a reader out: opening the full view and paging
    /// down reads every row at any size, and Enter then confirms.
    #[test]
    fn a_reader_can_always_confirm(
        payload in payload(),
        cols in 20u16..120,
        rows in 3u16..40,
    ) {
        let mut pane = Pane::new(payload.clone(), true, cols, rows);
        let card = pane.state.proposals.front().unwrap();
        if !card.read_in_full() {
            prop_assert!(!pane.apply(&Op::Key(Key::ch('v'))));
            let top = |pane: &Pane| pane.state.proposals.front().unwrap().full_view.map(|f| f.top);
            loop {
                if pane.state.proposals.front().unwrap().read_in_full() {
                    break;
                }
                let before = top(&pane);
                // A reader waits for the view to take keys.
                prop_assert!(!pane.apply(&Op::Pause));
                prop_assert!(!pane.apply(&Op::Key(Key::plain(KeyCode::PageDown))));
                if top(&pane) == before {
                    break; // at the end
                }
            }
        }
        prop_assert!(pane.state.proposals.front().unwrap().read_in_full(), "still unread at {}x{}", cols, rows);
        prop_assert!(!pane.apply(&Op::Pause));
        prop_assert!(pane.state.card_armed(pane.now), "not armed at {}x{}", cols, rows);
        prop_assert!(pane.apply(&Op::Key(Key::plain(KeyCode::Enter))), "Enter did not confirm at {}x{}", cols, rows);
        for field in typed_fields(&payload) {
            prop_assert!(pane.shown(field), "{:?} at {}x{}", field, cols, rows);
        }
    }
}
