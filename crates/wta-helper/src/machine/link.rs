//! The link to the master on the machine. A master EOF (or a master that
//! cannot be reached) ends the link, the session and the turn, and reports
//! `MasterGone` with what the I/O layer can tell about it; the pane stays.
//! Only `Effect::Reconnect` (the user's Enter) asks the master starter for a
//! master; nothing starts one on its own.
//!
//! A pane nobody sees (stashed, pre-warmed: the status probe last found it
//! off screen) cannot be given that Enter, so while its link is down it
//! waits for a master to be announced (`Command::AwaitMaster`, answered by
//! `Input::MasterAnnounced`) and links again on its own, as Enter would
//! after the start: a new session (or its own, loaded), under the
//! reconnected divider. A seen pane ignores the announcement; it waits for
//! the user. After a failed attempt the wait is for the next announcement
//! only (`now: false`), so a master that keeps refusing costs one attempt
//! per start, not a loop.

use wta_state::{ConnectionState, DomainEvent};

use super::ConnectionError;
use super::command::{Command, ProposalNews};
use super::input::Linked;
use super::{Link, Machine, Out};

impl Machine {
    /// Dials the master (asking for `agent`, if given).
    pub(super) fn connect(&mut self, agent: Option<String>, reconnect: bool, out: &mut Out) {
        if let Some(a) = &agent {
            self.pane.agent.clone_from(a);
        }
        self.pane.link = Link::Connecting { reconnect };
        self.pane.session = None;
        out.cmd(Command::Connect { agent });
    }

    /// A connection attempt ended.
    pub(super) fn linked(&mut self, result: Result<Linked, ConnectionError>, out: &mut Out) {
        let Link::Connecting { reconnect } = self.pane.link else {
            // Not waiting for one (a late answer): drop it.
            return out.cmd(Command::Disconnect);
        };
        match result {
            Ok(linked) => {
                self.pane.auth = linked.auth;
                self.pane.loads_sessions = linked.loads_sessions;
                if let Some(agent) = linked.agent_id {
                    self.pane.agent.clone_from(&agent);
                    self.pane.known_agent = Some(agent);
                }
                self.pane.link = Link::Up;
                let new_master = self.pane.master_pid != linked.master_pid;
                self.pane.master_pid = linked.master_pid;
                if reconnect {
                    out.event(DomainEvent::Reconnected { new_master });
                }
                // Resume (`--load-session`, or this pane's own session after
                // the master went away) where the agent loads sessions.
                let resume = self
                    .pane
                    .config
                    .load_session
                    .take()
                    .map(agent_client_protocol::v1::schema::SessionId::new)
                    .or_else(|| self.pane.resume.take().filter(|_| self.pane.loads_sessions));
                match resume {
                    // The agent replays the history as this session's
                    // updates before it answers, so it is current already.
                    Some(session) => {
                        self.pane.session = Some(session.clone());
                        self.pane.loading = true;
                        out.cmd(Command::LoadSession {
                            session,
                            label: self.pane.agent.clone(),
                        });
                    }
                    None => self.open_session(None, false, out),
                }
            }
            Err(err @ (ConnectionError::Unreachable { .. } | ConnectionError::MasterClosed)) => {
                self.pane.link = Link::Down;
                let why = match err {
                    ConnectionError::MasterClosed => {
                        "the wta master closed the connection before it was set up".to_owned()
                    }
                    other => other.to_string(),
                };
                out.event(DomainEvent::MasterGone { why });
                self.await_master_unseen(false, out);
            }
            Err(err) => {
                self.pane.link = Link::Down;
                out.event(super::acp_map::open_failure(
                    &err,
                    &self.pane.agent,
                    &self.pane.auth,
                ));
            }
        }
    }

    /// The master connection ended: forget it, its session and its turn,
    /// then say why once the I/O layer has looked.
    pub(super) fn master_closed(&mut self, out: &mut Out) {
        if self.pane.link != Link::Up {
            // A second notice of the same end, or the end of a link not made.
            return;
        }
        out.cmd(Command::Proposals(ProposalNews::TransportLost));
        // Their responders went with the connection; the app drops the cards.
        self.pane.permissions.clear();
        if let Some(asked) = self.pane.question.take() {
            out.event(wta_state::DomainEvent::QuestionWithdrawn {
                id: asked.key.0,
                why: wta_i18n::tr!("helper.question.master_ended"),
            });
        }
        self.pane.preflighting.clear();
        out.cmd(Command::Disconnect);
        self.pane.link = Link::Down;
        self.pane.resume = self
            .pane
            .session
            .take()
            .filter(|_| self.pane.loads_sessions);
        self.pane.session_lost = false;
        self.pane.pending_prompt = None;
        out.cmd(Command::ExplainMasterGone);
        self.reset_session_yolo(out);
    }

    /// The I/O layer said why the master went away: the pane says it, and
    /// (not seen) waits for a master from then on, so a link made again
    /// never precedes the news of the old one's end.
    pub(super) fn master_explained(&mut self, why: String, out: &mut Out) {
        out.event(DomainEvent::MasterGone { why });
        self.await_master_unseen(true, out);
    }

    /// `Effect::Reconnect`: start a master if none runs, then link; the
    /// app shows the reconnect under way until a master answers.
    pub(super) fn reconnect(&mut self, out: &mut Out) {
        if self.pane.link != Link::Down {
            return;
        }
        self.pane.link = Link::StartingMaster;
        out.event(DomainEvent::Connection(ConnectionState::MasterLost {
            reconnecting: true,
        }));
        out.cmd(Command::StartMaster);
    }

    /// The master starter answered: link, or say why no master could be started.
    pub(super) fn master_started(&mut self, result: Result<(), String>, out: &mut Out) {
        if self.pane.link != Link::StartingMaster {
            return;
        }
        match result {
            Ok(()) => self.connect(self.pane.known_agent.clone(), true, out),
            Err(why) => {
                self.pane.link = Link::Down;
                out.event(DomainEvent::MasterGone {
                    why: wta_i18n::tr!("helper.master.cannot_start", why = why),
                });
                self.await_master_unseen(false, out);
            }
        }
    }

    /// A master answers on the socket: a pane nobody sees links again.
    pub(super) fn master_announced(&mut self, out: &mut Out) {
        if self.pane.link == Link::Down && !self.pane.visible {
            self.connect(self.pane.known_agent.clone(), true, out);
        }
    }

    /// The status probe found the pane off screen (it was seen): with the
    /// link down, it now waits for a master (one may run already).
    pub(super) fn went_unseen(&mut self, out: &mut Out) {
        self.await_master_unseen(true, out);
    }

    /// With the link down and the pane not seen, wait for a master.
    fn await_master_unseen(&self, now: bool, out: &mut Out) {
        if self.pane.link == Link::Down && !self.pane.visible {
            out.cmd(Command::AwaitMaster { now });
        }
    }
}
