//! The one error enum of this crate; messages are written for the user.

use std::path::PathBuf;

/// Everything that can go wrong choosing or starting an agent.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(
        "`{given}` is not a valid agent id (use one of copilot, claude, codex, gemini, opencode, demo, or custom:<name>)"
    )]
    InvalidId { given: String },
    #[error("`{given}` is not a delegate agent CLI (use one of {valid})")]
    UnknownDelegate { given: String, valid: String },
    #[error("unknown agent `{id}`: it is not built in and no [custom_agents.{name}] entry exists in {config}", name = id.strip_prefix("custom:").unwrap_or(id), config = config.display())]
    UnknownAgent { id: String, config: PathBuf },
    #[error("agent `{id}` is not allowed here (allowed: {allowed})")]
    NotAllowed { id: String, allowed: String },
    #[error("agent `{id}` is not installed: none of {tried} was found on PATH. {hint}")]
    NotInstalled {
        id: String,
        tried: String,
        hint: String,
    },
    #[error("cannot read {path}: {source}")]
    ReadConfig {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid: {message}")]
    BadConfig { path: PathBuf, message: String },
    #[error("cannot start agent `{id}` ({program}): {source}")]
    Spawn {
        id: String,
        program: String,
        source: std::io::Error,
    },
    #[error("cannot find the wta binary itself: {0}")]
    CurrentExe(std::io::Error),
}
