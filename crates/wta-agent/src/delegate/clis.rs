//! The built-in table of delegate agent CLIs, as data: how each takes an initial task in an
//! interactive session, which flag pins the session id, how to resume, and how to install it.
//!
//! Where each row comes from:
//! - `claude`: checked against the real `claude --help` on the development machine
//!   (`Usage: claude [options] [command] [prompt]`, `--session-id <uuid>`,
//!   `-r, --resume [value]`).
//! - `copilot`, `codex`, `gemini`, `opencode`: taken from the reference implementation's agent
//!   table (first-implementation §2.5, §2.9); not checked against a local `--help`, since those
//!   CLIs are not installed here.
//!
//! This file holds data only; lookups on PATH and argv building live in `mod.rs`.

/// How one agent CLI takes an initial task (interactive session, not print mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptArg {
    /// The task is the last positional argument (`claude [options] [prompt]`).
    Positional,
    /// The task is the value of this flag (`copilot -i <prompt>`).
    Flag(&'static str),
}

/// Built-in knowledge of a delegate agent CLI, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelegateCli {
    /// The id users pass as `--agent` (the same as the registry's built-in ACP ids).
    pub id: &'static str,
    /// The program looked up on PATH.
    pub program: &'static str,
    pub prompt: PromptArg,
    /// The flag that makes the CLI use a session id we choose (a UUID v4), so the session
    /// can be bound to its pane before the CLI starts.
    pub pin: Option<&'static str>,
    /// How to resume a session: a flag taking the session id, except for `codex`, where it
    /// is the subcommand `resume` (`codex resume <id>`).
    pub resume: Option<&'static str>,
    /// The command line that installs the CLI (shown when it is missing).
    pub install: &'static str,
}

/// The built-in delegate CLIs, in the order `choose` tries them on PATH.
pub const CLIS: &[DelegateCli] = &[
    DelegateCli {
        id: "claude",
        program: "claude",
        prompt: PromptArg::Positional,
        pin: Some("--session-id"),
        resume: Some("--resume"),
        install: "npm install -g @anthropic-ai/claude-code",
    },
    DelegateCli {
        id: "copilot",
        program: "copilot",
        prompt: PromptArg::Flag("-i"),
        pin: Some("--session-id"),
        resume: Some("--resume"),
        install: "npm install -g @github/copilot",
    },
    DelegateCli {
        id: "codex",
        program: "codex",
        prompt: PromptArg::Positional,
        pin: None,
        // A subcommand, not a flag: `codex resume <session id>`.
        resume: Some("resume"),
        install: "npm install -g @openai/codex",
    },
    DelegateCli {
        id: "gemini",
        program: "gemini",
        prompt: PromptArg::Positional,
        pin: Some("--session-id"),
        resume: Some("--resume"),
        install: "npm install -g @google/gemini-cli",
    },
    DelegateCli {
        id: "opencode",
        program: "opencode",
        prompt: PromptArg::Flag("--prompt"),
        pin: None,
        resume: Some("--session"),
        install: "npm install -g opencode-ai",
    },
];

/// The built-in delegate CLI with this id.
pub fn cli(id: &str) -> Option<&'static DelegateCli> {
    CLIS.iter().find(|c| c.id == id)
}

/// The valid `--agent` ids, for error messages: `claude, copilot, codex, gemini, opencode`.
pub(crate) fn valid_ids() -> String {
    CLIS.iter().map(|c| c.id).collect::<Vec<_>>().join(", ")
}
