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

mod error;
mod events;
pub mod lost;

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    NewSessionResponse, PromptResponse, RequestPermissionRequest, SessionNotification,
};
use agent_client_protocol::v1::{ConnectionTo, Dispatch};
use agent_client_protocol::{Agent, ByteStreams, Client, UntypedMessage};
use serde_json::{Value, json};
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};
use wta_protocol::helper_master::{
    self, AgentExitedNotification, ClientKind, LaggedNotification, SessionsListResponse, WtaMeta,
};
use wta_protocol::{PaneId, WindowId};

pub use error::ConnectionError;
pub use events::{ClientRequest, HelperEvent, PermissionRequest};

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
}

/// A live connection to the master.
#[derive(Debug, Clone)]
pub struct MasterConnection {
    cx: ConnectionTo<Agent>,
    events: mpsc::UnboundedSender<HelperEvent>,
    /// The agent's `initialize` result as relayed by the master.
    pub init: Value,
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

impl MasterConnection {
    /// Connects and initializes. Events go to `events` until the master closes.
    pub async fn connect(
        options: ConnectOptions,
        events: mpsc::UnboundedSender<HelperEvent>,
    ) -> Result<Self, ConnectionError> {
        let stream = dial(&options.socket).await?;
        let (read, write) = stream.into_split();
        let transport = ByteStreams::new(write.compat_write(), read.compat());
        let (ready_tx, ready_rx) = oneshot::channel();
        let (closed_tx, closed_rx) = watch::channel(false);
        let meta = WtaMeta {
            agent_id: options.agent.clone(),
            owner_tab: options.owner_tab.clone(),
            target_pane: options.target_pane.clone(),
            client: options.client,
            ..WtaMeta::default()
        };
        let notify_events = events.clone();
        let permission_events = events.clone();
        let request_events = events.clone();
        let own_events = events.clone();
        tokio::spawn(async move {
            let result = Client
                .v1()
                .name("wta-helper")
                .on_receive_notification(
                    async move |n: SessionNotification, _cx| {
                        let _ = notify_events.send(HelperEvent::SessionUpdate(Box::new(n)));
                        Ok(())
                    },
                    agent_client_protocol::on_receive_notification!(),
                )
                .on_receive_request(
                    async move |request: RequestPermissionRequest, responder, _cx| {
                        let _ = permission_events.send(HelperEvent::Permission(Box::new(PermissionRequest::new(request, responder))));
                        Ok(())
                    },
                    agent_client_protocol::on_receive_request!(),
                )
                .on_receive_dispatch(
                    async move |dispatch: Dispatch, _cx| {
                        events::other(&request_events, dispatch);
                        Ok(())
                    },
                    agent_client_protocol::on_receive_dispatch!(),
                )
                .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                    let params = json!({
                        "protocolVersion": 1,
                        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true},
                        "clientInfo": {"name": "wta-helper", "version": env!("CARGO_PKG_VERSION")},
                        "_meta": meta.to_meta(),
                    });
                    let init = cx.send_request(UntypedMessage::new("initialize", params)?).block_task().await;
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
            let _ = closed_tx.send(true);
            let _ = events.send(HelperEvent::MasterClosed);
        });
        match ready_rx.await {
            Ok(Ok((cx, init))) => Ok(Self {
                cx,
                events: own_events,
                init,
                closed: closed_rx,
            }),
            Ok(Err(err)) => Err(ConnectionError::from_acp(err)),
            Err(_) => Err(ConnectionError::MasterClosed),
        }
    }

    /// The agent id the master chose for this helper (`_meta.wta.agentId` of the init reply).
    pub fn agent_id(&self) -> Option<&str> {
        self.init
            .pointer("/_meta/wta/agentId")
            .and_then(Value::as_str)
    }

    async fn request(&self, method: &str, params: Value) -> Result<Value, ConnectionError> {
        if *self.closed.borrow() {
            return Err(ConnectionError::MasterClosed);
        }
        let msg = UntypedMessage::new(method, params).map_err(ConnectionError::from_acp)?;
        self.cx.send_request(msg).block_task().await.map_err(|e| {
            if *self.closed.borrow() {
                ConnectionError::MasterClosed
            } else {
                ConnectionError::from_acp(e)
            }
        })
    }

