//! Paste chips and the keyboard select mode through the reducer and the
//! view, at 40 and 80 columns: a prompt holding chips (and what Enter
//! sends), the select mode with a character and a line selection (and what
//! `y` copies), a search with its matches highlighted, the view scrolled to
//! the match, and "no match". Each snapshot marks styled cells under their
//! row: `^` selected, `#` the mode's cursor, `*` a match, `!` the match at
//! the cursor.

use std::time::Instant;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Cell;
use ratatui::style::{Color, Modifier};
use wta_state::*;
use wta_tui::View;

const WIDTHS: [u16; 2] = [40, 80];

struct Pane {
    state: AppState,
    view: View,
    terminal: Terminal<TestBackend>,
    now: Instant,
}

impl Pane {
    fn new(width: u16, height: u16) -> Self {
        let mut pane = Pane {
            state: AppState::new("demo"),
            view: View::new(),
            terminal: Terminal::new(TestBackend::new(width, height)).unwrap(),
            now: Instant::now(),
        };
        pane.send(Event::Domain(DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: None,
        }));
        pane
    }

    /// A finished turn: `prompt` sent, `reply` streamed back.
    fn turn(&mut self, prompt: &str, reply: &str) {
        self.state.input.set_text(prompt);
        self.send(Event::Key(Key::plain(KeyCode::Enter)));
        self.send(Event::Domain(DomainEvent::AgentMessageChunk(reply.into())));
        self.send(Event::Domain(DomainEvent::TurnEnded(StopReason::EndTurn)));
    }

    /// One event, then a frame, as the driver does.
    fn send(&mut self, event: Event) -> Vec<Effect> {
        let effects = update(&mut self.state, event, self.now);
        let (view, state) = (&mut self.view, &self.state);
        self.terminal.draw(|f| view.render(state, f)).unwrap();
        effects
    }

    fn keys(&mut self, keys: &[Key]) -> Vec<Effect> {
        keys.iter()
            .flat_map(|k| self.send(Event::Key(*k)))
            .collect()
    }

    fn typed(&mut self, text: &str) -> Vec<Effect> {
        text.chars()
            .flat_map(|c| self.send(Event::Key(Key::ch(c))))
            .collect()
    }

    /// The screen, each row with styled cells followed by a row marking them.
    fn marked(&self) -> String {
        let buffer = self.terminal.backend().buffer();
        let mark = |c: &Cell| match c.bg {
            Color::Cyan => '#',
            Color::Yellow => '*',
            Color::LightRed => '!',
            _ if c.modifier.contains(Modifier::REVERSED) => '^',
            _ => ' ',
        };
        let mut out = String::new();
        for y in 0..buffer.area.height {
            let cells: Vec<&Cell> = (0..buffer.area.width).map(|x| &buffer[(x, y)]).collect();
            let row: String = cells.iter().map(|c| c.symbol()).collect();
            out.push_str(&format!("  {}\n", row.trim_end()));
            let marks: String = cells.iter().map(|c| mark(c)).collect();
            if !marks.trim().is_empty() {
                out.push_str(&format!("~ {}\n", marks.trim_end()));
            }
        }
        out
    }

    fn row_of(&self, needle: &str) -> Option<u16> {
        let buffer = self.terminal.backend().buffer();
        (0..buffer.area.height).find(|&y| {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect();
            row.contains(needle)
        })
    }
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("pasted line {i}\n")).collect()
}

const REPLY: &str = "Here is the plan:\n\n1. Build with cargo\n2. Run the suite\n\nThen ship it: cargo build, cargo test.";

#[test]
fn a_prompt_with_chips_shows_each_whole_and_enter_sends_every_line() {
    for width in WIDTHS {
        let mut pane = Pane::new(width, 12);
        pane.typed("review ");
        pane.send(Event::Paste(numbered(40).replace('\n', "\r")));
        pane.typed(" and ");
        pane.send(Event::Paste("x".repeat(600)));
        pane.typed(" please");
        insta::assert_snapshot!(format!("chip_prompt_{width}"), pane.marked());
        assert!(
            !pane.marked().contains("pasted line"),
            "no pasted line shows"
        );
        let sent = pane.send(Event::Key(Key::plain(KeyCode::Enter)));
        let want = format!("review {} and {} please", numbered(40), "x".repeat(600));
        assert_eq!(sent, [Effect::SendPrompt(want)]);
    }
}

