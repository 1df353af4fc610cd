//! The master's table: the connected helpers (pid, `_meta.wta`, current
//! agent, outbound queue) and the routes between their sessions and agent
//! instances.
//!
//! Routes are keyed twice: by agent instance, then session id, for agent →
//! helper traffic (looked up per relayed line, without allocating), and by
//! (helper, session id) for helper → agent traffic, so two agents that happen
//! to mint the same session id can never cross-deliver, and a helper can only
//! address sessions it created.
//!
//! Locking: all of it sits behind one private mutex. Every method takes it,
//! works on the maps and returns owned values; none calls out while holding
//! it (no callback, no send, no other lock), so it is a leaf lock: there is
//! no order between locks to keep. The other locks of the master are leaves
//! the same way (the pool's slots, the registry, the MCP keys, each helper's
//! outbound queue).
//!
//! Every message the master hands a helper's ACP connection goes through
//! [`HelperHandle::ordered`], so that an update relayed after it cannot
//! overtake it (see `outbound`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use agent_client_protocol::v1::schema::SessionId;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, UntypedMessage};
use serde_json::Value;
use wta_agent::AgentId;
use wta_protocol::helper_master::{SessionState, WtaMeta, WtaSessionInfo, YoloReport};

use crate::outbound::{Outbound, fence_message};
use crate::pool::AgentInstance;
use crate::relay::SessionRoutes;
use crate::stats::RelayStats;

/// One connected helper (or CLI client), as every part of the master may hold it.
#[derive(Debug)]
pub(crate) struct HelperHandle {
    pub id: u64,
    pub pid: Option<i32>,
    /// Everything written to this helper's socket goes through here.
    pub out: Arc<Outbound>,
    pub cx: OnceLock<ConnectionTo<Client>>,
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
        responder: Responder<Value>,
        result: Result<Value, Error>,
    ) -> Result<(), Error> {
        self.ordered(|| responder.respond_with_result(result))
    }

    /// Sends one notification, in order with relayed updates.
    pub fn notify(&self, msg: UntypedMessage) {
        let Some(cx) = self.cx.get() else { return };
        self.ordered(|| {
            let _ = cx.send_notification(msg);
        });
    }

    /// Sends one agent notification, admitted against the helper's queue
    /// cap like a relayed one (dropped while the helper is stalled).
    pub fn notify_admitted(&self, msg: UntypedMessage) {
        if self.cx.get().is_some() && self.out.admit_notification() {
            self.notify(msg);
        }
    }
}

/// What the table keeps of a helper beyond its handle.
#[derive(Debug)]
struct HelperEntry {
    handle: Arc<HelperHandle>,
    meta: WtaMeta,
    /// The agent it selected last (at `initialize` or `session/new`).
    agent: Option<Arc<AgentInstance>>,
}

#[derive(Debug)]
struct Route {
    helper: Arc<HelperHandle>,
    agent_id: AgentId,
    state: SessionState,
    yolo: Option<YoloReport>,
}

/// A session whose route was removed.
#[derive(Debug)]
pub(crate) struct Unbound {
    /// The session as `_wta/sessions` showed it (for the history).
    pub info: WtaSessionInfo,
    pub session: SessionId,
    pub instance: Arc<AgentInstance>,
}

/// A helper removed from the table, with what it held.
#[derive(Debug)]
pub(crate) struct GoneHelper {
    pub handle: Arc<HelperHandle>,
    pub meta: WtaMeta,
    pub agent: Option<Arc<AgentInstance>>,
    pub sessions: Vec<Unbound>,
}

/// The sessions of one helper on an agent instance that died.
#[derive(Debug)]
pub(crate) struct Orphaned {
    pub helper: Arc<HelperHandle>,
    pub agent_id: AgentId,
    /// Sorted.
    pub session_ids: Vec<String>,
}

#[derive(Debug, Default)]
struct Maps {
    helpers: HashMap<u64, HelperEntry>,
    /// Agent instance → session id → route.
    by_agent: HashMap<u64, HashMap<Arc<str>, Route>>,
    by_helper: HashMap<(u64, SessionId), Arc<AgentInstance>>,
}

/// See the module docs.
#[derive(Debug)]
pub(crate) struct Table {
    maps: Mutex<Maps>,
    next_helper: AtomicU64,
    outbound_cap: usize,
    stats: Option<Arc<RelayStats>>,
}

