//! Every agent session of this tmux server (issue 18), beside the live
//! routes: what each agent-pane session is doing (a prompt in flight is
//! `working`), the agent CLIs in ordinary shell panes as their hooks tell
//! it (`_wta/hook_event`), and sessions that ended, kept as history (at
//! most [`MAX_ENDED`]). [`apply_hook`] is the pure step of a shell-pane
//! row; [`Registry::rows`] merges the live routes in.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use wta_protocol::agent_sessions::{
    AgentSessionRow, AgentStatus, HookEvent, HookEventKind, MAX_HOOK_TEXT_CHARS, SessionSource,
};
use wta_protocol::helper_master::{SessionState, WtaSessionInfo};

/// Ended sessions kept for the view and resume.
pub const MAX_ENDED: usize = 200;

/// Unix time now, in ms.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// What the registry knows of an agent-pane session beyond its route.
#[derive(Debug, Clone, Default)]
struct PaneSession {
    cwd: Option<String>,
    status: Option<AgentStatus>,
    last_activity_ms: Option<u64>,
    /// The agent loads sessions (`loadSession`): an ended one can be resumed.
    loads: bool,
}

#[derive(Debug, Default)]
struct Inner {
    /// Agent-pane sessions by (helper, session id).
    panes: BTreeMap<(u64, String), PaneSession>,
    /// Agent CLIs in shell panes, by key.
    shells: BTreeMap<String, AgentSessionRow>,
    /// Ended sessions, oldest first.
    ended: Vec<AgentSessionRow>,
}

/// The registry (its own lock; never taken while a route lock is held).
#[derive(Debug, Default)]
pub(crate) struct Registry {
    inner: Mutex<Inner>,
}

/// The key of a shell-pane session: its CLI and its own session id, else
/// the pane it runs in.
pub fn shell_key(event: &HookEvent) -> String {
    match (&event.session_id, &event.pane) {
        (Some(id), _) => format!("{}:{id}", event.cli.as_str()),
        (None, Some(pane)) => format!("{}@{pane}", event.cli.as_str()),
        (None, None) => format!("{}@unknown", event.cli.as_str()),
    }
}

/// One hook event on a shell-pane row (pure).
pub fn apply_hook(row: &mut AgentSessionRow, event: &HookEvent, now_ms: u64) {
    row.last_activity_ms = Some(now_ms);
    if event.pane.is_some() {
        row.pane.clone_from(&event.pane);
    }
    if event.cwd.is_some() {
        row.cwd.clone_from(&event.cwd);
    }
    if row.session_id.is_none() {
        row.session_id.clone_from(&event.session_id);
    }
    row.status = match event.event {
        HookEventKind::SessionStart | HookEventKind::Stop => {
            row.current_tool = None;
            AgentStatus::Idle
        }
        HookEventKind::PromptSubmit => AgentStatus::Working,
        HookEventKind::ToolStarting => {
            row.current_tool.clone_from(&event.tool);
            AgentStatus::Working
        }
        HookEventKind::Notification => {
            if let Some(message) = &event.message {
                row.title = Some(message.chars().take(MAX_HOOK_TEXT_CHARS).collect());
            }
            AgentStatus::Attention
        }
        HookEventKind::Error => AgentStatus::Error,
        HookEventKind::SessionEnd => {
            row.current_tool = None;
            AgentStatus::Ended
        }
    };
    // A CLI can be resumed by its own resume flag once it is not running.
    row.resumable = row.session_id.is_some() && !row.status.is_live();
}

