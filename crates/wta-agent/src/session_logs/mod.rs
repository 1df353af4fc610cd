//! Agent CLIs' own session logs as a source of status for sessions in shell
//! panes (reference §2.10, producer 4: the file watcher).
//!
//! - [`classify`]: one JSONL record of one CLI's log → a [`LogSignal`] (what the
//!   session is doing, and the ids, tool and cwd the record names), pure.
//! - [`LogTail`]: follows one file by byte offset, bounded per poll and per line,
//!   surviving truncation, rotation and a missing file.
//! - [`log_roots`], [`session_files`]: where each CLI keeps its logs, and the
//!   newest candidate files under a root (bounded walk).
//! - [`SessionLog`]: a tail plus classification of one file, which skips Codex
//!   subagent forks and names the session from the file name when records do not.
//!
//! Nothing here watches directories or keeps a registry: a watcher decides when
//! to poll (a `notify` event, a timer) and what a signal changes. A log is an
//! untrusted input written by another program: any line may be malformed, huge
//! or of an unknown shape, and none of that is an error here (it is `None`).
//! No prompt, tool input or tool output leaves this module: a signal carries a
//! status, ids, a tool's name and a cwd only.

mod classify;
mod follow;
mod roots;
mod tail;

#[cfg(test)]
mod classify_tests;
#[cfg(test)]
mod follow_tests;
#[cfg(test)]
mod roots_tests;
#[cfg(test)]
mod tail_tests;

pub use classify::{classify, is_codex_subagent_fork, is_user_input_tool};
pub use follow::SessionLog;
pub use roots::{MAX_SESSION_FILES, log_roots, session_files};
pub use tail::{LogTail, MAX_LINE_BYTES, MAX_READ_BYTES};

use wta_protocol::agent_sessions::AgentStatus;

/// What one log record says about its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSignal {
    /// Only [`AgentStatus::Working`], [`AgentStatus::Idle`],
    /// [`AgentStatus::Attention`] or [`AgentStatus::Error`]: a log never says
    /// a session ended (a CLI exits without a last record).
    pub status: AgentStatus,
    /// The CLI's own session id, when the record names it.
    pub session_id: Option<String>,
    /// The tool the agent starts (its name only), when the record names one.
    pub tool: Option<String>,
    pub cwd: Option<String>,
    /// A session title. None of the records classified today carries one on a
    /// status-bearing record (Claude's `summary` and Copilot's workspace
    /// summary are separate records or files), so this is `None` for now; it
    /// is here so a watcher's update has one shape for every source.
    pub title: Option<String>,
}

impl LogSignal {
    /// A signal with a status only.
    pub const fn status(status: AgentStatus) -> Self {
        Self {
            status,
            session_id: None,
            tool: None,
            cwd: None,
            title: None,
        }
    }
}
