//! wta-tui: ratatui views of the helper's `AppState`. Pure: views read
//! state and draw into a frame; the only mutable thing is the view's own
//! cache of transcript entry heights and of the wrapped lines in view.
//!
//! Integration: keep one [`View`] per pane, call `view.render(&state, frame)`
//! inside `terminal.draw`, and turn crossterm input into app events with
//! [`keymap::from_crossterm`].
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod card;
mod card_keys;
mod copy_line;
mod copy_view;
mod debug;
mod fit;
mod input;
pub mod items;
pub mod keymap;
mod layout;
pub mod markdown;
mod master_lost;
mod panel;
mod popup;
mod proposal_card;
mod question;
mod running;
mod selection;
mod setup;
mod sink;
mod ssh_status;
mod status;
mod table;
pub mod theme;
mod transcript;
pub mod wrap;

pub use layout::View;
