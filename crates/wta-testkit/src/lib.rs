//! Test support shared by every crate's tests.
//!
//! - [`env`]: the one scrubbed environment every test process starts from
//!   (no `WTA_*`, `TMUX*` or locale of the runner's; a private HOME and XDG
//!   dirs, [`Sandbox`]). Tests start processes only through it: [`clean`]
//!   for a tool that reads no HOME, [`Sandbox::command`] for one that does.
//! - [`TmuxServer`]: a private tmux server per test (`tmux -L <unique> -f /dev/null`),
//!   in that environment, killed on drop. Tests never touch a server they did not start.
//! - [`acp`]: the scripted ACP test agent (`wta-test-agent`) and [`acp::agent_path`].
//! - [`wait_until`]: poll a condition with a deadline; tests never sleep bare.
//!   [`holds_for`]: a negative check, held for a window after the positive
//!   observation that would have triggered the change.
//! - [`harness`]: the `main` of a test binary that also plays a child process's role.
//! - [`as_nobody`]: run a program as another user, for peer-uid checks.
//! - [`squeezed`]: compare pane text regardless of where it wrapped.
//! - [`procs`]: whether a process runs; its resident memory; whether a socket's far side closed it.
//! - [`bench`]: the benches' quick and full runs and their budgets.

pub mod acp;
pub mod bench;
pub mod env;
pub mod harness;
mod nobody;
pub mod procs;
mod screen;
pub mod source;
mod tmux;
mod wait;

pub use env::{Sandbox, clean};
pub use nobody::as_nobody;
pub use screen::squeezed;
pub use tmux::TmuxServer;
pub use wait::{holds_for, wait_for_value, wait_until};
