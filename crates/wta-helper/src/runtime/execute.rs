//! Each [`Command`] of the session machine, carried out: calls on the master
//! connection spawned (their answers come back as inputs), tmux and file
//! work on blocking threads, responders answered, proposal news passed on.

use wta_host::{NewTab, PaneCommand, TerminalHost};
use wta_protocol::helper_master::{ClientKind, SessionStateParams};
use wta_state::{PermissionAnswer, PermissionRequestId};

use super::{Connected, HeldRequest, Runtime, status};
use crate::connection::{ConnectOptions, ConnectionError, MasterConnection, lost};
use crate::machine::{Call, Command, Input, Preflighted, ProposalNews, RequestKey};

impl Runtime {
    /// Carries out one command; never waits.
    pub(super) fn execute(&mut self, command: Command) {
        if let Some(history) = &self.history {
            // Whose cards the next ones are (the action history's record).
            match &command {
                Command::OpenSession { label, .. } | Command::LoadSession { label, .. } => {
                    history.note_agent(label);
                }
                Command::Prompt { session, .. } => history.note_session(&session.0),
                _ => {}
            }
        }
        match command {
            Command::Connect { agent } => self.connect(agent),
            Command::Disconnect => self.disconnect(),
            Command::StartMaster => match self.config.master_starter.clone() {
                Some(starter) => {
                    let socket = self.config.socket.clone();
                    self.spawn_blocking(move || {
                        Some(Input::MasterStarted(starter.ensure(&socket)))
                    });
                }
                // Nothing to start one with: connect to whatever listens now.
                None => self.immediate.push_back(Input::MasterStarted(Ok(()))),
            },
            Command::ExplainMasterGone => {
                let socket = self.config.socket.clone();
                self.spawn_blocking(move || {
                    // The log stays in English; `why` is the user's language.
                    tracing::info!(socket = %socket.display(), "the master connection ended");
                    let why = lost::why_master_went_away(&socket);
                    Some(Input::MasterExplained { why })
                });
            }
            Command::AwaitMaster { now } => self.await_master(now),
            Command::AnswerFix { reply, answer } => self.answer_fix(reply, answer),
            Command::CardWaiting { kind } => self.card_waiting(kind),
            Command::Bell => self.bell(),
            Command::OpenSession {
                agent,
                fresh_agent,
                label,
            } => {
                let terminals = self.terminals.clone();
                self.with_conn(move |conn, cwd| async move {
                    let result = conn.open_session(&cwd, agent.as_deref(), fresh_agent).await;
                    if let Ok(opened) = &result {
                        terminals.note_session(opened.response.session_id.clone(), &label);
                    }
                    Input::SessionOpened {
                        agent: label,
                        result: Box::new(result),
                    }
                })
            }
            Command::LoadSession { session, label } => {
                let terminals = self.terminals.clone();
                self.with_conn(move |conn, cwd| async move {
                    let result = conn.load_session(&cwd, &session.0).await;
                    if result.is_ok() {
                        terminals.note_session(session.clone(), &label);
                    }
                    Input::SessionOpened {
                        agent: label,
                        result: Box::new(result),
                    }
                })
            }
            Command::CloseSession { session } => {
                // The pane is done with it: so are its terminals.
                self.end_terminals(vec![session.clone()]);
                self.reply(Call::CloseSession, move |conn| async move {
                    conn.close_session(&session)
                        .await
                        .map(|()| Default::default())
                })
            }
            Command::Prompt { session, text } => match &self.conn {
                // Without cards (the headless driver) nothing could confirm a
                // proposal: the prompt goes as typed, with no channel.
                Some(conn) if !self.config.cards => conn.start_prompt(&session, &text),
                Some(conn) => {
                    let (host, target) = (self.host.clone(), self.config.target_pane.clone());
                    let own = self.config.own_pane.clone();
                    self.proposals
                        .start_prompt(conn, &session, &text, host, target, own);
                }
                None => self.immediate.push_back(Input::NotConnected),
            },
            Command::Cancel { session } => {
                if let Some(conn) = &self.conn
                    && let Err(err) = conn.cancel(&session)
                {
                    self.immediate.push_back(Input::CallFailed(Box::new(err)));
                }
            }
            Command::SetConfigOption {
                call,
                session,
                option,
                value,
            } => self.reply(call, move |conn| async move {
                conn.set_config_option(&session, &option, &value).await
            }),
            Command::SetModel { session, model } => {
                self.reply(Call::SetModel(model.clone()), move |conn| async move {
                    conn.set_model(&session, &model).await
                });
            }
            Command::Authenticate { method } => {
                self.reply(Call::Authenticate, move |conn| async move {
                    conn.authenticate(&method)
                        .await
                        .map(|()| Default::default())
                })
            }
            Command::ReportYolo { session, report } => {
                if let Some(conn) = self.conn.clone() {
                    let params = SessionStateParams {
                        session_id: session.0.to_string(),
                        yolo: report,
                    };
                    tokio::spawn(async move {
                        if let Err(err) = conn.report_session_state(&params).await {
                            tracing::debug!("reporting yolo to the master: {err}");
                        }
                    });
                }
            }
            Command::ListAgentSessions => self.with_conn(|conn, _| async move {
                Input::AgentSessions(Box::new(conn.agent_sessions().await))
            }),
            Command::SessionAction { key, verb } => {
                let socket = self.config.socket.clone();
                self.spawn_blocking(move || {
                    let result = crate::delegate::session_action(&key, verb, &socket);
                    Some(Input::SessionActionDone { verb, result })
                })
            }
            Command::ReadAgents => {
                let read = self.config.user_config.clone();
                self.spawn_blocking(move || {
                    Some(Input::Agents(super::agents::listed(read.as_ref())))
                });
            }
            Command::CheckAgent { id } => self.spawn_blocking(move || {
                Some(Input::AgentChecked {
                    id,
                    agents: super::agents::known_agents(),
                })
            }),
            Command::ProbeStatus => self.probe_status(),
            Command::ScanTab => self.scan_tab(),
            Command::ReadFocus => self.read_focus(),
            Command::Retarget { pane } => self.retarget(pane),
            Command::Notify { text } => {
                if let (Some(host), Some(pane)) =
                    (self.host.clone(), self.config.target_pane.clone())
                {
                    self.spawn_blocking(move || {
                        if let Err(err) = host.notify(&pane, &text) {
                            tracing::debug!("telling the user in tmux: {err}");
                        }
                        None
                    });
                }
            }
            Command::FixPrompt { session, turn } => match &self.conn {
                Some(conn) => {
                    let host = self.host.clone();
                    let own = self.config.own_pane.clone();
                    self.proposals
                        .start_fix_prompt(conn, &session, &turn, host, own);
                }
                None => self.immediate.push_back(Input::NotConnected),
            },
            Command::Copy { text } => {
                if let Some(host) = self.host.clone() {
                    self.spawn_blocking(move || {
                        status::copy_to_clipboard(&host, &text)
                            .err()
                            .map(|err| Input::CopyFailed {
                                why: err.localized(),
                            })
                    });
                }
            }
            Command::OpenAuthWindow {
                agent,
                method,
                command,
            } => self.auth_window(agent, method, command),
            Command::NameAgent { agent } => self.name_agent(agent),
            Command::Preflight { key, own_server } => self.preflight(key, own_server.as_deref()),
            Command::AnswerPermission { key, answer } => self.answer(key, &answer),
            Command::ServeFile { key } => self.serve_file(key),
            Command::ServeTerminal { key } => self.serve_terminal(key),
            Command::Refuse { key, message } => {
                let answered = match self.requests.remove(&key) {
                    Some(HeldRequest::Other(request)) => request.refuse(&message),
                    Some(HeldRequest::SessionTool(request)) => request.fail(-32000, &message),
                    Some(HeldRequest::ProposalResult(request)) => request.fail(-32000, &message),
                    _ => Ok(()),
                };
                if let Err(err) = answered {
                    tracing::debug!("refusing a request: {err}");
                }
            }
            Command::RunSessionTool { key } => self.run_session_tool(key),
            Command::Delegate { task, source } => self.spawn_blocking(move || {
                Some(Input::Delegated(crate::delegate::run(&task, &source)))
            }),
            Command::AnswerQuestion { key, outcome } => {
                if let Some(question) = self.questions.remove(&key)
                    && let Err(err) = question.respond(&outcome)
                {
                    tracing::debug!("answering a question: {err}");
                }
            }
            Command::Proposals(news) => {
                let service = self.proposals.service();
                match news {
                    ProposalNews::TurnCancelled => service.turn_cancelled(),
                    ProposalNews::TurnEnded => service.turn_ended(),
                    ProposalNews::SessionReplaced => self.proposals.session_replaced(),
                    ProposalNews::TransportLost => service.transport_lost(),
                    ProposalNews::AgentMayRunUnasked => service.agent_may_run_unasked(),
                }
            }
            Command::ConfirmCard { id, choice, mode } => self.confirm_card(id, choice, mode),
            Command::CancelCard { id } => self.proposals.service().cancel_card(id),
            Command::History(effect) => self.history_command(effect),
        }
    }