#[test]
fn backspace_after_a_chip_removes_it_and_ctrl_o_expands_it() {
    let mut pane = Pane::new(80, 12);
    pane.typed("a ");
    pane.send(Event::Paste(numbered(5)));
    assert!(pane.row_of("[Pasted 5 lines]").is_some());
    pane.keys(&[Key::plain(KeyCode::Backspace)]);
    assert_eq!(pane.state.input.text(), "a ");
    assert!(pane.row_of("[Pasted 5 lines]").is_none());
    pane.send(Event::Paste(numbered(5)));
    pane.keys(&[Key::ctrl('o')]);
    assert!(pane.row_of("[Pasted").is_none());
    assert!(
        pane.row_of("pasted line 5").is_some(),
        "the text is in the editor"
    );
    assert_eq!(pane.state.input.text(), format!("a {}", numbered(5)));
}

#[test]
fn select_mode_with_a_selection_and_what_y_copies() {
    for width in WIDTHS {
        let mut pane = Pane::new(width, 14);
        pane.turn("show me the plan", REPLY);
        pane.keys(&[SELECT_KEY]);
        assert!(
            pane.row_of("SELECT").is_some(),
            "the prompt box names the mode"
        );
        // From the reply's first word, two lines down (its column kept).
        pane.keys(&[Key::ch('g'), Key::ch('j'), Key::ch('j'), Key::ch('w')]);
        pane.keys(&[Key::ch('v'), Key::ch('j'), Key::ch('j')]);
        insta::assert_snapshot!(format!("select_chars_{width}"), pane.marked());
        let copied = pane.keys(&[Key::ch('y')]);
        assert_eq!(
            copied,
            [Effect::CopyToClipboard("Here is the plan:\n\n  1".into())]
        );
        assert!(pane.row_of("SELECT").is_none(), "y leaves the mode");

        // Back on the last line; its line and the blank one above.
        pane.keys(&[SELECT_KEY, Key::ch('V'), Key::ch('k')]);
        insta::assert_snapshot!(format!("select_lines_{width}"), pane.marked());
        assert_eq!(
            pane.keys(&[Key::ch('y')]),
            [Effect::CopyToClipboard(
                "\n  Then ship it: cargo build, cargo test.".into()
            )]
        );
    }
}

#[test]
fn search_highlights_every_match_and_n_moves_to_the_next() {
    for width in WIDTHS {
        let mut pane = Pane::new(width, 14);
        pane.turn("show me the plan", REPLY);
        pane.keys(&[SELECT_KEY, Key::ch('g'), Key::ch('/')]);
        pane.typed("cargo");
        pane.keys(&[Key::plain(KeyCode::Enter)]);
        insta::assert_snapshot!(format!("search_first_{width}"), pane.marked());
        pane.keys(&[Key::ch('n')]);
        insta::assert_snapshot!(format!("search_next_{width}"), pane.marked());
        pane.keys(&[Key::ch('/')]);
        pane.typed("zebra");
        pane.keys(&[Key::plain(KeyCode::Enter)]);
        assert!(
            pane.row_of("No match for “zebra”").is_some(),
            "{}",
            pane.marked()
        );
    }
}

#[test]
fn search_scrolls_the_view_to_a_match_out_of_sight() {
    let mut pane = Pane::new(40, 12);
    let reply: String = (1..=40).map(|i| format!("row {i}\n\n")).collect();
    pane.turn("long", &reply);
    pane.keys(&[SELECT_KEY, Key::ch('/')]);
    pane.typed("row 3");
    pane.keys(&[Key::plain(KeyCode::Enter)]);
    let row = pane.row_of("row 3").expect("the match is in view");
    let hit = &pane.state.copy_mode.as_ref().unwrap().search.hit;
    assert_eq!(*hit, Some((1, 11)), "row 3 and rows 30..39");
    let buffer = pane.terminal.backend().buffer();
    assert_eq!(buffer[(2, row)].bg, Color::Cyan, "the cursor on its start");
    assert_eq!(buffer[(3, row)].bg, Color::LightRed, "{}", pane.marked());
    pane.keys(&[Key::plain(KeyCode::Esc)]);
    assert_eq!(pane.state.scroll, Scroll::Follow, "Esc gives the view back");
    assert!(pane.row_of("row 40").is_some());
}
