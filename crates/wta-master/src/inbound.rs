//! What comes into the master, decoded once at the edge.
//!
//! A helper's request or notification becomes a [`HelperRequest`] or a
//! [`HelperNotification`]: the schema's types for what the master acts on
//! (`initialize`, `session/new|load|prompt|close|cancel`), [`WtaRequest`]
//! for the `_wta/*` methods it serves, and [`Forward`] for everything it
//! only relays (`session/set_mode`, `session/set_config_option`, WTA's
//! `session/set_model`, `authenticate`, unknown methods): that one keeps
//! the message as the helper wrote it and its typed routing key.
//! Malformed params of a method the master acts on are refused here with
//! the error a helper gets (-32602, or `bad_meta` for `_meta.wta`), before
//! any state is touched.
//!
//! An agent's messages are never decoded whole (agents may speak a newer
//! schema, and what they add must reach the helper as written): only their
//! routing key, [`session_of`].

use agent_client_protocol::v1::schema::{
    AGENT_METHOD_NAMES, CancelNotification, CloseSessionRequest, InitializeRequest,
    LoadSessionRequest, McpServer, Meta, NewSessionRequest, PromptRequest, SessionId,
};
use agent_client_protocol::{Error, JsonRpcMessage, UntypedMessage};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wta_protocol::agent_sessions::{self, ForgetSessionParams, HookEvent};
use wta_protocol::helper_master::{self, FailureKind, SessionStateParams, WtaMeta};

use crate::wire;

/// A helper's request.
#[derive(Debug)]
pub(crate) enum HelperRequest {
    Initialize(Box<InitializeRequest>),
    Open(Opening),
    Prompt(PromptRequest),
    Close(CloseSessionRequest),
    Wta(WtaRequest),
    Forward(Forward),
}

/// A `session/new` or `session/load`, which the master changes on its way
/// to the agent: `_meta.wta` goes ([`Opening::take_wta_meta`]), the session
/// MCP endpoint's server may join `mcpServers` ([`Opening::add_server`]).
#[derive(Debug)]
pub(crate) enum Opening {
    New(NewSessionRequest),
    Load(LoadSessionRequest),
}

impl Opening {
    fn meta(&mut self) -> &mut Option<Meta> {
        match self {
            Self::New(new) => &mut new.meta,
            Self::Load(load) => &mut load.meta,
        }
    }

    /// Reads `_meta.wta` ([`wta_meta`]) and removes it: agents never see it.
    pub fn take_wta_meta(&mut self) -> Result<WtaMeta, Error> {
        let wta = wta_meta(self.meta().as_ref())?;
        let rest = wire::strip_wta_meta(self.meta().take());
        *self.meta() = rest;
        Ok(wta)
    }

    pub fn add_server(&mut self, server: McpServer) {
        match self {
            Self::New(new) => new.mcp_servers.push(server),
            Self::Load(load) => load.mcp_servers.push(server),
        }
    }

    /// The session a `session/load` names.
    pub fn loading(&self) -> Option<&SessionId> {
        match self {
            Self::New(_) => None,
            Self::Load(load) => Some(&load.session_id),
        }
    }

    pub fn cwd(&self) -> String {
        let cwd = match self {
            Self::New(new) => &new.cwd,
            Self::Load(load) => &load.cwd,
        };
        cwd.to_string_lossy().into_owned()
    }

    /// The request as the agent gets it.
    pub fn to_message(&self) -> Result<UntypedMessage, Error> {
        match self {
            Self::New(new) => new.to_untyped_message(),
            Self::Load(load) => load.to_untyped_message(),
        }
    }
}

/// A `_wta/*` request the master serves itself.
#[derive(Debug)]
pub(crate) enum WtaRequest {
    /// `_wta/sessions`: the live sessions.
    Sessions,
    /// `_wta/session_state`: what the helper knows of one of its sessions.
    SessionState(SessionStateParams),
    /// `_wta/hook_event`: an agent CLI in a shell pane.
    HookEvent(HookEvent),
    /// `_wta/forget_session`: drop an ended session from the history.
    ForgetSession(ForgetSessionParams),
    /// `_wta/agent_sessions`: every agent session of the server.
    AgentSessions,
}

/// A helper's notification.
#[derive(Debug)]
pub(crate) enum HelperNotification {
    Cancel(CancelNotification),
    Forward(Forward),
}

