//! Everything that flows *into* the chat app: terminal input (keys, paste,
//! mouse, resize, tick) and domain events from the ACP connection.
//!
//! These are plain data with no I/O. The driver converts crossterm and ACP
//! types into them; the reducer (`reducer.rs`) is the only consumer.

use super::debug::Direction;
use super::domain::{
    AgentChoice, AuthMethod, ConfigOption, ConnectionState, FailureNotice, ModelChoice, PaneFacts,
    PermissionRequest, PlanEntry, StopReason, TerminalView, ToolCall, ToolCallUpdate, Usage,
    YoloAnswer, YoloState,
};

/// Modifier keys held with a key press.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mods {
    pub shift: bool,
    pub ctrl: bool,
    pub alt: bool,
}

impl Mods {
    pub const NONE: Mods = Mods {
        shift: false,
        ctrl: false,
        alt: false,
    };
    pub const SHIFT: Mods = Mods {
        shift: true,
        ctrl: false,
        alt: false,
    };
    pub const CTRL: Mods = Mods {
        shift: false,
        ctrl: true,
        alt: false,
    };
    pub const ALT: Mods = Mods {
        shift: false,
        ctrl: false,
        alt: true,
    };
}

/// The keys the app distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCode {
    Char(char),
    Enter,
    Backspace,
    Delete,
    Left,
    Right,
    Up,
    Down,
    Home,
    End,
    PageUp,
    PageDown,
    Tab,
    BackTab,
    Esc,
    F(u8),
}

/// One key press (releases are filtered out by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: Mods,
}

impl Key {
    pub fn new(code: KeyCode, mods: Mods) -> Self {
        Self { code, mods }
    }
    pub fn plain(code: KeyCode) -> Self {
        Self {
            code,
            mods: Mods::NONE,
        }
    }
    pub fn ch(c: char) -> Self {
        Self::plain(KeyCode::Char(c))
    }
    pub fn ctrl(c: char) -> Self {
        Self {
            code: KeyCode::Char(c),
            mods: Mods::CTRL,
        }
    }
}

/// Mouse input the app reacts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mouse {
    /// Wheel towards older content.
    WheelUp,
    /// Wheel towards newer content.
    WheelDown,
    /// Left button pressed at this screen cell (0-based column, row).
    Down { col: u16, row: u16 },
    /// Pointer moved with the left button held.
    Drag { col: u16, row: u16 },
    /// Left button released.
    Up { col: u16, row: u16 },
}

/// An input to the reducer.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Key(Key),
    /// Bracketed paste: inserted verbatim, newlines included, never
    /// submitted; a long one as one chip (`paste_chip.rs`).
    Paste(String),
    Mouse(Mouse),
    Resize {
        cols: u16,
        rows: u16,
    },
    /// Animation clock; the driver only ticks while `AppState::needs_tick()`.
    Tick,
    /// What the last frame showed of the front proposal card. The driver
    /// feeds it after each draw when `state.proposals.is_news(&sight)`
    /// (`wta_tui::View::card_feedback` does both); a card confirms only
    /// once every row of its full text was reported on screen.
    CardShown(super::proposal_card::CardSight),
    /// A scripted front end (the headless driver) acting as the user.
    Script(Scripted),
    Domain(DomainEvent),
}

/// What a scripted front end does, by the same paths as the keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scripted {
    /// The text typed into the editor and Enter pressed (a prompt, or a
    /// slash command such as `/new`).
    Submit(String),
    /// The oldest permission card answered with this option id, or
    /// dismissed (`None`); no grace period, since nothing is typed.
    Answer(Option<String>),
    /// Cancel the running turn.
    Cancel,
    /// Set a session config option (what the option pickers do).
    SetOption { option: String, value: String },
}

