//! What the master sends, as the machine's inputs: typed ACP events pass
//! through; a request's responder stays here under a fresh key until a
//! command answers it; connections of a superseded `Connect` are dropped.
//! An agent's exit and the master's end also end the agent terminals of
//! the sessions that went with them.

use wta_state::PermissionRequestId;

use super::{Connected, HeldRequest, Runtime};
use crate::connection::HelperEvent;
use crate::machine::{ClientCall, Input, Linked, RequestKey};

impl Runtime {
    /// A master event as an input (`None`: nothing for the machine).
    pub(super) fn intake(&mut self, event: HelperEvent) -> Option<Input> {
        Some(match event {
            HelperEvent::SessionUpdate(n) => Input::Update(n),
            HelperEvent::Permission(p) => {
                let key = PermissionRequestId(self.key());
                let request = Box::new(p.request.clone());
                self.permissions.insert(key, *p);
                Input::Permission { key, request }
            }
            HelperEvent::ReadFile(r) => self.hold(HeldRequest::Read(r), ClientCall::ReadFile),
            HelperEvent::WriteFile(r) => self.hold(HeldRequest::Write(r), ClientCall::WriteFile),
            HelperEvent::Terminal(r) => {
                let method = r.method();
                self.hold(HeldRequest::Terminal(r), ClientCall::Terminal { method })
            }
            HelperEvent::Unserved(r) => {
                let method = r.method.clone();
                self.hold(
                    HeldRequest::Other(Box::new(r)),
                    ClientCall::Other { method },
                )
            }
            HelperEvent::SessionTool(r) => {
                let session = r.params.session_id.clone();
                self.hold(
                    HeldRequest::SessionTool(r),
                    ClientCall::SessionTool { session },
                )
            }
            HelperEvent::ProposalResult(r) => {
                let session = r.params.session_id.clone();
                self.hold(
                    HeldRequest::ProposalResult(r),
                    ClientCall::SessionTool { session },
                )
            }
            HelperEvent::UserInput(r) => {
                let (session, request) = (r.params.session_id.clone(), r.params.request);
                let input = r.params.input.clone();
                let key = RequestKey(self.key());
                self.questions.insert(key, *r);
                Input::Question {
                    key,
                    session,
                    request,
                    input,
                }
            }
            HelperEvent::UserInputGone(g) => Input::QuestionGone {
                session: g.session_id,
                request: g.request,
            },
            HelperEvent::PromptFinished { session_id, result } => Input::PromptFinished {
                session: session_id,
                result: Box::new(result.map(|r| r.stop_reason)),
            },
            HelperEvent::Lagged(l) => Input::Lagged { dropped: l.dropped },
            HelperEvent::AgentExited(n) => {
                // The agent's terminals go with its sessions.
                self.end_terminals(n.session_ids.iter().map(|s| s.clone().into()).collect());
                Input::AgentExited(n)
            }
            HelperEvent::MasterClosed => {
                // The channel ends with the connection: stop polling it.
                self.events = None;
                // Every session went with it, and their terminals with them.
                let terminals = self.terminals.clone();
                tokio::spawn(async move { terminals.shutdown().await });
                Input::MasterClosed
            }
        })
    }

    /// Ends the agent terminals of `sessions` (in the background: tmux calls).
    pub(super) fn end_terminals(
        &self,
        sessions: Vec<agent_client_protocol::v1::schema::SessionId>,
    ) {
        let terminals = self.terminals.clone();
        tokio::spawn(async move { terminals.end_sessions(&sessions).await });
    }

    fn hold(&mut self, request: HeldRequest, call: ClientCall) -> Input {
        let key = RequestKey(self.key());
        self.requests.insert(key, request);
        Input::ClientRequest { key, call }
    }

    /// A connection attempt ended; only the newest `Connect`'s counts.
    pub(super) fn connected(&mut self, connected: Connected) -> Option<Input> {
        if connected.generation != self.generation {
            tracing::debug!("dropping the connection of a superseded connect");
            return None;
        }
        let linked = connected.result.map(|(conn, events, master_pid)| {
            let linked = Linked {
                agent_id: conn.agent_id(),
                auth: crate::machine::acp_map::auth_methods(&conn.init),
                master_pid,
                loads_sessions: conn.init.agent_capabilities.load_session,
            };
            self.conn = Some(conn);
            self.events = Some(events);
            linked
        });
        Some(Input::Linked(Box::new(linked)))
    }
}
