//! Test support shared by every crate's tests.
//!
//! - [`TmuxServer`]: a private tmux server per test (`tmux -L <unique> -f /dev/null`),
//!   killed on drop. Tests never touch a server they did not start.
//! - [`acp`]: the scripted ACP test agent (`wta-test-agent`) and [`acp::agent_path`].
//! - [`wait_until`]: poll a condition with a deadline; tests never sleep bare.
//! - [`rerun_self_argv`]: run this test binary again as one entry-point test.
//! - [`as_nobody`]: run a program as another user, for peer-uid checks.
//! - [`squeezed`]: compare pane text regardless of where it wrapped.
//! - [`procs`]: whether a process runs; its resident memory; whether a socket's far side closed it.

pub mod acp;
mod nobody;
pub mod procs;
mod rerun;
mod screen;
mod tmux;
mod wait;

pub use nobody::as_nobody;
pub use rerun::rerun_self_argv;
pub use screen::squeezed;
pub use tmux::TmuxServer;
pub use wait::{wait_for_value, wait_until};