impl Maps {
    fn info(&self, session: &str, route: &Route) -> WtaSessionInfo {
        let helper = self.helpers.get(&route.helper.id);
        let meta = helper.map(|h| h.meta.clone()).unwrap_or_default();
        WtaSessionInfo {
            session_id: session.to_owned(),
            agent_id: route.agent_id.to_string(),
            helper: route.helper.id,
            helper_pid: helper.and_then(|h| h.handle.pid),
            owner_tab: meta.owner_tab,
            target_pane: meta.target_pane,
            state: route.state,
            yolo: route.yolo,
        }
    }

    /// Removes the route of (`helper`, `session`) from both keys.
    fn unbind(&mut self, helper: u64, session: &SessionId) -> Option<Unbound> {
        let instance = self.by_helper.remove(&(helper, session.clone()))?;
        let sessions = self.by_agent.get_mut(&instance.id)?;
        let route = sessions.remove(&session.0);
        if sessions.is_empty() {
            self.by_agent.remove(&instance.id);
        }
        let info = route.map(|route| self.info(&session.0, &route))?;
        Some(Unbound {
            info,
            session: session.clone(),
            instance,
        })
    }

    /// Unbinds every session whose (helper, instance) `which` selects.
    fn unbind_where(&mut self, which: impl Fn(u64, u64) -> bool) -> Vec<Unbound> {
        let keys: Vec<(u64, SessionId)> = self
            .by_helper
            .iter()
            .filter(|((helper, _), instance)| which(*helper, instance.id))
            .map(|(key, _)| key.clone())
            .collect();
        keys.iter()
            .filter_map(|(helper, session)| self.unbind(*helper, session))
            .collect()
    }
}

