//! `initialize`, `session/new` and `session/load`: which agent instance a
//! helper gets, and how a session is opened on it and bound to the helper.
//!
//! A session is opened in steps: its `_meta.wta` is read and stripped (an
//! agent never sees it), the instance chosen ([`choose_agent`]: the
//! helper's current one, the shared one, or a fresh private one for
//! `/restart`), a `session/load` bound before it goes out (agents replay
//! history as updates before they answer), the session MCP endpoint's
//! server added when the helper serves its tools ([`offer_tools`]), and the
//! request sent prepared so that [`Opening::answered`] runs under the
//! agent dispatch's ordering barrier: the session is bound before the
//! relay copies its first update.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{InitializeRequest, SessionId};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use serde_json::Value;
use wta_agent::AgentId;
use wta_protocol::helper_master::{self, ClientKind, WtaMeta};

use super::failure::{agent_error, forwarded_error};
use crate::inbound::{self, Opening};
use crate::pool::AgentInstance;
use crate::session_mcp::Offered;
use crate::state::Master;
use crate::table::HelperHandle;
use crate::wire::{self, Capabilities};

/// `initialize`: a CLI client gets the master's own answer; a helper gets
/// its agent's (started if needed), which becomes its current agent.
pub(super) async fn initialize(
    master: &Arc<Master>,
    helper: &HelperHandle,
    init: &InitializeRequest,
) -> Result<Value, Error> {
    let meta = inbound::wta_meta(init.meta.as_ref())?;
    master.set_helper_meta(helper.id, meta.clone());
    if meta.client == ClientKind::Cli {
        return wire::to_result(wire::cli_initialize_response());
    }
    let instance = agent_for(master, meta.agent_id.as_deref(), 0).await?;
    tracing::info!(helper = helper.id, agent = %instance.agent_id(), pid = ?helper.pid, "helper initialized");
    let result = wire::helper_initialize_response(&instance.init, instance.agent_id().as_str());
    use_agent(master, helper, &instance);
    wire::to_result(result)
}

/// Resolves the agent a request selects (`_meta.wta.agentId`, else the default)
/// through the registry and returns a live instance of it.
/// `generation` 0 is the instance shared per `AgentKey`; others are private (`/restart`).
async fn agent_for(
    master: &Master,
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
        .get(&spec, generation)
        .await
        .map_err(|err| err.to_acp(&id))
}

/// Makes `instance` the helper's current agent; the one it replaces (if
/// another) is scheduled for reaping once no session uses it.
fn use_agent(master: &Arc<Master>, helper: &HelperHandle, instance: &Arc<AgentInstance>) {
    if let Some(previous) = master.use_agent(helper.id, instance) {
        master.schedule_reap(previous.id);
    }
}

/// Opens a session (on a task of its own: choosing the agent may start it).
pub(super) fn open(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    opening: Opening,
    responder: Responder<Value>,
    cx: &ConnectionTo<Client>,
) -> Result<(), Error> {
    let (master, helper) = (master.clone(), helper.clone());
    cx.spawn(async move {
        if let Err(err) = open_session(&master, &helper, opening, responder).await {
            tracing::debug!(helper = helper.id, "session open failed: {}", err.message);
        }
        Ok(())
    })
}

/// `session/new` or `session/load`: pick the agent, forward, bind the session id.
async fn open_session(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    mut opening: Opening,
    responder: Responder<Value>,
) -> Result<(), Error> {
    let meta = match opening.take_wta_meta() {
        Ok(meta) => meta,
        Err(err) => return helper.respond(responder, Err(err)),
    };
    let instance = match choose_agent(master, helper, &meta).await {
        Ok(instance) => instance,
        Err(err) => return helper.respond(responder, Err(err)),
    };
    let loading = opening.loading().cloned();
    if let Some(session) = &loading {
        // Agents replay history as updates before answering load: bind first.
        master.bind(helper, &instance, session);
    }
    let grant = offer_tools(master, helper, &instance, &mut opening);
    let message = match opening.to_message() {
        Ok(message) => message,
        Err(err) => return helper.respond(responder, Err(err)),
    };
    let opened = Opened {
        master: master.clone(),
        helper: helper.clone(),
        instance: instance.clone(),
        loading,
        grant,
        cwd: opening.cwd(),
        responder: Some(responder),
    };
    // Prepared, so the callback is registered before the request goes out: the
    // answer is then always handled under the dispatch's ordering barrier.
    instance
        .cx
        .prepare_request(message)
        .on_receiving_result(async move |result| {
            opened.answered(result);
            Ok(())
        })
}