    /// A new `Connect`: the previous connection (and any older attempt) is dropped.
    fn connect(&mut self, agent: Option<String>) {
        self.disconnect();
        self.generation += 1;
        let generation = self.generation;
        let options = ConnectOptions {
            socket: self.config.socket.clone(),
            agent,
            owner_tab: self.config.owner_tab.clone(),
            target_pane: self.config.target_pane.clone(),
            client: ClientKind::Helper,
            tap: Some(self.tap.clone()),
            session_tools: self.config.cards,
        };
        let tx = self.links_tx.clone();
        tokio::spawn(async move {
            let (events_tx, events) = tokio::sync::mpsc::unbounded_channel();
            let socket = options.socket.clone();
            let result = MasterConnection::connect(options, events_tx).await;
            let pid = lost::current_master_pid(&socket).await;
            let _ = tx.send(Connected {
                generation,
                result: result.map(|conn| (conn, events, pid)),
            });
        });
    }

    fn disconnect(&mut self) {
        self.conn = None;
        self.events = None;
        // Dropped responders answer with an error on their own; a gone
        // connection cannot carry an answer anyway.
        self.permissions.clear();
        self.requests.clear();
    }

    /// Spawns `call` on the connection; without one, says so.
    fn with_conn<F, Fut>(&mut self, call: F)
    where
        F: FnOnce(MasterConnection, std::path::PathBuf) -> Fut,
        Fut: std::future::Future<Output = Input> + Send + 'static,
    {
        match self.conn.clone() {
            Some(conn) => {
                let fut = call(conn, self.config.cwd.clone());
                self.spawn(fut);
            }
            None => self.immediate.push_back(Input::NotConnected),
        }
    }