    /// `session/new` in `cwd`; `agent` overrides this helper's agent for the session.
    pub async fn new_session(
        &self,
        cwd: &Path,
        agent: Option<&str>,
    ) -> Result<NewSessionResponse, ConnectionError> {
        self.open_session(cwd, agent, false).await
    }

    /// `session/new` on a fresh agent process private to this helper (`/restart`):
    /// the master starts a new instance even when a shared one runs (it may be
    /// hung), and closes this helper's sessions on the previous one.
    pub async fn restart_session(
        &self,
        cwd: &Path,
        agent: Option<&str>,
    ) -> Result<NewSessionResponse, ConnectionError> {
        self.open_session(cwd, agent, true).await
    }

    async fn open_session(
        &self,
        cwd: &Path,
        agent: Option<&str>,
        fresh_agent: bool,
    ) -> Result<NewSessionResponse, ConnectionError> {
        let mut params = json!({"cwd": cwd, "mcpServers": []});
        let meta = WtaMeta {
            agent_id: agent.map(str::to_owned),
            fresh_agent,
            ..WtaMeta::default()
        };
        if meta != WtaMeta::default() {
            params["_meta"] = Value::Object(meta.to_meta());
        }
        let value = self.request("session/new", params).await?;
        serde_json::from_value(value).map_err(|e| ConnectionError::BadReply(e.to_string()))
    }

    /// One prompt turn with plain text; resolves when the agent answers.
    pub async fn prompt(
        &self,
        session: &str,
        text: &str,
    ) -> Result<PromptResponse, ConnectionError> {
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        let value = self.request("session/prompt", params).await?;
        serde_json::from_value(value).map_err(|e| ConnectionError::BadReply(e.to_string()))
    }

    /// Starts a prompt turn; its end arrives as [`HelperEvent::PromptFinished`] on the
    /// event channel, after every update the agent sent before answering. Prefer
    /// this in UIs: awaiting [`Self::prompt`] races the update events.
    pub fn start_prompt(&self, session: &str, text: &str) {
        let (conn, session, text) = (self.clone(), session.to_owned(), text.to_owned());
        tokio::spawn(async move {
            let result = conn.prompt(&session, &text).await;
            let _ = conn.events.send(HelperEvent::PromptFinished {
                session_id: session,
                result,
            });
        });
    }

    /// `session/cancel` (a notification; the running prompt answers `cancelled`).
    pub fn cancel(&self, session: &str) -> Result<(), ConnectionError> {
        let msg = UntypedMessage::new("session/cancel", json!({"sessionId": session}))
            .map_err(ConnectionError::from_acp)?;
        self.cx
            .send_notification(msg)
            .map_err(|_| ConnectionError::MasterClosed)
    }

    /// `session/set_config_option` with a select value; returns the new options.
    pub async fn set_config_option(
        &self,
        session: &str,
        config_id: &str,
        value: &str,
    ) -> Result<Value, ConnectionError> {
        self.request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": config_id, "value": value}),
        )
        .await
    }

    /// `session/set_mode`.
    pub async fn set_mode(&self, session: &str, mode_id: &str) -> Result<Value, ConnectionError> {
        self.request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": mode_id}),
        )
        .await
    }

    /// Any other request (e.g. `authenticate`, `session/set_model`), passed through as JSON.
    pub async fn raw_request(&self, method: &str, params: Value) -> Result<Value, ConnectionError> {
        self.request(method, params).await
    }

    /// `_wta/sessions`: the master's live sessions.
    pub async fn sessions(&self) -> Result<SessionsListResponse, ConnectionError> {
        let value = self
            .request(helper_master::METHOD_SESSIONS, json!({}))
            .await?;
        serde_json::from_value(value).map_err(|e| ConnectionError::BadReply(e.to_string()))
    }

    /// Resolves once the master connection has ended.
    pub async fn closed(&self) {
        let mut rx = self.closed.clone();
        let _ = rx.wait_for(|c| *c).await;
    }
}

/// Parses `_wta/lagged` / `_wta/agent_exited` params (used by the event mapping).
pub(crate) fn parse_lagged(params: &Value) -> Option<LaggedNotification> {
    serde_json::from_value(params.clone()).ok()
}

pub(crate) fn parse_agent_exited(params: &Value) -> Option<AgentExitedNotification> {
    serde_json::from_value(params.clone()).ok()
}
