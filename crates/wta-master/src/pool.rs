//! The agent pool: one process per `AgentKey`, started lazily and shared.
//!
//! Two helpers racing for the same key share one spawn (a `OnceCell` per key).
//! Slots are keyed by [`PoolKey`]: the `AgentKey` plus a generation, 0 for the
//! shared instance; `/restart` asks for a fresh generation, i.e. a new process
//! private to the restarting helper, so other helpers on a hung shared
//! instance are not disturbed.
//! An instance's lifecycle task owns the child: when the process exits or its
//! connection ends, the master is told ([`crate::state::Master::agent_gone`]) and
//! the whole process group is stopped. The slot is then removed, so the next
//! request for that key spawns a fresh instance. The connection reads the
//! agent's stdout through the relay ([`crate::relay`]), which copies routed
//! `session/update` lines to their helper and hands it everything else.
//!
//! Idle instances are retired ([`Pool::retire_if_idle`]): the check and the slot
//! removal happen under the pool lock, and every successful [`Pool::get`] claims
//! its instance under the same lock, stamping `claimed_at`. An instance claimed
//! within the grace period is never retired, so a helper that has just selected
//! it (and is about to record it or send `session/new`) cannot lose it; once it is
//! retired, a racing `get` sees the slot gone and starts a fresh instance.
//!
//! A start that fails (the agent exits, closes its output, refuses or does
//! not answer `initialize` within [`initialize_timeout`]) is a
//! [`StartError`] that says why as data ([`StartFailure`]: the command, how
//! it ended, its last stderr lines from `pool/stderr.rs`), for the helper to
//! show and for the master log.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::{InitializeResponse, SessionId};
use agent_client_protocol::v1::{ConnectionTo, Dispatch};
use agent_client_protocol::{Agent, Client};
use tokio::sync::{OnceCell, oneshot};
use wta_agent::registry::LaunchSpec;
use wta_agent::spawn::{spawn_agent, stop_agent};
use wta_agent::{AgentId, AgentKey};
use wta_protocol::agent_start::{StartFailure, StartOutcome};
use wta_protocol::helper_master::{FailureKind, MasterFailure};

use crate::relay::AgentRelay;
use crate::state::Master;
use crate::wire::{self, Capabilities};

mod stderr;

/// How long an agent may take to answer `initialize` (npx adapters are slow).
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(60);
/// Environment variable (seconds, read at each start) that changes
/// [`INITIALIZE_TIMEOUT`].
pub const INITIALIZE_TIMEOUT_ENV: &str = "WTA_AGENT_INIT_TIMEOUT_SECS";
/// How long a failed agent's exit status is waited for once its
/// connection is gone (its stdin closed).
const EXIT_WAIT: Duration = Duration::from_secs(1);
/// How long an exited agent's stderr may stay open (a child holding it).
const STDERR_SETTLE: Duration = Duration::from_millis(500);

/// How long an agent may take to answer `initialize`:
/// [`INITIALIZE_TIMEOUT_ENV`] when it holds a positive number of seconds.
pub fn initialize_timeout() -> Duration {
    std::env::var(INITIALIZE_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&secs| secs > 0)
        .map_or(INITIALIZE_TIMEOUT, Duration::from_secs)
}

/// Why no instance could be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StartError {
    /// In English, for the log and for clients that read only the message.
    pub message: String,
    /// What the agent did, when it was started at all.
    pub start: Option<StartFailure>,
}

impl StartError {
    fn plain(message: String) -> Self {
        Self {
            message,
            start: None,
        }
    }

    fn failed(start: StartFailure) -> Self {
        let mut message = format!(
            "{} (command: {})",
            outcome_text(&start.outcome),
            start.command_line()
        );
        if let Some(last) = start.stderr.last() {
            message.push_str(&format!("; its stderr ended with: {last}"));
        }
        Self {
            message,
            start: Some(start),
        }
    }

    /// The `agent_start_failed` error a helper gets, the failure in its data.
    pub fn to_acp(&self, agent: &AgentId) -> agent_client_protocol::Error {
        let kind = FailureKind::AgentStartFailed;
        let mut data = MasterFailure::data(kind, Some(agent.as_str()));
        if let Some(start) = &self.start {
            start.attach(&mut data);
        }
        agent_client_protocol::Error::new(
            kind.code(),
            format!("cannot start agent `{agent}`: {}", self.message),
        )
        .data(data)
    }
}

