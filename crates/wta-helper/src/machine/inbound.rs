//! Inputs that are not the app's: typed ACP from the master, the answers of
//! commands the I/O layer carried out (worded in `news.rs`), the proposal
//! engine's and the executor's news (`cards.rs`), the status probe, the
//! pane watcher's facts and the wire tap.

use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, SessionId, StopReason as AcpStop,
};
use wta_state::{Direction, DomainEvent, PermissionAnswer, PermissionRequestId, StopReason};

use super::acp_map;
use super::command::{Call, Command, ProposalNews};
use super::input::{ClientCall, Input, PreflightAnswer, Preflighted};
use super::status::Probe;
use super::{ConnectionError, OptionsReply, WireLine};
use super::{Machine, Out};

impl Machine {
    /// Every input but the app's and the status timer.
    pub(super) fn inbound(&mut self, input: Input, out: &mut Out) {
        match input {
            Input::App(_)
            | Input::StatusDue
            | Input::TabScanDue
            | Input::CommandFinished { .. }
            | Input::FixRequested { .. } => {}
            Input::MasterAnnounced => self.master_announced(out),
            Input::Focused { pane } => self.focused(pane, out),
            Input::History(news) => self.history_news(news, out),
            Input::Linked(result) => self.linked(*result, out),
            Input::MasterClosed => self.master_closed(out),
            Input::MasterExplained { why } => self.master_explained(why, out),
            Input::MasterStarted(result) => self.master_started(result, out),
            Input::SessionOpened { agent, result } => self.session_opened(agent, *result, out),
            Input::Update(n) => {
                if self.is_current(&n.session_id) {
                    out.events.extend(acp_map::session_update(&n.update));
                }
            }
            Input::Permission { key, request } => self.permission(key, request, out),
            Input::Preflighted { key, verdict } => self.preflighted(key, verdict, out),
            Input::ClientRequest { key, call } => match call {
                ClientCall::ReadFile | ClientCall::WriteFile => out.cmd(Command::ServeFile { key }),
                ClientCall::Terminal { .. } => out.cmd(Command::ServeTerminal { key }),
                ClientCall::SessionTool { session }
                    if *self.pane.session.as_ref().map_or("", |s| &*s.0) == *session =>
                {
                    out.cmd(Command::RunSessionTool { key });
                }
                ClientCall::SessionTool { session } => out.cmd(Command::Refuse {
                    key,
                    message: format!("session {session} is not the one open in this agent pane"),
                }),
                ClientCall::Other { method } => out.cmd(Command::Refuse {
                    key,
                    message: format!("this wta pane does not serve `{method}` yet"),
                }),
            },
            Input::Question {
                key,
                session,
                request,
                input,
            } => self.question(key, &session, request, input, out),
            Input::QuestionGone { session, request } => self.question_gone(&session, request, out),
            Input::PromptFinished { session, result } => {
                self.prompt_finished(&session, *result, out)
            }
            Input::Lagged { dropped } => {
                out.error(wta_i18n::tr!("helper.lagged", dropped = dropped))
            }
            Input::AgentExited(n) => {
                let ours = self
                    .pane
                    .session
                    .as_ref()
                    .is_some_and(|s| n.session_ids.iter().any(|id| **id == *s.0));
                if ours {
                    self.session_died(&n.agent_id, &n.reason, out);
                    if self.app.transcript.turn_running() {
                        out.event(DomainEvent::TurnEnded(StopReason::Cancelled));
                    }
                }
            }
            Input::Replied { call, result } => self.replied(call, *result, out),
            Input::AgentSessions(result) => match *result {
                Ok(list) => {
                    let ours = self.pane.session.as_ref().map(|s| s.0.to_string());
                    out.event(DomainEvent::SessionList(
                        list.sessions
                            .iter()
                            .map(|row| session_item(row, ours.as_deref()))
                            .collect(),
                    ))
                }
                Err(err) => out.error(wta_i18n::tr!(
                    "helper.sessions.list_failed",
                    err = err.localized()
                )),
            },
            Input::Agents(agents) => out.event(DomainEvent::Agents(agents)),
            Input::AgentChecked { id, agents } => self.agent_checked(id, agents, out),
            Input::Status(probe) => self.status(probe, out),
            Input::PaneFacts { pane, facts } => self.pane_facts(pane, facts, out),
            Input::Proposal(event) => self.proposal(event, out),
            Input::Executor(news) => self.executor_news(news, out),
            Input::Terminal(news) => self.terminal(news, out),
            Input::Delegated(result) => self.delegated(result, out),
            Input::SessionActionDone { verb, result } => {
                self.session_action_done(verb, result, out);
            }
            Input::AuthWindow {
                agent,
                method,
                result,
            } => self.auth_window(&agent, &method, result, out),
            Input::CopyFailed { why } => {
                out.error(wta_i18n::tr!("helper.copy.failed", err = why));
            }
            Input::NotConnected => out.error(super::effects::not_connected()),
            Input::CallFailed(err) => self.call_failed(&err, out),
            Input::ProposalsOff { why } => {
                out.error(wta_i18n::tr!("helper.proposals.off", err = why));
            }
            Input::ConfigProblems { notice } => out.event(DomainEvent::Notice(notice)),
            Input::Wire(line) => wire(line, out),
        }
    }