/// Something the ACP connection (or the helper around it) observed.
#[derive(Debug, Clone, PartialEq)]
pub enum DomainEvent {
    /// The driver's link or session changed state (it decided; `Failed`
    /// closes what is open, with a line saying why).
    Connection(ConnectionState),
    /// A session is live with this agent and model (after `session/new|load`):
    /// the connection is `Ready`.
    SessionStarted {
        agent: String,
        model: Option<String>,
    },
    /// The agent switched the session's model (a `/model` or picker choice).
    ModelChanged(String),
    /// A user message replayed by `session/load` (not typed in this pane).
    UserMessage(String),
    AgentMessageChunk(String),
    ThoughtChunk(String),
    ToolCall(ToolCall),
    ToolCallUpdate(ToolCallUpdate),
    /// An agent terminal started, printed or ended.
    Terminal(TerminalView),
    /// `/sessions`: every agent session of the server, newest first, for
    /// the picker (`PickerItem::id` is the registry key; `current`: live).
    SessionList(Vec<super::state::PickerItem>),
    /// `/history`: the decided actions, newest first, for the picker
    /// (`PickerItem::id` names the entry for its re-proposal).
    HistoryList(Vec<super::state::PickerItem>),
    /// The agent asks the user (`request_user_input`).
    Question(super::question::QuestionRequest),
    /// That question was taken back (`why` is shown).
    QuestionWithdrawn {
        id: u64,
        why: String,
    },
    /// A command failed in a shell pane of this tab: the pill offers a fix.
    Failure(FailureNotice),
    /// The agent's full plan (ACP sends the whole list every time).
    Plan(Vec<PlanEntry>),
    /// The agent asks; answer with `Effect::AnswerPermission` carrying `request.id`.
    PermissionRequest(PermissionRequest),
    /// The agent withdrew a pending request (e.g. the turn was cancelled).
    PermissionWithdrawn(super::domain::PermissionRequestId),
    /// The pane is on screen again (tmux showed it from where it was
    /// stashed): the card on top is revealed, and its guard starts over.
    PaneShown,
    /// The pane is not on screen (stashed, or its window not active): no
    /// card in it is visible, so none can be confirmed until it is shown.
    PaneHidden,
    /// `session/prompt` returned.
    TurnEnded(StopReason),
    /// A failure worth showing (prompt failed, agent crashed, …).
    Error(String),
    /// A neutral notice from the helper (e.g. "yolo approved: Read file").
    Notice(String),
    Usage(Usage),
    /// Agents the user may switch to: every allowed one, installed or not.
    Agents(Vec<AgentChoice>),
    /// Models the agent offers (or its `model` config option values).
    Models(Vec<ModelChoice>),
    /// The agent's select-type session config options.
    ConfigOptions(Vec<ConfigOption>),
    /// The commands still running after their proposal's time limit
    /// (the whole list, oldest first; empty: none).
    RunningCommands(Vec<super::running::RunningCommand>),
    /// Where confirmed terminal actions go, and that pane's working directory.
    TargetPane {
        pane: String,
        cwd: Option<String>,
    },
    /// What a shell pane (`%N`) is doing now, from the helper's pane
    /// watcher: the cards that type into it say so before they are
    /// confirmed (a busy pane's Run and Insert wait). Facts of a pane that
    /// is neither the target pane nor any card's are dropped.
    PaneFacts {
        pane: String,
        facts: PaneFacts,
    },
    /// Yolo as the session machine decided it: its state (the status line)
    /// and, after the user's `/yolo on|off`, its answer (a line saying so).
    Yolo {
        state: YoloState,
        answer: Option<YoloAnswer>,
    },
    /// The chosen agent is not installed.
    AgentMissing {
        agent: String,
        install_hint: String,
    },
    /// `/agent ID` was not carried out: that agent is not installed (checked
    /// again when asked). The current session stays.
    AgentUnavailable {
        agent: String,
        install: String,
    },
    /// The agent requires authentication before a session can start.
    AuthRequired {
        agent: String,
        methods: Vec<AuthMethod>,
    },
    /// The proposal engine accepted a terminal-action proposal: show its card.
    /// Answer with `Effect::ConfirmProposal` or `Effect::CancelProposal`.
    ProposalAccepted(Box<super::proposal_card::AcceptedProposal>),
    /// The engine ended a proposal the user had not decided on (superseded,
    /// session replaced, timed out, unavailable): its card cannot confirm.
    ProposalResolved {
        id: wta_protocol::ProposalId,
        status: wta_protocol::FinalStatus,
        reason: Option<String>,
    },
    /// The master connection ended, or no master could be reached (again):
    /// the connection is `MasterLost` (not reconnecting), and the pane keeps
    /// its transcript and offers to reconnect. `why` is what the helper
    /// could tell (socket closed, process killed, …); after a reconnect the
    /// user started it says that attempt failed.
    MasterGone {
        why: String,
    },
    /// After [`super::Effect::Reconnect`]: a master answers again
    /// (`new_master` unless it is the one this pane lost, which had only
    /// closed the connection); the connection is `Connecting` (a new
    /// session is being opened).
    Reconnected {
        new_master: bool,
    },
    /// One line of ACP traffic for the F12 debug panel.
    Traffic {
        direction: Direction,
        line: String,
    },
}
