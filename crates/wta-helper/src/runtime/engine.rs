//! [`Runtime`]: the agent pane's glue between the chat app and the master.
//!
//! It owns the master connection, the current session, the in-flight turn and
//! the permission responders. The UI loop feeds it [`Input`]s (from
//! [`Runtime::next`]) and the app's [`Effect`]s; it answers with
//! [`DomainEvent`]s for the reducer. It never blocks: every ACP call or tmux
//! call runs in a spawned task whose result comes back as an [`Input`].
//! Effects that need a connection while there is none say so as an event;
//! their execution lives in `effects.rs`, the session lifecycle (open,
//! restart, replace a dead session) in `session.rs`, the inbound side here.
//!
//! Invariants: updates and permission requests of any session other than the
//! current one are dropped (a stale permission is cancelled); each permission
//! request is answered exactly once ([`Permissions`]); a master EOF ends the
//! connection, its session and turn, and only the user's `Effect::Reconnect`
//! connects again (`master.rs`); only `Effect::Quit` ends the pane. A
//! session that died with its agent is replaced by the next prompt: a new
//! session first (which starts the agent again), a visible line saying so,
//! then the prompt.

use std::path::PathBuf;

use serde_json::Value;
use tokio::sync::mpsc;
use wta_host::TmuxHost;
use wta_protocol::helper_master::SessionsListResponse;
use wta_protocol::{PaneId, WindowId};

use super::map::{self, ModelControl};
use super::master::MasterStarter;
use super::permissions::Permissions;
use super::status::{self, Probe};
use crate::connection::{
    ClientRequest, ConnectOptions, ConnectionError, HelperEvent, MasterConnection,
    PermissionRequest,
};
use wta_protocol::helper_master::ClientKind;
use wta_state::{AgentChoice, AuthMethod, Direction, DomainEvent, StopReason};

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
    /// Starts a master when the user reconnects and none runs; `None`
    /// connects to whatever listens on `socket`.
    pub master_starter: Option<MasterStarter>,
}

/// A new connection, its events, and the pid in the master's lock file.
type Connected = (
    MasterConnection,
    mpsc::UnboundedReceiver<HelperEvent>,
    Option<u32>,
);

/// Something the runtime's background work produced.
#[derive(Debug)]
pub enum Input {
    Helper(HelperEvent),
    Done(Done),
}

/// Results of spawned calls.
#[derive(Debug)]
pub enum Done {
    Connected(Box<Result<Connected, ConnectionError>>),
    SessionOpened {
        agent: String,
        result: Result<Value, ConnectionError>,
    },
    Reply {
        call: Call,
        result: Result<Value, ConnectionError>,
    },
    Sessions(Result<SessionsListResponse, ConnectionError>),
    Agents(Vec<AgentChoice>),
    /// The registry read again before `/agent ID` switches.
    AgentChecked {
        id: String,
        agents: Vec<AgentChoice>,
    },
    /// The master starter answered.
    MasterStarted(Result<(), String>),
    Status(Probe),
    Event(DomainEvent),
}

/// Which call a [`Done::Reply`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    SetModel(String),
    SetConfig,
    SetYolo(bool),
    Authenticate,
    CloseSession,
}

/// The pane's runtime state.
pub struct Runtime {
    pub(super) config: RuntimeConfig,
    pub(super) agent: String,
    pub(super) conn: Option<MasterConnection>,
    pub(super) events: Option<mpsc::UnboundedReceiver<HelperEvent>>,
    pub(super) done_tx: mpsc::UnboundedSender<Done>,
    pub(super) done_rx: mpsc::UnboundedReceiver<Done>,
    pub(super) session: Option<String>,
    /// Session of the prompt in flight.
    pub(super) turn: Option<String>,
    pub(super) model_control: ModelControl,
    pub(super) config_ids: Vec<String>,
    pub(super) auth: Vec<AuthMethod>,
    pub(super) permissions: Permissions<PermissionRequest>,
    pub(super) yolo: super::yolo::YoloControl,
    pub(super) host: Option<TmuxHost>,
    pub(super) visible: bool,
    /// Last probed target cwd, so an unchanged probe causes no redraw.
    pub(super) probed_cwd: Option<Option<String>>,
    /// The user closed the pane.
    pub(super) quit: bool,
    /// The agent the master chose or the session runs; `None` until known.
    pub(super) known_agent: Option<String>,
    /// The user asked to reconnect and no connection answered yet.
    pub(super) reconnecting: bool,
    /// The pid of the master this pane last connected to (its lock file).
    pub(super) master_pid: Option<u32>,
    /// Terminal-action proposals (channel, preflight, socket).
    pub(super) proposals: crate::proposals::ProposalGlue,
    /// Recommendation cards: decisions and the executor (`card_decisions.rs`).
    pub(super) cards: super::card_decisions::Cards,
    /// The current session died with its agent process: the next prompt opens
    /// a new session first.
    pub(super) session_lost: bool,
    /// A prompt waiting for that new session.
    pub(super) pending_prompt: Option<String>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("agent", &self.agent)
            .field("session", &self.session)
            .field("turn", &self.turn)
            .field("permissions", &self.permissions)
            .finish_non_exhaustive()
    }
}