    /// Spawns a call whose answer is a [`Input::Replied`] for `call`.
    fn reply<F, Fut>(&mut self, call: Call, run: F)
    where
        F: FnOnce(MasterConnection) -> Fut,
        Fut: std::future::Future<Output = Result<crate::machine::OptionsReply, ConnectionError>>
            + Send
            + 'static,
    {
        self.with_conn(move |conn, _| {
            let fut = run(conn);
            async move {
                Input::Replied {
                    call,
                    result: Box::new(fut.await),
                }
            }
        });
    }

    fn probe_status(&self) {
        let (Some(host), Some(target)) = (self.host.clone(), self.config.target_pane.clone())
        else {
            return;
        };
        let own = self.config.own_pane.clone();
        let owner = self.config.owner_tab.clone();
        self.spawn_blocking(move || {
            Some(Input::Status(status::probe(
                &host,
                &target,
                own.as_ref(),
                owner.as_ref(),
            )))
        });
    }

    fn auth_window(&mut self, agent: String, method: String, command: Vec<String>) {
        let Some(host) = self.host.clone() else {
            return;
        };
        let spec = NewTab {
            after: None,
            command: Some(PaneCommand::Argv(command)),
            cwd: Some(self.config.cwd.clone()),
            title: Some(format!("{agent} sign-in")),
            focus: true,
            ..NewTab::default()
        };
        self.spawn_blocking(move || {
            let result = host
                .new_tab(&spec)
                .map(|pane| pane.window)
                .map_err(|err| err.localized());
            Some(Input::AuthWindow {
                agent,
                method,
                result,
            })
        });
    }

    /// Names the session's agent on this pane (`@wta_agent`), so `wta up`
    /// reports what a reused agent pane really runs.
    fn name_agent(&self, agent: String) {
        let (Some(host), Some(pane)) = (self.host.clone(), self.config.own_pane.clone()) else {
            return;
        };
        self.spawn_blocking(move || {
            if let Err(err) = host.set_option(&pane, wta_agent::PANE_AGENT_OPTION, &agent) {
                tracing::debug!("naming the agent on {pane}: {err}");
            }
            None
        });
    }