/// How a start ended, in English (the log, [`StartError::message`]).
fn outcome_text(outcome: &StartOutcome) -> String {
    match outcome {
        StartOutcome::Exited { code } => {
            format!("it exited with status {code} before answering initialize")
        }
        StartOutcome::Killed { signal } => {
            format!("it was killed by {signal} before answering initialize")
        }
        StartOutcome::OutputClosed => {
            "it closed its output before answering initialize and was stopped".to_owned()
        }
        StartOutcome::TimedOut { secs } => {
            format!("it did not answer initialize within {secs} s and was stopped")
        }
        StartOutcome::Refused { message } => format!("its initialize failed: {message}"),
    }
}

/// One running agent process and its ACP connection.
#[derive(Debug)]
pub(crate) struct AgentInstance {
    pub id: u64,
    pub key: AgentKey,
    /// 0: the instance shared by every helper selecting `key`; otherwise a
    /// private one started by `/restart`.
    pub generation: u64,
    pub cx: ConnectionTo<Agent>,
    /// The agent's `initialize` result, replayed to every helper.
    pub init: InitializeResponse,
    alive: Arc<AtomicBool>,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    /// When [`Pool::get`] last handed this instance out (written under the pool lock).
    claimed_at: Mutex<Instant>,
}

impl AgentInstance {
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    pub fn agent_id(&self) -> &AgentId {
        &self.key.id
    }

    /// Whether the agent advertised `session/close`.
    pub fn can_close_sessions(&self) -> bool {
        self.init.closes_sessions()
    }

    /// Tells the agent to stop `session`'s turn (`session/cancel`).
    pub fn cancel(&self, session: &SessionId) {
        let _ = self.cx.send_notification(wire::cancel(session.clone()));
    }

    /// Asks the lifecycle task to close stdin and stop the process group.
    pub fn stop(&self) {
        if let Some(tx) = self.stop.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = tx.send(());
        }
    }
}

type Slot = Arc<OnceCell<Arc<AgentInstance>>>;

/// A pool slot: which agent, and which generation of it (0 = shared).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PoolKey {
    pub agent: AgentKey,
    pub generation: u64,
}

/// What [`Pool::retire_if_idle`] did.
#[derive(Debug)]
pub(crate) enum Retire {
    /// Removed from the pool; the caller must stop it.
    Retired(Arc<AgentInstance>),
    /// Handed out within the grace period: check again later.
    RecentlyClaimed,
    /// A helper or a session still uses it.
    InUse,
    /// No longer in the pool (died or already retired).
    Gone,
}

#[derive(Debug, Default)]
pub(crate) struct Pool {
    slots: Mutex<HashMap<PoolKey, Slot>>,
    next: AtomicU64,
    next_generation: AtomicU64,
}

