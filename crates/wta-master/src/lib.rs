//! The wta master: one per tmux server, singleton by lock file (its
//! directories, socket name and log file are `wta-env`'s).
//!
//! - [`daemon`]: its own session, stdio on its log, its lifetime bound to its tmux server.
//! - `server`: lock file, 0600 socket, `SO_PEERCRED` uid check, accept loop;
//!   assembles the parts below.
//! - `inbound`: each helper line decoded once into the ACP schema's types
//!   (`HelperRequest`, `HelperNotification`); an agent's only as far as its
//!   routing key.
//! - `wire`: every message the master makes up, built from the schema's
//!   types, and what it reads of an agent's typed capabilities.
//! - `router`: the master is the ACP *agent* toward each helper and the ACP
//!   *client* of each agent; routing in both directions.
//! - `table`: the connected helpers and the routes between their sessions
//!   and agent instances (one leaf lock).
//! - `state`: `Master`, its parts, and what spans them (bind, unbind, an
//!   agent's death, a helper's departure, reaping idle agents).
//! - `pool`: agent CLIs spawned lazily per `AgentKey`, shared, reaped on
//!   death; it reports to the router as `PoolEvent`s over a channel.
//! - `relay`: the agent → helper fast path: routed `session/update` lines are
//!   copied to their helper as the agent wrote them, in order with the rest.
//! - `outbound`: bounded per-helper outbound queue and its socket writer (a slow
//!   helper never blocks an agent or another helper).
//! - `session_mcp`: the session MCP endpoint (`wta-mcp`): a grant per
//!   session, tool calls forwarded to the session's helper.
//! - `registry` and `registry_requests`: every agent session of the server
//!   (agent panes, agent CLIs in shell panes by their hooks, ended ones as
//!   history); `log_watch` follows those CLIs' own logs.
//! - [`stats`]: relay counters, for the routing benchmark.
//! - `leftovers`: what a killed helper left (its pipes, proposal socket,
//!   card indicator), reaped once its process is gone.
//! - [`reaper`]: the `wta --agent-reaper` process that stops every agent
//!   process group once the master is gone, even when it was SIGKILLed.
//!
//! Module graph (`a → b`: `a` uses `b`, from the `use crate::` lines): it
//! has no cycle, between modules or between files (in `pool/`, `relay/`
//! and `router/`, a parent uses its children and no child uses its
//! parent's own items).
//!
//! ```text
//! server → router, state, table, pool, session_mcp, outbound, reaper, daemon, log_watch, leftovers
//! router → state, table, pool, inbound, session_mcp, registry_requests, wire
//! registry_requests, log_watch → state, registry, (pool, wire)
//! state → table, pool, session_mcp, registry, leftovers, wire
//! session_mcp → table                      (finds a helper by id; no back-reference)
//! table → pool, relay, outbound, stats     (implements relay::SessionRoutes)
//! pool → relay, reaper, wire, stats        (reports PoolEvents; knows no router, no Master)
//! relay → outbound, stats                  (looks routes up through SessionRoutes)
//! inbound → wire;  outbound → stats
//! wire, stats, reaper, registry, leftovers, daemon, error: leaves
//! ```
//!
//! Locks: every lock is private to one type whose methods hold it for map
//! work only and call nothing that locks (the table, the pool's slots, the
//! registry, the MCP keys, an outbound queue, an instance's stop handle):
//! all are leaves, so no lock order exists (see `state`).

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
mod table;
mod wire;

pub use error::MasterError;
/// The relay's pause between small reads (see `relay`), shown with the
/// routing benchmark's counters.
pub use relay::BATCH_PAUSE;
pub use server::{
    FIRST_LINE_TIMEOUT, MAX_CONNECTIONS, MAX_LINE_BYTES, MAX_UNPROVEN_CONNECTIONS, MasterConfig,
    run,
};
pub use stats::{RelayStats, RelayStatsSnapshot};
