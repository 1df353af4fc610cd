//! Effects of the chat app carried out against the master connection and
//! tmux (`Runtime::execute`), and the replies of those calls (`Runtime::reply`).
//! Nothing here waits: calls are spawned and answer through `Done`.

use serde_json::{Value, json};

use super::engine::{Call, Done, Runtime, traffic};
use super::map::{self, ModelControl};
use super::status;
use crate::connection::ConnectionError;
use wta_state::{AgentChoice, ConnectionState, Direction, DomainEvent, Effect, StopReason};

impl Runtime {
    /// Runs one effect of the app. `Quit` only records the exit.
    pub fn execute(&mut self, effect: Effect) -> Vec<DomainEvent> {
        if effect == Effect::Cancel {
            self.proposals.service().turn_cancelled();
        }
        match effect {
            Effect::SendPrompt(text) => self.send_prompt(text),
            Effect::Cancel => match (&self.conn, self.turn.clone()) {
                (Some(conn), Some(turn)) => match conn.cancel(&turn) {
                    Ok(()) => vec![traffic(Direction::Out, format!("session/cancel {turn}"))],
                    Err(err) => vec![DomainEvent::Error(err.to_string())],
                },
                _ => vec![DomainEvent::TurnEnded(StopReason::Cancelled)],
            },
            Effect::NewSession => {
                self.abandon_turn();
                let mut events = self.reset_session_yolo();
                events.extend(self.open_session(None));
                events
            }
            Effect::Restart => self.restart_agent_stack(),
            Effect::SwitchAgent(id) => {
                // Read the registry again: an agent installed since the
                // list was read is switched to, a missing one is not.
                let tx = self.done_tx.clone();
                tokio::task::spawn_blocking(move || {
                    let agents = super::agents::known_agents();
                    let _ = tx.send(Done::AgentChecked { id, agents });
                });
                Vec::new()
            }
            Effect::SetModel(id) => self.set_model(id),
            Effect::SetConfigOption { option, value } => {
                self.set_config(Call::SetConfig, option, value)
            }
            Effect::OpenSessions => match self.conn.clone() {
                Some(conn) => {
                    self.spawn(async move { Done::Sessions(conn.sessions().await) });
                    Vec::new()
                }
                None => vec![not_connected()],
            },
            Effect::AnswerPermission { request, answer } => {
                match self.permissions.answer(request, &answer) {
                    Ok(true) => vec![traffic(
                        Direction::Out,
                        format!("session/request_permission answer {answer:?}"),
                    )],
                    Ok(false) => Vec::new(),
                    Err(err) => vec![DomainEvent::Error(err.to_string())],
                }
            }
            Effect::SetYolo(on) => self.set_yolo(on),
            Effect::CopyToClipboard(text) => self.copy(text),
            Effect::RunAuthInWindow {
                agent,
                method,
                command,
            } => self.auth_window(agent, method, command),
            Effect::Authenticate { method, .. } => match self.conn.clone() {
                Some(conn) => {
                    let params = json!({"methodId": method});
                    self.call(Call::Authenticate, async move {
                        conn.raw_request("authenticate", params).await
                    });
                    Vec::new()
                }
                None => vec![not_connected()],
            },
            Effect::ConfirmProposal { .. } | Effect::CancelProposal { .. } => {
                self.proposal_decision(effect)
            }
            Effect::Reconnect => self.reconnect(),
            Effect::Quit => {
                self.quit = true;
                Vec::new()
            }
        }
    }

    /// `/agent ID` after the registry was read again: switch, or say how
    /// to install it and keep the current session.
    pub(super) fn agent_checked(
        &mut self,
        id: String,
        agents: Vec<AgentChoice>,
    ) -> Vec<DomainEvent> {
        let install = agents
            .iter()
            .find(|a| a.id == id)
            .and_then(|a| a.install.clone());
        let mut events = vec![DomainEvent::Agents(agents)];
        if let Some(install) = install {
            events.push(DomainEvent::AgentUnavailable { agent: id, install });
            return events;
        }
        self.abandon_turn();
        events.extend(self.reset_session_yolo());
        events.push(DomainEvent::Connection(ConnectionState::Connecting));
        events.extend(self.open_session(Some(id)));
        events
    }

    pub(super) fn send_prompt(&mut self, text: String) -> Vec<DomainEvent> {
        if self.session.is_none() && self.conn.is_some() && self.session_lost {
            return self.reopen_then_prompt(text);
        }
        match (&self.conn, &self.session) {
            (Some(conn), Some(session)) => {
                let (conn, session) = (conn.clone(), session.clone());
                let (host, target) = (self.host.clone(), self.config.target_pane.clone());
                let own = self.config.own_pane.clone();
                self.proposals
                    .start_prompt(&conn, &session, &text, host, target, own);
                self.turn = Some(session.clone());
                tracing::trace!(session, "prompt: {text}");
                vec![traffic(
                    Direction::Out,
                    format!(
                        "session/prompt {}",
                        json!({"sessionId": session, "text": text})
                    ),
                )]
            }
            _ => vec![
                not_connected(),
                DomainEvent::TurnEnded(StopReason::Cancelled),
            ],
        }
    }

