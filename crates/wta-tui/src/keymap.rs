//! crossterm input → app events. Key releases and repeats of modifiers are
//! dropped; of the mouse the app uses the wheel (scrolling) and the left
//! button (transcript selection), with 0-based screen cells.

use ratatui::crossterm::event as ct;
use wta_state::{Event, Key, KeyCode, Mods, Mouse};

/// Converts one crossterm event; `None` for input the app does not use.
pub fn from_crossterm(event: ct::Event) -> Option<Event> {
    match event {
        ct::Event::Key(key) if key.kind != ct::KeyEventKind::Release => {
            key_from(key).map(Event::Key)
        }
        ct::Event::Paste(text) => Some(Event::Paste(text)),
        ct::Event::Mouse(m) => match m.kind {
            ct::MouseEventKind::ScrollUp => Some(Event::Mouse(Mouse::WheelUp)),
            ct::MouseEventKind::ScrollDown => Some(Event::Mouse(Mouse::WheelDown)),
            ct::MouseEventKind::Down(ct::MouseButton::Left) => Some(Event::Mouse(Mouse::Down {
                col: m.column,
                row: m.row,
            })),
            ct::MouseEventKind::Drag(ct::MouseButton::Left) => Some(Event::Mouse(Mouse::Drag {
                col: m.column,
                row: m.row,
            })),
            ct::MouseEventKind::Up(ct::MouseButton::Left) => Some(Event::Mouse(Mouse::Up {
                col: m.column,
                row: m.row,
            })),
            _ => None,
        },
        ct::Event::Resize(cols, rows) => Some(Event::Resize { cols, rows }),
        _ => None,
    }
}

fn key_from(key: ct::KeyEvent) -> Option<Key> {
    let mods = Mods {
        shift: key.modifiers.contains(ct::KeyModifiers::SHIFT),
        ctrl: key.modifiers.contains(ct::KeyModifiers::CONTROL),
        alt: key.modifiers.contains(ct::KeyModifiers::ALT),
    };
    let code = match key.code {
        // Shift is already in the character itself.
        ct::KeyCode::Char(c) => {
            let mods = Mods {
                shift: false,
                ..mods
            };
            let c = if mods.ctrl { c.to_ascii_lowercase() } else { c };
            return Some(Key::new(KeyCode::Char(c), mods));
        }
        ct::KeyCode::Enter => KeyCode::Enter,
        ct::KeyCode::Backspace => KeyCode::Backspace,
        ct::KeyCode::Delete => KeyCode::Delete,
        ct::KeyCode::Left => KeyCode::Left,
        ct::KeyCode::Right => KeyCode::Right,
        ct::KeyCode::Up => KeyCode::Up,
        ct::KeyCode::Down => KeyCode::Down,
        ct::KeyCode::Home => KeyCode::Home,
        ct::KeyCode::End => KeyCode::End,
        ct::KeyCode::PageUp => KeyCode::PageUp,
        ct::KeyCode::PageDown => KeyCode::PageDown,
        ct::KeyCode::Tab => KeyCode::Tab,
        ct::KeyCode::BackTab => KeyCode::BackTab,
        ct::KeyCode::Esc => KeyCode::Esc,
        ct::KeyCode::F(n) => KeyCode::F(n),
        _ => return None,
    };
    Some(Key::new(code, mods))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: ct::KeyCode, mods: ct::KeyModifiers) -> ct::Event {
        ct::Event::Key(ct::KeyEvent::new(code, mods))
    }

    #[test]
    fn maps_keys_modifiers_paste_and_wheel() {
        assert_eq!(
            from_crossterm(key(ct::KeyCode::Char('C'), ct::KeyModifiers::CONTROL)),
            Some(Event::Key(Key::ctrl('c')))
        );
        assert_eq!(
            from_crossterm(key(ct::KeyCode::Char('A'), ct::KeyModifiers::SHIFT)),
            Some(Event::Key(Key::ch('A')))
        );
        assert_eq!(
            from_crossterm(key(ct::KeyCode::Enter, ct::KeyModifiers::SHIFT)),
            Some(Event::Key(Key::new(KeyCode::Enter, Mods::SHIFT)))
        );
        assert_eq!(
            from_crossterm(ct::Event::Paste("x\ny".into())),
            Some(Event::Paste("x\ny".into()))
        );
        let release = ct::KeyEvent::new_with_kind(
            ct::KeyCode::Char('a'),
            ct::KeyModifiers::NONE,
            ct::KeyEventKind::Release,
        );
        assert_eq!(from_crossterm(ct::Event::Key(release)), None);
        let wheel = ct::MouseEvent {
            kind: ct::MouseEventKind::ScrollUp,
            column: 0,
            row: 0,
            modifiers: ct::KeyModifiers::NONE,
        };
        assert_eq!(
            from_crossterm(ct::Event::Mouse(wheel)),
            Some(Event::Mouse(Mouse::WheelUp))
        );
        let mouse = |kind| {
            from_crossterm(ct::Event::Mouse(ct::MouseEvent {
                kind,
                column: 7,
                row: 3,
                modifiers: ct::KeyModifiers::NONE,
            }))
        };
        let left = ct::MouseButton::Left;
        assert_eq!(
            mouse(ct::MouseEventKind::Down(left)),
            Some(Event::Mouse(Mouse::Down { col: 7, row: 3 }))
        );
        assert_eq!(
            mouse(ct::MouseEventKind::Drag(left)),
            Some(Event::Mouse(Mouse::Drag { col: 7, row: 3 }))
        );
        assert_eq!(
            mouse(ct::MouseEventKind::Up(left)),
            Some(Event::Mouse(Mouse::Up { col: 7, row: 3 }))
        );
        assert_eq!(
            mouse(ct::MouseEventKind::Down(ct::MouseButton::Right)),
            None,
            "only the left button selects"
        );
    }
}