impl Table {
    pub fn new(outbound_cap: usize, stats: Option<Arc<RelayStats>>) -> Arc<Self> {
        Arc::new(Self {
            maps: Mutex::default(),
            next_helper: AtomicU64::new(1),
            outbound_cap,
            stats,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Maps> {
        self.maps.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new helper connection (its first line arrived).
    pub fn add_helper(&self, pid: Option<i32>) -> Arc<HelperHandle> {
        let id = self.next_helper.fetch_add(1, Ordering::Relaxed);
        let handle = Arc::new(HelperHandle {
            id,
            pid,
            out: Outbound::new(id, self.outbound_cap, self.stats.clone()),
            cx: OnceLock::new(),
            routed: AtomicBool::new(false),
        });
        let entry = HelperEntry {
            handle: handle.clone(),
            meta: WtaMeta::default(),
            agent: None,
        };
        self.lock().helpers.insert(id, entry);
        handle
    }

    /// Removes a helper that disconnected, and unbinds its sessions (their
    /// history rows no longer name its tab or pid: it is gone).
    pub fn remove_helper(&self, id: u64) -> Option<GoneHelper> {
        let mut maps = self.lock();
        let entry = maps.helpers.remove(&id)?;
        let sessions = maps.unbind_where(|helper, _| helper == id);
        Some(GoneHelper {
            handle: entry.handle,
            meta: entry.meta,
            agent: entry.agent,
            sessions,
        })
    }

    pub fn helper(&self, id: u64) -> Option<Arc<HelperHandle>> {
        self.lock().helpers.get(&id).map(|e| e.handle.clone())
    }

    /// `_meta.wta` of `helper`'s `initialize` (the default once it is gone).
    pub fn meta(&self, helper: u64) -> WtaMeta {
        self.lock()
            .helpers
            .get(&helper)
            .map(|e| e.meta.clone())
            .unwrap_or_default()
    }

    pub fn set_meta(&self, helper: u64, meta: WtaMeta) {
        if let Some(entry) = self.lock().helpers.get_mut(&helper) {
            entry.meta = meta;
        }
    }

    /// The agent `helper` selected last.
    pub fn current_agent(&self, helper: u64) -> Option<Arc<AgentInstance>> {
        self.lock().helpers.get(&helper)?.agent.clone()
    }

    /// Makes `instance` the current agent of `helper`; returns the one it
    /// replaced, when another.
    pub fn use_agent(
        &self,
        helper: u64,
        instance: &Arc<AgentInstance>,
    ) -> Option<Arc<AgentInstance>> {
        let mut maps = self.lock();
        let entry = maps.helpers.get_mut(&helper)?;
        let previous = entry.agent.replace(instance.clone());
        previous.filter(|p| p.id != instance.id)
    }

    /// Binds `session` of `instance` to `helper`; true when the same helper
    /// had it on another instance (that route is replaced).
    pub fn bind(
        &self,
        helper: &Arc<HelperHandle>,
        instance: &Arc<AgentInstance>,
        session: &SessionId,
    ) -> bool {
        helper.routed.store(true, Ordering::Release);
        let mut maps = self.lock();
        let route = Route {
            helper: helper.clone(),
            agent_id: instance.agent_id().clone(),
            state: SessionState::Active,
            yolo: None,
        };
        maps.by_agent
            .entry(instance.id)
            .or_default()
            .insert(session.0.clone(), route);
        let old = maps
            .by_helper
            .insert((helper.id, session.clone()), instance.clone())
            .filter(|old| old.id != instance.id);
        let Some(old) = old else { return false };
        if let Some(sessions) = maps.by_agent.get_mut(&old.id) {
            sessions.remove(&session.0);
            if sessions.is_empty() {
                maps.by_agent.remove(&old.id);
            }
        }
        true
    }

    /// Forgets `session` of `helper`.
    pub fn unbind(&self, helper: u64, session: &SessionId) -> Option<Unbound> {
        self.lock().unbind(helper, session)
    }

    /// Forgets the sessions of `helper` on instance `instance`.
    pub fn unbind_on(&self, helper: u64, instance: u64) -> Vec<Unbound> {
        self.lock()
            .unbind_where(|h, i| h == helper && i == instance)
    }

    /// Records what the owning helper reports about one of its sessions;
    /// false when `session` is not this helper's.
    pub fn set_session_yolo(&self, helper: u64, session: &str, yolo: YoloReport) -> bool {
        let mut maps = self.lock();
        let key = (helper, SessionId::new(session));
        let Some(instance) = maps.by_helper.get(&key).map(|i| i.id) else {
            return false;
        };
        match maps
            .by_agent
            .get_mut(&instance)
            .and_then(|s| s.get_mut(session))
        {
            Some(route) if route.helper.id == helper => {
                route.yolo = Some(yolo);
                true
            }
            _ => false,
        }
    }

    /// The agent instance owning `session` for `helper` (only that helper's sessions).
    pub fn session_agent(&self, helper: u64, session: &SessionId) -> Option<Arc<AgentInstance>> {
        self.lock()
            .by_helper
            .get(&(helper, session.clone()))
            .cloned()
    }

    /// The helper that owns `session` of agent instance `instance`.
    pub fn session_helper(&self, instance: u64, session: &str) -> Option<Arc<HelperHandle>> {
        let maps = self.lock();
        maps.by_agent
            .get(&instance)?
            .get(session)
            .map(|r| r.helper.clone())
    }

    /// Live sessions for `_wta/sessions`, by helper then session id.
    pub fn sessions(&self) -> Vec<WtaSessionInfo> {
        let maps = self.lock();
        let mut rows: Vec<WtaSessionInfo> = maps
            .by_agent
            .values()
            .flatten()
            .map(|(session, route)| maps.info(session, route))
            .collect();
        drop(maps);
        rows.sort_by(|a, b| (a.helper, &a.session_id).cmp(&(b.helper, &b.session_id)));
        rows
    }

    /// True when no connected helper has selected instance `id` and no
    /// session of it is bound.
    pub fn is_idle(&self, id: u64) -> bool {
        let maps = self.lock();
        let selected = maps
            .helpers
            .values()
            .any(|h| h.agent.as_ref().is_some_and(|i| i.id == id));
        !selected && !maps.by_agent.contains_key(&id)
    }

    /// Instance `instance` died: its sessions are marked exited (they stay
    /// listed until their helpers close them); returns them by helper.
    pub fn agent_exited(&self, instance: u64) -> Vec<Orphaned> {
        let mut maps = self.lock();
        let mut by_helper: HashMap<u64, Orphaned> = HashMap::new();
        for (session, route) in maps.by_agent.get_mut(&instance).into_iter().flatten() {
            route.state = SessionState::AgentExited;
            by_helper
                .entry(route.helper.id)
                .or_insert_with(|| Orphaned {
                    helper: route.helper.clone(),
                    agent_id: route.agent_id.clone(),
                    session_ids: Vec::new(),
                })
                .session_ids
                .push(session.to_string());
        }
        drop(maps);
        let mut orphaned: Vec<Orphaned> = by_helper.into_values().collect();
        for o in &mut orphaned {
            o.session_ids.sort();
        }
        orphaned.sort_by_key(|o| o.helper.id);
        orphaned
    }
}

impl SessionRoutes for Table {
    fn outbound_of(&self, instance: u64, session: &str) -> Option<Arc<Outbound>> {
        let maps = self.lock();
        maps.by_agent
            .get(&instance)?
            .get(session)
            .map(|r| r.helper.out.clone())
    }
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
