//! The master's shared state: helpers, routes (`session_to_helper`), the pool.
//!
//! Routes are keyed twice: by agent instance, then session id, for agent →
//! helper traffic (looked up per relayed line, without allocating), and by
//! (helper, session id) for helper → agent traffic, so two agents that happen
//! to mint the same session id can never cross-deliver, and a helper can only
//! address sessions it created. Locks are std mutexes held for map operations
//! only, never across an await; lock order: helpers, then routes, then a
//! helper's own locks (its outbound queue's mutex is a leaf).
//!
//! Every message the master hands a helper's ACP connection goes through
//! [`HelperHandle::ordered`], so that an update relayed after it cannot
//! overtake it (see `outbound`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::SessionId;
use agent_client_protocol::{Client, Error, UntypedMessage};
use wta_agent::{AgentId, Registry, RegistryPaths};
use wta_protocol::helper_master::{SessionState, WtaMeta, WtaSessionInfo, YoloReport};

use crate::outbound::{Outbound, fence_message};
use crate::pool::{AgentInstance, Pool, Retire};
use crate::reaper::Reaper;
use crate::stats::RelayStats;

/// How long the master waits for `session/close` when a helper goes away.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an agent instance with no helper and no session is kept before it is
/// stopped (also the minimum age of its last hand-out, see `Pool::retire_if_idle`).
const REAP_GRACE: Duration = Duration::from_millis(750);

#[derive(Debug)]
pub(crate) struct HelperHandle {
    pub id: u64,
    pub pid: Option<i32>,
    /// Everything written to this helper's socket goes through here.
    pub out: Arc<Outbound>,
    pub cx: OnceLock<ConnectionTo<Client>>,
    pub meta: Mutex<WtaMeta>,
    /// The agent this helper selected at `initialize` (and its current instance).
    pub agent: Mutex<Option<Arc<AgentInstance>>>,
    /// A session was bound to this helper: updates may be relayed to it, so
    /// messages through its ACP connection are fenced from then on (its
    /// connection is initialized by then, so it passes fences).
    routed: AtomicBool,
}

impl HelperHandle {
    /// Runs `send`, which hands one message for this helper to its ACP
    /// connection, so that no update relayed after this call overtakes it: a
    /// fence is opened before and sent after (see `outbound`).
    pub fn ordered<T>(&self, send: impl FnOnce() -> T) -> T {
        let fence = match self.cx.get() {
            Some(cx) if self.routed.load(Ordering::Acquire) => Some((cx, self.out.open_fence())),
            _ => None,
        };
        let result = send();
        if let Some((cx, n)) = fence
            && let Ok(msg) = fence_message(n)
        {
            let _ = cx.send_notification(msg);
        }
        result
    }

    /// Answers one of this helper's requests, in order with relayed updates.
    pub fn respond(
        &self,
        responder: agent_client_protocol::v1::Responder<serde_json::Value>,
        result: Result<serde_json::Value, Error>,
    ) -> Result<(), Error> {
        self.ordered(|| responder.respond_with_result(result))
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Route {
    pub helper: Arc<HelperHandle>,
    pub agent_id: AgentId,
    pub state: SessionState,
    pub yolo: Option<YoloReport>,
}

#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Agent instance → session id → route.
    by_agent: HashMap<u64, HashMap<String, Route>>,
    by_helper: HashMap<(u64, String), Arc<AgentInstance>>,
}

impl Routes {
    fn remove_agent_route(&mut self, instance: u64, session: &str) -> Option<Route> {
        let sessions = self.by_agent.get_mut(&instance)?;
        let route = sessions.remove(session);
        if sessions.is_empty() {
            self.by_agent.remove(&instance);
        }
        route
    }
}

#[derive(Debug)]
pub(crate) struct Master {
    /// Where the config and policy files are: read at each use (agent spawn),
    /// so an agent added while the master runs is found, and a broken file
    /// fails that request only.
    pub registry_paths: RegistryPaths,
    pub pool: Pool,
    /// Stops agent groups left behind if this process dies.
    pub reaper: Reaper,
    helpers: Mutex<HashMap<u64, Arc<HelperHandle>>>,
    routes: Mutex<Routes>,
    next_helper: AtomicU64,
    outbound_cap: usize,
    /// Relay counters for the routing benchmark (`None`: not counted).
    pub stats: Option<Arc<RelayStats>>,
    /// The session MCP endpoint, once listening.
    pub mcp: std::sync::OnceLock<crate::session_mcp::SessionMcp>,
    /// Every agent session of the server, beside the live routes.
    pub registry: crate::registry::Registry,
    /// The tmux server this master serves (shell panes are looked up there).
    pub tmux_socket: std::sync::OnceLock<std::path::PathBuf>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Master {
    pub fn new(
        registry_paths: RegistryPaths,
        outbound_cap: usize,
        reaper: Reaper,
        stats: Option<Arc<RelayStats>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            registry_paths,
            pool: Pool::default(),
            reaper,
            helpers: Mutex::default(),
            routes: Mutex::default(),
            next_helper: AtomicU64::new(1),
            outbound_cap,
            stats,
            mcp: std::sync::OnceLock::new(),
            registry: crate::registry::Registry::default(),
            tmux_socket: std::sync::OnceLock::new(),
        })
    }

