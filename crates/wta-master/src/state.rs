//! The master's parts, and what it does across them: binding and
//! unbinding a session (the table's route, the registry's history, the
//! session MCP grant), an agent's death, a helper's departure, and reaping
//! idle agents.
//!
//! `Master` holds no lock of its own. Each part keeps its state behind a
//! private lock that its own methods take for map work only and never hold
//! while calling another part (the table, the pool's slots, the registry,
//! the MCP keys, each helper's outbound queue): every lock is a leaf, so
//! no lock order exists to be kept. Work that spans parts is done here, one
//! part after the other, with owned values in between.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::schema::SessionId;
use wta_agent::{Registry, RegistryPaths};
use wta_protocol::helper_master::{WtaMeta, WtaSessionInfo, YoloReport};

use crate::pool::{AgentInstance, Pool, Retire};
use crate::session_mcp::SessionMcp;
use crate::table::{HelperHandle, Table, Unbound};
use crate::wire;

/// How long the master waits for `session/close` when a helper goes away.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an agent instance with no helper and no session is kept before it is
/// stopped (also the minimum age of its last hand-out, see `Pool::retire_if_idle`).
const REAP_GRACE: Duration = Duration::from_millis(750);

#[derive(Debug)]
pub(crate) struct Master {
    /// Where the config and policy files are: read at each use (agent spawn),
    /// so an agent added while the master runs is found, and a broken file
    /// fails that request only.
    registry_paths: RegistryPaths,
    pub pool: Pool,
    /// Helpers and routes.
    pub table: Arc<Table>,
    /// Every agent session of the server, beside the live routes.
    pub registry: crate::registry::Registry,
    /// The session MCP endpoint, when it listens.
    mcp: Option<SessionMcp>,
    /// The tmux server this master serves (shell panes are looked up there).
    pub tmux_socket: Option<PathBuf>,
}

/// What a master is made of (see `server::run`).
#[derive(Debug)]
pub(crate) struct Parts {
    pub registry_paths: RegistryPaths,
    pub pool: Pool,
    pub table: Arc<Table>,
    pub mcp: Option<SessionMcp>,
    pub tmux_socket: Option<PathBuf>,
}

impl Master {
    pub fn new(parts: Parts) -> Arc<Self> {
        Arc::new(Self {
            registry_paths: parts.registry_paths,
            pool: parts.pool,
            table: parts.table,
            registry: crate::registry::Registry::default(),
            mcp: parts.mcp,
            tmux_socket: parts.tmux_socket,
        })
    }

    /// The agent registry as the config and policy files say now.
    pub fn registry(&self) -> Result<Registry, wta_agent::AgentError> {
        Registry::load(self.registry_paths.clone())
    }

    /// The session MCP endpoint, when it listens.
    pub fn mcp(&self) -> Option<&SessionMcp> {
        self.mcp.as_ref()
    }

    pub fn helper(&self, id: u64) -> Option<Arc<HelperHandle>> {
        self.table.helper(id)
    }

    /// The agent `helper` selected last (at `initialize` or `session/new`).
    pub fn current_agent(&self, helper: u64) -> Option<Arc<AgentInstance>> {
        self.table.current_agent(helper)
    }

    /// Makes `instance` the current agent of `helper`; returns the one it
    /// replaced, when another.
    pub fn use_agent(
        &self,
        helper: u64,
        instance: &Arc<AgentInstance>,
    ) -> Option<Arc<AgentInstance>> {
        self.table.use_agent(helper, instance)
    }

    /// `_meta.wta` of `helper`'s `initialize`.
    pub fn helper_meta(&self, helper: u64) -> WtaMeta {
        self.table.meta(helper)
    }

    pub fn set_helper_meta(&self, helper: u64, meta: WtaMeta) {
        self.table.set_meta(helper, meta);
    }

    /// The agent instance owning `session` for `helper` (only that helper's sessions).
    pub fn session_agent(&self, helper: u64, session: &SessionId) -> Option<Arc<AgentInstance>> {
        self.table.session_agent(helper, session)
    }

    /// Records what the owning helper reports about one of its sessions;
    /// false when `session` is not this helper's.
    pub fn set_session_yolo(&self, helper: u64, session: &str, yolo: YoloReport) -> bool {
        self.table.set_session_yolo(helper, session, yolo)
    }

    /// Live sessions for `_wta/sessions`.
    pub fn sessions(&self) -> Vec<WtaSessionInfo> {
        self.table.sessions()
    }

    /// Binds `session` of `instance` to `helper`.
    pub fn bind(
        &self,
        helper: &Arc<HelperHandle>,
        instance: &Arc<AgentInstance>,
        session: &SessionId,
    ) {
        if self.table.bind(helper, instance, session) {
            tracing::warn!(
                helper = helper.id,
                %session,
                "session id reused by another agent for the same helper; rebound"
            );
        }
    }

