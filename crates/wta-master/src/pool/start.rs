//! Starting one agent instance, in steps: spawn the process (its group
//! watched by the reaper, its stderr followed) and put the relay in front of
//! its stdout ([`spawn`]); run its ACP connection on a lifecycle task that
//! sends `initialize` and reports what the relay did not copy to the router
//! as [`PoolEvent`]s ([`connect`], [`dispatch`]); once it ends, free its
//! slot, report [`PoolEvent::Exited`] and stop the group ([`lifecycle`]);
//! meanwhile wait for `initialize`'s answer, or say why there was none
//! ([`ready`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_client_protocol::v1::schema::InitializeResponse;
use agent_client_protocol::v1::{ConnectionTo, Dispatch};
use agent_client_protocol::{Agent, Client, DynConnectTo, Error};
use tokio::process::Child;
use tokio::sync::oneshot;
use wta_agent::registry::LaunchSpec;
use wta_agent::spawn::{spawn_agent, stop_agent};
use wta_protocol::agent_start::{StartFailure, StartOutcome};

use super::failure::{StartError, exit_outcome, outcome_text};
use super::instance::AgentInstance;
use super::stderr::Stderr;
use super::wiring::{FromAgent, PoolEvent, Slots, Wiring};
use crate::relay::{self, AgentRelay};
use crate::wire;

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
/// How long a dying agent's connection may read what it wrote last.
const LAST_WORDS: Duration = Duration::from_millis(300);

/// How long an agent may take to answer `initialize`:
/// [`INITIALIZE_TIMEOUT_ENV`] when it holds a positive number of seconds.
pub fn initialize_timeout() -> Duration {
    std::env::var(INITIALIZE_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&secs| secs > 0)
        .map_or(INITIALIZE_TIMEOUT, Duration::from_secs)
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

/// Who is being started.
pub(super) struct Start {
    pub spec: LaunchSpec,
    pub generation: u64,
    pub id: u64,
}

/// Starts instance `start.id` of `start.spec`; it is handed out once it
/// answered `initialize`.
pub(super) async fn start(
    wiring: Arc<Wiring>,
    slots: Arc<Slots>,
    start: Start,
) -> Result<Arc<AgentInstance>, StartError> {
    let spawned = spawn(&wiring, &start).await?;
    let (ready_tx, ready_rx) = oneshot::channel::<Ready>();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    // The exit status, for a start that failed (nobody listens otherwise).
    let (exit_tx, exit_rx) = oneshot::channel::<Option<std::process::ExitStatus>>();
    let alive = Arc::new(AtomicBool::new(true));
    let timeout = initialize_timeout();
    tracing::info!(agent = %start.spec.key.id, instance = start.id, pgid = spawned.pgid, argv = ?start.spec.key.argv, "starting agent");
    let Spawned {
        child,
        pgid,
        stderr,
        relay,
        transport,
    } = spawned;
    let connection = connect(
        (wiring.clone(), relay, start.id),
        transport,
        timeout,
        ready_tx,
        stop_rx,
    );
    let ended = Ended {
        wiring,
        slots,
        id: start.id,
        agent: start.spec.key.id.to_string(),
        alive: alive.clone(),
        exit: exit_tx,
    };
    tokio::spawn(lifecycle(connection, child, pgid, ended));
    let failed = match ready_rx.await {
        Ok(Ok((cx, init))) => {
            let key = (start.id, start.spec.key, start.generation);
            return Ok(AgentInstance::new(key, cx, init, alive, stop_tx));
        }
        Ok(Err(failed)) => failed,
        Err(_) => InitFailed::Closed,
    };
    Err(not_started(&start, failed, timeout, exit_rx, &stderr).await)
}

/// A spawned agent process, its stdout behind the relay.
struct Spawned {
    child: Child,
    pgid: i32,
    stderr: Stderr,
    relay: Arc<AgentRelay>,
    transport: DynConnectTo<Client>,
}

async fn spawn(wiring: &Wiring, start: &Start) -> Result<Spawned, StartError> {
    let process = spawn_agent(&start.spec, None).map_err(|e| StartError::plain(e.to_string()))?;
    let pgid = process.pgid;
    wiring.reaper.watch(pgid);
    let child = process.child;
    let stderr = Stderr::follow(process.stderr, start.spec.key.id.to_string(), pgid);
    let relay = AgentRelay::new();
    let routes = relay::Sink {
        routes: wiring.routes.clone(),
        stats: wiring.stats.clone(),
    };
    match relay::transport(
        routes,
        start.id,
        relay.clone(),
        process.stdin,
        process.stdout,
    ) {
        Ok(transport) => Ok(Spawned {
            child,
            pgid,
            stderr,
            relay,
            transport: DynConnectTo::new(transport),
        }),
        Err(err) => {
            stop_agent(child, pgid, None).await;
            wiring.reaper.forget(pgid);
            Err(StartError::plain(format!(
                "cannot read the agent's output: {err}"
            )))
        }
    }
}

/// The agent's ACP connection: `initialize` (answered into `ready`), then
/// open until the agent closes it or `stop` fires.
fn connect(
    (wiring, relay, id): (Arc<Wiring>, Arc<AgentRelay>, u64),
    transport: DynConnectTo<Client>,
    timeout: Duration,
    ready: oneshot::Sender<Ready>,
    stop: oneshot::Receiver<()>,
) -> impl Future<Output = Result<(), Error>> {
    let handler_relay = relay.clone();
    Client
        .v1()
        .name("wta-master")
        .on_receive_dispatch(
            async move |d: Dispatch, _cx| dispatch(&wiring, &handler_relay, id, d).await,
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            let init = cx.send_request(wire::initialize_request()).block_task();
            match tokio::time::timeout(timeout, init).await {
                Ok(Ok(init)) => {
                    relay.set_ready();
                    let _ = ready.send(Ok((cx.clone(), init)));
                }
                Ok(Err(err)) => {
                    let closed = agent_client_protocol::is_incoming_transport_closed(&err)
                        || agent_client_protocol::is_connection_terminated(&err);
                    let failed = if closed {
                        InitFailed::Closed
                    } else {
                        InitFailed::Refused(err.message)
                    };
                    let _ = ready.send(Err(failed));
                    return Ok(());
                }
                Err(_) => {
                    let _ = ready.send(Err(InitFailed::TimedOut));
                    return Ok(());
                }
            }
            tokio::select! {
                _ = cx.incoming_closed() => {}
                _ = stop => {}
            }
            Ok(())
        })
}

