//! The pane fixture the snapshot tests share (`snapshots`, `lifecycle`): a
//! state with a started session and a target pane, driven through the real
//! reducer as the helper drives it, and drawn by a fresh `View` into
//! ratatui's TestBackend.

#![allow(dead_code)] // each test binary uses its own part of it

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use wta_state::*;
use wta_tui::View;

pub struct Fixture {
    pub state: AppState,
    t0: Instant,
    now: Instant,
}

impl Fixture {
    /// Session `s1` of agent `demo` (model `demo-1`), commands going to
    /// pane `%3` in `/home/ada/src/wta`.
    pub fn ready() -> Self {
        let t0 = Instant::now();
        let mut f = Fixture {
            state: AppState::new("demo"),
            t0,
            now: t0,
        };
        f.domain(DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: Some("demo-1".into()),
        });
        f.domain(DomainEvent::TargetPane {
            pane: "%3".into(),
            cwd: Some("/home/ada/src/wta".into()),
        });
        f
    }

    /// Agent `demo` still connecting (no session yet), commands going to
    /// pane `%3`.
    pub fn connecting() -> Self {
        let t0 = Instant::now();
        let mut f = Fixture {
            state: AppState::new("demo"),
            t0,
            now: t0,
        };
        f.domain(DomainEvent::TargetPane {
            pane: "%3".into(),
            cwd: Some("/home/ada/src/wta".into()),
        });
        f
    }

    /// Later events happen `ms` after the fixture was made.
    pub fn at(&mut self, ms: u64) -> &mut Self {
        self.now = self.t0 + Duration::from_millis(ms);
        self
    }

    pub fn send(&mut self, event: Event) -> Vec<Effect> {
        update(&mut self.state, event, self.now)
    }

    pub fn domain(&mut self, event: DomainEvent) -> Vec<Effect> {
        self.send(Event::Domain(event))
    }

    pub fn typed(&mut self, text: &str) {
        for c in text.chars() {
            self.send(Event::Key(Key::ch(c)));
        }
    }

    pub fn enter(&mut self) -> Vec<Effect> {
        self.send(Event::Key(Key::plain(KeyCode::Enter)))
    }

    /// Types `text` and presses Enter.
    pub fn prompt(&mut self, text: &str) -> Vec<Effect> {
        self.typed(text);
        self.enter()
    }

    /// A streamed piece of the agent's reply.
    pub fn chunk(&mut self, text: &str) -> Vec<Effect> {
        self.domain(DomainEvent::AgentMessageChunk(text.into()))
    }

    /// One finished turn: the prompt and the agent's answer.
    pub fn turn(&mut self, prompt: &str, answer: &str) {
        self.prompt(prompt);
        self.chunk(answer);
        self.domain(DomainEvent::TurnEnded(StopReason::EndTurn));
    }

    /// The screen a fresh view draws at `width`×`height`.
    pub fn render(&self, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let mut view = View::new();
        terminal
            .draw(|frame| view.render(&self.state, frame))
            .unwrap();
        terminal.backend().to_string()
    }
}
