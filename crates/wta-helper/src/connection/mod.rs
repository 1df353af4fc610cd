//! The helper's ACP connection to the master (the helper is the ACP *client*).
//!
//! [`MasterConnection::connect`] dials the master socket with bounded backoff,
//! sends `initialize` with `_meta.wta` (agent id, owner tab, target pane), and
//! then offers typed calls (`new_session`, `prompt`, `cancel`, ...). Everything
//! the master sends on its own arrives as a [`HelperEvent`] on the channel given
//! to `connect`: session updates, permission requests (answer them through
//! [`PermissionRequest::respond`]), other client requests (`fs/*`, `terminal/*`),
//! `_wta/lagged`, `_wta/agent_exited`, and finally [`HelperEvent::MasterClosed`].
//! A master EOF ends the connection for good: nothing here reconnects. A new
//! connection (to a new master) is a new [`MasterConnection::connect`], made
//! only when the user asks for it (DESIGN §2); [`lost`] says what became of
//! the old master.

mod events;
pub mod lost;
pub mod replies;
pub mod wire;

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AuthenticateRequest, CancelNotification, ClientCapabilities, CloseSessionRequest, ContentBlock,
    CreateTerminalRequest, FileSystemCapabilities, Implementation, InitializeRequest,
    InitializeResponse, KillTerminalRequest, LoadSessionRequest, NewSessionRequest, PromptRequest,
    PromptResponse, ReadTextFileRequest, ReleaseTerminalRequest, RequestPermissionRequest,
    SessionConfigOptionValue, SessionId, SessionNotification, SetSessionConfigOptionRequest,
    TerminalOutputRequest, TextContent, WaitForTerminalExitRequest, WriteTextFileRequest,
};
use agent_client_protocol::v1::{ConnectionTo, Dispatch};
use agent_client_protocol::{Agent, Client, JsonRpcMessage, JsonRpcRequest, UntypedMessage};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot, watch};
use wta_protocol::helper_master::{
    self, ClientKind, SessionStateParams, SessionsListResponse, WtaMeta,
};
use wta_protocol::{PaneId, WindowId};

pub use crate::machine::ConnectionError;
use crate::machine::{OptionsReply, SessionOpened};
pub use events::{ExtRequest, HelperEvent, Pending, PermissionRequest, TerminalRequest, Unserved};
pub use wire::WireTap;

/// Delays between connection attempts (ms): about 10 s in total, no sleep after the last.
pub const CONNECT_BACKOFF_MS: &[u64] = &[
    50, 100, 100, 200, 200, 500, 500, 1000, 1000, 2000, 2000, 2000,
];

/// Who this helper is and which agent it wants.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    pub socket: PathBuf,
    /// An agent id (`copilot`, `custom:name`, ...); `None` = the master's default.
    pub agent: Option<String>,
    pub owner_tab: Option<WindowId>,
    pub target_pane: Option<PaneId>,
    /// `Cli` for one-shot commands that must not start an agent.
    pub client: ClientKind,
    /// Where the JSON-RPC lines go as they cross the socket (the F12 panel).
    pub tap: Option<WireTap>,
    /// This helper shows cards and questions: its sessions get the session
    /// MCP endpoint's tools (`_meta.wta.proposalMcp`).
    pub session_tools: bool,
}

/// A live connection to the master.
#[derive(Debug, Clone)]
pub struct MasterConnection {
    cx: ConnectionTo<Agent>,
    events: mpsc::UnboundedSender<HelperEvent>,
    /// The agent's `initialize` result as relayed by the master.
    pub init: InitializeResponse,
    closed: watch::Receiver<bool>,
}

/// Dials `socket`, retrying per [`CONNECT_BACKOFF_MS`].
pub async fn dial(socket: &Path) -> Result<UnixStream, ConnectionError> {
    let mut last = None;
    for (attempt, delay) in std::iter::once(&0).chain(CONNECT_BACKOFF_MS).enumerate() {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(*delay)).await;
        }
        match UnixStream::connect(socket).await {
            Ok(stream) => return Ok(stream),
            Err(err) => last = Some(err),
        }
    }
    Err(ConnectionError::Unreachable {
        socket: socket.to_path_buf(),
        source: last.unwrap_or_else(|| std::io::Error::other("no attempt made")),
    })
}