/// One message the relay handed the connection. Answers and the relay's
/// fences are the connection's own business; everything else goes to the
/// router, and the connection reads on only once the router handled it: so
/// whatever the agent wrote later (an answer, a fence) is handled after it,
/// as the relay's ordering needs.
async fn dispatch(
    wiring: &Wiring,
    relay: &AgentRelay,
    instance: u64,
    dispatch: Dispatch,
) -> Result<(), Error> {
    let message = match dispatch {
        Dispatch::Response(result, router) => return router.route_with_result(result),
        Dispatch::Notification(msg) if relay::is_fence(&msg.method) => {
            relay.acknowledge(&msg.params);
            return Ok(());
        }
        Dispatch::Notification(msg) => FromAgent::Notification(msg),
        Dispatch::Request(msg, responder) => FromAgent::Request(msg, Box::new(responder)),
    };
    let (handled, done) = oneshot::channel();
    let event = PoolEvent::FromAgent {
        instance,
        message,
        handled,
    };
    if wiring.events.send(event).is_ok() {
        let _ = done.await;
    }
    Ok(())
}

/// What the lifecycle task does once the agent is gone.
struct Ended {
    wiring: Arc<Wiring>,
    slots: Arc<Slots>,
    id: u64,
    agent: String,
    alive: Arc<AtomicBool>,
    exit: oneshot::Sender<Option<std::process::ExitStatus>>,
}

/// Owns the child: waits for the connection or the process to end, then
/// frees the slot (the next request respawns), reports the exit and stops
/// the whole process group.
async fn lifecycle(
    connection: impl Future<Output = Result<(), Error>>,
    mut child: Child,
    pgid: i32,
    ended: Ended,
) {
    // Boxed so it can be dropped (closing the agent's stdin) before the group is stopped.
    let mut conn = Box::pin(connection);
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
            let _ = tokio::time::timeout(LAST_WORDS, &mut conn).await;
            reason
        }
    };
    ended.alive.store(false, Ordering::Release);
    ended.slots.forget_id(ended.id);
    tracing::info!(agent = %ended.agent, instance = ended.id, "agent stopped: {reason}");
    let _ = ended.wiring.events.send(PoolEvent::Exited {
        instance: ended.id,
        reason,
    });
    drop(conn);
    if !ended.exit.is_closed() {
        // A start that failed wants to say how the process ended; its
        // stdin is closed now, so one that is ending ends.
        let status = tokio::time::timeout(EXIT_WAIT, child.wait())
            .await
            .ok()
            .and_then(Result::ok);
        let _ = ended.exit.send(status);
    }
    stop_agent(child, pgid, None).await;
    ended.wiring.reaper.forget(pgid);
}

/// Why the start failed, as data, logged with the agent's last stderr lines.
async fn not_started(
    start: &Start,
    failed: InitFailed,
    timeout: Duration,
    exit: oneshot::Receiver<Option<std::process::ExitStatus>>,
    stderr: &Stderr,
) -> StartError {
    let outcome = match failed {
        InitFailed::TimedOut => StartOutcome::TimedOut {
            secs: timeout.as_secs(),
        },
        InitFailed::Refused(message) => StartOutcome::Refused { message },
        InitFailed::Closed => {
            let status = exit.await.ok().flatten();
            stderr.settle(STDERR_SETTLE).await;
            exit_outcome(status)
        }
    };
    let failure = StartFailure {
        argv: start.spec.key.argv.clone(),
        outcome,
        stderr: stderr.lines(),
    };
    tracing::warn!(
        agent = %start.spec.key.id,
        instance = start.id,
        command = %failure.command_line(),
        "agent did not start: {}; its last lines on stderr:\n{}",
        outcome_text(&failure.outcome),
        if failure.stderr.is_empty() { "(none)".to_owned() } else { failure.stderr.join("\n") }
    );
    StartError::failed(failure)
}
