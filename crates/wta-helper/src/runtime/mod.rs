//! The helper's interactive runtime without drawing: the glue between the
//! chat app (`wta_state`) and the master connection (`crate::connection`).
//!
//! - [`map`]: pure wire JSON → `DomainEvent` mapping (session updates,
//!   permission requests, `session/new` replies, setup-screen errors).
//! - [`permissions`]: responders keyed by `PermissionRequestId`, answered once.
//! - `proposal_row`: a proposal CLI tool call reads as what it proposes.
//! - [`client_fs`]: ACP `fs/*` requests served for the agent.
//! - [`status`]: the status-line probe (target cwd, own visibility) and the
//!   `/sessions` table.
//! - [`yolo`]: per-session yolo state and its two layers (the decision is
//!   `wta_agent::yolo::decide`).
//! - [`agents`]: the agents a pane may switch to, with install lines.
//! - `master`: the master going away and the user's reconnect
//!   ([`MasterStarter`] starts a master when none runs).
//! - [`Runtime`]: executes `Effect`s against the connection and turns
//!   `HelperEvent`s into `DomainEvent`s; never blocks the UI loop.
//!
//! The terminal loop that drives it lives in the `wta` binary.

pub mod agents;
mod card_decisions;
pub mod client_fs;
mod effects;
mod engine;
pub mod map;
mod master;
pub mod permissions;
mod proposal_row;
mod session;
pub mod status;
pub mod yolo;

pub use engine::{Call, Done, Input, Runtime, RuntimeConfig};
pub use master::MasterStarter;
