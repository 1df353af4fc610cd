//! `AppState`: everything one agent pane shows, as plain data. Views read
//! it; only the reducer writes it (except what the view measures:
//! `viewport`, `transcript_area` and `selected_text`).

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use super::debug::DebugLog;
use super::domain::{
    AgentChoice, AuthMethod, ConfigOption, ConnectionState, KeyPath, ModelChoice, PaneFacts, Usage,
    YoloState,
};
use super::guard::{self, CardGuard, TopCard};
use super::input::InputEditor;
use super::permission::PermissionQueue;
use super::proposal_card::ProposalQueue;
use super::selection::{Click, SelectedText, Selection, TranscriptArea};
use super::slash::{self, ArgSources, Completion};
use super::transcript::{ItemId, Transcript};

/// A second Ctrl+C within this window closes the pane.
pub const QUIT_WINDOW: Duration = Duration::from_millis(1500);

/// Where the transcript view sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scroll {
    /// Show the newest lines and follow the stream.
    #[default]
    Follow,
    /// Reading history: the line at `top` (from the start) stays at the top
    /// while new content arrives below.
    Pinned { top: usize },
}

/// Transcript geometry measured by the last render. This is the one value
/// the view writes back: PageUp needs to know how long a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Viewport {
    pub total_lines: usize,
    pub rows: usize,
}

impl Viewport {
    /// The transcript line at the top of the view for this scroll position
    /// (the view draws from here; mouse rows map through it).
    pub fn top(&self, scroll: Scroll) -> usize {
        let bottom_top = self.total_lines.saturating_sub(self.rows);
        match scroll {
            Scroll::Follow => bottom_top,
            Scroll::Pinned { top } => top.min(bottom_top),
        }
    }
}

/// The target pane confirmed actions go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetPane {
    pub pane: String,
    pub cwd: Option<String>,
}

/// What a picker chooses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerKind {
    Agent,
    Model,
    ConfigOption,
    ConfigValue {
        option: String,
    },
    /// Every agent session of the server (`/sessions`).
    Sessions,
    /// The action history, newest first (`/history`).
    History,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerItem {
    pub id: String,
    pub label: String,
    pub detail: String,
    pub current: bool,
}

/// A list the user picks one entry from (agents, models, config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picker {
    pub kind: PickerKind,
    pub title: String,
    pub items: Vec<PickerItem>,
    pub selected: usize,
}

/// Why the pane cannot chat yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setup {
    NotInstalled {
        agent: String,
        install_hint: String,
    },
    NeedsAuth {
        agent: String,
        methods: Vec<AuthMethod>,
        selected: usize,
    },
}

/// A session change the user asked for and has not seen finish yet: the
/// transcript says when it is ready or that it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// `/new`.
    NewSession,
    /// `/restart`.
    Restart,
    /// `/agent ID` or the agent picker.
    SwitchAgent(String),
    /// Enter after the master went away.
    Reconnect,
}

/// What the status line says the pane waits for: the agent (a turn runs),
/// the user (a card on top), or the connection (a master or a session
/// being opened).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    /// The master went away; the pane waits for Enter to reconnect.
    MasterLost,
    /// Waiting for the connection, for `elapsed`: a master after Enter
    /// (`reconnect`), or the agent's session.
    Connecting {
        elapsed: Duration,
        reconnect: bool,
    },
    Ready,
    /// Waiting for the agent: its turn has run for `elapsed`.
    Thinking {
        elapsed: Duration,
    },
    /// Waiting for the user to answer the card on top (whatever the
    /// agent's turn is doing meanwhile: it waits for the same answer).
    WaitingForYou(UserWait),
    Failed(String),
    Setup,
}

/// Which card waits for the user (the one on top, `guard.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserWait {
    Permission,
    Question,
    /// A terminal-action card.
    Card,
}

