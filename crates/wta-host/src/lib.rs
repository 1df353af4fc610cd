//! The terminal-host seam.
//!
//! Everything above this crate talks to the terminal through [`TerminalHost`].
//! [`TmuxHost`] drives a real tmux server with one-shot commands; [`FakeHost`]
//! is an in-memory model for unit tests of code above. A Windows Terminal host
//! would be a third implementation of the same trait.

mod error;
mod fake;
mod host;
mod model;
mod process;
pub mod tmux;

pub use error::HostError;
pub use fake::FakeHost;
pub use host::TerminalHost;
pub use model::{
    Integration, NewTab, PaneCommand, PaneInfo, PaneSize, PaneState, PaneStatus, ServerInfo,
    SessionInfo, Split, SplitDirection, StashRecord, StashSide, WindowInfo,
};
pub use process::parent_pid;
pub use tmux::{ServerLocation, TmuxHost};
