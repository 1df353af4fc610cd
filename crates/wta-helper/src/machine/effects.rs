//! The chat app's effects, as the session side carries them out: each one
//! becomes commands for the I/O layer, session steps, or a line saying why
//! it cannot be done now.

use wta_state::{AgentChoice, ConnectionState, DomainEvent, Effect, PermissionAnswer, StopReason};

use super::command::{Call, Command, ProposalNews};
use super::{Link, Machine, ModelControl, Out};

/// Said when an effect needs the agent and no session is linked.
pub(super) fn not_connected() -> String {
    wta_i18n::tr!("helper.not_connected")
}

impl Machine {
    /// One effect of the app.
    pub(super) fn effect(&mut self, effect: Effect, out: &mut Out) {
        match effect {
            Effect::SendPrompt(text) => self.send_prompt(text, out),
            Effect::Cancel => self.cancel_turn(out),
            Effect::NewSession => {
                // As for /restart: a prompt typed before the new session
                // opens waits for it, not going to the session that ends.
                out.event(DomainEvent::Connection(ConnectionState::Connecting));
                self.abandon_turn(out);
                self.reset_session_yolo(out);
                self.open_session(None, false, out);
            }
            Effect::Restart => self.restart_agent_stack(out),
            // Read the registry again: an agent installed since the list was
            // read is switched to, a missing one is not.
            Effect::SwitchAgent(id) => out.cmd(Command::CheckAgent { id }),
            Effect::SetModel(id) => self.set_model(id, out),
            Effect::SetConfigOption { option, value } => {
                self.set_config(Call::SetConfig, option, value, out);
            }
            Effect::OpenSessions => match self.pane.link {
                Link::Up => out.cmd(Command::ListAgentSessions),
                _ => out.error(not_connected()),
            },
            Effect::SessionAction { key, verb } => match self.pane.config.has_host {
                true => out.cmd(Command::SessionAction { key, verb }),
                false => out.error(wta_i18n::tr!("helper.session.needs_tmux")),
            },
            Effect::AnswerPermission { request, answer } => {
                if self.pane.permissions.remove(&request).is_some() {
                    out.cmd(Command::AnswerPermission {
                        key: request,
                        answer,
                    });
                }
            }
            Effect::AnswerQuestion { id, answer } => self.question_answered(id, answer, out),
            Effect::Delegate(task) => {
                match (&self.pane.config.target_pane, self.pane.config.has_host) {
                    (Some(source), true) => out.cmd(Command::Delegate {
                        task,
                        source: source.clone(),
                    }),
                    _ => out.error(wta_i18n::tr!("helper.delegate.needs_tmux")),
                }
            }
            Effect::SetYolo(on) => self.set_yolo(on, out),
            Effect::History(effect) => self.history_effect(effect, out),
            Effect::CopyToClipboard(text) => {
                if self.pane.config.has_host {
                    out.cmd(Command::Copy { text });
                } else {
                    out.error(wta_i18n::tr!("helper.copy.needs_tmux"));
                }
            }
            Effect::RunAuthInWindow {
                agent,
                method,
                command,
            } => {
                if self.pane.config.has_host {
                    out.cmd(Command::OpenAuthWindow {
                        agent,
                        method,
                        command,
                    });
                } else {
                    out.error(wta_i18n::tr!(
                        "helper.auth.run_in_terminal",
                        command = command.join(" "),
                        agent = agent
                    ));
                }
            }
            Effect::Authenticate { method, .. } => match self.pane.link {
                Link::Up => out.cmd(Command::Authenticate { method }),
                _ => out.error(not_connected()),
            },
            Effect::ConfirmProposal { id, choice, mode } => {
                out.cmd(Command::ConfirmCard { id, choice, mode });
            }
            Effect::CancelProposal { id } => out.cmd(Command::CancelCard { id }),
            Effect::Reconnect => self.reconnect(out),
            Effect::Fix { generation, hint } => self.start_fix(generation, hint, out),
            Effect::Quit => self.pane.quit = true,
        }
    }

    /// The app started a turn with `text`.
    fn send_prompt(&mut self, text: String, out: &mut Out) {
        let pane = &mut self.pane;
        if pane.link == Link::Up && pane.session.is_none() && pane.session_lost {
            return self.reopen_then_prompt(text, out);
        }
        match (&pane.link, &pane.session) {
            (Link::Up, Some(session)) => out.cmd(Command::Prompt {
                session: session.clone(),
                text,
            }),
            // Nothing to send it to: the turn the app started ends here.
            _ => {
                out.error(not_connected());
                out.event(DomainEvent::TurnEnded(StopReason::Cancelled));
            }
        }
    }

    /// The user cancelled the running turn.
    fn cancel_turn(&mut self, out: &mut Out) {
        out.cmd(Command::Proposals(ProposalNews::TurnCancelled));
        self.withdraw_question(&wta_i18n::tr!("helper.question.turn_stopped"), out);
        // A prompt waiting for a new session is not sent any more.
        let waiting = self.pane.pending_prompt.take().is_some();
        match (&self.pane.link, &self.pane.session) {
            (Link::Up, Some(session)) if !waiting => out.cmd(Command::Cancel {
                session: session.clone(),
            }),
            _ => out.event(DomainEvent::TurnEnded(StopReason::Cancelled)),
        }
    }

    /// `/model ID`.
    fn set_model(&mut self, id: String, out: &mut Out) {
        let (Link::Up, Some(session)) = (self.pane.link, self.pane.session.clone()) else {
            return out.error(not_connected());
        };
        match self.pane.model_control.clone() {
            ModelControl::SetModel => out.cmd(Command::SetModel { session, model: id }),
            ModelControl::ConfigOption(option) => {
                self.set_config(Call::SetModel(id.clone()), option, id, out);
            }
            ModelControl::None => out.error(wta_i18n::tr!("helper.model.no_choice")),
        }
    }

    /// `session/set_config_option` on the current session.
    pub(super) fn set_config(&mut self, call: Call, option: String, value: String, out: &mut Out) {
        let (Link::Up, Some(session)) = (self.pane.link, self.pane.session.clone()) else {
            return out.error(not_connected());
        };
        out.cmd(Command::SetConfigOption {
            call,
            session,
            option,
            value,
        });
    }

    /// `/agent ID` after the registry was read again: switch, or say how to
    /// install it and keep the current session.
    pub(super) fn agent_checked(&mut self, id: String, agents: Vec<AgentChoice>, out: &mut Out) {
        let install = agents
            .iter()
            .find(|a| a.id == id)
            .and_then(|a| a.install.clone());
        out.event(DomainEvent::Agents(agents));
        if let Some(install) = install {
            return out.event(DomainEvent::AgentUnavailable { agent: id, install });
        }
        self.abandon_turn(out);
        self.reset_session_yolo(out);
        out.event(DomainEvent::Connection(ConnectionState::Connecting));
        self.open_session(Some(id), false, out);
    }

    /// Answers every permission card of the current session `cancelled`
    /// (they are gone with the session); returns their ids.
    pub(super) fn withdraw_permissions(
        &mut self,
        out: &mut Out,
    ) -> Vec<wta_state::PermissionRequestId> {
        self.withdraw_question(&wta_i18n::tr!("helper.question.session_ended"), out);
        let ids: Vec<_> = std::mem::take(&mut self.pane.permissions)
            .into_keys()
            .collect();
        for key in &ids {
            out.cmd(Command::AnswerPermission {
                key: *key,
                answer: PermissionAnswer::Cancelled,
            });
        }
        ids
    }
}
