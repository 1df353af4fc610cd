//! The wta master: one per tmux server, singleton by lock file.
//!
//! - [`daemon`]: its own session, stdio on its log, its lifetime bound to its tmux server.
//! - [`paths`]: runtime/state dirs (XDG) and their permission checks.
//! - `server`: lock file, 0600 socket, `SO_PEERCRED` uid check, accept loop.
//! - `pool`: agent CLIs spawned lazily per `AgentKey`, shared, reaped on death.
//! - `router`: the master is the ACP *agent* toward each helper and the ACP
//!   *client* of each agent; `session_to_helper` routing in both directions.
//! - `outbound`: bounded per-helper outbound notifications (a slow helper never
//!   blocks an agent or another helper).
//! - [`logging`]: tracing to the state dir, never to the terminal.
//! - [`reaper`]: the `wta --agent-reaper` process that stops every agent
//!   process group once the master is gone, even when it was SIGKILLed.

pub mod daemon;
mod error;
pub mod logging;
mod outbound;
pub mod paths;
mod pool;
pub mod reaper;
mod router;
mod server;
mod state;

pub use error::MasterError;
pub use server::{MAX_CONNECTIONS, MAX_LINE_BYTES, MasterConfig, run};