pub(super) fn traffic(direction: Direction, line: String) -> DomainEvent {
    DomainEvent::Traffic { direction, line }
}

impl Runtime {
    /// A runtime that has not connected yet; `host` is the tmux server (if any).
    pub fn new(config: RuntimeConfig, host: Option<TmuxHost>) -> Self {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let yolo = super::yolo::YoloControl::new(config.yolo_policy, config.auto_approve_tools);
        let mut proposals = crate::proposals::ProposalGlue::new();
        proposals.set_delegate(config.delegate.as_ref().map(|d| d.name.clone()));
        Self {
            agent: config.agent.clone().unwrap_or_else(|| "agent".to_owned()),
            known_agent: config.agent.clone(),
            config,
            conn: None,
            events: None,
            done_tx,
            done_rx,
            session: None,
            turn: None,
            model_control: ModelControl::None,
            config_ids: Vec::new(),
            auth: Vec::new(),
            permissions: Permissions::default(),
            yolo,
            host,
            visible: true,
            probed_cwd: None,
            quit: false,
            reconnecting: false,
            master_pid: None,
            proposals,
            cards: super::card_decisions::Cards::default(),
            session_lost: false,
            pending_prompt: None,
        }
    }

    /// The agent shown before the master answers.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The proposal engine: the card side attaches here (`attach_ui`,
    /// `confirm`, `cancel_card`).
    pub fn proposals(&self) -> &crate::proposals::ProposalService {
        self.proposals.service()
    }

    /// Set once the user closed the pane (`Effect::Quit`).
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// Whether the status line is worth refreshing (the pane is visible and
    /// has a target). Any terminal input makes it visible again.
    pub fn wants_status(&self) -> bool {
        self.visible && self.host.is_some() && self.config.target_pane.is_some()
    }

    /// Marks the pane visible (it just got input or a resize).
    pub fn touch(&mut self) {
        self.visible = true;
    }

