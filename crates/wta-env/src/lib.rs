//! wta-env: where WTA keeps its files on this machine, for every role
//! (master, helper, one-shot CLI).
//!
//! - [`private_dir`]: the private runtime directory every socket lives in,
//!   and the checks that refuse one another user could have planted.
//! - [`dirs`]: the state directory (logs) and the master socket for a tmux
//!   server.
//! - [`logging`]: tracing to a file in the state directory, never to the
//!   terminal, bounded on disk.
//! - [`history`]: the action history (decided cards), its rotation and reader.
//! - [`process`]: whether the process a file is named after still runs.
//!
//! This is I/O (a few `stat`s, `mkdir`s and a log file); the wire types stay
//! in `wta-protocol`.

pub mod dirs;
pub mod history;
pub mod logging;
pub mod private_dir;
pub mod process;
pub mod state_files;

pub use logging::LogError;
pub use private_dir::UnsafeDir;
