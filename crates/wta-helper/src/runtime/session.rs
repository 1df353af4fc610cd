//! The pane's session lifecycle on [`Runtime`]: opening a session (shared or,
//! for `/restart`, on a fresh agent process of its own), taking in the
//! `session/new` reply, closing a replaced session, and replacing a session
//! that died with its agent (the next prompt opens a new one first and says so).
//! Calls are spawned; replies come back through `Done`.

use serde_json::{Value, json};
use wta_protocol::helper_master::WtaMeta;

use super::engine::{Call, Done, Runtime, traffic};
use super::map;
use crate::connection::ConnectionError;
use wta_state::{ConnectionState, Direction, DomainEvent, StopReason};

impl Runtime {
    /// `session/new` (raw, so the unstable `models` field survives).
    pub(super) fn open_session(&mut self, agent: Option<String>) -> Vec<DomainEvent> {
        self.open_session_on(agent, false)
    }

    /// `/restart` (and yolo's fail-closed path): abandons the turn, drops the
    /// session's yolo override and opens a session on a fresh agent process
    /// private to this pane, so a hung shared agent cannot keep it stuck and
    /// other panes on that agent are not disturbed.
    pub(super) fn restart_agent_stack(&mut self) -> Vec<DomainEvent> {
        self.abandon_turn();
        let mut events = self.reset_session_yolo();
        events.extend(self.open_session_on(Some(self.agent.clone()), true));
        events
    }

    /// `session/new`; `fresh_agent` asks the master for a new private instance.
    fn open_session_on(&mut self, agent: Option<String>, fresh_agent: bool) -> Vec<DomainEvent> {
        let Some(conn) = self.conn.clone() else {
            self.connect(agent);
            return Vec::new();
        };
        let mut params = json!({"cwd": self.config.cwd, "mcpServers": []});
        let meta = WtaMeta {
            agent_id: agent.clone(),
            fresh_agent,
            ..WtaMeta::default()
        };
        if meta != WtaMeta::default() {
            params["_meta"] = Value::Object(meta.to_meta());
        }
        let label = agent.unwrap_or_else(|| self.agent.clone());
        let line = format!("session/new {params}");
        self.spawn(async move {
            Done::SessionOpened {
                agent: label,
                result: conn.raw_request("session/new", params).await,
            }
        });
        vec![traffic(Direction::Out, line)]
    }

    /// Ends the running turn and its permission requests (before a new session).
    pub(super) fn abandon_turn(&mut self) {
        if let (Some(conn), Some(turn)) = (&self.conn, &self.turn)
            && let Err(err) = conn.cancel(turn)
        {
            tracing::debug!("cancel before a new session: {err}");
        }
        self.permissions.cancel_session(None);
        self.proposals.session_replaced();
    }

    /// The current session went with its agent process: drop it and its
    /// permission cards; the next prompt opens a new session.
    pub(super) fn session_died(&mut self, agent: &str, reason: &str) -> Vec<DomainEvent> {
        self.session = None;
        self.session_lost = true;
        self.proposals.service().transport_lost();
        let mut events: Vec<DomainEvent> = self
            .permissions
            .cancel_session(None)
            .into_iter()
            .map(DomainEvent::PermissionWithdrawn)
            .collect();
        events.push(DomainEvent::Error(format!(
            "Agent `{agent}` exited ({reason}); its session is gone. Your next prompt starts it again in a new session (or type /restart)."
        )));
        events
    }

    /// A prompt for a session that died with its agent: open a new session
    /// (the master starts the agent again); the prompt follows once it is open.
    pub(super) fn reopen_then_prompt(&mut self, text: String) -> Vec<DomainEvent> {
        self.session_lost = false;
        self.pending_prompt = Some(text);
        let mut events = self.reset_session_yolo();
        events.extend(self.open_session(Some(self.agent.clone())));
        events
    }

    pub(super) fn session_opened(
        &mut self,
        agent: String,
        result: Result<Value, ConnectionError>,
    ) -> Vec<DomainEvent> {
        let reply = match result {
            Ok(reply) => reply,
            Err(err) => {
                self.agent = agent.clone();
                self.known_agent = Some(agent.clone());
                let mut events = vec![traffic(Direction::In, format!("session/new failed: {err}"))];
                if self.pending_prompt.take().is_some() {
                    self.session_lost = true;
                    events.push(DomainEvent::TurnEnded(StopReason::Cancelled));
                }
                events.push(map::open_failure(&err, &agent, &self.auth));
                return events;
            }
        };
        let line = traffic(Direction::In, format!("session/new → {reply}"));
        let Some(facts) = map::session_started(&agent, &reply) else {
            return vec![
                line,
                DomainEvent::Connection(ConnectionState::Failed(
                    "The agent answered session/new without a session id. Type /restart to try again."
                        .into(),
                )),
            ];
        };
        let mut events = vec![line];
        if self.turn.take().is_some() {
            events.push(DomainEvent::TurnEnded(StopReason::Cancelled));
        }
        if let Some(old) = self.session.take()
            && old != facts.session_id
        {
            self.close_session(old);
        }
        self.known_agent = Some(agent.clone());
        self.agent = agent;
        self.announce_agent();
        self.session = Some(facts.session_id);
        self.model_control = facts.model_control;
        self.config_ids = map::config_options(reply.get("configOptions"))
            .into_iter()
            .map(|o| o.id)
            .collect();
        events.extend(facts.events);
        events.extend(self.session_yolo(reply.get("configOptions")));
        self.session_lost = false;
        if let Some(text) = self.pending_prompt.take() {
            events.push(DomainEvent::Notice(format!(
                "Agent `{}` was started again: this is a new session, it does not remember the previous conversation.",
                self.agent
            )));
            events.extend(self.send_prompt(text));
        }
        events
    }

    /// Names the session's agent on this pane (`@wta_agent`), so `wta up`
    /// reports what a reused agent pane really runs.
    fn announce_agent(&self) {
        let (Some(host), Some(pane)) = (self.host.clone(), self.config.own_pane.clone()) else {
            return;
        };
        let agent = self.agent.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(err) = wta_host::TerminalHost::set_option(
                &host,
                &pane,
                wta_agent::PANE_AGENT_OPTION,
                &agent,
            ) {
                tracing::debug!("naming the agent on {pane}: {err}");
            }
        });
    }

    /// `session/close` for a session this pane left (`/new`, a replaced
    /// session). Always sent: the master forgets the session either way, and
    /// answers itself for an agent that cannot close sessions.
    pub(super) fn close_session(&self, session: String) {
        let Some(conn) = self.conn.clone() else {
            return;
        };
        self.call(Call::CloseSession, async move {
            conn.raw_request("session/close", json!({"sessionId": session}))
                .await
        });
    }
}