fn lock(m: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Registry {
    /// A hook event of an agent CLI in a shell pane.
    pub fn hook(&self, event: &HookEvent, now_ms: u64) {
        let key = shell_key(event);
        let mut inner = lock(&self.inner);
        let row = inner
            .shells
            .entry(key.clone())
            .or_insert_with(|| AgentSessionRow {
                key: key.clone(),
                source: SessionSource::ShellPane,
                agent: event.cli.as_str().to_owned(),
                session_id: event.session_id.clone(),
                pane: event.pane.clone(),
                tab: None,
                cwd: event.cwd.clone(),
                title: None,
                status: AgentStatus::Idle,
                last_activity_ms: None,
                current_tool: None,
                resumable: false,
            });
        apply_hook(row, event, now_ms);
        if row.status == AgentStatus::Ended
            && let Some(row) = inner.shells.remove(&key)
        {
            push_ended(&mut inner, row);
        }
    }

    /// An agent-pane session was opened in `cwd` on an agent that loads
    /// sessions (`loads`) or not.
    pub fn opened(&self, helper: u64, session: &str, cwd: Option<String>, loads: bool) {
        lock(&self.inner).panes.insert(
            (helper, session.to_owned()),
            PaneSession {
                cwd,
                status: Some(AgentStatus::Idle),
                last_activity_ms: Some(now_ms()),
                loads,
            },
        );
    }

    /// A prompt of an agent-pane session started (`working`) or ended.
    pub fn activity(&self, helper: u64, session: &str, status: AgentStatus) {
        let mut inner = lock(&self.inner);
        let entry = inner.panes.entry((helper, session.to_owned())).or_default();
        entry.status = Some(status);
        entry.last_activity_ms = Some(now_ms());
    }

    /// An agent-pane session ended (its route is gone): kept as history.
    pub fn ended(&self, info: &WtaSessionInfo) {
        let mut inner = lock(&self.inner);
        let known = inner
            .panes
            .remove(&(info.helper, info.session_id.clone()))
            .unwrap_or_default();
        let mut row = pane_row(info, &known);
        row.status = AgentStatus::Ended;
        row.current_tool = None;
        row.resumable = known.loads;
        row.last_activity_ms = Some(now_ms());
        push_ended(&mut inner, row);
    }

    /// Every row: the live agent-pane sessions (`live`, from the routes),
    /// the shell-pane ones, then ended ones; newest activity first.
    pub fn rows(&self, live: &[WtaSessionInfo]) -> Vec<AgentSessionRow> {
        let inner = lock(&self.inner);
        let mut rows: Vec<AgentSessionRow> = live
            .iter()
            .map(|info| {
                let known = inner
                    .panes
                    .get(&(info.helper, info.session_id.clone()))
                    .cloned()
                    .unwrap_or_default();
                pane_row(info, &known)
            })
            .collect();
        rows.extend(inner.shells.values().cloned());
        let live_ids: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.session_id.as_deref())
            .collect();
        let ended: Vec<AgentSessionRow> = inner
            .ended
            .iter()
            .filter(|r| {
                r.session_id
                    .as_deref()
                    .is_none_or(|id| !live_ids.contains(&id))
            })
            .cloned()
            .collect();
        rows.extend(ended);
        rows.sort_by_key(|r| std::cmp::Reverse(r.last_activity_ms));
        rows
    }

    /// What a shell-pane session's own log says (only for a row its hooks
    /// made; an ended one is left alone).
    pub fn log_signal(&self, key: &str, signal: &wta_agent::session_logs::LogSignal, now_ms: u64) {
        let mut inner = lock(&self.inner);
        let Some(row) = inner.shells.get_mut(key) else {
            return;
        };
        row.status = signal.status;
        row.last_activity_ms = Some(now_ms);
        row.current_tool.clone_from(&signal.tool);
        if row.cwd.is_none() {
            row.cwd.clone_from(&signal.cwd);
        }
    }

    /// A shell-pane session whose pane is gone ended.
    pub fn pane_gone(&self, key: &str) {
        let mut inner = lock(&self.inner);
        if let Some(mut row) = inner.shells.remove(key) {
            row.status = AgentStatus::Ended;
            row.resumable = row.session_id.is_some();
            push_ended(&mut inner, row);
        }
    }

    /// Drops the ended session `key` from the history; whether it was there.
    pub fn forget(&self, key: &str) -> bool {
        let mut inner = lock(&self.inner);
        let before = inner.ended.len();
        inner.ended.retain(|r| r.key != key);
        inner.ended.len() != before
    }

    /// The live shell-pane rows (their panes are checked at listing time).
    pub fn shell_rows(&self) -> Vec<AgentSessionRow> {
        lock(&self.inner).shells.values().cloned().collect()
    }
}

fn push_ended(inner: &mut Inner, row: AgentSessionRow) {
    inner.ended.retain(|r| r.key != row.key);
    inner.ended.push(row);
    let excess = inner.ended.len().saturating_sub(MAX_ENDED);
    inner.ended.drain(..excess);
}

/// An agent-pane session as a row.
fn pane_row(info: &WtaSessionInfo, known: &PaneSession) -> AgentSessionRow {
    let status = match info.state {
        SessionState::AgentExited => AgentStatus::Error,
        SessionState::Active => known.status.unwrap_or(AgentStatus::Idle),
    };
    AgentSessionRow {
        key: format!("pane:{}:{}", info.helper, info.session_id),
        source: SessionSource::AgentPane,
        agent: info.agent_id.clone(),
        session_id: Some(info.session_id.clone()),
        pane: info.target_pane.clone(),
        tab: info.owner_tab.clone(),
        cwd: known.cwd.clone(),
        title: None,
        status,
        last_activity_ms: known.last_activity_ms,
        current_tool: None,
        resumable: false,
    }
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
