//! One core for scripted ACP agents: the built-in demo agent
//! ([`crate::demo`]) and the test agent standing in for an LLM in tests.
//!
//! An agent implements [`ScriptedAgent`] (its `initialize` answer, its
//! session state, its turn for each prompt, any extra requests) and
//! [`serve`] does the ACP side: the serving loop, session ids and
//! cancellation ([`Sessions`]), and playing a turn's [`Step`]s on the wire
//! (chunks, plans, tool calls, permission requests, client requests, local
//! commands such as the proposal CLI, cancellation points).
//!
//! - `serve.rs`: the serving loop and the [`ScriptedAgent`] trait.
//! - `sessions.rs`: open sessions, their state, each turn's cancel signal.
//! - `step.rs`: the step vocabulary and its values (pure data).
//! - `turn.rs`: plays a turn's steps and answers the prompt.
//! - `wire.rs`: the one encoder from steps to ACP JSON.
//! - `peer.rs`: the client end (updates and requests out).
//! - `command.rs`: running a local command and reading what it printed.
//! - [`probe`]: an in-memory recording client for the agents' wire tests.

mod command;
mod peer;
pub mod probe;
mod serve;
mod sessions;
mod step;
mod turn;
mod wire;

#[cfg(test)]
mod tests;

pub use command::{Command, Ran};
pub use peer::Peer;
pub use serve::{Prompt, ScriptedAgent, serve, session_id};
pub use sessions::Sessions;
pub use step::{
    Permission, PermissionAnswer, PermissionOption, Step, Then, ToolCall, ToolContent, ToolUpdate,
    Update,
};
