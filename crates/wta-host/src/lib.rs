//! The terminal-host seam.
//!
//! Everything above this crate talks to the terminal through
//! [`TerminalHost`] (blocking) and [`AsyncHost`] (on tokio: pane watchers and
//! the card executor). [`TmuxHost`] drives a real tmux server and is WTA's
//! only tmux client: every string goes through its literal argument encoder,
//! so tmux never expands `#(…)`/`#{…}` or splits on `;` in what WTA hands it.
//! [`FakeHost`] is an in-memory model for unit tests of code above. A Windows
//! Terminal host would be a third implementation of the same traits.

mod async_host;
mod error;
mod fake;
mod fake_async;
mod fake_popup;
mod host;
mod model;
mod popup;
mod process;
mod quote;
pub mod tmux;

pub use async_host::{
    AsyncHost, HostFuture, Key, PaneProbe, PrivateKey, Typing, check_payload, check_typed_text,
};
pub use error::HostError;
pub use fake::FakeHost;
pub use host::TerminalHost;
pub use model::{
    Integration, NewTab, PaneCommand, PaneInfo, PaneSize, PaneState, PaneStatus, ServerInfo,
    SessionInfo, Split, SplitDirection, StashRecord, StashSide, WindowInfo,
};
pub use popup::{ClientName, MAX_POPUP_PERCENT, MIN_POPUP_PERCENT, Popup};
pub use process::parent_pid;
pub use quote::sh_quote;
pub use tmux::{
    HookWord, NewSession, Recency, RecentSession, ServerLocation, TmuxHost, is_private_session,
};
