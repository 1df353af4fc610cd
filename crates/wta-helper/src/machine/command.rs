//! [`Command`]: everything the session machine asks the I/O layer to do.
//! Each one is carried out without waiting; what it answers comes back as an
//! [`super::Input`].

use agent_client_protocol::v1::schema::SessionId;
use wta_protocol::helper_master::YoloReport;
use wta_protocol::{PaneId, ProposalId};
use wta_state::{ConfirmMode, PermissionAnswer, PermissionRequestId};

use super::input::RequestKey;

/// Which call an [`super::Input::Replied`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    SetModel(String),
    SetConfig,
    SetYolo(bool),
    Authenticate,
    CloseSession,
}

/// Lifecycle news for the proposal engine (its channel state machine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProposalNews {
    /// The user cancelled the turn.
    TurnCancelled,
    /// The turn ended (any stop reason).
    TurnEnded,
    /// A new ACP session replaces the old one.
    SessionReplaced,
    /// The connection or the session went away.
    TransportLost,
    /// Yolo is on: the agent may run the proposal CLI without asking.
    AgentMayRunUnasked,
}

/// One thing for the I/O layer to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Dial the master and `initialize` (asking for `agent`).
    Connect { agent: Option<String> },
    /// Forget the connection (its responders go with it).
    Disconnect,
    /// Ask the master starter for a master (the user's reconnect).
    StartMaster,
    /// Find out why the master went away.
    ExplainMasterGone,
    /// Say `Input::MasterAnnounced` once a master answers on the pane's
    /// socket: when one announces itself, or at once if one answers `now`
    /// (a hidden pane links again on its own).
    AwaitMaster { now: bool },
    /// `session/new`; `fresh_agent` for `/restart`. The reply is labelled `label`.
    OpenSession {
        agent: Option<String>,
        fresh_agent: bool,
        label: String,
    },
    /// `session/close`.
    CloseSession { session: SessionId },
    /// Issue the turn's proposal channel, add the terminal context and send
    /// `session/prompt`.
    Prompt { session: SessionId, text: String },
    /// `session/cancel`.
    Cancel { session: SessionId },
    /// `session/set_config_option`.
    SetConfigOption {
        call: Call,
        session: SessionId,
        option: String,
        value: String,
    },
    /// `session/set_model`.
    SetModel { session: SessionId, model: String },
    /// `authenticate`.
    Authenticate { method: String },
    /// `_wta/session_state`.
    ReportYolo {
        session: SessionId,
        report: YoloReport,
    },
    /// Read the agent registry (the `/agent` picker).
    ReadAgents,
    /// Read it again before switching to `id`.
    CheckAgent { id: String },
    /// Probe the target pane's cwd and this pane's visibility.
    ProbeStatus,
    /// Follow every shell pane of the tab not followed yet (autofix).
    ScanTab,
    /// Read which shell pane of the tab has the focus (`[pane]
    /// follow_focus`); answered with `Input::Focused` when it is not the target.
    ReadFocus,
    /// Confirmed commands of later turns go to `pane` (the focus moved).
    Retarget { pane: PaneId },
    /// Say `text` in the user's tmux client (this pane is not seen).
    Notify { text: String },
    /// Answer the `wta fix` waiting under `reply`.
    AnswerFix {
        reply: crate::autofix::request::ReplyToken,
        answer: crate::autofix::request::FixAnswer,
    },
    /// Show (`Some`) or clear the owner tab's "a card waits" indicator.
    CardWaiting {
        kind: Option<super::hidden_card::CardKind>,
    },
    /// Ring the bell in the tab (a card arrived where nobody sees it).
    Bell,
    /// Send the fix turn's prompt: origin autofix, the failed command's
    /// record in the context, its one `send` bound to the failing pane.
    FixPrompt {
        session: SessionId,
        turn: Box<crate::autofix::prompt::FixTurn>,
    },
    /// Copy to the clipboard through tmux.
    Copy { text: String },
    /// Open a tmux window that runs an agent's sign-in command.
    OpenAuthWindow {
        agent: String,
        method: String,
        command: Vec<String>,
    },
    /// Name the session's agent on this pane (`@wta_agent`).
    NameAgent { agent: String },
    /// Run the proposal preflight on the held permission request, of a
    /// session whose MCP server is `own_server` (the master named it).
    Preflight {
        key: PermissionRequestId,
        own_server: Option<String>,
    },
    /// Answer the held permission request.
    AnswerPermission {
        key: PermissionRequestId,
        answer: PermissionAnswer,
    },
    /// Serve the held `fs/*` request.
    ServeFile { key: RequestKey },
    /// Serve the held `terminal/*` request (an agent terminal).
    ServeTerminal { key: RequestKey },
    /// `_wta/agent_sessions`, for the `/sessions` picker.
    ListAgentSessions,
    /// `wta sessions focus | resume | close KEY`.
    SessionAction {
        key: String,
        verb: wta_state::SessionVerb,
    },
    /// `session/load` of `session` (resume); answered as `SessionOpened`.
    LoadSession { session: SessionId, label: String },
    /// `wta delegate` with `task`, from pane `source` (its context goes with it).
    Delegate { task: String, source: PaneId },
    /// Answer the held question request.
    AnswerQuestion {
        key: RequestKey,
        outcome: wta_protocol::session_tools::UserInputOutcome,
    },
    /// Run the held session MCP tool call and answer it.
    RunSessionTool { key: RequestKey },
    /// Refuse the held client request with `message`.
    Refuse { key: RequestKey, message: String },
    /// Tell the proposal engine.
    Proposals(ProposalNews),
    /// Claim the card's choice and run it in the target pane.
    ConfirmCard {
        id: ProposalId,
        choice: u64,
        mode: ConfirmMode,
    },
    /// The user dismissed the card.
    CancelCard { id: ProposalId },
    /// `/history` or `/export`: read the action history, propose an
    /// entry again, or write the transcript (`runtime/history.rs`).
    History(wta_state::history_picker::HistoryEffect),
}
