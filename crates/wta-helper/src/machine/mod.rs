//! The agent pane as one state machine: [`step`]`(machine, input, now) ->
//! commands`, pure (no I/O, no async runtime, no clock but `now`).
//!
//! ```text
//!   runtime (I/O) ──Input──► step ──► Vec<Command> ──► runtime (I/O)
//!                              │
//!                              ├─ wta_state::update (the chat app: transcript, cards, pickers)
//!                              └─ the pane's session: link to the master, ACP session,
//!                                 permissions, yolo, proposal and executor news, status
//! ```
//!
//! [`Machine`] holds the chat app's [`AppState`] (what `wta-tui` draws) and
//! the session side ([`Pane`]). An input for the app goes through the app's
//! reducer; the app's effects become commands or session steps, whose
//! events go back through the reducer, until nothing is left. Every other
//! input (typed ACP from the master, command answers, the proposal
//! machine's and the executor's news, timers: facts, never words) steps
//! the session side the same way, and the session side words what the
//! pane shows.
//!
//! One owner each: whether a turn runs is the app's (its transcript's open
//! turn; the session side reads it); which ACP session is current (and
//! which to resume), the master link, yolo with its policy block, quitting
//! and the permission requests awaiting an answer are the session side's.
//! The app keeps no copy of them: it is told each change by an event that
//! carries the session side's decision (`Connection`, `SessionStarted`,
//! `MasterGone`, `Reconnected`, `Yolo`), and its effects only ask.
//! Invariants: updates and permission requests of any
//! session but the current one are dropped (a stale permission is
//! cancelled); every permission request is answered exactly once; a master
//! EOF ends the link, the session and the turn, and only the user's
//! `Effect::Reconnect` links again; only `Effect::Quit` or the owner tab
//! going away ends the pane. A session that died with its agent is
//! replaced by the next prompt: a new session first, a line saying so,
//! then the prompt.
//!
//! Files: [`input`] and [`command`] (the two types), [`replies`] and
//! [`call_error`] (what the master's calls answer, as the machine reads
//! them; the connection decodes into them), `effects` (the app's
//! effects), `session` (open, opened, closed, died), `inbound` (ACP and
//! command answers), `link` (the master going and coming back), [`yolo`],
//! [`acp_map`] (typed ACP → app events), [`status`] (probe facts, the
//! sessions table), [`pane_facts`] (what the shell panes are doing, for the
//! cards), `proposal_row` (a proposal CLI call as what it proposes),
//! `cards` (the proposal machine's and the executor's news: the card, a
//! claim refused, an action's end), [`news`] (what the runtime's own work
//! came to: CLI runs, tmux calls, agent terminals, worded here),
//! [`hidden_card`] (a card nobody sees: the tab's indicator and the bell).

pub mod acp_map;
pub mod autofix;
pub mod call_error;
mod cards;
pub mod command;
mod effects;
mod focus;
pub mod hidden_card;
pub mod history;
mod inbound;
pub mod input;
mod link;
mod long_runs;
pub mod news;
pub mod pane_facts;
mod proposal_row;
mod question;
pub mod replies;
mod session;
pub mod status;
pub mod yolo;

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::Instant;

use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionId};
use wta_agent::yolo::YoloPolicy;
use wta_protocol::{PaneId, WindowId};
use wta_state::{
    AppState, AuthMethod, DomainEvent, Event, PaneFacts, PermissionRequestId, Scripted,
};

pub use acp_map::ModelControl;
pub use call_error::ConnectionError;
pub use command::{Call, Command, ProposalNews};
pub use input::{
    ClientCall, ExecutorNews, Input, Linked, PreflightAnswer, Preflighted, RequestKey, WireLine,
};
pub use news::{CliFailure, Delegated, TerminalNews};
pub use replies::{ModelInfo, ModelState, OptionsReply, SessionOpened};
pub use status::Probe;
use yolo::YoloControl;

/// Who this pane is: fixed for its life (but for `target_pane` under
/// `follow_focus`, which moves with the focus).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneConfig {
    /// The agent asked for; `None` = the master's default.
    pub agent: Option<String>,
    /// Directory new sessions start in.
    pub cwd: PathBuf,
    pub owner_tab: Option<WindowId>,
    /// The shell pane this agent works on.
    pub target_pane: Option<PaneId>,
    /// This agent pane (`$TMUX_PANE`).
    pub own_pane: Option<PaneId>,
    /// The system policy on yolo.
    pub yolo_policy: YoloPolicy,
    /// Yolo for every new session (`--auto-approve-tools` / config).
    pub auto_approve_tools: bool,
    /// A tmux server is at hand (status probes, clipboard, sign-in windows).
    pub has_host: bool,
    /// This helper's pid (its row in `/sessions`).
    pub own_pid: u32,
    /// What a failed command in the tab does.
    pub autofix: crate::autofix::AutofixMode,
    /// Sent as the user's first prompt once the first session is open (a
    /// delegate pane's task).
    pub first_prompt: Option<String>,
    /// The pane's first session is this one, loaded (`session/load`): resume.
    pub load_session: Option<String>,
    /// `[pane] follow_focus`: the target pane moves to the tab's focused
    /// shell pane (`focus.rs`); `target_pane` is then where it is now.
    pub follow_focus: bool,
}

