//! [`Input`]: everything that can happen to an agent pane, as one type the
//! session machine steps on. The I/O layer (`crate::runtime`) produces them:
//! terminal events, what the master sent (typed ACP), the answers of the
//! commands it carried out, the proposal engine's events, timers. Every
//! input is a fact of the I/O layer's, typed; none carries the pane's words
//! or a view event: the machine decides what the pane shows.

use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionId, SessionNotification};
use wta_protocol::WindowId;
use wta_protocol::agent_sessions::AgentSessionsResponse;
use wta_protocol::helper_master::AgentExitedNotification;
use wta_state::{AgentChoice, AuthMethod, Direction, Event, PaneFacts, PermissionRequestId};

use super::call_error::ConnectionError;
use super::command::Call;
use super::news::{CliFailure, Delegated, TerminalNews};
use super::replies::{OptionsReply, SessionOpened};
use super::status::Probe;

/// A request from the agent this pane answers; the I/O layer holds its
/// responder under this key until a command answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestKey(pub u64);

/// What kind of client request arrived (its content stays with the responder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientCall {
    ReadFile,
    WriteFile,
    /// `terminal/create`, `output`, `wait_for_exit`, `kill` or `release`.
    Terminal {
        method: &'static str,
    },
    /// A session MCP tool (`_wta/session_tool`, `_wta/proposal_result`)
    /// for `session`.
    SessionTool {
        session: String,
    },
    /// A method this pane does not serve (yet): `terminal/*`, anything else.
    Other {
        method: String,
    },
}

/// One JSON-RPC line as it crossed the master socket (the connection's
/// tap cuts it to `crate::connection::wire::TAP_LINE_BYTES`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireLine {
    pub direction: Direction,
    pub text: String,
    /// Lines dropped just before this one because the reader fell behind.
    pub dropped_before: u64,
}

/// A connection to the master was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linked {
    /// The agent the master chose for this pane.
    pub agent_id: Option<String>,
    pub auth: Vec<AuthMethod>,
    /// The pid in the master's lock file (a new one after a restart).
    pub master_pid: Option<u32>,
    /// The agent loads sessions (`loadSession`): a pane can resume its own.
    pub loads_sessions: bool,
}

/// How the permission preflight took a request.
#[derive(Debug)]
pub enum Preflighted {
    /// Not a proposal: the normal path (yolo or a card).
    Card,
    /// The proposal engine answered it (no card): how, and whether the
    /// answer reached the agent.
    Answered {
        how: PreflightAnswer,
        sent: Result<(), Box<ConnectionError>>,
    },
}

/// How the proposal preflight answered a permission request itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreflightAnswer {
    /// Allowed once: this turn's canonical invocation (now armed), or a
    /// call of this session's own MCP tools.
    Allowed,
    /// Cancelled without a word (a proposal-looking command that is not
    /// canonical, a session tool outside a turn).
    CancelledSilently,
    /// It was to be allowed, but the agent offered no allow-once option:
    /// cancelled.
    NoAllowOnce,
    /// The proposal command in a request shape this pane cannot read
    /// (why): cancelled, fail closed.
    UnknownShape { why: String },
}

/// What the card side of the runtime reports: the claim of a confirmed
/// card and how each of its actions ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecutorNews {
    /// The proposal engine would not claim the confirmed card: nothing ran.
    NotRun(crate::proposals::types::ClaimError),
    /// A confirmed card has no terminal to act on (no tmux, no target pane).
    NoTerminal,
    /// The target pane cannot be followed (why, in the user's language):
    /// confirmed commands cannot report their results.
    CannotFollow {
        target: wta_protocol::PaneId,
        why: String,
    },
    /// Action `action` (1-based) of a confirmed card ended.
    ActionEnded {
        action: u64,
        outcome: Box<crate::executor::outcome::ActionOutcome>,
    },
    /// The commands still running after their proposal's time limit
    /// (all of them, oldest first; empty: none any more).
    LongRunning(Vec<crate::executor::outcome::Running>),
    /// One of them ended: its final result (the agent gets it too).
    LongRunEnded(Box<crate::executor::outcome::LateResult>),
}

