//! The wta master: one per tmux server, singleton by lock file (its
//! directories, socket name and log file are `wta-env`'s).
//!
//! - [`daemon`]: its own session, stdio on its log, its lifetime bound to its tmux server.
//! - `server`: lock file, 0600 socket, `SO_PEERCRED` uid check, accept loop.
//! - `pool`: agent CLIs spawned lazily per `AgentKey`, shared, reaped on death.
//! - `router`: the master is the ACP *agent* toward each helper and the ACP
//!   *client* of each agent; `session_to_helper` routing in both directions.
//! - `outbound`: bounded per-helper outbound notifications (a slow helper never
//!   blocks an agent or another helper).
//! - [`reaper`]: the `wta --agent-reaper` process that stops every agent
//!   process group once the master is gone, even when it was SIGKILLed.

pub mod daemon;
mod error;
mod outbound;
mod pool;
pub mod reaper;
mod router;
mod server;
mod state;

pub use error::MasterError;
pub use server::{MAX_CONNECTIONS, MAX_LINE_BYTES, MasterConfig, run};
