//! The palette: ANSI colours and modifiers only, so the pane follows the
//! user's terminal colour scheme (dim for secondary text, cyan for hints and
//! the user, green success, yellow attention, red errors).

use ratatui::style::{Color, Modifier, Style};

pub fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}
pub fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}
pub fn accent() -> Style {
    Style::new().fg(Color::Cyan)
}
pub fn user_prefix() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}
pub fn ok() -> Style {
    Style::new().fg(Color::Green)
}
pub fn attention() -> Style {
    Style::new().fg(Color::Yellow)
}
pub fn error() -> Style {
    Style::new().fg(Color::Red)
}
pub fn thought() -> Style {
    Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC)
}
pub fn inline_code() -> Style {
    Style::new().fg(Color::Cyan)
}
pub fn link() -> Style {
    Style::new()
        .fg(Color::Blue)
        .add_modifier(Modifier::UNDERLINED)
}
pub fn selected() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}
pub fn popup_selected() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}