/// One input of the session machine.
#[derive(Debug)]
pub enum Input {
    /// A terminal or UI event for the chat app (keys, mouse, paste, tick,
    /// what the frame showed of a card).
    App(Event),
    /// The status line is due for a refresh (a slow timer).
    StatusDue,
    /// The shell pane of the tab that has the focus, when it is not the
    /// target (`Command::ReadFocus`).
    Focused { pane: wta_protocol::PaneId },
    /// Time to look for new shell panes in the tab (autofix's watchers).
    TabScanDue,
    /// A command finished in a followed shell pane of the tab.
    CommandFinished {
        pane: wta_protocol::PaneId,
        finished: Box<wta_shell::Finished>,
    },
    /// `wta fix`: fix the last failure (in `pane`, if given); answered
    /// under `reply` when given.
    FixRequested {
        pane: Option<wta_protocol::PaneId>,
        hint: Option<String>,
        reply: Option<crate::autofix::request::ReplyToken>,
    },
    /// A connection attempt ended.
    Linked(Box<Result<Linked, ConnectionError>>),
    /// The master connection ended.
    MasterClosed,
    /// Why the master went away, once the I/O layer looked.
    MasterExplained { why: String },
    /// The master starter answered the user's reconnect.
    MasterStarted(Result<(), String>),
    /// A master answers on the pane's socket (after `Command::AwaitMaster`:
    /// one announced itself, or one ran already).
    MasterAnnounced,
    /// `session/new` answered (for `agent`).
    SessionOpened {
        agent: String,
        result: Box<Result<SessionOpened, ConnectionError>>,
    },
    /// `session/update`.
    Update(Box<SessionNotification>),
    /// `session/request_permission`, held by the I/O layer under `key`.
    Permission {
        key: PermissionRequestId,
        request: Box<RequestPermissionRequest>,
    },
    /// The preflight's verdict on the permission request `key`.
    Preflighted {
        key: PermissionRequestId,
        verdict: Preflighted,
    },
    /// An `fs/*` or other client request, held under `key`.
    ClientRequest { key: RequestKey, call: ClientCall },
    /// `_wta/user_input`: the agent asks the user (the request waits under `key`).
    Question {
        key: RequestKey,
        session: String,
        request: u64,
        input: wta_protocol::session_tools::UserInputArgs,
    },
    /// `_wta/user_input_gone`: its caller went away.
    QuestionGone { session: String, request: u64 },
    /// `session/prompt` answered.
    PromptFinished {
        session: SessionId,
        result: Box<Result<agent_client_protocol::v1::schema::StopReason, ConnectionError>>,
    },
    /// `_wta/lagged`.
    Lagged { dropped: u64 },
    /// `_wta/agent_exited`.
    AgentExited(AgentExitedNotification),
    /// A call answered with (possibly) new config options.
    Replied {
        call: Call,
        result: Box<Result<OptionsReply, ConnectionError>>,
    },
    /// `_wta/agent_sessions` answered.
    AgentSessions(Box<Result<AgentSessionsResponse, ConnectionError>>),
    /// The agents this pane may switch to.
    Agents(Vec<AgentChoice>),
    /// The registry read again before `/agent ID` switches.
    AgentChecked {
        id: String,
        agents: Vec<AgentChoice>,
    },
    /// The status probe answered.
    Status(Probe),
    /// What a shell pane is doing now (the pane watcher's facts: busy,
    /// typed text, how commands reach it). Send it whenever they change;
    /// the app hears of the target pane's and of the panes cards type
    /// into, and a card arriving later for a pane told of gets its facts.
    PaneFacts {
        pane: wta_protocol::PaneId,
        facts: PaneFacts,
    },
    /// The proposal engine (the pane's second machine, `crate::proposals`):
    /// a card to show, or one that ended.
    Proposal(crate::proposals::types::ProposalEvent),
    /// The card executor: a claim refused, an action ended.
    Executor(ExecutorNews),
    /// An agent terminal started, printed or ended.
    Terminal(TerminalNews),
    /// `wta delegate` answered.
    Delegated(Result<Delegated, CliFailure>),
    /// `wta sessions VERB KEY` answered (its line on success).
    SessionActionDone {
        verb: wta_state::SessionVerb,
        result: Result<String, CliFailure>,
    },
    /// The agent's sign-in window opened (its tmux window) or could not.
    AuthWindow {
        agent: String,
        method: String,
        result: Result<WindowId, String>,
    },
    /// Copying to the clipboard failed (why).
    CopyFailed { why: String },
    /// A command needed the master connection and there was none.
    NotConnected,
    /// A call nothing waits on (a cancel, a permission's answer) failed.
    CallFailed(Box<ConnectionError>),
    /// The proposal socket could not be bound (why): no cards in this pane.
    ProposalsOff { why: String },
    /// What `Command::History` found.
    History(super::history::HistoryNews),
    /// The config file's problems, as its loader says them (at start).
    ConfigProblems { notice: String },
    /// A JSON-RPC line as it crossed the master socket.
    Wire(WireLine),
}