#[derive(Debug, Clone, Default)]
pub struct AppState {
    /// The link and the session as the helper's machine last said.
    pub connection: ConnectionState,
    pub agent: String,
    pub model: Option<String>,
    pub target: Option<TargetPane>,
    /// Commands still running after their proposal's time limit (`running.rs`).
    pub running: Vec<super::running::RunningCommand>,
    /// Yolo as the helper's session machine last said (it decides; the
    /// status line and a bare `/yolo` show it).
    pub yolo: YoloState,
    pub usage: Option<Usage>,
    /// A question of the agent's waiting for the user.
    pub question: Option<super::question::PendingQuestion>,
    /// The last failed command of this tab, until a fix starts for it.
    pub failure: Option<super::domain::FailureNotice>,
    /// Agent terminals seen, by id (tool-call rows show them).
    pub terminals: std::collections::BTreeMap<String, super::domain::TerminalView>,
    pub transcript: Transcript,
    pub input: InputEditor,
    pub permissions: PermissionQueue,
    /// Terminal-action recommendation cards (shown after permission cards).
    pub proposals: ProposalQueue,
    /// What the shell panes cards type into (the target pane, each card's
    /// own) are doing, by pane (`%N`), as the helper last told. A pane not
    /// here is unknown: its cards say nothing about it. Only
    /// `proposal_card_pane.rs` writes it.
    pub pane_facts: std::collections::BTreeMap<String, PaneFacts>,
    /// The card on top and since when it is visible (only `guard.rs`
    /// writes it, after every event).
    pub guard: CardGuard,
    /// The pane is not on screen (the helper's status probe said so).
    pub pane_hidden: bool,
    pub picker: Option<Picker>,
    pub setup: Option<Setup>,
    pub debug: DebugLog,
    pub scroll: Scroll,
    pub viewport: Cell<Viewport>,
    /// Where the view last drew the transcript (written by the view).
    pub transcript_area: Cell<Option<TranscriptArea>>,
    /// Mouse selection in the transcript; Ctrl+C copies it.
    pub selection: Option<Selection>,
    /// The text `selection` covers as last drawn (written by the view).
    pub selected_text: RefCell<Option<SelectedText>>,
    /// The keyboard select mode over the transcript (`copy_mode.rs`).
    pub copy_mode: Option<super::copy_mode::CopyMode>,
    /// The transcript's wrapped lines, written by the view while
    /// `copy_mode` is on (the mode moves and searches over them).
    pub transcript_text: RefCell<Option<super::copy_mode::TranscriptText>>,
    /// A message typed while the agent was answering, sent when the turn
    /// ends (back to the editor if it was cancelled; Esc on an empty editor
    /// takes it back too).
    pub queued: Option<String>,
    /// The last press in the transcript (double and triple clicks).
    pub last_click: Option<Click>,
    /// Highlighted foldable entry (Tab cycles, Enter toggles).
    pub fold_focus: Option<ItemId>,
    /// Highlighted row of the slash popup.
    pub popup_selected: usize,
    /// Esc hid the popup for the current text.
    pub popup_dismissed: bool,
    pub quit_armed_at: Option<Instant>,
    pub turn_started: Option<Instant>,
    /// Since when the pane waits for a connection (kept by the reducer
    /// after every event: set when the wait starts, cleared when it ends).
    pub connecting_since: Option<Instant>,
    /// Advances on every tick; drives the spinner.
    pub frame: u64,
    /// Time of the latest event, so views can show elapsed times purely.
    pub clock: Option<Instant>,
    pub agents: Vec<AgentChoice>,
    pub models: Vec<ModelChoice>,
    pub config_options: Vec<ConfigOption>,
    /// The session change in progress (`/new`, `/restart`, `/agent`, reconnect).
    pub pending: Option<Pending>,
    /// Why the setup screen did not send what was typed, and what to do.
    pub setup_notice: Option<String>,
    /// The popup highlight was moved with ↑↓: Enter takes that row.
    pub popup_chosen: bool,
}

impl AppState {
    /// A pane about to connect to `agent`.
    pub fn new(agent: &str) -> Self {
        Self {
            agent: agent.to_owned(),
            ..Self::default()
        }
    }

