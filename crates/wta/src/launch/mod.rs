//! The launcher: what Windows Terminal did for the original. It starts the
//! master on demand, opens the agent pane beside a shell, and stashes or
//! restores it. The commands in `cmd::up` and `cmd::agent_pane` are thin
//! wrappers around this module.

pub mod agent_pane;
pub mod delegate;
pub mod master;
pub mod prewarm;
pub mod shell;
