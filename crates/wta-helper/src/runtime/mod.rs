//! The agent pane's I/O layer: it carries out the session machine's
//! [`Command`]s (`execute.rs`) and turns everything that happens outside it
//! into [`Input`]s ([`Runtime::next`]): the master connection (typed ACP and
//! its wire tap), the answers of spawned calls, the proposal engine's cards.
//! It holds what cannot be data: the connection, the responders of the
//! agent's requests (each answered once, when a command says how), the
//! proposal socket, the card executor, the tmux host.
//!
//! [`Runtime::apply`] is the one way a front end steps the pane: the input
//! goes through [`crate::machine::step`], the commands are carried out, and
//! the inputs they answer at once (the permission preflight) follow before
//! anything else. Nothing here waits: calls are spawned, and their answers
//! come back through [`Runtime::next`].
//!
//! - `execute.rs`: each command's I/O.
//! - `intake.rs`: master events → inputs, responders kept under their keys.
//! - [`client_fs`]: ACP `fs/*` served for the agent.
//! - [`status`]: the status probe and the clipboard (tmux calls).
//! - [`agents`]: the agents a pane may switch to, with install lines.
//! - [`MasterStarter`]: starts a master when the user reconnects and none runs.
//! - `card_decisions.rs`: confirmed cards on the executor; pane watchers.
//! - `long_runs.rs`: commands still running after their time limit, told
//!   to the machine, the session endpoint and the next turn's context.
//! - `hidden.rs`: a pane nobody sees: the tab's card indicator, the bell,
//!   the answer to `wta fix`.
//!
//! The front ends that drive it: the TUI loop in the `wta` binary and the
//! headless driver ([`crate::driver`]).

pub mod agents;
mod card_decisions;
pub mod client_fs;
mod execute;
mod follow_focus;
mod hidden;
mod history;
mod intake;
mod long_runs;
mod master;
mod session_tools;
pub mod status;
mod tab_watch;

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::Instant;

use tokio::sync::mpsc;
use wta_host::TmuxHost;
use wta_protocol::{PaneId, WindowId};
use wta_state::PermissionRequestId;

use crate::connection::{HelperEvent, MasterConnection, PermissionRequest, WireTap};
use crate::machine::{Input, Machine, PaneConfig, RequestKey, WireLine, step};
pub use master::MasterStarter;

/// Who this pane is (the helper's command line).
#[derive(Debug, Clone, Default)]
pub struct RuntimeConfig {
    pub socket: PathBuf,
    /// Agent id; `None` = the master's default.
    pub agent: Option<String>,
    pub owner_tab: Option<WindowId>,
    pub target_pane: Option<PaneId>,
    /// This agent pane (`$TMUX_PANE`), for the visibility probe.
    pub own_pane: Option<PaneId>,
    /// Directory new sessions start in.
    pub cwd: PathBuf,
    /// The system policy on yolo (`allow_yolo_mode`).
    pub yolo_policy: wta_agent::yolo::YoloPolicy,
    /// Yolo for every new session (`--auto-approve-tools` / config).
    pub auto_approve_tools: bool,
    /// The `[delegate]` agent CLI for `delegate: true` proposals.
    pub delegate: Option<wta_agent::Delegate>,
    /// The delegate a card would start now (the `[delegate]` table or an
    /// installed delegate CLI), shown on its card; `None`: such cards are
    /// refused.
    pub delegate_name: Option<String>,
    /// Starts a master when the user reconnects and none runs; `None`
    /// connects to whatever listens on `socket`.
    pub master_starter: Option<MasterStarter>,
    /// Serve the proposal socket and run confirmed cards (the TUI pane);
    /// the headless driver leaves them off.
    pub cards: bool,
    /// What a failed command in the tab does (`[autofix] mode`).
    pub autofix: crate::autofix::AutofixMode,
    /// The first prompt, sent once the first session is open (`--prompt`).
    pub first_prompt: Option<String>,
    /// Proposals one turn may make (`[proposals] per_turn`); `None`: the default.
    pub proposals_per_turn: Option<u32>,
    /// Resume this session (`session/load`) instead of opening a new one.
    pub load_session: Option<String>,
    /// The user's config file as the binary read it; `None`: the runtime
    /// reads it once as it starts ([`Runtime::new`]), or goes without one
    /// when its paths cannot be found.
    pub user_config: Option<crate::config_file::ConfigRead>,
}