    /// What the pane waits for (the status line's first word). Order: the
    /// master gone, the setup screen, the connection, the card on top,
    /// the agent's turn.
    pub fn activity(&self) -> Activity {
        match &self.connection {
            ConnectionState::MasterLost {
                reconnecting: false,
            } => Activity::MasterLost,
            ConnectionState::MasterLost { reconnecting: true } => Activity::Connecting {
                elapsed: self.since(self.connecting_since),
                reconnect: true,
            },
            _ if self.setup.is_some() => Activity::Setup,
            ConnectionState::Connecting => Activity::Connecting {
                elapsed: self.since(self.connecting_since),
                reconnect: false,
            },
            ConnectionState::Failed(reason) => Activity::Failed(reason.clone()),
            ConnectionState::Ready => match self.top_card() {
                Some(TopCard::Permission(_)) => Activity::WaitingForYou(UserWait::Permission),
                Some(TopCard::Question(_)) => Activity::WaitingForYou(UserWait::Question),
                Some(TopCard::Proposal { .. }) => Activity::WaitingForYou(UserWait::Card),
                None if self.transcript.turn_running() => Activity::Thinking {
                    elapsed: self.since(self.turn_started),
                },
                None => Activity::Ready,
            },
        }
    }

    /// Time from `start` to the latest event (zero when either is unknown).
    fn since(&self, start: Option<Instant>) -> Duration {
        match (start, self.clock) {
            (Some(start), Some(now)) => now.saturating_duration_since(start),
            _ => Duration::ZERO,
        }
    }

    /// Whether the pane waits for a connection: a master after Enter, or
    /// the agent's session (not while the setup screen waits for the user).
    pub fn waits_for_connection(&self) -> bool {
        match &self.connection {
            ConnectionState::MasterLost { reconnecting } => *reconnecting,
            ConnectionState::Connecting => self.setup.is_none(),
            ConnectionState::Ready | ConnectionState::Failed(_) => false,
        }
    }

    /// Whether the master is gone (the pane waits for Enter, or for the
    /// reconnect Enter started).
    pub fn master_lost(&self) -> bool {
        matches!(self.connection, ConnectionState::MasterLost { .. })
    }

    /// Whether a reconnect the user asked for is under way.
    pub fn reconnecting(&self) -> bool {
        self.connection == ConnectionState::MasterLost { reconnecting: true }
    }

    /// Slash-popup rows for the current input (empty when hidden).
    pub fn completions(&self) -> Vec<Completion> {
        if self.popup_dismissed || self.picker.is_some() {
            return Vec::new();
        }
        let sources = ArgSources {
            agents: &self.agents,
            models: &self.models,
        };
        slash::completions(self.input.text(), sources)
    }

    /// The card keys go to and the view draws: a permission card, else the
    /// agent's question, else (unless the master-gone notice covers it) the
    /// front proposal card.
    pub fn top_card(&self) -> Option<TopCard> {
        guard::top_card(self)
    }

    /// Whether the card on top takes keys at `now`: it has been visible,
    /// as it is now, for the whole grace period. False without a card.
    pub fn card_armed(&self, now: Instant) -> bool {
        let top = self.top_card();
        top.is_some() && self.guard.on_top() == top && self.guard.armed(now)
    }

    /// What `pane` is doing, as last told; the default (nothing to say)
    /// while nothing is known.
    pub fn facts_of(&self, pane: &str) -> &PaneFacts {
        const UNKNOWN: PaneFacts = PaneFacts {
            busy: None,
            typed_text: false,
            keys: KeyPath::Handoff,
            untracked: None,
        };
        self.pane_facts.get(pane).unwrap_or(&UNKNOWN)
    }

    /// True while a quit press is armed (the hint is visible).
    pub fn quit_armed(&self) -> bool {
        match (self.quit_armed_at, self.clock) {
            (Some(armed), Some(now)) => now.saturating_duration_since(armed) < QUIT_WINDOW,
            _ => false,
        }
    }

    /// Whether the driver should keep sending ticks. An idle pane needs none,
    /// so it uses no CPU.
    pub fn needs_tick(&self) -> bool {
        self.transcript.turn_running()
            // The spinner and its elapsed time (not while the setup screen
            // or the master-gone notice waits for the user).
            || self.waits_for_connection()
            || self.quit_armed_at.is_some()
            // The card's "read it first" hint goes once it is armed.
            || self.clock.is_some_and(|now| self.guard.arming(now))
    }
}