    /// Whether `session` is the pane's current session.
    fn is_current(&self, session: &SessionId) -> bool {
        self.pane.session.as_ref() == Some(session)
    }

    /// `session/request_permission`: a stale session's request is cancelled
    /// (nobody would see its card); the current session's goes to the
    /// proposal preflight first.
    fn permission(
        &mut self,
        key: PermissionRequestId,
        request: Box<RequestPermissionRequest>,
        out: &mut Out,
    ) {
        if !self.is_current(&request.session_id) {
            return out.cmd(Command::AnswerPermission {
                key,
                answer: PermissionAnswer::Cancelled,
            });
        }
        let own_server = self
            .pane
            .mcp_server
            .as_ref()
            .filter(|(session, _)| *session == request.session_id)
            .map(|(_, server)| server.clone());
        self.pane
            .preflighting
            .insert(key, (request.session_id.clone(), request));
        out.cmd(Command::Preflight { key, own_server });
    }

    /// After the preflight: yolo's layer 2 approves silently, or a card asks.
    fn preflighted(&mut self, key: PermissionRequestId, verdict: Preflighted, out: &mut Out) {
        let Some((session, request)) = self.pane.preflighting.remove(&key) else {
            return;
        };
        match verdict {
            Preflighted::Answered { how, sent } => {
                preflight_answered(&how, out);
                if let Err(err) = sent {
                    self.call_failed(&err, out);
                }
            }
            Preflighted::Card if !self.is_current(&session) => {
                out.cmd(Command::AnswerPermission {
                    key,
                    answer: PermissionAnswer::Cancelled,
                });
            }
            Preflighted::Card => {
                let card = acp_map::permission_request(key, &request);
                if let Some(option) = self.yolo_permission(&card) {
                    out.cmd(Command::AnswerPermission {
                        key,
                        answer: PermissionAnswer::Selected(option),
                    });
                    return out.event(DomainEvent::Notice(wta_i18n::tr!(
                        "helper.yolo.approved",
                        title = card.title
                    )));
                }
                self.pane.permissions.insert(key, session);
                out.event(DomainEvent::PermissionRequest(card));
            }
        }
    }

    /// `session/prompt` answered: the turn of the current session ends.
    fn prompt_finished(
        &mut self,
        session: &SessionId,
        result: Result<AcpStop, ConnectionError>,
        out: &mut Out,
    ) {
        if !self.is_current(session) || !self.app.transcript.turn_running() {
            return;
        }
        out.cmd(Command::Proposals(ProposalNews::TurnEnded));
        self.pane.autofix.fix_turn = None;
        for id in self.withdraw_permissions(out) {
            out.event(DomainEvent::PermissionWithdrawn(id));
        }
        match result {
            Ok(stop) => out.event(DomainEvent::TurnEnded(acp_map::stop_reason(&stop))),
            Err(ConnectionError::AgentExited { agent }) => {
                let reason = wta_i18n::tr!("helper.session.exited_during_turn");
                self.session_died(&agent, &reason, out);
                out.event(DomainEvent::TurnEnded(StopReason::Cancelled));
            }
            Err(err) => {
                out.error(err.localized());
                out.event(DomainEvent::TurnEnded(StopReason::Cancelled));
            }
        }
    }

    /// A call that may carry new config options answered.
    fn replied(
        &mut self,
        call: Call,
        result: Result<OptionsReply, ConnectionError>,
        out: &mut Out,
    ) {
        let options = |reply: &OptionsReply, out: &mut Out| {
            if let Some(options) = &reply.config_options {
                out.events.extend(acp_map::config_events(options));
            }
        };
        match (call, result) {
            (Call::SetModel(id), Ok(reply)) => {
                options(&reply, out);
                out.event(DomainEvent::ModelChanged(id));
            }
            (Call::SetModel(id), Err(err)) => {
                out.error(wta_i18n::tr!(
                    "helper.model.switch_failed",
                    model = id,
                    err = err.localized()
                ));
            }
            (Call::SetConfig | Call::SetYolo(_), Ok(reply)) => options(&reply, out),
            (Call::SetConfig, Err(err)) => out.error(wta_i18n::tr!(
                "helper.option.change_failed",
                err = err.localized()
            )),
            // Fail closed: the agent may still auto-approve on its own.
            (Call::SetYolo(false), Err(err)) => self.yolo_disable_failed(&err.localized(), out),
            (Call::SetYolo(true), Err(err)) => {
                out.error(wta_i18n::tr!("helper.yolo.refused", err = err.localized()))
            }
            (Call::Authenticate, Ok(_)) => self.open_session(None, false, out),
            (Call::Authenticate, Err(err)) => {
                out.error(wta_i18n::tr!("helper.auth.failed", err = err.localized()))
            }
            (Call::CloseSession, Ok(_)) => {}
            (Call::CloseSession, Err(err)) => tracing::debug!("session/close failed: {err}"),
        }
    }