impl Default for PaneConfig {
    fn default() -> Self {
        Self {
            agent: None,
            cwd: PathBuf::from("/"),
            owner_tab: None,
            target_pane: None,
            own_pane: None,
            yolo_policy: YoloPolicy::Allowed,
            auto_approve_tools: false,
            has_host: false,
            own_pid: 0,
            autofix: crate::autofix::AutofixMode::default(),
            first_prompt: None,
            load_session: None,
            follow_focus: false,
        }
    }
}

/// The link to the master.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Dialing; `reconnect` when the user asked for it.
    Connecting { reconnect: bool },
    /// Waiting for the master starter (the user's reconnect).
    StartingMaster,
    /// Connected and initialized.
    Up,
    /// No master: the pane waits for the user's Enter.
    Down,
}

/// The session side of the pane.
#[derive(Debug)]
pub struct Pane {
    pub config: PaneConfig,
    pub link: Link,
    /// The agent shown (the one asked for until the master names it).
    pub agent: String,
    /// The agent the master chose or the session runs; `None` until known.
    pub known_agent: Option<String>,
    /// The pid of the master this pane last linked to.
    pub master_pid: Option<u32>,
    pub auth: Vec<AuthMethod>,
    /// The current ACP session.
    pub session: Option<SessionId>,
    /// The session MCP server the master gave that session, by name.
    pub mcp_server: Option<(SessionId, String)>,
    pub model_control: ModelControl,
    /// The session died with its agent: the next prompt opens a new one first.
    pub session_lost: bool,
    /// A prompt waiting for that new session.
    pub pending_prompt: Option<String>,
    /// Permission cards shown, by the session that asked.
    pub permissions: BTreeMap<PermissionRequestId, SessionId>,
    /// Permission requests in the preflight.
    pub preflighting: BTreeMap<PermissionRequestId, (SessionId, Box<RequestPermissionRequest>)>,
    pub yolo: YoloControl,
    /// Whether this pane is seen (refresh the status only then).
    pub visible: bool,
    /// A status probe has seen this pane on screen. Only from then on does
    /// a probe's "hidden" hide its cards from the user: before, a pane nobody
    /// looks at cannot be told from a tmux server no client is attached to
    /// (scripts, tests), where keys are the user's only sign.
    pub probe_saw_it: bool,
    /// Last probed target cwd, so an unchanged probe causes no redraw.
    pub probed_cwd: Option<Option<String>>,
    /// What the pane watcher last said of each shell pane (`pane_facts.rs`).
    pub pane_facts: BTreeMap<PaneId, PaneFacts>,
    /// The pane is to close.
    pub quit: bool,
    pub autofix: autofix::Autofix,
    /// The agent's question up in this pane.
    pub question: Option<question::Asked>,
    /// The agent loads sessions (`loadSession`).
    pub loads_sessions: bool,
    /// The session to resume once linked again (the master went away).
    pub resume: Option<SessionId>,
    /// A `session/load` is in flight: if it fails, a new session opens.
    pub loading: bool,
    /// What the tab's "a card waits" indicator says (`hidden_card.rs`).
    pub hidden_card: hidden_card::Indicator,
}

/// The whole pane: the chat app and its session side.
#[derive(Debug)]
pub struct Machine {
    pub app: AppState,
    pub pane: Pane,
}

/// What one step produced: commands for the I/O layer, events for the app.
#[derive(Debug, Default)]
pub(crate) struct Out {
    pub commands: Vec<Command>,
    pub events: VecDeque<DomainEvent>,
    /// What the user is taken to have typed, after the events.
    pub typed: VecDeque<String>,
}

impl Out {
    pub fn cmd(&mut self, command: Command) {
        self.commands.push(command);
    }

    pub fn event(&mut self, event: DomainEvent) {
        self.events.push_back(event);
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.event(DomainEvent::Error(text.into()));
    }
}

