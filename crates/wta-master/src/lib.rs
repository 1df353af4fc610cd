//! The wta master: one per tmux server, singleton by lock file (its
//! directories, socket name and log file are `wta-env`'s).
//!
//! - [`daemon`]: its own session, stdio on its log, its lifetime bound to its tmux server.
//! - `server`: lock file, 0600 socket, `SO_PEERCRED` uid check, accept loop.
//! - `pool`: agent CLIs spawned lazily per `AgentKey`, shared, reaped on death.
//! - `router`: the master is the ACP *agent* toward each helper and the ACP
//!   *client* of each agent; `session_to_helper` routing in both directions.
//! - `relay`: the agent → helper fast path: routed `session/update` lines are
//!   copied to their helper as the agent wrote them, in order with the rest.
//! - `outbound`: bounded per-helper outbound queue and its socket writer (a slow
//!   helper never blocks an agent or another helper).
//! - `session_mcp`: the session MCP endpoint (`wta-mcp`): a grant per
//!   session, tool calls forwarded to the session's helper.
//! - `registry`: every agent session of the server (agent panes, agent CLIs
//!   in shell panes by their hooks, ended ones as history).
//! - [`stats`]: relay counters, for the routing benchmark.
//! - `leftovers`: what a killed helper left (its pipes, proposal socket,
//!   card indicator), reaped once its process is gone.
//! - [`reaper`]: the `wta --agent-reaper` process that stops every agent
//!   process group once the master is gone, even when it was SIGKILLed.

pub mod daemon;
mod error;
mod inbound;
mod leftovers;
mod log_watch;
mod outbound;
mod pool;
pub mod reaper;
mod registry;
mod registry_requests;
mod relay;
mod router;
mod server;
mod session_mcp;
mod state;
pub mod stats;
mod wire;

pub use error::MasterError;
pub use server::{
    FIRST_LINE_TIMEOUT, MAX_CONNECTIONS, MAX_LINE_BYTES, MAX_UNPROVEN_CONNECTIONS, MasterConfig,
    run,
};
pub use stats::{RelayStats, RelayStatsSnapshot};
