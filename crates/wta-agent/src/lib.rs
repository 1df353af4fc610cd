//! wta-agent: which agent CLIs exist and how to start them.
//!
//! - [`registry`]: typed agent ids, the built-in table, `custom:<name>` entries from the
//!   user's config, the allowlist (config ∩ system policy) and PATH detection. A helper
//!   only ever names an [`AgentId`]; [`Registry::resolve`] builds the argv itself.
//! - [`config`]: the user's config file: its one schema (every key any part of WTA reads,
//!   with type, range and default), its loader, and its validator ([`config::Problem`]s with
//!   line and column; the defaults apply instead).
//! - [`spawn`]: start an agent in its own process group with the wta env, and stop it
//!   (stdin EOF, wait, SIGTERM, SIGKILL to the group).
//! - [`delegate`]: which interactive agent CLI a delegated task starts in, its argv (task,
//!   session pin) and the task enriched with the pane's screen; pure, no I/O beyond PATH lookup.
//! - [`hooks`]: the hook bundles WTA installs into agent CLIs, their registration
//!   commands, and what `wta hook` keeps of a hook's JSON (pure data).
//! - [`session_logs`]: agent CLIs' own session logs (Claude, Copilot, Codex, Gemini) as a
//!   status source: per-CLI record classification, a bounded byte-offset tailer, log roots.
//! - [`demo`]: the built-in offline demo agent (`wta --demo-agent`).
//! - [`scripted`]: the ACP core of scripted agents (the demo and the test agent): the serving
//!   loop, session bookkeeping and a turn's step vocabulary.
//! - [`yolo`]: whether the agent's own tool permissions are auto-approved, as one pure function.
//! - [`heap`]: bounds on what socket peers make a daemon hold (connection slots), and
//!   handing freed heap back to the OS after a flood.
//! - [`admission`]: connections that have not sent their first request yet, in a bounded
//!   pool that evicts the oldest silent one and closes each at its deadline.

pub mod admission;
pub mod config;
pub mod delegate;
pub mod demo;
mod error;
pub mod heap;
pub mod hooks;
pub mod registry;
pub mod scripted;
pub mod session_logs;
pub mod spawn;
pub mod yolo;

pub use error::{AgentError, InstallHint};

/// Pane option on an agent pane naming the agent its current session runs
/// (set by the helper whenever a session opens; read by `wta up`).
pub const PANE_AGENT_OPTION: &str = "@wta_agent";
pub use registry::{
    AgentEntry, AgentId, AgentKey, AgentSource, Delegate, Registry, RegistryPaths, cli_env,
};