    fn set_model(&mut self, id: String) -> Vec<DomainEvent> {
        let (Some(conn), Some(session)) = (self.conn.clone(), self.session.clone()) else {
            return vec![not_connected()];
        };
        match self.model_control.clone() {
            ModelControl::SetModel => {
                let params = json!({"sessionId": session, "modelId": id});
                self.call(Call::SetModel(id), async move {
                    conn.raw_request("session/set_model", params).await
                });
                Vec::new()
            }
            ModelControl::ConfigOption(option) => {
                self.set_config(Call::SetModel(id.clone()), option, id)
            }
            ModelControl::None => vec![DomainEvent::Error(
                "This agent does not offer a model choice.".to_owned(),
            )],
        }
    }

    pub(super) fn set_config(
        &mut self,
        call: Call,
        option: String,
        value: String,
    ) -> Vec<DomainEvent> {
        let (Some(conn), Some(session)) = (self.conn.clone(), self.session.clone()) else {
            return vec![not_connected()];
        };
        let line = format!("session/set_config_option {option}={value}");
        self.call(call, async move {
            conn.set_config_option(&session, &option, &value).await
        });
        vec![traffic(Direction::Out, line)]
    }

    fn copy(&self, text: String) -> Vec<DomainEvent> {
        let Some(host) = self.host.clone() else {
            return vec![DomainEvent::Error(
                "Copying needs tmux (the clipboard goes through tmux's set-buffer -w).".into(),
            )];
        };
        let tx = self.done_tx.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(err) = status::copy_to_clipboard(&host, &text) {
                let _ = tx.send(Done::Event(DomainEvent::Error(format!(
                    "Copy failed: {err}"
                ))));
            }
        });
        Vec::new()
    }

    fn auth_window(&self, agent: String, method: String, command: Vec<String>) -> Vec<DomainEvent> {
        use wta_host::{NewTab, PaneCommand, TerminalHost};
        let Some(host) = self.host.clone() else {
            return vec![DomainEvent::Error(format!(
                "Run `{}` in a terminal to sign in to {agent}, then type /restart.",
                command.join(" ")
            ))];
        };
        let spec = NewTab {
            command: Some(PaneCommand::Argv(command)),
            cwd: Some(self.config.cwd.clone()),
            title: Some(format!("{agent} sign-in")),
            focus: true,
            ..NewTab::default()
        };
        let tx = self.done_tx.clone();
        tokio::task::spawn_blocking(move || {
            let event = match host.new_tab(&spec) {
                Ok(pane) => DomainEvent::Notice(format!(
                    "Signing in to {agent} ({method}) in tmux window {}. Type /restart when done.",
                    pane.window
                )),
                Err(err) => DomainEvent::Error(format!("Cannot open a sign-in window: {err}")),
            };
            let _ = tx.send(Done::Event(event));
        });
        Vec::new()
    }

    pub(super) fn reply(
        &mut self,
        call: Call,
        result: Result<Value, ConnectionError>,
    ) -> Vec<DomainEvent> {
        let options = |v: &Value| {
            let raw = v.get("configOptions");
            if raw.is_none() {
                return Vec::new();
            }
            map::session_update(
                &json!({"sessionUpdate": "config_option_update", "configOptions": raw}),
            )
        };
        match (call, result) {
            (Call::SetModel(id), Ok(v)) => {
                let mut events = options(&v);
                events.push(DomainEvent::ModelChanged(id));
                events
            }
            (Call::SetModel(id), Err(err)) => {
                vec![DomainEvent::Error(format!(
                    "Cannot switch the model to {id}: {err}"
                ))]
            }
            (Call::SetConfig | Call::SetYolo(true), Ok(v)) => options(&v),
            (Call::SetYolo(false), Ok(v)) => options(&v),
            (Call::SetConfig, Err(err)) => {
                vec![DomainEvent::Error(format!(
                    "Cannot change the option: {err}"
                ))]
            }
            (Call::SetYolo(on), Err(err)) => {
                if !on {
                    // Fail closed: the agent may still auto-approve on its own.
                    self.yolo_disable_failed(&err.to_string())
                } else {
                    vec![DomainEvent::Error(format!(
                        "The agent refused allow_all ({err}); this pane still approves tool permissions for it."
                    ))]
                }
            }
            (Call::Authenticate, Ok(_)) => self.open_session(None),
            (Call::Authenticate, Err(err)) => {
                vec![DomainEvent::Error(format!("Sign-in failed: {err}"))]
            }
            (Call::CloseSession, Ok(_)) => Vec::new(),
            (Call::CloseSession, Err(err)) => {
                tracing::debug!("session/close failed: {err}");
                Vec::new()
            }
        }
    }
}

fn not_connected() -> DomainEvent {
    DomainEvent::Error("Not connected to an agent. Type /restart to try again.".to_owned())
}
