//! Message routing in both directions.
//!
//! Agent → helper: `session/update` and other session notifications, and the
//! agent's requests (`session/request_permission`, `fs/*`, `terminal/*`) go to the
//! helper owning that (instance, sessionId) only; anything else is refused. Most
//! updates never get here: the relay copies them ([`crate::relay`]); what
//! reaches [`from_agent`] is everything else, and the relay's fences.
//! Everything sent to a helper goes through [`HelperHandle::ordered`] /
//! [`HelperHandle::respond`], in order with relayed updates.
//! Helper → agent: `initialize` starts or reuses the helper's agent and answers
//! from its cached result; `session/new|load` bind the session; requests naming a
//! sessionId go to that session's agent after an ownership check. The helper never
//! supplies a command: only an agent id, resolved by the registry.

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Dispatch, Responder};
use agent_client_protocol::{Client, Error, UntypedMessage};
use serde_json::Value;
use wta_agent::{AgentError, AgentId};
use wta_protocol::helper_master::{
    self, ClientKind, FailureKind, MasterFailure, SessionsListResponse, WtaMeta,
};

use crate::pool::AgentInstance;
use crate::relay::{self, AgentRelay};
use crate::state::{HelperHandle, Master};
use crate::wire::{self, Capabilities};
use crate::{registry_requests, session_mcp};
use wta_protocol::agent_sessions::{self, AgentStatus};

fn session_id(params: &Value) -> Option<&str> {
    params.get("sessionId").and_then(Value::as_str)
}

fn failure(kind: FailureKind, agent: Option<&AgentId>, message: impl Into<String>) -> Error {
    Error::new(kind.code(), message).data(MasterFailure::data(kind, agent.map(AgentId::as_str)))
}

fn agent_error(err: &AgentError, agent: Option<&AgentId>) -> Error {
    let kind = match err {
        AgentError::NotAllowed { .. } => FailureKind::AgentNotAllowed,
        AgentError::InvalidId { .. } => FailureKind::BadMeta,
        AgentError::Spawn { .. } | AgentError::CurrentExe(_) => FailureKind::AgentStartFailed,
        _ => FailureKind::AgentUnavailable,
    };
    failure(kind, agent, err.to_string())
}

/// Maps an error from a forwarded request: a dead agent becomes `agent_exited`.
fn forwarded_error(err: Error, instance: &AgentInstance) -> Error {
    if !instance.is_alive()
        || agent_client_protocol::is_connection_terminated(&err)
        || agent_client_protocol::is_incoming_transport_closed(&err)
    {
        agent_exited(instance)
    } else {
        err
    }
}

fn agent_exited(instance: &AgentInstance) -> Error {
    failure(
        FailureKind::AgentExited,
        Some(instance.agent_id()),
        format!(
            "agent `{}` exited and this session went with it; a new session starts the agent again",
            instance.agent_id()
        ),
    )
}

/// Everything an agent instance sends us that the relay did not copy.
pub(crate) fn from_agent(
    master: &Arc<Master>,
    instance: u64,
    agent_relay: &AgentRelay,
    dispatch: Dispatch,
) -> Result<(), Error> {
    match dispatch {
        Dispatch::Notification(msg) if relay::is_fence(&msg.method) => {
            agent_relay.acknowledge(&msg.params);
            Ok(())
        }
        Dispatch::Notification(msg) => {
            match session_id(&msg.params).and_then(|s| master.session_helper(instance, s)) {
                Some(helper) => master.deliver_notification(&helper, msg),
                None => {
                    tracing::debug!(instance, method = %msg.method, "agent notification for no known session dropped")
                }
            }
            Ok(())
        }
        Dispatch::Request(msg, responder) => {
            let helper = session_id(&msg.params).and_then(|s| master.session_helper(instance, s));
            match helper.as_ref().and_then(|h| Some((h, h.cx.get()?))) {
                Some((helper, cx)) => {
                    helper.ordered(|| cx.send_request(msg).forward_response_to(responder))
                }
                None => responder.respond_with_error(failure(
                    FailureKind::UnknownSession,
                    None,
                    format!("`{}` names no session of this agent", msg.method),
                )),
            }
        }
        Dispatch::Response(result, router) => router.route_with_result(result),
    }
}

/// Everything a helper sends us.
pub(crate) fn from_helper(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    dispatch: Dispatch,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let _ = helper.cx.set(cx.clone());
    match dispatch {
        Dispatch::Request(msg, responder) => helper_request(master, helper, msg, responder, cx),
        Dispatch::Notification(msg) => {
            helper_notification(master, helper, msg);
            Ok(())
        }
        Dispatch::Response(result, router) => router.route_with_result(result),
    }
}

