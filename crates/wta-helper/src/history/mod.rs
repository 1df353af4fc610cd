//! The pane's side of the action history (`wta_env::history`): what it
//! learns about each card, turned into one record per decision.
//!
//! - [`Recorder`]: sees the proposal engine's events before the machine
//!   does (a card shown, a card cancelled or timed out), is told a
//!   confirmation with its mode, and each action's result as the executor
//!   reports it. It keeps the cards still waiting for a decision, and
//!   hands finished records to a writer thread of its own: the pane's loop
//!   never waits on the disk, and a write that fails is logged, never said
//!   on a card.
//! - [`entries`]: records made back into a proposal payload, for
//!   `/history`'s re-proposal (a new card, confirmed like any other).
//!
//! What is not recorded: cards superseded, replaced with their session or
//! ended with the transport before the user could decide (nobody decided).

pub mod entries;
mod recorder;

pub use recorder::{Pending, Recorder, record_actions};
