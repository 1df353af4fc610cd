//! Every agent session of a tmux server as the master tracks it (issue
//! 18): agent panes' ACP sessions, agent CLIs running in ordinary shell
//! panes (told by their hooks through `wta hook`), and ended ones kept as
//! history; the `_wta/*` messages that feed and read the registry.
//!
//! Nothing here carries a prompt or a tool's input or output: a hook event
//! is what happened, where, and when.

use serde::{Deserialize, Serialize};

use crate::{PaneId, WindowId};

/// `_wta/hook_event` (a one-shot CLI → master request, answered `{}`).
pub const METHOD_HOOK_EVENT: &str = "_wta/hook_event";
/// `_wta/agent_sessions` (helper or CLI → master request): the registry,
/// answered with an [`AgentSessionsResponse`].
pub const METHOD_AGENT_SESSIONS: &str = "_wta/agent_sessions";
/// `_wta/forget_session` (CLI → master request): drops an ended session
/// from the registry's history ([`ForgetSessionParams`]), answered with a
/// [`ForgetSessionResponse`].
pub const METHOD_FORGET_SESSION: &str = "_wta/forget_session";

/// An agent CLI whose hooks WTA can install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookCli {
    Claude,
    Copilot,
    Codex,
    Gemini,
    Opencode,
}

impl HookCli {
    pub const ALL: [HookCli; 5] = [
        Self::Claude,
        Self::Copilot,
        Self::Codex,
        Self::Gemini,
        Self::Opencode,
    ];

    /// The id (`claude`, …), also its program's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Copilot => "copilot",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Opencode => "opencode",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// What a hook said happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEventKind {
    SessionStart,
    SessionEnd,
    /// The user sent a prompt: the agent is working.
    PromptSubmit,
    /// The agent starts a tool (its name only).
    ToolStarting,
    /// The CLI wants the user (a permission prompt, a question).
    Notification,
    /// The agent finished its turn: idle.
    Stop,
    /// The turn failed.
    Error,
}

impl HookEventKind {
    pub const ALL: [HookEventKind; 7] = [
        Self::SessionStart,
        Self::SessionEnd,
        Self::PromptSubmit,
        Self::ToolStarting,
        Self::Notification,
        Self::Stop,
        Self::Error,
    ];

    /// The wire and `--event` spelling (`session_start`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SessionStart => "session_start",
            Self::SessionEnd => "session_end",
            Self::PromptSubmit => "prompt_submit",
            Self::ToolStarting => "tool_starting",
            Self::Notification => "notification",
            Self::Stop => "stop",
            Self::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// Params of `_wta/hook_event`: only ids, places and short labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HookEvent {
    pub cli: HookCli,
    pub event: HookEventKind,
    /// The pane the CLI runs in (`TMUX_PANE` of the hook's environment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<PaneId>,
    /// The CLI's own session id, when its hook payload names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// A tool's name (`tool_starting`), never its input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A notification's short text (at most [`MAX_HOOK_TEXT_CHARS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The longest message or title a hook event carries.
pub const MAX_HOOK_TEXT_CHARS: usize = 200;

/// Where a session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionSource {
    /// A WTA agent pane's ACP session.
    AgentPane,
    /// An agent CLI in an ordinary shell pane (told by its hooks).
    ShellPane,
}

/// What a session is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    Idle,
    Working,
    /// It waits for the user (a permission, a question).
    Attention,
    Error,
    /// It ended while the master ran.
    Ended,
    /// Known from the agent's own history (`session/list`), not seen live.
    Historical,
}

impl AgentStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Working => "working",
            Self::Attention => "attention",
            Self::Error => "error",
            Self::Ended => "ended",
            Self::Historical => "historical",
        }
    }

    /// Live (idle, working, attention, error) as opposed to ended or historical.
    pub const fn is_live(self) -> bool {
        !matches!(self, Self::Ended | Self::Historical)
    }
}

/// One row of the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AgentSessionRow {
    /// The registry's key for the row (stable while the master runs).
    pub key: String,
    pub source: SessionSource,
    /// The agent id (`claude`, `custom:x`) or the CLI.
    pub agent: String,
    /// The agent's own session id, when known (what resume needs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<PaneId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<WindowId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub status: AgentStatus,
    /// Unix time in ms of the last event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_activity_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_tool: Option<String>,
    /// Whether it can be resumed (its agent loads sessions, or its CLI has
    /// a resume flag) and is not live.
    pub resumable: bool,
}

/// `_wta/forget_session`'s parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ForgetSessionParams {
    /// The row's key ([`AgentSessionRow::key`]).
    pub key: String,
}

/// `_wta/forget_session`'s answer: whether an ended row with that key was
/// in the history (a live or unknown one is never dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ForgetSessionResponse {
    pub forgotten: bool,
}

/// The answer to `_wta/agent_sessions`, newest activity first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AgentSessionsResponse {
    pub sessions: Vec<AgentSessionRow>,
}