    /// Forgets `session` of `helper` (kept as history, its grant revoked);
    /// returns the instance it was bound to.
    pub fn unbind(&self, helper: u64, session: &SessionId) -> Option<Arc<AgentInstance>> {
        let unbound = self.table.unbind(helper, session);
        if let Some(mcp) = self.mcp() {
            mcp.revoke(helper, &session.0);
        }
        let unbound = unbound?;
        self.registry.ended(&unbound.info);
        Some(unbound.instance)
    }

    /// Sessions whose routes are gone: kept as history, their grants revoked.
    fn ended(&self, sessions: &[Unbound]) {
        for unbound in sessions {
            if let Some(mcp) = self.mcp() {
                mcp.revoke(unbound.info.helper, &unbound.info.session_id);
            }
            self.registry.ended(&unbound.info);
        }
    }

    /// Stops agent instance `id` once it has stayed idle for [`REAP_GRACE`]: an
    /// agent process lives only while a helper or a session uses it. The next
    /// request for its key starts a fresh one.
    pub fn schedule_reap(self: &Arc<Self>, id: u64) {
        let master = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(REAP_GRACE).await;
                let idle = master.table.is_idle(id);
                match master.pool.retire_if_idle(id, REAP_GRACE, idle) {
                    Retire::Retired(instance) => {
                        tracing::info!(
                            agent = %instance.agent_id(),
                            instance = id,
                            "stopping idle agent (no helper, no session)"
                        );
                        instance.stop();
                        return;
                    }
                    Retire::RecentlyClaimed => continue,
                    Retire::InUse | Retire::Gone => return,
                }
            }
        });
    }

    /// An agent instance died or was stopped (its pool slot is free already):
    /// its sessions fail and their helpers are told.
    pub fn agent_gone(&self, instance: u64, reason: &str) {
        if let Some(mcp) = self.mcp() {
            mcp.revoke_instance(instance);
        }
        for orphaned in self.table.agent_exited(instance) {
            let helper = &orphaned.helper;
            tracing::warn!(helper = helper.id, agent = %orphaned.agent_id, session_ids = ?orphaned.session_ids, "agent exited: {reason}");
            if let Ok(msg) =
                wire::agent_exited(orphaned.agent_id.as_str(), orphaned.session_ids, reason)
            {
                helper.notify(msg);
            }
        }
    }

    /// A helper disconnected: cancel and close its sessions, then forget them.
    pub fn helper_gone(self: &Arc<Self>, helper: u64) {
        let Some(gone) = self.table.remove_helper(helper) else {
            return;
        };
        self.ended(&gone.sessions);
        tracing::info!(helper, sessions = gone.sessions.len(), pid = ?gone.handle.pid, "helper disconnected");
        crate::leftovers::after_helper(self.tmux_socket.clone(), gone.handle.pid, &gone.meta);
        let mut used: Vec<u64> = gone.sessions.iter().map(|u| u.instance.id).collect();
        used.extend(gone.agent.as_ref().map(|i| i.id));
        used.sort_unstable();
        used.dedup();
        for id in used {
            self.schedule_reap(id);
        }
        cancel_and_close(gone.sessions);
    }

    /// `/restart` moved `helper` to a fresh instance: its sessions on instance
    /// `old` are unbound, cancelled and closed; `old` is reaped once unused.
    pub fn close_sessions_on(self: &Arc<Self>, helper: u64, old: u64) {
        let sessions = self.table.unbind_on(helper, old);
        self.ended(&sessions);
        tracing::info!(
            helper,
            instance = old,
            sessions = sessions.len(),
            "helper restarted its agent; closing its sessions on the previous instance"
        );
        self.schedule_reap(old);
        cancel_and_close(sessions);
    }

    /// Stops every agent (master shutdown).
    pub fn stop_all_agents(&self) {
        for instance in self.pool.all() {
            instance.stop();
        }
    }
}

/// Sends `session/cancel`, then `session/close` where the agent supports it, for
/// sessions no helper owns any more (must run inside the tokio runtime).
fn cancel_and_close(sessions: Vec<Unbound>) {
    for Unbound {
        session, instance, ..
    } in sessions
    {
        if !instance.is_alive() {
            continue;
        }
        instance.cancel(&session);
        if instance.can_close_sessions() {
            tokio::spawn(async move {
                let close = wire::close(session.clone());
                let sent = instance.cx.send_request(close).block_task();
                if let Ok(Err(err)) = tokio::time::timeout(CLOSE_TIMEOUT, sent).await {
                    tracing::debug!(%session, "session/close failed: {}", err.message);
                }
            });
        }
    }
}