    /// The agent registry as the config and policy files say now.
    pub fn registry(&self) -> Result<Registry, wta_agent::AgentError> {
        Registry::load(self.registry_paths.clone())
    }

    pub fn add_helper(&self, pid: Option<i32>) -> Arc<HelperHandle> {
        let id = self.next_helper.fetch_add(1, Ordering::Relaxed);
        let handle = Arc::new(HelperHandle {
            id,
            pid,
            out: Outbound::new(id, self.outbound_cap, self.stats.clone()),
            cx: OnceLock::new(),
            meta: Mutex::default(),
            agent: Mutex::default(),
            routed: AtomicBool::new(false),
        });
        lock(&self.helpers).insert(id, handle.clone());
        handle
    }

    pub fn helper(&self, id: u64) -> Option<Arc<HelperHandle>> {
        lock(&self.helpers).get(&id).cloned()
    }

    /// Binds `session` of `instance` to `helper`.
    pub fn bind(
        &self,
        helper: &Arc<HelperHandle>,
        instance: &Arc<AgentInstance>,
        session: &SessionId,
    ) {
        let session: &str = &session.0;
        helper.routed.store(true, Ordering::Release);
        let mut routes = lock(&self.routes);
        routes.by_agent.entry(instance.id).or_default().insert(
            session.to_owned(),
            Route {
                helper: helper.clone(),
                agent_id: instance.agent_id().clone(),
                state: SessionState::Active,
                yolo: None,
            },
        );
        if let Some(old) = routes
            .by_helper
            .insert((helper.id, session.to_owned()), instance.clone())
            && old.id != instance.id
        {
            routes.remove_agent_route(old.id, session);
            tracing::warn!(
                helper = helper.id,
                session,
                "session id reused by another agent for the same helper; rebound"
            );
        }
    }

    /// Forgets `session` of `helper`; returns the instance it was bound to.
    /// Records what the owning helper reports about one of its sessions;
    /// false when `session` is not this helper's.
    pub fn set_session_yolo(&self, helper: u64, session: &str, yolo: YoloReport) -> bool {
        let mut routes = lock(&self.routes);
        let Some(instance) = routes
            .by_helper
            .get(&(helper, session.to_owned()))
            .map(|i| i.id)
        else {
            return false;
        };
        match routes
            .by_agent
            .get_mut(&instance)
            .and_then(|sessions| sessions.get_mut(session))
        {
            Some(route) if route.helper.id == helper => {
                route.yolo = Some(yolo);
                true
            }
            _ => false,
        }
    }

    pub fn unbind(&self, helper: u64, session: &SessionId) -> Option<Arc<AgentInstance>> {
        let session: &str = &session.0;
        if let Some(mcp) = self.mcp.get() {
            mcp.revoke(helper, session);
        }
        self.keep_as_history(|h, s| h == helper && s == session);
        let mut routes = lock(&self.routes);
        let instance = routes.by_helper.remove(&(helper, session.to_owned()))?;
        routes.remove_agent_route(instance.id, session);
        Some(instance)
    }

    /// The sessions `which` selects are about to be unbound: the registry
    /// keeps them as ended (takes the helpers and routes locks, then its own).
    fn keep_as_history(&self, which: impl Fn(u64, &str) -> bool) {
        for info in self.sessions() {
            if which(info.helper, &info.session_id) {
                self.registry.ended(&info);
            }
        }
    }

