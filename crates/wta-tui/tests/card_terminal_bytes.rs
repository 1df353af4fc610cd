//! What reaches the terminal when shown text carries control characters.
//! Payloads refuse them, but agent messages and the target pane's working
//! directory (a directory name can hold anything) are drawn as they come:
//! the bytes the real crossterm backend writes must not contain their
//! escape sequences, BEL or C1 controls.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use wta_protocol::{Action, Choice, Origin, ProposalId, ProposalPayload};
use wta_state::*;
use wta_tui::View;

/// Clears the screen, sets the clipboard (OSC 52), rings the bell, and
/// a C1 CSI (U+009B) that some terminals take for ESC [.
const HOSTILE: &str = "a\u{1b}[2J\u{1b}]52;c;aGk=\u{7}b\u{9b}31mc\r\u{8}d";

/// A writer the test can read after the backend wrote to it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn written(state: &AppState, cols: u16, rows: u16) -> Vec<u8> {
    let out = Shared::default();
    let mut terminal = Terminal::with_options(
        CrosstermBackend::new(out.clone()),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, cols, rows)),
        },
    )
    .unwrap();
    let mut view = View::new();
    terminal.draw(|f| view.render(state, f)).unwrap();
    out.0.borrow().clone()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn control_characters_in_shown_text_never_reach_the_terminal() {
    let t0 = Instant::now();
    let mut state = AppState::new("demo");
    for event in [
        DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: None,
        },
        DomainEvent::UserMessage("hi".into()),
        DomainEvent::AgentMessageChunk(format!("agent says {HOSTILE} done")),
        DomainEvent::ProposalAccepted(Box::new(AcceptedProposal {
            id: ProposalId::from_bytes([7; 16]),
            payload: ProposalPayload {
                schema_version: 1,
                origin: Origin::TerminalAgent,
                recommended_choice: 1,
                choices: vec![Choice {
                    choice: 1,
                    title: "List".into(),
                    rationale: String::new(),
                    actions: vec![Action::Send { input: "ls".into() }],
                }],
            },
            target_pane: "%3".into(),
            target_cwd: Some(format!("/tmp/{HOSTILE}")),
            origin: Origin::TerminalAgent,
            armed: true,
            delegate_agent: None,
        })),
    ] {
        update(&mut state, Event::Domain(event), t0);
    }
    update(&mut state, Event::Tick, t0 + Duration::from_secs(1));
    let out = written(&state, 100, 20);
    let text = String::from_utf8_lossy(&out);
    // Drawn, minus the controls (the backend moves over blanks, so look
    // for words).
    assert!(
        text.contains("a[2J]52;c;aGk=b31mc"),
        "the message is drawn: {text:?}"
    );
    assert!(text.contains("/tmp/a[2J]52"), "the card is drawn: {text:?}");
    for needle in [
        &b"\x1b[2J"[..],
        b"\x1b]52",
        b"\x07",
        "\u{9b}".as_bytes(),
        b"\r",
        b"\x08",
    ] {
        assert!(
            !contains(&out, needle),
            "{needle:?} reached the terminal: {text:?}"
        );
    }
}