/// The instance a session opens on: the helper's current one while it is
/// the agent asked for and alive; a fresh private one on `/restart`
/// (`freshAgent`, the helper's sessions on the old one closed); a private
/// one that died respawns private; otherwise the pool's shared one. It
/// becomes the helper's current agent.
async fn choose_agent(
    master: &Arc<Master>,
    helper: &HelperHandle,
    meta: &WtaMeta,
) -> Result<Arc<AgentInstance>, Error> {
    let current = master.current_agent(helper.id);
    let selected = meta
        .agent_id
        .clone()
        .or_else(|| current.as_ref().map(|i| i.agent_id().to_string()))
        .or_else(|| master.helper_meta(helper.id).agent_id);
    let same_agent = |i: &AgentInstance| selected.as_deref() == Some(i.agent_id().as_str());
    let generation = match &current {
        _ if meta.fresh_agent => Some(master.pool.fresh_generation()),
        Some(i) if i.is_alive() && same_agent(i) => None,
        Some(i) if same_agent(i) => Some(i.generation),
        _ => Some(0),
    };
    let instance = match (generation, &current) {
        (None, Some(i)) => i.clone(),
        _ => agent_for(master, selected.as_deref(), generation.unwrap_or(0)).await?,
    };
    use_agent(master, helper, &instance);
    if meta.fresh_agent
        && let Some(old) = current.filter(|c| c.id != instance.id)
    {
        master.close_sessions_on(helper.id, old.id);
    }
    Ok(instance)
}

/// The session MCP endpoint's tools, when the helper serves them and the
/// agent takes HTTP MCP servers: a grant of its own for this session, its
/// server added to the request.
fn offer_tools(
    master: &Master,
    helper: &HelperHandle,
    instance: &AgentInstance,
    opening: &mut Opening,
) -> Option<Offered> {
    let wants_tools = master.helper_meta(helper.id).proposal_mcp.as_deref()
        == Some(helper_master::PROPOSAL_MCP_V1)
        && instance.init.takes_http_mcp();
    let (grant, server) = master.mcp().filter(|_| wants_tools)?.offer(instance.id)?;
    opening.add_server(server);
    Some(grant)
}

/// A `session/new|load` sent to the agent, waiting for its answer.
struct Opened {
    master: Arc<Master>,
    helper: Arc<HelperHandle>,
    instance: Arc<AgentInstance>,
    loading: Option<SessionId>,
    grant: Option<Offered>,
    cwd: String,
    responder: Option<Responder<Value>>,
}

impl Opened {
    /// The agent answered: the session is bound (or a load unbound again),
    /// and the helper told, with the session's MCP server named.
    fn answered(mut self, result: Result<Value, Error>) {
        let Some(responder) = self.responder.take() else {
            return;
        };
        match &result {
            Ok(reply) => self.bind(reply),
            Err(_) => self.withdraw(),
        }
        // The helper learns its session's server by name, to tell that
        // server's tool calls by identity in the permission preflight; the
        // master alone says what `_meta.wta` holds there.
        let named = self.grant.as_ref().map(|grant| WtaMeta {
            mcp_server: Some(grant.server_name().to_owned()),
            ..WtaMeta::default()
        });
        let result = result
            .map(|mut reply| {
                wire::stamp_wta_meta(&mut reply, named.as_ref());
                reply
            })
            .map_err(|e| forwarded_error(e, &self.instance));
        // Under the dispatch's ordering barrier: the relay copies this
        // session's next update only once this answer is queued.
        let _ = self.helper.respond(responder, result);
    }

    fn bind(&self, reply: &Value) {
        let Some(session) = inbound::session_of(reply).or_else(|| self.loading.clone()) else {
            return;
        };
        let (master, helper) = (&self.master, &self.helper);
        master.bind(helper, &self.instance, &session);
        let loads = self.instance.init.loads_sessions();
        master
            .registry
            .opened(helper.id, &session.0, Some(self.cwd.clone()), loads);
        if let (Some(grant), Some(mcp)) = (&self.grant, master.mcp()) {
            mcp.opened(grant, helper.id, &session.0, self.instance.id);
        }
        if master.helper(helper.id).is_none() {
            // The helper left while the agent was answering.
            master.unbind(helper.id, &session);
            master.schedule_reap(self.instance.id);
        }
    }

    fn withdraw(&mut self) {
        if let Some(session) = &self.loading {
            self.master.unbind(self.helper.id, session);
        }
        if let (Some(grant), Some(mcp)) = (self.grant.take(), self.master.mcp()) {
            mcp.withdraw(grant);
        }
    }
}