fn helper_request(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    msg: UntypedMessage,
    responder: Responder<Value>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    match helper_master::ext_method(&msg.method) {
        Some(agent_sessions::METHOD_HOOK_EVENT) => {
            let answer = registry_requests::hook_event(master, msg.params);
            return helper.respond(responder, answer);
        }
        Some(agent_sessions::METHOD_FORGET_SESSION) => {
            let answer = registry_requests::forget_session(master, msg.params);
            return helper.respond(responder, answer);
        }
        Some(agent_sessions::METHOD_AGENT_SESSIONS) => {
            let (master, helper) = (master.clone(), helper.clone());
            return cx.spawn(async move {
                let rows = registry_requests::agent_sessions(&master).await;
                let _ = helper.respond(responder, Ok(rows));
                Ok(())
            });
        }
        _ => {}
    }
    if helper_master::ext_method(&msg.method) == Some(helper_master::METHOD_SESSIONS) {
        let list = SessionsListResponse {
            sessions: master.sessions(),
        };
        return helper.respond(responder, Ok(serde_json::to_value(list)?));
    }
    if helper_master::ext_method(&msg.method) == Some(helper_master::METHOD_SESSION_STATE) {
        let params: helper_master::SessionStateParams =
            match serde_json::from_value(msg.params.clone()) {
                Ok(p) => p,
                Err(e) => {
                    return helper.respond(
                        responder,
                        Err(failure(
                            FailureKind::BadMeta,
                            None,
                            format!("invalid _wta/session_state params: {e}"),
                        )),
                    );
                }
            };
        if !master.set_session_yolo(helper.id, &params.session_id, params.yolo) {
            return helper.respond(
                responder,
                Err(failure(
                    FailureKind::UnknownSession,
                    None,
                    format!("no session `{}` belongs to this pane", params.session_id),
                )),
            );
        }
        return helper.respond(responder, wire::to_result(wire::Done {}));
    }
    match msg.method.as_str() {
        "initialize" => {
            let (master, helper) = (master.clone(), helper.clone());
            cx.spawn(async move {
                let result = initialize(&master, &helper, &msg.params).await;
                let _ = helper.respond(responder, result);
                Ok(())
            })
        }
        "session/new" | "session/load" => {
            let (master, helper) = (master.clone(), helper.clone());
            cx.spawn(async move {
                if let Err(err) = open_session(&master, &helper, msg, responder).await {
                    tracing::debug!(helper = helper.id, "session open failed: {}", err.message);
                }
                Ok(())
            })
        }
        _ => {
            let instance = match session_id(&msg.params) {
                Some(session) => master.session_agent(helper.id, session).ok_or_else(|| {
                    failure(
                        FailureKind::UnknownSession,
                        None,
                        format!("no session `{session}` belongs to this pane"),
                    )
                }),
                None => current_agent(helper),
            };
            let instance = match instance {
                Ok(i) => i,
                Err(err) => return helper.respond(responder, Err(err)),
            };
            if !instance.is_alive() {
                return helper.respond(
                    responder,
                    Err(forwarded_error(Error::internal_error(), &instance)),
                );
            }
            // A helper that closes a session no longer owns it, whatever the agent
            // answers: unbind it so it leaves `sessions list`, and let an agent
            // left without sessions or helpers be reaped.
            let closing = (msg.method == "session/close")
                .then(|| session_id(&msg.params).map(str::to_owned))
                .flatten();
            if let Some(session) = closing.as_deref()
                && !instance.can_close_sessions()
            {
                // An agent that cannot close (the demo, some CLIs) is told to
                // stop the session's turn; the pane's close succeeds here.
                if let Some(closed) = master.unbind(helper.id, session) {
                    closed.cancel(session);
                    master.schedule_reap(closed.id);
                }
                return helper.respond(responder, wire::to_result(wire::closed_locally()));
            }
            // A prompt in flight: the session is working until it is answered.
            let prompting = (msg.method == "session/prompt")
                .then(|| session_id(&msg.params).map(str::to_owned))
                .flatten();
            if let Some(session) = &prompting {
                master
                    .registry
                    .activity(helper.id, session, AgentStatus::Working);
            }
            let answer = Forwarded {
                master: master.clone(),
                helper: helper.clone(),
                instance: instance.clone(),
                closing,
                prompting,
                responder: Some(responder),
            };
            // Prepared: the agent's answer is handled under its dispatch's
            // ordering barrier, so the relay copies an update the agent wrote
            // after it only once the answer is queued for the helper.
            instance
                .cx
                .prepare_request(msg)
                .on_receiving_result(async move |result| {
                    answer.finish(result);
                    Ok(())
                })
        }
    }
}