impl Pool {
    /// A generation no instance has used yet (for a private `/restart` instance).
    pub fn fresh_generation(&self) -> u64 {
        self.next_generation.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The live instance for `spec.key` in `generation` (0 = shared), starting
    /// one if needed.
    pub async fn get(
        &self,
        master: &Arc<Master>,
        spec: &LaunchSpec,
        generation: u64,
    ) -> Result<Arc<AgentInstance>, StartError> {
        let key = PoolKey {
            agent: spec.key.clone(),
            generation,
        };
        for _ in 0..3 {
            let slot = self.lock().entry(key.clone()).or_default().clone();
            let instance = slot
                .get_or_try_init(|| {
                    start(
                        Arc::downgrade(master),
                        spec.clone(),
                        generation,
                        self.next.fetch_add(1, Ordering::Relaxed),
                    )
                })
                .await?
                .clone();
            if !instance.is_alive() {
                self.forget(&instance);
            } else if self.claim(&key, &instance) {
                return Ok(instance);
            }
            // Dead, or retired as idle while we waited: start a fresh one.
        }
        Err(StartError::plain(format!(
            "agent `{}` keeps exiting right after it starts",
            spec.key.id
        )))
    }

    /// Stamps `instance` as just handed out, if its slot still holds it.
    fn claim(&self, key: &PoolKey, instance: &AgentInstance) -> bool {
        let slots = self.lock();
        let held = slots
            .get(key)
            .and_then(|slot| slot.get())
            .is_some_and(|i| i.id == instance.id);
        if held {
            *instance
                .claimed_at
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Instant::now();
        }
        held
    }

    /// Removes instance `id` from the pool when it was not handed out within
    /// `grace` and `idle()` (checked under the pool lock) holds. The caller stops it.
    pub fn retire_if_idle(&self, id: u64, grace: Duration, idle: impl FnOnce() -> bool) -> Retire {
        let mut slots = self.lock();
        let Some((key, instance)) = slots.iter().find_map(|(k, slot)| {
            slot.get()
                .filter(|i| i.id == id)
                .map(|i| (k.clone(), i.clone()))
        }) else {
            return Retire::Gone;
        };
        let claimed = *instance
            .claimed_at
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if claimed.elapsed() < grace {
            return Retire::RecentlyClaimed;
        }
        if !idle() {
            return Retire::InUse;
        }
        slots.remove(&key);
        Retire::Retired(instance)
    }

    /// Removes `instance`'s slot if it still holds exactly that instance.
    pub fn forget(&self, instance: &AgentInstance) {
        self.forget_id(instance.id);
    }

    /// Removes the slot holding instance `id`, returning that instance.
    pub fn forget_id(&self, id: u64) -> Option<Arc<AgentInstance>> {
        let mut slots = self.lock();
        let key = slots
            .iter()
            .find(|(_, slot)| slot.get().is_some_and(|i| i.id == id))
            .map(|(k, _)| k.clone())?;
        slots.remove(&key).and_then(|slot| slot.get().cloned())
    }

    pub fn all(&self) -> Vec<Arc<AgentInstance>> {
        self.lock()
            .values()
            .filter_map(|s| s.get().cloned())
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PoolKey, Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// How `initialize` did not succeed, as the connection saw it.
#[derive(Debug)]
enum InitFailed {
    /// The transport closed: the agent exited or closed its output.
    Closed,
    TimedOut,
    /// The agent answered with an error.
    Refused(String),
}

type Ready = Result<(ConnectionTo<Agent>, InitializeResponse), InitFailed>;

async fn start(
    master: Weak<Master>,
    spec: LaunchSpec,
    generation: u64,
    id: u64,
) -> Result<Arc<AgentInstance>, StartError> {
    let process = spawn_agent(&spec, None).map_err(|e| StartError::plain(e.to_string()))?;
    let pgid = process.pgid;
    if let Some(m) = master.upgrade() {
        m.reaper.watch(pgid);
    }
    let mut child = process.child;
    let stderr = stderr::Stderr::follow(process.stderr, spec.key.id.to_string(), pgid);
    let relay = AgentRelay::new();
    let transport = match crate::relay::transport(
        master.clone(),
        id,
        relay.clone(),
        process.stdin,
        process.stdout,
    ) {
        Ok(transport) => transport,
        Err(err) => {
            stop_agent(child, pgid, None).await;
            if let Some(m) = master.upgrade() {
                m.reaper.forget(pgid);
            }
            return Err(StartError::plain(format!(
                "cannot read the agent's output: {err}"
            )));
        }
    };
    let (ready_tx, ready_rx) = oneshot::channel::<Ready>();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    // The exit status, for a start that failed (nobody listens otherwise).
    let (exit_tx, exit_rx) = oneshot::channel::<Option<std::process::ExitStatus>>();
    let agent_label = spec.key.id.to_string();
    let timeout = initialize_timeout();
    tracing::info!(agent = %agent_label, instance = id, pgid, argv = ?spec.key.argv, "starting agent");

    let alive = Arc::new(AtomicBool::new(true));
    let lifecycle_alive = alive.clone();
    let handler_master = master.clone();
    let lifecycle_master = master.clone();
    let handler_relay = relay.clone();
    tokio::spawn(async move {
        let conn = Client
            .v1()
            .name("wta-master")
            .on_receive_dispatch(
                async move |dispatch: Dispatch, _cx| match handler_master.upgrade() {
                    Some(m) => crate::router::from_agent(&m, id, &handler_relay, dispatch),
                    None => Ok(()),
                },
                agent_client_protocol::on_receive_dispatch!(),
            )
            .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                let init = tokio::time::timeout(
                    timeout,
                    cx.send_request(wire::initialize_request()).block_task(),
                )
                .await;
                match init {
                    Ok(Ok(value)) => {
                        relay.set_ready();
                        let _ = ready_tx.send(Ok((cx.clone(), value)));
                    }
                    Ok(Err(err)) => {
                        let closed = agent_client_protocol::is_incoming_transport_closed(&err)
                            || agent_client_protocol::is_connection_terminated(&err);
                        let failed = if closed {
                            InitFailed::Closed
                        } else {
                            InitFailed::Refused(err.message)
                        };
                        let _ = ready_tx.send(Err(failed));
                        return Ok(());
                    }
                    Err(_) => {
                        let _ = ready_tx.send(Err(InitFailed::TimedOut));
                        return Ok(());
                    }
                }
                tokio::select! {
                    _ = cx.incoming_closed() => {}
                    _ = stop_rx => {}
                }
                Ok(())
            });
        // Boxed so it can be dropped (closing the agent's stdin) before the group is stopped.
        let mut conn = Box::pin(conn);
        let reason = tokio::select! {
            result = &mut conn => match result {
                Ok(()) => "its connection closed".to_owned(),
                Err(err) => format!("its connection failed: {}", err.message),
            },
            status = child.wait() => {
                let reason = match status {
                    Ok(s) => format!("the process exited ({s})"),
                    Err(e) => format!("waiting for the process failed: {e}"),
                };
                // Let the connection read what the agent wrote before dying.
                let _ = tokio::time::timeout(Duration::from_millis(300), &mut conn).await;
                reason
            }
        };
        lifecycle_alive.store(false, Ordering::Release);
        if let Some(m) = lifecycle_master.upgrade() {
            m.agent_gone(id, &reason);
        }
        tracing::info!(agent = %agent_label, instance = id, "agent stopped: {reason}");
        drop(conn);
        if !exit_tx.is_closed() {
            // A start that failed wants to say how the process ended; its
            // stdin is closed now, so one that is ending ends.
            let status = tokio::time::timeout(EXIT_WAIT, child.wait())
                .await
                .ok()
                .and_then(Result::ok);
            let _ = exit_tx.send(status);
        }
        stop_agent(child, pgid, None).await;
        if let Some(m) = lifecycle_master.upgrade() {
            m.reaper.forget(pgid);
        }
    });

    let failed = match ready_rx.await {
        Ok(Ok((cx, init))) => {
            return Ok(Arc::new(AgentInstance {
                id,
                key: spec.key,
                generation,
                cx,
                init,
                alive,
                stop: Mutex::new(Some(stop_tx)),
                claimed_at: Mutex::new(Instant::now()),
            }));
        }
        Ok(Err(failed)) => failed,
        Err(_) => InitFailed::Closed,
    };
    let outcome = match failed {
        InitFailed::TimedOut => StartOutcome::TimedOut {
            secs: timeout.as_secs(),
        },
        InitFailed::Refused(message) => StartOutcome::Refused { message },
        InitFailed::Closed => {
            let status = exit_rx.await.ok().flatten();
            stderr.settle(STDERR_SETTLE).await;
            exit_outcome(status)
        }
    };
    let start = StartFailure {
        argv: spec.key.argv.clone(),
        outcome,
        stderr: stderr.lines(),
    };
    tracing::warn!(
        agent = %spec.key.id,
        instance = id,
        command = %start.command_line(),
        "agent did not start: {}; its last lines on stderr:\n{}",
        outcome_text(&start.outcome),
        if start.stderr.is_empty() { "(none)".to_owned() } else { start.stderr.join("\n") }
    );
    Err(StartError::failed(start))
}

/// How a process that closed its connection ended (`None`: still running).
fn exit_outcome(status: Option<std::process::ExitStatus>) -> StartOutcome {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => StartOutcome::Exited { code },
            (None, Some(signal)) => StartOutcome::Killed {
                signal: nix::sys::signal::Signal::try_from(signal)
                    .map_or_else(|_| signal.to_string(), |s| s.as_str().to_owned()),
            },
            (None, None) => StartOutcome::OutputClosed,
        },
        None => StartOutcome::OutputClosed,
    }
}