/// The client capabilities this helper offers, each one served: `fs/*`
/// (with bounds) and `terminal/*` (agent terminals in tmux panes).
fn capabilities() -> ClientCapabilities {
    ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(true)
            .write_text_file(true))
        .terminal(true)
}

/// The `initialize` this helper sends: its capabilities, its name and
/// version, and the `_meta.wta` that tells the master who it is.
fn initialize_request(options: &ConnectOptions) -> InitializeRequest {
    let meta = WtaMeta {
        agent_id: options.agent.clone(),
        owner_tab: options.owner_tab.clone(),
        target_pane: options.target_pane.clone(),
        client: options.client,
        proposal_mcp: options
            .session_tools
            .then(|| helper_master::PROPOSAL_MCP_V1.to_owned()),
        ..WtaMeta::default()
    };
    InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(capabilities())
        .client_info(Implementation::new("wta-helper", env!("CARGO_PKG_VERSION")))
        .meta(meta.to_meta())
}

/// What `initialize` answered: the connection to the master and its reply.
type Ready = oneshot::Sender<
    Result<(ConnectionTo<Agent>, InitializeResponse), agent_client_protocol::Error>,
>;

/// Serves the master on `transport` until it closes: every notification
/// and request of the agent goes to `events` as a [`HelperEvent`] (each
/// request with its responder, answered by whoever handles it), and the
/// `initialize` answer goes to `ready` first.
async fn serve(
    (read, write, tap): (
        tokio::net::unix::OwnedReadHalf,
        tokio::net::unix::OwnedWriteHalf,
        Option<WireTap>,
    ),
    events: mpsc::UnboundedSender<HelperEvent>,
    init: InitializeRequest,
    ready_tx: Ready,
) {
    let transport = wire::transport(read, write, tap);
    let (notify, permission, read_file, write_file, other) = (
        events.clone(),
        events.clone(),
        events.clone(),
        events.clone(),
        events.clone(),
    );
    let terminal = |make: fn(Box<TerminalRequest>) -> HelperEvent| {
        let events = events.clone();
        move |request: TerminalRequest| {
            let _ = events.send(make(Box::new(request)));
        }
    };
    let (create, output, wait, kill, release) = (
        terminal(HelperEvent::Terminal),
        terminal(HelperEvent::Terminal),
        terminal(HelperEvent::Terminal),
        terminal(HelperEvent::Terminal),
        terminal(HelperEvent::Terminal),
    );
    let result = Client
        .v1()
        .name("wta-helper")
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                let _ = notify.send(HelperEvent::SessionUpdate(Box::new(n)));
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, _cx| {
                let pending = Pending::new(request, responder);
                let _ = permission.send(HelperEvent::Permission(Box::new(pending)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ReadTextFileRequest, responder, _cx| {
                let pending = Pending::new(request, responder);
                let _ = read_file.send(HelperEvent::ReadFile(Box::new(pending)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: WriteTextFileRequest, responder, _cx| {
                let pending = Pending::new(request, responder);
                let _ = write_file.send(HelperEvent::WriteFile(Box::new(pending)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: CreateTerminalRequest, responder, _cx| {
                create(TerminalRequest::Create(Pending::new(r, responder)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: TerminalOutputRequest, responder, _cx| {
                output(TerminalRequest::Output(Pending::new(r, responder)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: WaitForTerminalExitRequest, responder, _cx| {
                wait(TerminalRequest::WaitForExit(Pending::new(r, responder)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: KillTerminalRequest, responder, _cx| {
                kill(TerminalRequest::Kill(Pending::new(r, responder)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: ReleaseTerminalRequest, responder, _cx| {
                release(TerminalRequest::Release(Pending::new(r, responder)));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_dispatch(
            async move |dispatch: Dispatch, _cx| {
                events::other(&other, dispatch);
                Ok(())
            },
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            let init = cx.send_request(init).block_task().await;
            let failed = init.is_err();
            let _ = ready_tx.send(init.map(|v| (cx.clone(), v)));
            if !failed {
                cx.incoming_closed().await;
            }
            Ok(())
        })
        .await;
    if let Err(err) = result {
        tracing::debug!("master connection ended: {}", err.message);
    }
}

impl MasterConnection {
    /// Connects and initializes. Events go to `events` until the master closes.
    pub async fn connect(
        options: ConnectOptions,
        events: mpsc::UnboundedSender<HelperEvent>,
    ) -> Result<Self, ConnectionError> {
        let stream = dial(&options.socket).await?;
        let (read, write) = stream.into_split();
        let transport = (read, write, options.tap.clone());
        let init = initialize_request(&options);
        let (ready_tx, ready_rx) = oneshot::channel();
        let (closed_tx, closed_rx) = watch::channel(false);
        let own = events.clone();
        tokio::spawn(async move {
            serve(transport, events.clone(), init, ready_tx).await;
            let _ = closed_tx.send(true);
            let _ = events.send(HelperEvent::MasterClosed);
        });
        match ready_rx.await {
            Ok(Ok((cx, init))) => Ok(Self {
                cx,
                events: own,
                init,
                closed: closed_rx,
            }),
            Ok(Err(err)) => Err(ConnectionError::from_acp(err)),
            Err(_) => Err(ConnectionError::MasterClosed),
        }
    }

    /// The agent id the master chose for this helper (`_meta.wta.agentId` of the init reply).
    pub fn agent_id(&self) -> Option<String> {
        let meta = self.init.meta.as_ref()?;
        let wta = meta.get("wta")?;
        wta.get("agentId")?.as_str().map(str::to_owned)
    }

    fn check_open(&self) -> Result<(), ConnectionError> {
        if *self.closed.borrow() {
            return Err(ConnectionError::MasterClosed);
        }
        Ok(())
    }

    fn failure(&self, err: agent_client_protocol::Error) -> ConnectionError {
        if *self.closed.borrow() {
            ConnectionError::MasterClosed
        } else {
            ConnectionError::from_acp(err)
        }
    }

    /// A schema-typed request and its typed response.
    async fn send<R: JsonRpcRequest>(&self, request: R) -> Result<R::Response, ConnectionError> {
        self.check_open()?;
        self.cx
            .send_request(request)
            .block_task()
            .await
            .map_err(|e| self.failure(e))
    }

    /// A request outside the schema (`_wta/*`, `session/set_model`) or one
    /// whose reply carries more than the schema type (`session/new`'s
    /// `models`): typed params, typed reply.
    async fn call<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, ConnectionError> {
        self.check_open()?;
        let msg = UntypedMessage::new(method, params).map_err(ConnectionError::from_acp)?;
        let value = self
            .cx
            .send_request(msg)
            .block_task()
            .await
            .map_err(|e| self.failure(e))?;
        serde_json::from_value(value).map_err(|e| ConnectionError::BadReply(e.to_string()))
    }

    /// `session/new` in `cwd`; `agent` overrides this helper's agent for the
    /// session, `fresh_agent` asks the master for a new agent process private
    /// to this helper (`/restart`: the shared one may hang), which also
    /// closes this helper's sessions on the previous one.
    pub async fn open_session(
        &self,
        cwd: &Path,
        agent: Option<&str>,
        fresh_agent: bool,
    ) -> Result<SessionOpened, ConnectionError> {
        let meta = WtaMeta {
            agent_id: agent.map(str::to_owned),
            fresh_agent,
            ..WtaMeta::default()
        };
        let mut request = NewSessionRequest::new(cwd);
        if meta != WtaMeta::default() {
            request = request.meta(meta.to_meta());
        }
        self.call(request.method(), &request).await
    }

    /// `session/load` of `session` in `cwd` (the agent replays its history
    /// as updates first); answered like `session/new`, with the same id.
    pub async fn load_session(
        &self,
        cwd: &Path,
        session: &str,
    ) -> Result<SessionOpened, ConnectionError> {
        // No MCP servers of the pane's own: the master adds the session's
        // server, as for `session/new`.
        let request = LoadSessionRequest::new(SessionId::new(session), cwd);
        let mut answer: Value = self.call(request.method(), &request).await?;
        match answer.as_object_mut() {
            Some(fields) => {
                fields.insert("sessionId".into(), Value::String(session.to_owned()));
            }
            None => answer = serde_json::json!({"sessionId": session}),
        }
        serde_json::from_value(answer).map_err(|e| ConnectionError::BadReply(e.to_string()))
    }

    /// One prompt turn with plain text; resolves when the agent answers.
    pub async fn prompt(
        &self,
        session: &SessionId,
        text: &str,
    ) -> Result<PromptResponse, ConnectionError> {
        let prompt = vec![ContentBlock::Text(TextContent::new(text))];
        self.send(PromptRequest::new(session.clone(), prompt)).await
    }

    /// Starts a prompt turn; its end arrives as [`HelperEvent::PromptFinished`] on the
    /// event channel, after every update the agent sent before answering.
    pub fn start_prompt(&self, session: &SessionId, text: &str) {
        let (conn, session, text) = (self.clone(), session.clone(), text.to_owned());
        tokio::spawn(async move {
            let result = conn.prompt(&session, &text).await;
            let _ = conn.events.send(HelperEvent::PromptFinished {
                session_id: session,
                result,
            });
        });
    }

    /// `session/cancel` (a notification; the running prompt answers `cancelled`).
    pub fn cancel(&self, session: &SessionId) -> Result<(), ConnectionError> {
        self.cx
            .send_notification(CancelNotification::new(session.clone()))
            .map_err(|_| ConnectionError::MasterClosed)
    }

    /// `session/set_config_option` with a select value; returns the new options.
    pub async fn set_config_option(
        &self,
        session: &SessionId,
        config_id: &str,
        value: &str,
    ) -> Result<OptionsReply, ConnectionError> {
        let request = SetSessionConfigOptionRequest::new(
            session.clone(),
            config_id.to_owned(),
            SessionConfigOptionValue::value_id(value.to_owned()),
        );
        let value: Value = self.call(request.method(), &request).await?;
        Ok(OptionsReply::from_value(&value))
    }

    /// `session/set_model` (agents that answered `session/new` with `models`).
    pub async fn set_model(
        &self,
        session: &SessionId,
        model: &str,
    ) -> Result<OptionsReply, ConnectionError> {
        let request = replies::SetModelRequest {
            session_id: session.clone(),
            model_id: model.to_owned(),
        };
        let value: Value = self.call(replies::SET_MODEL_METHOD, &request).await?;
        Ok(OptionsReply::from_value(&value))
    }

    /// `authenticate` with one of the agent's methods.
    pub async fn authenticate(&self, method: &str) -> Result<(), ConnectionError> {
        self.send(AuthenticateRequest::new(method.to_owned()))
            .await
            .map(|_| ())
    }

    /// `session/close`: the master forgets the session (and answers itself
    /// for an agent that cannot close sessions).
    pub async fn close_session(&self, session: &SessionId) -> Result<(), ConnectionError> {
        self.send(CloseSessionRequest::new(session.clone()))
            .await
            .map(|_| ())
    }

    /// `_wta/sessions`: the master's live sessions.
    pub async fn sessions(&self) -> Result<SessionsListResponse, ConnectionError> {
        self.call(helper_master::METHOD_SESSIONS, &serde_json::json!({}))
            .await
    }

    /// `_wta/agent_sessions`: every agent session the master tracks.
    pub async fn agent_sessions(
        &self,
    ) -> Result<wta_protocol::agent_sessions::AgentSessionsResponse, ConnectionError> {
        self.call(
            wta_protocol::agent_sessions::METHOD_AGENT_SESSIONS,
            &serde_json::json!({}),
        )
        .await
    }

    /// `_wta/forget_session`: drops an ended session from the master's
    /// history; whether it was there.
    pub async fn forget_session(&self, key: &str) -> Result<bool, ConnectionError> {
        let params = wta_protocol::agent_sessions::ForgetSessionParams {
            key: key.to_owned(),
        };
        let answer: wta_protocol::agent_sessions::ForgetSessionResponse = self
            .call(wta_protocol::agent_sessions::METHOD_FORGET_SESSION, &params)
            .await?;
        Ok(answer.forgotten)
    }

    /// `_wta/hook_event`: what an agent CLI's hook said (from `wta hook`).
    pub async fn hook_event(
        &self,
        event: &wta_protocol::agent_sessions::HookEvent,
    ) -> Result<(), ConnectionError> {
        let _: Value = self
            .call(wta_protocol::agent_sessions::METHOD_HOOK_EVENT, event)
            .await?;
        Ok(())
    }

    /// `_wta/session_state`: what only this helper knows of a session (yolo).
    pub async fn report_session_state(
        &self,
        params: &SessionStateParams,
    ) -> Result<(), ConnectionError> {
        let _: Value = self
            .call(helper_master::METHOD_SESSION_STATE, params)
            .await?;
        Ok(())
    }

    /// Resolves once the master connection has ended.
    pub async fn closed(&self) {
        let mut rx = self.closed.clone();
        let _ = rx.wait_for(|c| *c).await;
    }
}