impl RuntimeConfig {
    /// The machine's view of this pane.
    pub fn pane_config(&self, has_host: bool) -> PaneConfig {
        PaneConfig {
            agent: self.agent.clone(),
            cwd: self.cwd.clone(),
            owner_tab: self.owner_tab.clone(),
            target_pane: self.target_pane.clone(),
            own_pane: self.own_pane.clone(),
            yolo_policy: self.yolo_policy,
            auto_approve_tools: self.auto_approve_tools,
            has_host,
            own_pid: std::process::id(),
            autofix: self.autofix,
            first_prompt: self.first_prompt.clone(),
            load_session: self.load_session.clone(),
            follow_focus: self
                .user_config
                .as_ref()
                .is_some_and(|read| read.loaded.config.pane.follow_focus),
        }
    }
}

/// A connection made for the `Connect` command of generation `.0`.
struct Connected {
    generation: u64,
    result: Result<
        (
            MasterConnection,
            mpsc::UnboundedReceiver<HelperEvent>,
            Option<u32>,
        ),
        crate::connection::ConnectionError,
    >,
}

/// A client request waiting for its command.
enum HeldRequest {
    Read(Box<crate::connection::Pending<agent_client_protocol::v1::schema::ReadTextFileRequest>>),
    Write(Box<crate::connection::Pending<agent_client_protocol::v1::schema::WriteTextFileRequest>>),
    Terminal(Box<crate::connection::TerminalRequest>),
    Other(Box<crate::connection::Unserved>),
    SessionTool(Box<crate::connection::ExtRequest<wta_protocol::session_tools::SessionToolParams>>),
    ProposalResult(
        Box<crate::connection::ExtRequest<wta_protocol::session_tools::ProposalResultParams>>,
    ),
}

/// The pane's I/O state.
pub struct Runtime {
    config: RuntimeConfig,
    host: Option<TmuxHost>,
    conn: Option<MasterConnection>,
    events: Option<mpsc::UnboundedReceiver<HelperEvent>>,
    /// The newest `Connect`; older connections are dropped on arrival.
    generation: u64,
    links_tx: mpsc::UnboundedSender<Connected>,
    links_rx: mpsc::UnboundedReceiver<Connected>,
    inputs_tx: mpsc::UnboundedSender<Input>,
    inputs_rx: mpsc::UnboundedReceiver<Input>,
    tap: WireTap,
    wire: mpsc::Receiver<WireLine>,
    permissions: BTreeMap<PermissionRequestId, PermissionRequest>,
    requests: BTreeMap<RequestKey, HeldRequest>,
    /// Questions of the agent's waiting for the user.
    questions: BTreeMap<
        RequestKey,
        crate::connection::ExtRequest<wta_protocol::session_tools::UserInputParams>,
    >,
    next_key: u64,
    /// Inputs a command answered at once; they go first.
    immediate: VecDeque<Input>,
    proposals: crate::proposals::ProposalGlue,
    cards: card_decisions::Cards,
    terminals: std::sync::Arc<crate::terminals::Terminals>,
    /// Shell panes of the tab followed for autofix.
    followed: tab_watch::Followed,
    /// A pane nobody sees: its master wait and card indicator.
    unseen: hidden::Unseen,
    /// The action history's recorder (panes with cards only).
    history: Option<crate::history::Recorder>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("connected", &self.conn.is_some())
            .field("permissions", &self.permissions.len())
            .field("requests", &self.requests.len())
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime that has not connected yet; `host` is the tmux server (if any).
    pub fn new(mut config: RuntimeConfig, host: Option<TmuxHost>) -> Self {
        if config.user_config.is_none() {
            // The process's one reading, when the caller had none to give.
            config.user_config = crate::config_file::ConfigRead::from_env().ok();
        }
        let (links_tx, links_rx) = mpsc::unbounded_channel();
        let (inputs_tx, inputs_rx) = mpsc::unbounded_channel();
        let (tap, wire) = WireTap::new();
        let mut proposals = crate::proposals::ProposalGlue::new();
        if let Some(budget) = config.proposals_per_turn {
            proposals.service().set_budget(budget);
        }
        proposals.set_delegate(
            config
                .delegate_name
                .clone()
                .or_else(|| config.delegate.as_ref().map(|d| d.name.clone())),
        );
        let terminals = std::sync::Arc::new(crate::terminals::Terminals::new(
            terminals_config(&config),
            host.clone(),
            inputs_tx.clone(),
        ));
        let history = config.cards.then(|| {
            crate::history::Recorder::new(
                wta_env::history::default_store(),
                host.clone(),
                config.owner_tab.clone(),
            )
        });
        Self {
            history,
            config,
            host,
            conn: None,
            events: None,
            generation: 0,
            links_tx,
            links_rx,
            inputs_tx,
            inputs_rx,
            tap,
            wire,
            permissions: BTreeMap::new(),
            requests: BTreeMap::new(),
            questions: BTreeMap::new(),
            next_key: 1,
            immediate: VecDeque::new(),
            proposals,
            cards: card_decisions::Cards::default(),
            terminals,
            followed: tab_watch::Followed::default(),
            unseen: hidden::Unseen::default(),
        }
    }