impl Machine {
    /// A pane that has not linked yet.
    pub fn new(config: PaneConfig) -> Self {
        let agent = config.agent.clone().unwrap_or_else(|| "agent".to_owned());
        let yolo = YoloControl::new(config.yolo_policy, config.auto_approve_tools);
        let autofix_mode = config.autofix;
        Self {
            app: AppState::new(&agent),
            pane: Pane {
                agent,
                known_agent: config.agent.clone(),
                config,
                link: Link::Down,
                master_pid: None,
                auth: Vec::new(),
                session: None,
                mcp_server: None,
                model_control: ModelControl::None,
                session_lost: false,
                pending_prompt: None,
                permissions: BTreeMap::new(),
                preflighting: BTreeMap::new(),
                yolo,
                visible: true,
                probe_saw_it: false,
                probed_cwd: None,
                pane_facts: BTreeMap::new(),
                quit: false,
                autofix: autofix::Autofix {
                    mode: autofix_mode,
                    ..autofix::Autofix::default()
                },
                question: None,
                loads_sessions: false,
                resume: None,
                loading: false,
                hidden_card: hidden_card::Indicator::default(),
            },
        }
    }

    /// The pane's first steps: link, read the agents, probe the status,
    /// show yolo and the target pane.
    pub fn start(&mut self, now: Instant) -> Vec<Command> {
        let mut out = Out::default();
        self.connect(self.pane.config.agent.clone(), false, &mut out);
        out.cmd(Command::ReadAgents);
        self.status_due(&mut out);
        out.event(self.pane.yolo.event(None));
        if let Some(pane) = &self.pane.config.target_pane {
            out.event(DomainEvent::TargetPane {
                pane: pane.to_string(),
                cwd: None,
            });
        }
        self.settle(out, now)
    }

    /// Whether the pane is to close.
    pub fn quit_requested(&self) -> bool {
        self.pane.quit
    }

    /// Whether the status line is worth refreshing (seen, or not seen with
    /// a card waiting, so that showing the pane clears the tab's indicator;
    /// with a host and a target). Any terminal input makes the pane seen
    /// again.
    pub fn wants_status(&self) -> bool {
        (self.pane.visible || self.pane.hidden_card.shown())
            && self.pane.config.has_host
            && self.pane.config.target_pane.is_some()
    }

    /// The status timer fired.
    fn status_due(&self, out: &mut Out) {
        if self.wants_status() {
            out.cmd(Command::ProbeStatus);
        }
    }

    /// Feeds `out`'s events through the app until none is left; returns
    /// every command, in order.
    fn settle(&mut self, mut out: Out, now: Instant) -> Vec<Command> {
        loop {
            if let Some(event) = out.events.pop_front() {
                self.app_event(Event::Domain(event), now, &mut out);
            } else if let Some(text) = out.typed.pop_front() {
                self.app_event(Event::Script(Scripted::Submit(text)), now, &mut out);
            } else {
                break;
            }
            if self.pane.quit {
                break;
            }
        }
        out.commands
    }

    /// One event through the app's reducer; its effects step the session.
    fn app_event(&mut self, event: Event, now: Instant, out: &mut Out) {
        for effect in wta_state::update(&mut self.app, event, now) {
            self.effect(effect, out);
            if self.pane.quit {
                return;
            }
        }
    }
}

/// One step: `input` applied, the commands it asks for returned in order.
pub fn step(machine: &mut Machine, input: Input, now: Instant) -> Vec<Command> {
    let mut out = Out::default();
    match input {
        Input::App(event) => {
            let input = matches!(
                event,
                Event::Key(_) | Event::Paste(_) | Event::Mouse(_) | Event::Resize { .. }
            );
            if input {
                // Input reached the pane: it is seen.
                machine.pane.visible = true;
            }
            if input && machine.app.pane_hidden {
                // The app hears it first, so a card in it is revealed (its
                // guard starts over) before this input counts.
                machine.app_event(Event::Domain(DomainEvent::PaneShown), now, &mut out);
                // Shown again (a popup over another pane, say): the focus
                // is read now, not at the next scan.
                machine.focus_due(&mut out);
            }
            machine.app_event(event, now, &mut out);
        }
        Input::StatusDue => machine.status_due(&mut out),
        Input::TabScanDue => {
            let config = &machine.pane.config;
            if machine.pane.autofix.mode != crate::autofix::AutofixMode::Off
                && config.has_host
                && config.owner_tab.is_some()
            {
                out.cmd(Command::ScanTab);
            }
            machine.focus_due(&mut out);
        }
        Input::CommandFinished { pane, finished } => {
            machine.command_finished(pane, *finished, now, &mut out);
        }
        Input::FixRequested { pane, hint, reply } => {
            machine.fix_requested(pane, hint, reply, now, &mut out);
        }
        other => machine.inbound(other, &mut out),
    }
    let mut commands = machine.settle(out, now);
    machine.card_news(&mut commands);
    commands
}

#[cfg(test)]
mod tests;
