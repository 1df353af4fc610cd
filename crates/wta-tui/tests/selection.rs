//! Mouse selection end to end through the reducer and the view: drag over
//! the drawn transcript, see it reversed, Ctrl+C copies exactly the rendered
//! text; scrolling moves the highlight with the text.

use std::time::Instant;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;
use wta_state::*;
use wta_tui::View;

struct Pane {
    state: AppState,
    view: View,
    terminal: Terminal<TestBackend>,
    now: Instant,
}

impl Pane {
    fn new(width: u16, height: u16, reply: &str) -> Self {
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
        pane.state.input.set_text("show me the plan");
        pane.send(Event::Key(Key::plain(KeyCode::Enter)));
        pane.send(Event::Domain(DomainEvent::AgentMessageChunk(reply.into())));
        pane.send(Event::Domain(DomainEvent::TurnEnded(StopReason::EndTurn)));
        pane.draw();
        pane
    }

    /// One event, then a frame, as the driver does.
    fn send(&mut self, event: Event) -> Vec<Effect> {
        let effects = update(&mut self.state, event, self.now);
        self.draw();
        effects
    }

    fn draw(&mut self) {
        let (view, state) = (&mut self.view, &self.state);
        self.terminal.draw(|f| view.render(state, f)).unwrap();
    }

    fn drag(&mut self, from: (u16, u16), to: (u16, u16)) {
        let (col, row) = from;
        self.send(Event::Mouse(Mouse::Down { col, row }));
        let (col, row) = to;
        self.send(Event::Mouse(Mouse::Drag { col, row }));
        self.send(Event::Mouse(Mouse::Up { col, row }));
    }

    /// The reversed cells of the screen, as text per row.
    fn reversed(&self) -> Vec<String> {
        let buffer = self.terminal.backend().buffer();
        (0..buffer.area.height)
            .map(|y| {
                (0..buffer.area.width)
                    .map(|x| &buffer[(x, y)])
                    .filter(|cell| cell.modifier.contains(Modifier::REVERSED))
                    .map(|cell| cell.symbol().to_owned())
                    .collect::<String>()
            })
            .collect()
    }

    /// The screen, each row followed by a `~` row marking reversed cells.
    fn screen_with_highlight(&self) -> String {
        let buffer = self.terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..buffer.area.height {
            let cells: Vec<_> = (0..buffer.area.width).map(|x| &buffer[(x, y)]).collect();
            let row: String = cells.iter().map(|c| c.symbol()).collect();
            out.push_str(&format!("  {}\n", row.trim_end()));
            if cells
                .iter()
                .any(|c| c.modifier.contains(Modifier::REVERSED))
            {
                let mask: String = cells
                    .iter()
                    .map(|c| {
                        if c.modifier.contains(Modifier::REVERSED) {
                            '^'
                        } else {
                            ' '
                        }
                    })
                    .collect();
                out.push_str(&format!("~ {}\n", mask.trim_end()));
            }
        }
        out
    }
}

const REPLY: &str =
    "Here is the plan:\n\n1. Build with cargo\n2. Run the suite\n\nThen we ship it.";

#[test]
fn dragging_highlights_and_ctrl_c_copies_the_rendered_text() {
    let mut pane = Pane::new(80, 40, REPLY);
    // Row 0 is the prompt, row 2 the reply's first line ("• Here is…").
    // From "is" on row 2 to the "R" of "Run" on row 5.
    pane.drag((7, 2), (5, 5));
    insta::assert_snapshot!("selection_80x40", pane.screen_with_highlight());
    let effects = pane.send(Event::Key(Key::ctrl('c')));
    assert_eq!(
        effects,
        [Effect::CopyToClipboard(
            "is the plan:\n\n  1. Build with cargo\n  2. R".into()
        )]
    );
    assert!(
        pane.reversed().iter().all(String::is_empty),
        "copying clears the highlight"
    );
    let effects = pane.send(Event::Key(Key::ctrl('c')));
    assert!(effects.is_empty(), "no selection: the ladder arms quitting");
    assert!(pane.state.quit_armed());
}

#[test]
fn a_click_clears_the_highlight_and_copies_nothing() {
    let mut pane = Pane::new(80, 40, REPLY);
    pane.drag((0, 2), (8, 2));
    assert_eq!(pane.reversed()[2], "• Here is");
    pane.send(Event::Mouse(Mouse::Down { col: 4, row: 4 }));
    pane.send(Event::Mouse(Mouse::Up { col: 4, row: 4 }));
    assert!(pane.reversed().iter().all(String::is_empty));
    assert!(pane.send(Event::Key(Key::ctrl('c'))).is_empty());
}

#[test]
fn the_highlight_stays_on_its_text_while_scrolling() {
    let reply: String = (1..=30).map(|i| format!("line {i}\n\n")).collect();
    let mut pane = Pane::new(40, 12, &reply);
    let screen_row = |pane: &Pane, text: &str| {
        let buffer = pane.terminal.backend().buffer();
        (0..buffer.area.height).find(|&y| {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect();
            row.contains(text)
        })
    };
    let row = screen_row(&pane, "line 28").expect("line 28 on screen");
    pane.drag((2, row), (9, row));
    assert_eq!(pane.reversed()[row as usize], "line 28");

    pane.send(Event::Mouse(Mouse::WheelUp));
    let moved = screen_row(&pane, "line 28").expect("still on screen");
    assert_eq!(moved, row + 3, "the wheel scrolled three lines");
    assert_eq!(pane.reversed()[moved as usize], "line 28");
    assert_eq!(
        pane.reversed().iter().filter(|r| !r.is_empty()).count(),
        1,
        "nothing else is highlighted"
    );
    assert_eq!(
        pane.send(Event::Key(Key::ctrl('c'))),
        [Effect::CopyToClipboard("line 28".into())]
    );
}