    /// The status probe answered.
    fn status(&mut self, probe: Probe, out: &mut Out) {
        if probe.owner_gone {
            // The tab was closed (with this pane stashed): end the pane, its
            // helper and, through the master, its sessions.
            tracing::info!("the tab this agent pane belongs to is gone; exiting");
            self.pane.quit = true;
            return;
        }
        let went_unseen = self.pane.visible && !probe.visible;
        self.pane.visible = probe.visible;
        self.pane.probe_saw_it |= probe.visible;
        if went_unseen {
            self.went_unseen(out);
        }
        let hidden = !probe.visible && self.pane.probe_saw_it;
        if hidden != self.app.pane_hidden {
            // The app is told: a hidden pane's cards are not visible, and one
            // shown again starts its confirm guard over.
            out.event(if hidden {
                DomainEvent::PaneHidden
            } else {
                DomainEvent::PaneShown
            });
        }
        if self.pane.probed_cwd.as_ref() == Some(&probe.cwd) {
            return;
        }
        self.pane.probed_cwd = Some(probe.cwd.clone());
        if let Some(pane) = &self.pane.config.target_pane {
            out.event(DomainEvent::TargetPane {
                pane: pane.to_string(),
                cwd: probe.cwd,
            });
        }
    }
}

/// What the pane says of a permission request the preflight answered
/// (nothing for an answer that went as it should).
fn preflight_answered(how: &PreflightAnswer, out: &mut Out) {
    match how {
        PreflightAnswer::Allowed | PreflightAnswer::CancelledSilently => {}
        PreflightAnswer::NoAllowOnce => {
            out.error(wta_i18n::tr!("helper.proposals.no_allow_once"));
        }
        PreflightAnswer::UnknownShape { why } => {
            out.error(wta_i18n::tr!("helper.proposals.unknown_shape", why = why))
        }
    }
}

/// A line of the wire tap for the F12 panel (with how many were dropped).
fn wire(line: WireLine, out: &mut Out) {
    if line.dropped_before > 0 {
        out.event(DomainEvent::Traffic {
            direction: Direction::In,
            line: wta_i18n::tr!("helper.traffic_dropped", count = line.dropped_before),
        });
    }
    out.event(DomainEvent::Traffic {
        direction: line.direction,
        line: line.text,
    });
}

/// A registry row as a `/sessions` picker item (`current`: live).
/// A registry row as a `/sessions` picker item; `ours` is this pane's
/// session id, marked "(this pane)".
fn session_item(
    row: &wta_protocol::agent_sessions::AgentSessionRow,
    ours: Option<&str>,
) -> wta_state::PickerItem {
    use wta_protocol::agent_sessions::SessionSource;
    let place = match (&row.pane, row.source) {
        (Some(pane), SessionSource::ShellPane) => {
            format!(" {}", wta_i18n::tr!("helper.sessions.in_pane", pane = pane))
        }
        (Some(pane), SessionSource::AgentPane) => {
            format!(
                " {}",
                wta_i18n::tr!("helper.sessions.for_pane", pane = pane)
            )
        }
        (None, _) => String::new(),
    };
    let what = row
        .current_tool
        .as_deref()
        .map(|tool| format!(" ({tool})"))
        .unwrap_or_default();
    let resumable = match row.resumable {
        true => format!(" · {}", wta_i18n::tr!("helper.sessions.resumable")),
        false => String::new(),
    };
    let this_pane = match (ours, row.session_id.as_deref()) {
        (Some(ours), Some(id)) if ours == id => {
            format!(" {}", wta_i18n::tr!("helper.sessions.this_pane"))
        }
        _ => String::new(),
    };
    let detail = [row.title.as_deref(), row.cwd.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    wta_state::PickerItem {
        id: row.key.clone(),
        label: format!(
            "{} · {}{what}{place}{resumable}{this_pane}",
            row.agent,
            status_word(row.status)
        ),
        detail,
        current: row.status.is_live(),
    }
}

/// A registry status as the picker shows it (the protocol's word is `as_str`).
fn status_word(status: wta_protocol::agent_sessions::AgentStatus) -> String {
    use wta_protocol::agent_sessions::AgentStatus;
    match status {
        AgentStatus::Idle => wta_i18n::tr!("helper.sessions.status.idle"),
        AgentStatus::Working => wta_i18n::tr!("helper.sessions.status.working"),
        AgentStatus::Attention => wta_i18n::tr!("helper.sessions.status.attention"),
        AgentStatus::Error => wta_i18n::tr!("helper.sessions.status.error"),
        AgentStatus::Ended => wta_i18n::tr!("helper.sessions.status.ended"),
        AgentStatus::Historical => wta_i18n::tr!("helper.sessions.status.historical"),
    }
}