    /// The proposal preflight, answered at once.
    fn preflight(&mut self, key: PermissionRequestId, own_server: Option<&str>) {
        let Some(request) = self.permissions.remove(&key) else {
            return;
        };
        let verdict = match self.proposals.preflight(Box::new(request), own_server) {
            Ok((how, sent)) => Preflighted::Answered {
                how,
                sent: sent.map_err(Box::new),
            },
            Err(request) => {
                self.permissions.insert(key, *request);
                Preflighted::Card
            }
        };
        self.immediate
            .push_back(Input::Preflighted { key, verdict });
    }

    /// Answers a held permission request (once: the responder leaves the table).
    fn answer(&mut self, key: PermissionRequestId, answer: &PermissionAnswer) {
        let Some(request) = self.permissions.remove(&key) else {
            return;
        };
        let sent = match answer {
            PermissionAnswer::Selected(option) => request.select(option),
            PermissionAnswer::Cancelled => request.cancel(),
        };
        if let Err(err) = sent {
            tracing::debug!("answering permission {key:?}: {err}");
            self.immediate.push_back(Input::CallFailed(Box::new(err)));
        }
    }

    /// Serves a held `fs/*` request off the UI task.
    fn serve_file(&mut self, key: RequestKey) {
        let Some(request) = self.requests.remove(&key) else {
            return;
        };
        tokio::task::spawn_blocking(move || {
            let sent = match request {
                HeldRequest::Read(r) => match super::client_fs::read(&r.request) {
                    Ok(response) => r.respond(response),
                    Err((code, message)) => r.fail(code, &message),
                },
                HeldRequest::Write(r) => match super::client_fs::write(&r.request) {
                    Ok(response) => r.respond(response),
                    Err((code, message)) => r.fail(code, &message),
                },
                // Only file requests are held under a ServeFile key.
                HeldRequest::Other(_)
                | HeldRequest::Terminal(_)
                | HeldRequest::SessionTool(_)
                | HeldRequest::ProposalResult(_) => Ok(()),
            };
            if let Err(err) = sent {
                tracing::debug!("answering an fs request: {err}");
            }
        });
    }
}

impl Runtime {
    /// Serves a held `terminal/*` request on a task of its own
    /// (`wait_for_exit` waits as long as the command runs).
    fn serve_terminal(&mut self, key: RequestKey) {
        let Some(HeldRequest::Terminal(request)) = self.requests.remove(&key) else {
            return;
        };
        let terminals = self.terminals.clone();
        tokio::spawn(async move {
            use crate::connection::TerminalRequest as T;
            let method = request.method();
            let sent = match *request {
                T::Create(r) => {
                    answer(r.request.clone(), r, async |q| terminals.create(&q).await).await
                }
                T::Output(r) => {
                    let result = terminals.output(&r.request);
                    respond(r, result)
                }
                T::WaitForExit(r) => {
                    answer(r.request.clone(), r, async |q| {
                        terminals.wait_for_exit(&q).await
                    })
                    .await
                }
                T::Kill(r) => {
                    answer(r.request.clone(), r, async |q| terminals.kill(&q).await).await
                }
                T::Release(r) => {
                    answer(r.request.clone(), r, async |q| terminals.release(&q).await).await
                }
            };
            if let Err(err) = sent {
                tracing::debug!("answering {method}: {err}");
            }
        });
    }
}

/// Runs `serve` on `request` and answers `pending` with its result.
async fn answer<R, F>(
    request: R,
    pending: crate::connection::Pending<R>,
    serve: F,
) -> Result<(), ConnectionError>
where
    R: agent_client_protocol::JsonRpcRequest,
    R::Response: agent_client_protocol::JsonRpcResponse,
    F: AsyncFnOnce(R) -> Result<R::Response, crate::terminals::TermError>,
{
    let result = serve(request).await;
    respond(pending, result)
}

fn respond<R>(
    pending: crate::connection::Pending<R>,
    result: Result<R::Response, crate::terminals::TermError>,
) -> Result<(), ConnectionError>
where
    R: agent_client_protocol::JsonRpcRequest,
    R::Response: agent_client_protocol::JsonRpcResponse,
{
    match result {
        Ok(response) => pending.respond(response),
        Err((code, message)) => pending.fail(code, &message),
    }
}