/// The pending answer to one helper request forwarded to an agent.
/// Dropped unanswered (the agent's connection ended before it answered, so
/// the crate never calls back), it answers that the agent exited.
struct Forwarded {
    master: Arc<Master>,
    helper: Arc<HelperHandle>,
    instance: Arc<AgentInstance>,
    /// The session a `session/close` names: unbound whatever the agent answers.
    closing: Option<String>,
    /// The session whose `session/prompt` this is.
    prompting: Option<String>,
    responder: Option<Responder<Value>>,
}

impl Forwarded {
    fn finish(mut self, result: Result<Value, Error>) {
        self.answer(result.map_err(|e| forwarded_error(e, &self.instance)));
    }

    fn answer(&mut self, result: Result<Value, Error>) {
        let Some(responder) = self.responder.take() else {
            return;
        };
        if let Some(session) = self.prompting.take() {
            let status = if result.is_ok() {
                AgentStatus::Idle
            } else {
                AgentStatus::Error
            };
            self.master
                .registry
                .activity(self.helper.id, &session, status);
        }
        if let Some(session) = self.closing.take()
            && let Some(closed) = self.master.unbind(self.helper.id, &session)
            && tokio::runtime::Handle::try_current().is_ok()
        {
            self.master.schedule_reap(closed.id);
        }
        let _ = self.helper.respond(responder, result);
    }
}

impl Drop for Forwarded {
    fn drop(&mut self) {
        let exited = agent_exited(&self.instance);
        self.answer(Err(exited));
    }
}

fn current_agent(helper: &HelperHandle) -> Result<Arc<AgentInstance>, Error> {
    helper
        .agent
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .ok_or_else(|| {
            failure(
                FailureKind::NoAgent,
                None,
                "this connection has no agent (it did not initialize as a helper)",
            )
        })
}

fn helper_notification(master: &Arc<Master>, helper: &Arc<HelperHandle>, msg: UntypedMessage) {
    let instance = match session_id(&msg.params) {
        Some(session) => master.session_agent(helper.id, session),
        None => current_agent(helper).ok(),
    };
    match instance {
        Some(instance) if instance.is_alive() => {
            let _ = instance.cx.send_notification(msg);
        }
        _ => {
            tracing::debug!(helper = helper.id, method = %msg.method, "helper notification for no live session dropped")
        }
    }
}

fn parse_meta(params: &Value) -> Result<WtaMeta, Error> {
    WtaMeta::from_params(params)
        .map(Option::unwrap_or_default)
        .map_err(|e| {
            failure(
                FailureKind::BadMeta,
                None,
                format!("invalid _meta.wta: {e}"),
            )
        })
}

/// Resolves the agent a request selects (`_meta.wta.agentId`, else the default)
/// through the registry and returns a live instance of it.
/// `generation` 0 is the instance shared per `AgentKey`; others are private (`/restart`).
async fn agent_for(
    master: &Arc<Master>,
    agent_id: Option<&str>,
    generation: u64,
) -> Result<Arc<AgentInstance>, Error> {
    let registry = master.registry().map_err(|e| agent_error(&e, None))?;
    let id = match agent_id {
        Some(text) => AgentId::parse(text).map_err(|e| agent_error(&e, None))?,
        None => registry.default_agent(),
    };
    let spec = registry
        .resolve(&id)
        .map_err(|e| agent_error(&e, Some(&id)))?;
    master
        .pool
        .get(master, &spec, generation)
        .await
        .map_err(|err| err.to_acp(&id))
}

async fn initialize(
    master: &Arc<Master>,
    helper: &HelperHandle,
    params: &Value,
) -> Result<Value, Error> {
    let meta = parse_meta(params)?;
    *helper.meta.lock().unwrap_or_else(|p| p.into_inner()) = meta.clone();
    if meta.client == ClientKind::Cli {
        return wire::to_result(wire::cli_initialize_response());
    }
    let instance = agent_for(master, meta.agent_id.as_deref(), 0).await?;
    tracing::info!(helper = helper.id, agent = %instance.agent_id(), pid = ?helper.pid, "helper initialized");
    let result = wire::helper_initialize_response(&instance.init, instance.agent_id().as_str());
    use_agent(master, helper, &instance);
    wire::to_result(result)
}