/// A message the master relays unchanged to an agent: the one of its
/// session, or the helper's current agent when it names none.
#[derive(Debug)]
pub(crate) struct Forward {
    pub session: Option<SessionId>,
    pub message: UntypedMessage,
}

impl Forward {
    fn of(message: UntypedMessage) -> Self {
        Self {
            session: session_of(&message.params),
            message,
        }
    }
}

impl HelperRequest {
    /// Decodes one request.
    pub fn decode(message: UntypedMessage) -> Result<Self, Error> {
        if let Some(wta) = helper_master::ext_method(&message.method) {
            return match WtaRequest::decode(wta, &message.params)? {
                Some(request) => Ok(Self::Wta(request)),
                None => Ok(Self::Forward(Forward::of(message))),
            };
        }
        let names = &AGENT_METHOD_NAMES;
        Ok(match message.method.as_str() {
            m if m == names.initialize => Self::Initialize(Box::new(params_of(&message)?)),
            m if m == names.session_new => Self::Open(Opening::New(params_of(&message)?)),
            m if m == names.session_load => Self::Open(Opening::Load(params_of(&message)?)),
            m if m == names.session_prompt => Self::Prompt(params_of(&message)?),
            m if m == names.session_close => Self::Close(params_of(&message)?),
            _ => Self::Forward(Forward::of(message)),
        })
    }
}

impl WtaRequest {
    /// `Some` for the `_wta/*` methods the master serves (`method` spelled
    /// with its `_`); `None` for the others, which it relays.
    fn decode(method: &str, params: &Value) -> Result<Option<Self>, Error> {
        Ok(Some(match method {
            helper_master::METHOD_SESSIONS => Self::Sessions,
            helper_master::METHOD_SESSION_STATE => {
                Self::SessionState(SessionStateParams::deserialize(params).map_err(|e| {
                    wire::failure(
                        FailureKind::BadMeta,
                        None,
                        format!("invalid {method} params: {e}"),
                    )
                })?)
            }
            agent_sessions::METHOD_HOOK_EVENT => Self::HookEvent(ext_params(method, params)?),
            agent_sessions::METHOD_FORGET_SESSION => {
                Self::ForgetSession(ext_params(method, params)?)
            }
            agent_sessions::METHOD_AGENT_SESSIONS => Self::AgentSessions,
            _ => return Ok(None),
        }))
    }
}

impl HelperNotification {
    /// Decodes one notification.
    pub fn decode(message: UntypedMessage) -> Result<Self, Error> {
        if message.method == AGENT_METHOD_NAMES.session_cancel {
            return params_of(&message).map(Self::Cancel);
        }
        Ok(Self::Forward(Forward::of(message)))
    }
}

/// The params of `message` as `T`; -32602 naming the method otherwise.
fn params_of<T: DeserializeOwned>(message: &UntypedMessage) -> Result<T, Error> {
    T::deserialize(&message.params)
        .map_err(|e| Error::invalid_params().data(format!("{}: {e}", message.method)))
}

fn ext_params<T: DeserializeOwned>(method: &str, params: &Value) -> Result<T, Error> {
    T::deserialize(params).map_err(|e| Error::invalid_params().data(format!("{method}: {e}")))
}

/// `_meta.wta` of a request's `_meta` (the default when absent); a
/// `_meta.wta` that is not exactly WTA's (an unknown field: an argv, a
/// command) is refused as `bad_meta`.
pub(crate) fn wta_meta(meta: Option<&Meta>) -> Result<WtaMeta, Error> {
    match meta.and_then(|m| m.get("wta")) {
        None | Some(Value::Null) => Ok(WtaMeta::default()),
        Some(wta) => WtaMeta::deserialize(wta).map_err(|e| {
            wire::failure(
                FailureKind::BadMeta,
                None,
                format!("invalid _meta.wta: {e}"),
            )
        }),
    }
}

/// The session a message's params name (`sessionId`), if they name one.
pub(crate) fn session_of(params: &Value) -> Option<SessionId> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Scoped {
        session_id: SessionId,
    }
    Scoped::deserialize(params).ok().map(|s| s.session_id)
}

#[cfg(test)]
#[path = "inbound_tests.rs"]
mod tests;