    /// True when no connected helper has selected instance `id` and no session of
    /// it is bound. Takes the helpers lock, then the routes lock.
    fn is_idle(&self, id: u64) -> bool {
        let helpers = lock(&self.helpers);
        let selected = helpers.values().any(|h| {
            lock(&h.agent)
                .as_ref()
                .is_some_and(|instance| instance.id == id)
        });
        if selected {
            return false;
        }
        !lock(&self.routes).by_agent.contains_key(&id)
    }

    /// Stops agent instance `id` once it has stayed idle for [`REAP_GRACE`]: an
    /// agent process lives only while a helper or a session uses it. The next
    /// request for its key starts a fresh one.
    pub fn schedule_reap(self: &Arc<Self>, id: u64) {
        let master = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(REAP_GRACE).await;
                let Some(m) = master.upgrade() else { return };
                match m.pool.retire_if_idle(id, REAP_GRACE, || m.is_idle(id)) {
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

    /// The agent instance owning `session` for `helper` (only that helper's sessions).
    pub fn session_agent(&self, helper: u64, session: &SessionId) -> Option<Arc<AgentInstance>> {
        lock(&self.routes)
            .by_helper
            .get(&(helper, session.0.to_string()))
            .cloned()
    }

    /// The agent `helper` selected last (at `initialize` or `session/new`).
    pub fn current_agent(&self, helper: u64) -> Option<Arc<AgentInstance>> {
        let handle = self.helper(helper)?;
        lock(&handle.agent).clone()
    }

    /// Makes `instance` the current agent of `helper`; returns the one it
    /// replaced, when another.
    pub fn use_agent(
        &self,
        helper: u64,
        instance: &Arc<AgentInstance>,
    ) -> Option<Arc<AgentInstance>> {
        let handle = self.helper(helper)?;
        let previous = lock(&handle.agent).replace(instance.clone());
        previous.filter(|p| p.id != instance.id)
    }

    /// `_meta.wta` of `helper`'s `initialize`.
    pub fn helper_meta(&self, helper: u64) -> WtaMeta {
        self.helper(helper)
            .map(|h| lock(&h.meta).clone())
            .unwrap_or_default()
    }

    pub fn set_helper_meta(&self, helper: u64, meta: WtaMeta) {
        if let Some(handle) = self.helper(helper) {
            *lock(&handle.meta) = meta;
        }
    }

    /// The session MCP endpoint, once listening.
    pub fn mcp(&self) -> Option<&crate::session_mcp::SessionMcp> {
        self.mcp.get()
    }

    /// The helper that owns `session` of agent instance `instance` (the
    /// relay asks this for every line it copies: one map lookup, no allocation).
    pub fn session_helper(&self, instance: u64, session: &str) -> Option<Arc<HelperHandle>> {
        lock(&self.routes)
            .by_agent
            .get(&instance)?
            .get(session)
            .map(|route| route.helper.clone())
    }

    /// Sends one agent notification to its helper through its ACP connection,
    /// admitted against the helper's queue cap like a relayed one.
    pub fn deliver_notification(&self, helper: &HelperHandle, msg: UntypedMessage) {
        let Some(cx) = helper.cx.get() else { return };
        if helper.out.admit_notification() {
            helper.ordered(|| {
                let _ = cx.send_notification(msg);
            });
        }
    }

    /// Live sessions for `_wta/sessions`.
    pub fn sessions(&self) -> Vec<WtaSessionInfo> {
        let helpers = lock(&self.helpers);
        let routes = lock(&self.routes);
        let mut rows: Vec<WtaSessionInfo> = routes
            .by_agent
            .values()
            .flatten()
            .map(|(session, route)| {
                let helper = helpers.get(&route.helper.id);
                let meta = helper.map(|h| lock(&h.meta).clone()).unwrap_or_default();
                WtaSessionInfo {
                    session_id: session.clone(),
                    agent_id: route.agent_id.to_string(),
                    helper: route.helper.id,
                    helper_pid: helper.and_then(|h| h.pid),
                    owner_tab: meta.owner_tab,
                    target_pane: meta.target_pane,
                    state: route.state,
                    yolo: route.yolo,
                }
            })
            .collect();
        rows.sort_by(|a, b| (a.helper, &a.session_id).cmp(&(b.helper, &b.session_id)));
        rows
    }

    /// An agent instance died or was stopped: its sessions fail, helpers are told,
    /// the pool slot is freed so the next request respawns.
    pub fn agent_gone(&self, instance: u64, reason: &str) {
        self.pool.forget_id(instance);
        if let Some(mcp) = self.mcp.get() {
            mcp.revoke_instance(instance);
        }
        let mut affected: HashMap<u64, (AgentId, Vec<String>)> = HashMap::new();
        {
            let mut routes = lock(&self.routes);
            for (session, route) in routes.by_agent.get_mut(&instance).into_iter().flatten() {
                route.state = SessionState::AgentExited;
                affected
                    .entry(route.helper.id)
                    .or_insert_with(|| (route.agent_id.clone(), Vec::new()))
                    .1
                    .push(session.clone());
            }
        }
        for (helper, (agent_id, mut session_ids)) in affected {
            session_ids.sort();
            tracing::warn!(helper, agent = %agent_id, ?session_ids, "agent exited: {reason}");
            let Some(handle) = self.helper(helper) else {
                continue;
            };
            let Some(cx) = handle.cx.get() else { continue };
            if let Ok(msg) = crate::wire::agent_exited(agent_id.as_str(), session_ids, reason) {
                handle.ordered(|| {
                    let _ = cx.send_notification(msg);
                });
            }
        }
    }

    /// A helper disconnected: cancel and close its sessions, then forget them.
    pub fn helper_gone(self: &Arc<Self>, helper: u64) {
        let Some(handle) = lock(&self.helpers).remove(&helper) else {
            return;
        };
        let sessions = self.unbind_where(|h, _| h == helper);
        tracing::info!(helper, sessions = sessions.len(), pid = ?handle.pid, "helper disconnected");
        crate::leftovers::after_helper(
            self.tmux_socket.get().cloned(),
            handle.pid,
            &lock(&handle.meta),
        );
        let mut used: Vec<u64> = sessions.iter().map(|(_, i)| i.id).collect();
        used.extend(lock(&handle.agent).as_ref().map(|i| i.id));
        used.sort_unstable();
        used.dedup();
        for id in used {
            self.schedule_reap(id);
        }
        cancel_and_close(sessions);
    }

    /// Removes the routes of every session whose owning helper and agent
    /// instance match `which`; returns them (session id, instance).
    fn unbind_where(
        &self,
        which: impl Fn(u64, &AgentInstance) -> bool,
    ) -> Vec<(String, Arc<AgentInstance>)> {
        let selected: Vec<(u64, String)> = {
            let routes = lock(&self.routes);
            routes
                .by_helper
                .iter()
                .filter(|((h, _), instance)| which(*h, instance))
                .map(|(key, _)| key.clone())
                .collect()
        };
        self.keep_as_history(|h, s| selected.iter().any(|(sh, ss)| *sh == h && ss == s));
        let mut routes = lock(&self.routes);
        let keys: Vec<(u64, String)> = routes
            .by_helper
            .iter()
            .filter(|((h, _), instance)| which(*h, instance))
            .map(|(key, _)| key.clone())
            .collect();
        if let Some(mcp) = self.mcp.get() {
            for (helper, session) in &keys {
                mcp.revoke(*helper, session);
            }
        }
        keys.into_iter()
            .filter_map(|key| {
                let instance = routes.by_helper.remove(&key)?;
                routes.remove_agent_route(instance.id, &key.1);
                Some((key.1, instance))
            })
            .collect()
    }

    /// `/restart` moved `helper` to a fresh instance: its sessions on instance
    /// `old` are unbound, cancelled and closed; `old` is reaped once unused.
    pub fn close_sessions_on(self: &Arc<Self>, helper: u64, old: u64) {
        let sessions = self.unbind_where(|h, instance| h == helper && instance.id == old);
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
fn cancel_and_close(sessions: Vec<(String, Arc<AgentInstance>)>) {
    for (session, instance) in sessions {
        if !instance.is_alive() {
            continue;
        }
        let session = SessionId::new(session.as_str());
        instance.cancel(&session);
        if instance.can_close_sessions() {
            tokio::spawn(async move {
                let close = crate::wire::close(session.clone());
                let sent = instance.cx.send_request(close).block_task();
                if let Ok(Err(err)) = tokio::time::timeout(CLOSE_TIMEOUT, sent).await {
                    tracing::debug!(%session, "session/close failed: {}", err.message);
                }
            });
        }
    }
}