    /// The machine for this pane, started: its first commands are carried
    /// out, the proposal socket bound and the cards' executor made.
    pub fn start(&mut self, now: Instant) -> Machine {
        let mut machine = Machine::new(self.config.pane_config(self.host.is_some()));
        for command in machine.start(now) {
            self.execute(command);
        }
        self.listen_for_fix_requests();
        if self.config.cards {
            let mut inputs = Vec::new();
            if let Err(err) = self.proposals.start() {
                inputs.push(Input::ProposalsOff {
                    why: err.to_string(),
                });
            }
            inputs.extend(self.start_cards());
            for input in inputs {
                self.apply(&mut machine, input, now);
            }
        }
        self.drain_immediate(&mut machine, now);
        machine
    }

    /// The proposal engine (the card side attaches here).
    pub fn proposals(&self) -> &crate::proposals::ProposalService {
        self.proposals.service()
    }

    /// Steps `machine` with `input` and carries out what it asks.
    pub fn apply(&mut self, machine: &mut Machine, input: Input, now: Instant) {
        for command in step(machine, input, now) {
            self.execute(command);
        }
        self.drain_immediate(machine, now);
    }

    fn drain_immediate(&mut self, machine: &mut Machine, now: Instant) {
        while let Some(input) = self.immediate.pop_front() {
            for command in step(machine, input, now) {
                self.execute(command);
            }
        }
    }

    /// Waits for the next input (cancel-safe; pending forever when idle).
    pub async fn next(&mut self) -> Input {
        loop {
            tokio::select! {
                biased;
                Some(input) = self.inputs_rx.recv() => return input,
                Some(connected) = self.links_rx.recv() => {
                    if let Some(input) = self.connected(connected) {
                        return input;
                    }
                }
                event = recv_or_pending(&mut self.events) => {
                    if let Some(input) = self.intake(event.unwrap_or(HelperEvent::MasterClosed)) {
                        return input;
                    }
                }
                Some(line) = self.wire.recv() => return Input::Wire(line),
            }
        }
    }

    /// The helper is exiting: stops every pane watcher the executor started
    /// after ending the executions in flight. Callers bound it with a
    /// timeout: it talks to tmux.
    pub async fn shutdown(&mut self) {
        self.terminals.shutdown().await;
        self.cards.shutdown().await;
    }

    /// A spawned call's answer, as an input.
    fn spawn<F>(&self, fut: F)
    where
        F: std::future::Future<Output = Input> + Send + 'static,
    {
        let tx = self.inputs_tx.clone();
        tokio::spawn(async move {
            let _ = tx.send(fut.await);
        });
    }

    /// A blocking call's answer (tmux, files), as an input.
    fn spawn_blocking<F>(&self, work: F)
    where
        F: FnOnce() -> Option<Input> + Send + 'static,
    {
        let tx = self.inputs_tx.clone();
        tokio::task::spawn_blocking(move || {
            if let Some(input) = work() {
                let _ = tx.send(input);
            }
        });
    }

    fn key(&mut self) -> u64 {
        let key = self.next_key;
        self.next_key += 1;
        key
    }
}

/// Where this pane's agent terminals go.
fn terminals_config(config: &RuntimeConfig) -> crate::terminals::TerminalsConfig {
    crate::terminals::TerminalsConfig {
        exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("wta")),
        target_pane: config.target_pane.clone(),
        cwd: config.cwd.clone(),
        dir: crate::proposals::runtime_dir()
            .join("terminals")
            .join(format!("helper-{}", std::process::id())),
        config_file: config
            .user_config
            .as_ref()
            .map(|read| read.paths.config_file.clone()),
    }
}

async fn recv_or_pending<T>(rx: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}
