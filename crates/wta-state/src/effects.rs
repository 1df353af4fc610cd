//! What the chat app asks the outside world to do. The reducer returns these
//! as data; the driver executes them (ACP calls, clipboard, tmux, exit).

use wta_protocol::ProposalId;

use super::domain::{PermissionAnswer, PermissionRequestId};
use super::proposal_card::ConfirmMode;

/// One request from the app to the driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// `session/prompt` with this text (the user pressed Enter).
    SendPrompt(String),
    /// `session/cancel` for the running turn.
    Cancel,
    /// Start a fresh ACP session in this pane (`/new`); yolo override is cleared.
    NewSession,
    /// Tear down and restart this pane's agent stack (`/restart`).
    Restart,
    /// Switch this pane to another agent id (`/agent ID` or the picker).
    SwitchAgent(String),
    /// Set the session model (`/model ID` or the picker).
    SetModel(String),
    /// `session/set_config_option` with a select value.
    SetConfigOption { option: String, value: String },
    /// Open the master's sessions list (`/sessions`).
    OpenSessions,
    /// Answer a pending `session/request_permission`.
    AnswerPermission {
        request: PermissionRequestId,
        answer: PermissionAnswer,
    },
    /// Set this session's yolo override (`/yolo [on|off]`).
    SetYolo(bool),
    /// Put text on the clipboard (OSC 52 through tmux).
    CopyToClipboard(String),
    /// Run the agent's terminal-auth command in a new tmux window.
    RunAuthInWindow {
        agent: String,
        method: String,
        command: Vec<String>,
    },
    /// `authenticate` with a method that needs no terminal.
    Authenticate { agent: String, method: String },
    /// The user confirmed a recommendation card: the engine claims the live
    /// proposal atomically, then hands the choice to the executor.
    ConfirmProposal {
        id: ProposalId,
        choice: u64,
        mode: ConfirmMode,
    },
    /// The user pressed Esc on a live recommendation card.
    CancelProposal { id: ProposalId },
    /// The master went away and the user pressed Enter: start a master if
    /// none runs, connect to it and open a new session in this pane.
    Reconnect,
    /// Start the fix turn for failure `generation` (the app opened the turn
    /// and shows it); `hint` is what the user added.
    Fix {
        generation: u64,
        hint: Option<String>,
    },
    /// A session picked in `/sessions`: go to it, resume it or close it.
    SessionAction { key: String, verb: SessionVerb },
    /// `?TASK`: start a delegate agent with the task in a new tab, from
    /// this pane's target.
    Delegate(String),
    /// The user answered (or dismissed) question `id`.
    AnswerQuestion {
        id: u64,
        answer: super::question::QuestionAnswer,
    },
    /// `/history` and `/export`: the action history and the transcript.
    History(super::history_picker::HistoryEffect),
    /// Close the pane (helper exits; master cleans up the session).
    Quit,
}

/// What `/sessions` does to the session picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionVerb {
    /// Enter on a live session: go to its tab and pane.
    Focus,
    /// Enter on an ended one: resume it in a new tab.
    Resume,
    /// Ctrl+D or Delete: close it (a live agent pane closes; an ended row
    /// leaves the history).
    Close,
}

impl SessionVerb {
    /// Its `wta sessions` subcommand.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Focus => "focus",
            Self::Resume => "resume",
            Self::Close => "close",
        }
    }
}