/// `session/new` or `session/load`: pick the agent, forward, bind the session id.
async fn open_session(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    mut msg: UntypedMessage,
    responder: Responder<Value>,
) -> Result<(), Error> {
    let meta = match parse_meta(&msg.params) {
        Ok(meta) => meta,
        Err(err) => return helper.respond(responder, Err(err)),
    };
    WtaMeta::strip_from(&mut msg.params);
    let current = helper
        .agent
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let selected = meta
        .agent_id
        .clone()
        .or_else(|| current.as_ref().map(|i| i.agent_id().to_string()))
        .or_else(|| lock_meta(helper).agent_id);
    let same_agent = |i: &AgentInstance| selected.as_deref() == Some(i.agent_id().as_str());
    let generation = match &current {
        _ if meta.fresh_agent => Some(master.pool.fresh_generation()),
        Some(i) if i.is_alive() && same_agent(i) => None,
        // A private instance that died respawns private.
        Some(i) if same_agent(i) => Some(i.generation),
        _ => Some(0),
    };
    let instance = match (generation, &current) {
        (None, Some(i)) => i.clone(),
        _ => match agent_for(master, selected.as_deref(), generation.unwrap_or(0)).await {
            Ok(i) => i,
            Err(err) => return helper.respond(responder, Err(err)),
        },
    };
    use_agent(master, helper, &instance);
    if meta.fresh_agent
        && let Some(old) = current.filter(|c| c.id != instance.id)
    {
        master.close_sessions_on(helper.id, old.id);
    }

    let loading = session_id(&msg.params)
        .map(str::to_owned)
        .filter(|_| msg.method == "session/load");
    if let Some(session) = &loading {
        // Agents replay history as updates before answering load: bind first.
        master.bind(helper, &instance, session);
    }
    // The session endpoint's tools, when the helper serves them and the
    // agent takes HTTP MCP servers: a grant of its own for this session.
    let wants_tools = lock_meta(helper).proposal_mcp.as_deref()
        == Some(helper_master::PROPOSAL_MCP_V1)
        && instance.init.takes_http_mcp();
    let grant = match master.mcp.get() {
        Some(mcp) if wants_tools => mcp.offer(instance.id),
        _ => None,
    };
    let mut server_name = None;
    let grant = grant.map(|(grant, server)| {
        server_name = server
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        session_mcp::add_server(&mut msg.params, server);
        grant
    });
    let cwd = msg
        .params
        .get("cwd")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let (master, helper, bound_instance) = (master.clone(), helper.clone(), instance.clone());
    // Prepared, so the callback is registered before the request goes out: the
    // answer is then always handled under the dispatch's ordering barrier.
    instance
        .cx
        .prepare_request(msg)
        .on_receiving_result(async move |result| {
            match &result {
                Ok(value) => {
                    if let Some(session) = session_id(value).map(str::to_owned).or(loading) {
                        master.bind(&helper, &bound_instance, &session);
                        let loads = bound_instance.init.loads_sessions();
                        master
                            .registry
                            .opened(helper.id, &session, cwd.clone(), loads);
                        if let (Some(grant), Some(mcp)) = (&grant, master.mcp.get()) {
                            mcp.opened(grant, helper.id, &session, bound_instance.id);
                        }
                        if master.helper(helper.id).is_none() {
                            // The helper left while the agent was answering.
                            master.unbind(helper.id, &session);
                            master.schedule_reap(bound_instance.id);
                        }
                    }
                }
                Err(_) => {
                    if let Some(session) = &loading {
                        master.unbind(helper.id, session);
                    }
                }
            }
            if let (Some(grant), Some(mcp), Err(_)) = (grant, master.mcp.get(), &result) {
                mcp.withdraw(grant);
            }
            // The helper learns its session's server by name, to tell that
            // server's tool calls by identity in the permission preflight.
            // The master alone says what `_meta.wta` holds there.
            let result = result.map(|mut reply| {
                let named = server_name.map(|name| WtaMeta {
                    mcp_server: Some(name),
                    ..WtaMeta::default()
                });
                wire::stamp_wta_meta(&mut reply, named.as_ref());
                reply
            });
            // Under the dispatch's ordering barrier: the relay copies this
            // session's next update only once this answer is queued.
            let _ = helper.respond(
                responder,
                result.map_err(|e| forwarded_error(e, &bound_instance)),
            );
            Ok(())
        })
}

/// Makes `instance` the helper's current agent; the one it replaces (if
/// another) is scheduled for reaping once no session uses it.
fn use_agent(master: &Arc<Master>, helper: &HelperHandle, instance: &Arc<AgentInstance>) {
    let previous = helper
        .agent
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .replace(instance.clone());
    if let Some(previous) = previous.filter(|p| p.id != instance.id) {
        master.schedule_reap(previous.id);
    }
}

fn lock_meta(helper: &HelperHandle) -> WtaMeta {
    helper
        .meta
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}
