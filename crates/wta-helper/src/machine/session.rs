//! The pane's ACP session on the machine: opening one (shared or, for
//! `/restart`, on a fresh agent process of its own), taking in the
//! `session/new` reply, closing a replaced session, and replacing a session
//! that died with its agent (the next prompt opens a new one first and says so).

use wta_state::{ConnectionState, DomainEvent, StopReason};

use super::acp_map;
use super::command::{Command, ProposalNews};
use super::{ConnectionError, SessionOpened};
use super::{Link, Machine, Out};

impl Machine {
    /// `session/new` (linking first when there is no link).
    pub(super) fn open_session(&mut self, agent: Option<String>, fresh_agent: bool, out: &mut Out) {
        if self.pane.link != Link::Up {
            return self.connect(agent, false, out);
        }
        let label = agent.clone().unwrap_or_else(|| self.pane.agent.clone());
        out.cmd(Command::OpenSession {
            agent,
            fresh_agent,
            label,
        });
    }

    /// `/restart` (and yolo's fail-closed path): abandons the turn, drops the
    /// session's yolo override and opens a session on a fresh agent process
    /// private to this pane, so a hung shared agent cannot keep it stuck and
    /// other panes on that agent are not disturbed.
    pub(super) fn restart_agent_stack(&mut self, out: &mut Out) {
        // Until the fresh session opens the pane is not Ready: a prompt typed
        // meanwhile waits for it instead of going to the session that ends.
        out.event(DomainEvent::Connection(ConnectionState::Connecting));
        self.abandon_turn(out);
        self.reset_session_yolo(out);
        self.open_session(Some(self.pane.agent.clone()), true, out);
    }

    /// Ends the running turn and its permission requests (before a new session).
    pub(super) fn abandon_turn(&mut self, out: &mut Out) {
        if let (Link::Up, Some(session)) = (self.pane.link, &self.pane.session)
            && self.app.transcript.turn_running()
        {
            out.cmd(Command::Cancel {
                session: session.clone(),
            });
        }
        self.withdraw_permissions(out);
        out.cmd(Command::Proposals(ProposalNews::SessionReplaced));
    }

    /// The current session went with its agent process: drop it and its
    /// permission cards; the next prompt opens a new session.
    pub(super) fn session_died(&mut self, agent: &str, reason: &str, out: &mut Out) {
        self.pane.session = None;
        self.pane.session_lost = true;
        out.cmd(Command::Proposals(ProposalNews::TransportLost));
        for id in self.withdraw_permissions(out) {
            out.event(DomainEvent::PermissionWithdrawn(id));
        }
        out.error(wta_i18n::tr!(
            "helper.session.agent_exited",
            agent = agent,
            reason = reason
        ));
    }

    /// A prompt for a session that died with its agent: open a new session
    /// (the master starts the agent again); the prompt follows once it is open.
    pub(super) fn reopen_then_prompt(&mut self, text: String, out: &mut Out) {
        self.pane.session_lost = false;
        self.pane.pending_prompt = Some(text);
        self.reset_session_yolo(out);
        self.open_session(Some(self.pane.agent.clone()), false, out);
    }

    /// `session/new` answered.
    pub(super) fn session_opened(
        &mut self,
        agent: String,
        result: Result<SessionOpened, ConnectionError>,
        out: &mut Out,
    ) {
        if self.pane.link != Link::Up {
            // A reply the old master sent before it went away.
            return;
        }
        let loading = std::mem::take(&mut self.pane.loading);
        let reply = match result {
            Ok(reply) => reply,
            Err(err) if loading => {
                // It could not be resumed: a new session instead, and why.
                self.pane.session = None;
                out.event(DomainEvent::Notice(wta_i18n::tr!(
                    "helper.session.not_resumed",
                    err = err.localized()
                )));
                return self.open_session(None, false, out);
            }
            Err(err) => {
                self.pane.agent.clone_from(&agent);
                self.pane.known_agent = Some(agent.clone());
                if self.pane.pending_prompt.take().is_some() {
                    self.pane.session_lost = true;
                    out.event(DomainEvent::TurnEnded(StopReason::Cancelled));
                }
                return out.event(acp_map::open_failure(&err, &agent, &self.pane.auth));
            }
        };
        if reply.response.session_id.0.is_empty() {
            return out.event(DomainEvent::Connection(ConnectionState::Failed(
                wta_i18n::tr!("helper.session.no_id"),
            )));
        }
        let facts = acp_map::session_started(&agent, &reply);
        let pending = self.pane.pending_prompt.take();
        if self.app.transcript.turn_running() && pending.is_none() {
            out.event(DomainEvent::TurnEnded(StopReason::Cancelled));
        }
        let id = reply.response.session_id.clone();
        if let Some(old) = self.pane.session.take()
            && old != id
            && self.pane.link == Link::Up
        {
            out.cmd(Command::CloseSession { session: old });
        }
        self.pane.known_agent = Some(agent.clone());
        self.pane.agent = agent;
        if self.pane.config.has_host && self.pane.config.own_pane.is_some() {
            out.cmd(Command::NameAgent {
                agent: self.pane.agent.clone(),
            });
        }
        self.pane.mcp_server = reply.mcp_server().map(|server| (id.clone(), server));
        self.pane.session = Some(id);
        self.pane.model_control = facts.model_control;
        for event in facts.events {
            out.event(event);
        }
        let options = reply.response.config_options.unwrap_or_default();
        self.session_yolo(&options, out);
        self.pane.session_lost = false;
        // A delegate pane's task: the first session is the one it was for.
        if let Some(task) = self.pane.config.first_prompt.take() {
            out.typed.push_back(task);
        }
        if let Some(text) = pending {
            out.event(DomainEvent::Notice(wta_i18n::tr!(
                "helper.session.restarted",
                agent = self.pane.agent
            )));
            if let Some(session) = self.pane.session.clone() {
                out.cmd(Command::Prompt { session, text });
            }
        }
    }
}