    /// Starts connecting, the agents list and the first status probe.
    pub fn start(&mut self) -> Vec<DomainEvent> {
        self.connect(self.config.agent.clone());
        let tx = self.done_tx.clone();
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Done::Agents(super::agents::known_agents()));
        });
        self.refresh_status();
        let mut events = self.proposals.start();
        events.push(self.yolo.event());
        events.extend(self.start_cards());
        events.extend(
            self.config
                .target_pane
                .iter()
                .map(|p| DomainEvent::TargetPane {
                    pane: p.to_string(),
                    cwd: None,
                }),
        );
        events
    }

    /// Waits for the next input (cancel-safe; pending forever when idle).
    pub async fn next(&mut self) -> Input {
        tokio::select! {
            Some(done) = self.done_rx.recv() => Input::Done(done),
            event = recv_or_pending(&mut self.events) => {
                Input::Helper(event.unwrap_or(HelperEvent::MasterClosed))
            }
        }
    }

    /// Probes the target pane's cwd and this pane's visibility in the background.
    pub fn refresh_status(&self) {
        let (Some(host), Some(target)) = (self.host.clone(), self.config.target_pane.clone())
        else {
            return;
        };
        let own = self.config.own_pane.clone();
        let owner = self.config.owner_tab.clone();
        let tx = self.done_tx.clone();
        tokio::task::spawn_blocking(move || {
            let probe = status::probe(&host, &target, own.as_ref(), owner.as_ref());
            let _ = tx.send(Done::Status(probe));
        });
    }

    pub(super) fn spawn<F>(&self, fut: F)
    where
        F: std::future::Future<Output = Done> + Send + 'static,
    {
        let tx = self.done_tx.clone();
        tokio::spawn(async move {
            let _ = tx.send(fut.await);
        });
    }

    pub(super) fn call<F>(&self, call: Call, fut: F)
    where
        F: std::future::Future<Output = Result<Value, ConnectionError>> + Send + 'static,
    {
        self.spawn(async move {
            Done::Reply {
                call,
                result: fut.await,
            }
        });
    }

    pub(super) fn connect(&mut self, agent: Option<String>) {
        self.conn = None;
        self.events = None;
        self.session = None;
        self.turn = None;
        if let Some(a) = &agent {
            self.agent = a.clone();
        }
        let options = ConnectOptions {
            socket: self.config.socket.clone(),
            agent,
            owner_tab: self.config.owner_tab.clone(),
            target_pane: self.config.target_pane.clone(),
            client: ClientKind::Helper,
        };
        self.spawn(async move {
            let (tx, rx) = mpsc::unbounded_channel();
            let socket = options.socket.clone();
            let result = MasterConnection::connect(options, tx).await;
            let pid = crate::connection::lost::current_master_pid(&socket).await;
            Done::Connected(Box::new(result.map(|conn| (conn, rx, pid))))
        });
    }

    /// Applies one input; the returned events go to the reducer in order.
    pub fn handle(&mut self, input: Input) -> Vec<DomainEvent> {
        match input {
            Input::Helper(event) => self.on_helper(event),
            Input::Done(done) => self.on_done(done),
        }
    }

    fn on_helper(&mut self, event: HelperEvent) -> Vec<DomainEvent> {
        match event {
            HelperEvent::SessionUpdate(n) => {
                if self.session.as_deref() != Some(n.session_id.0.as_ref()) {
                    return Vec::new();
                }
                let update = serde_json::to_value(&n.update).unwrap_or(Value::Null);
                let mut events = vec![traffic(Direction::In, format!("session/update {update}"))];
                events.extend(map::session_update(&update));
                events
            }
            HelperEvent::Permission(p) => self.on_permission(*p),
            HelperEvent::ClientRequest(r) => on_client_request(r),
            HelperEvent::PromptFinished { session_id, result } => {
                if self.turn.as_deref() != Some(&session_id) {
                    return Vec::new();
                }
                self.turn = None;
                self.proposals.service().turn_ended();
                let mut events: Vec<DomainEvent> = self
                    .permissions
                    .cancel_session(Some(&session_id))
                    .into_iter()
                    .map(DomainEvent::PermissionWithdrawn)
                    .collect();
                match result {
                    Ok(reply) => {
                        let stop = serde_json::to_value(reply.stop_reason).unwrap_or(Value::Null);
                        let stop = stop.as_str().unwrap_or("end_turn");
                        events.push(traffic(Direction::In, format!("session/prompt → {stop}")));
                        events.push(DomainEvent::TurnEnded(map::stop_reason(stop)));
                    }
                    Err(ConnectionError::AgentExited { agent }) => {
                        events.extend(self.session_died(&agent, "it exited during the turn"));
                        events.push(DomainEvent::TurnEnded(StopReason::Cancelled));
                    }
                    Err(err) => {
                        events.push(DomainEvent::Error(err.to_string()));
                        events.push(DomainEvent::TurnEnded(StopReason::Cancelled));
                    }
                }
                events
            }
            HelperEvent::Lagged { dropped } => vec![DomainEvent::Error(format!(
                "{dropped} updates from the agent were dropped because this pane fell behind; the transcript may miss text."
            ))],
            HelperEvent::AgentExited(n) => {
                let ours = self
                    .session
                    .as_ref()
                    .is_some_and(|s| n.session_ids.contains(s));
                if !ours {
                    return Vec::new();
                }
                let mut events = self.session_died(&n.agent_id, &n.reason);
                if self.turn.take().is_some() {
                    events.push(DomainEvent::TurnEnded(StopReason::Cancelled));
                }
                events
            }
            HelperEvent::MasterClosed => self.master_closed(),
        }
    }

    fn on_permission(&mut self, p: PermissionRequest) -> Vec<DomainEvent> {
        let session = p.request.session_id.to_string();
        let value = serde_json::to_value(&p.request).unwrap_or(Value::Null);
        let line = traffic(Direction::In, format!("session/request_permission {value}"));
        if self.session.as_deref() != Some(session.as_str()) {
            // A request of a session this pane left: nobody will see the card.
            if let Err(err) = p.cancel() {
                tracing::debug!("cancelling a stale permission request: {err}");
            }
            return vec![line];
        }
        let p = match self.proposals.preflight(Box::new(p)) {
            Ok(events) => return std::iter::once(line).chain(events).collect(),
            Err(p) => *p,
        };
        // Layer 2 of yolo, after the proposal special cases above.
        let card = map::permission_request(wta_state::PermissionRequestId(0), &value);
        if let Some(option) = self.yolo_permission(&card) {
            let notice = format!("Yolo approved: {}", card.title);
            return match p.select(&option) {
                Ok(()) => vec![line, DomainEvent::Notice(notice)],
                Err(err) => vec![line, DomainEvent::Error(err.to_string())],
            };
        }
        let id = self.permissions.insert(&session, p);
        vec![
            line,
            DomainEvent::PermissionRequest(map::permission_request(id, &value)),
        ]
    }

    fn on_done(&mut self, done: Done) -> Vec<DomainEvent> {
        match done {
            Done::Connected(result) => match *result {
                Ok((conn, rx, pid)) => {
                    self.auth = map::auth_methods(&conn.init);
                    if let Some(agent) = conn.agent_id() {
                        self.agent = agent.to_owned();
                        self.known_agent = Some(agent.to_owned());
                    }
                    let line = traffic(Direction::In, format!("initialize → {}", conn.init));
                    self.conn = Some(conn);
                    self.events = Some(rx);
                    let mut events = vec![line];
                    let new_master = self.master_pid != pid;
                    self.master_pid = pid;
                    if std::mem::take(&mut self.reconnecting) {
                        events.push(DomainEvent::Reconnected { new_master });
                    }
                    events.extend(self.open_session(None));
                    events
                }
                Err(
                    err @ (ConnectionError::Unreachable { .. } | ConnectionError::MasterClosed),
                ) => self.master_unreachable(&err),
                Err(err) => {
                    self.reconnecting = false;
                    vec![map::open_failure(&err, &self.agent, &self.auth)]
                }
            },
            // A reply the old master sent before it went away.
            Done::SessionOpened { .. } if self.conn.is_none() => Vec::new(),
            Done::SessionOpened { agent, result } => self.session_opened(agent, result),
            Done::AgentChecked { id, agents } => self.agent_checked(id, agents),
            Done::MasterStarted(result) => self.master_started(result),
            Done::Reply { call, result } => self.reply(call, result),
            Done::Sessions(Ok(list)) => vec![DomainEvent::Notice(status::sessions_table(
                &list,
                std::process::id(),
            ))],
            Done::Sessions(Err(err)) => vec![DomainEvent::Error(format!(
                "Cannot list the master's sessions: {err}"
            ))],
            Done::Agents(agents) => vec![DomainEvent::Agents(agents)],
            Done::Status(probe) => {
                if probe.owner_gone {
                    // The tab was closed (with this pane stashed): end the
                    // pane, its helper and, through the master, its sessions.
                    tracing::info!("the tab this agent pane belongs to is gone; exiting");
                    self.quit = true;
                    return Vec::new();
                }
                self.visible = probe.visible;
                if self.probed_cwd.as_ref() == Some(&probe.cwd) {
                    return Vec::new();
                }
                self.probed_cwd = Some(probe.cwd.clone());
                self.config
                    .target_pane
                    .iter()
                    .map(|p| DomainEvent::TargetPane {
                        pane: p.to_string(),
                        cwd: probe.cwd.clone(),
                    })
                    .collect()
            }
            Done::Event(DomainEvent::ProposalAccepted(mut card)) => {
                // The card says where a `send` runs: the target's last probed cwd.
                if card.target_cwd.is_none() {
                    card.target_cwd = self.probed_cwd.clone().flatten();
                }
                vec![DomainEvent::ProposalAccepted(card)]
            }
            Done::Event(event) => vec![event],
        }
    }
}

/// Serves `fs/*` off the UI task; refuses what this pane does not serve
/// (`terminal/*` until the shell manager exists) with a clear error.
fn on_client_request(request: ClientRequest) -> Vec<DomainEvent> {
    let method = request.method.clone();
    if super::client_fs::serves(&method) {
        tokio::task::spawn_blocking(move || {
            let result = super::client_fs::serve(&request.method, &request.params);
            let sent = match result {
                Some(Ok(value)) => request.respond(value),
                Some(Err((code, message))) => request.fail(code, &message),
                None => request.fail(-32601, "not served"),
            };
            if let Err(err) = sent {
                tracing::debug!("answering an fs request: {err}");
            }
        });
        return vec![traffic(Direction::In, method)];
    }
    if let Err(err) = request.fail(
        -32601,
        &format!("this wta pane does not serve `{method}` yet"),
    ) {
        tracing::debug!("answering {method}: {err}");
    }
    vec![traffic(
        Direction::In,
        format!("{method} (refused: not served)"),
    )]
}

async fn recv_or_pending<T>(rx: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}
