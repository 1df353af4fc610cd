//! The session MCP endpoint in the master (DESIGN §4.5): one endpoint for
//! every session (`wta-mcp`), a grant per ACP session whose helper asked
//! for it and whose agent takes HTTP MCP servers, and the [`Backend`] that
//! forwards each authenticated tool call to the helper of that session as
//! a `_wta/*` request, in order with the rest of what that helper gets.
//!
//! A grant opens `<helper id>:<session id>` (sessions are the helper's),
//! grouped by agent instance: it is bound when `session/new|load`
//! succeeds, discarded when it fails, and revoked when the session is
//! unbound or its agent dies.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use agent_client_protocol::UntypedMessage;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wta_mcp::{
    Backend, Endpoint, GrantGroup, Grants, Limits, McpError, McpSessionId, PendingGrant,
};
use wta_protocol::ProposalId;
use wta_protocol::session_tools::{
    self, ProposalReport, ProposalResultParams, SessionTool, SessionToolParams, UserInputArgs,
    UserInputGoneParams, UserInputOutcome, UserInputParams,
};

use crate::state::Master;

/// The master's endpoint and the grants it checks.
#[derive(Debug)]
pub(crate) struct SessionMcp {
    endpoint: Endpoint,
    grants: Grants,
}

/// The grant's session: the helper and its session id.
pub(crate) fn grant_session(helper: u64, session: &str) -> McpSessionId {
    McpSessionId::new(format!("{helper}:{session}"))
}

/// The grants of one agent instance.
pub(crate) fn grant_group(instance: u64) -> GrantGroup {
    GrantGroup::new(instance.to_string())
}

/// Adds `server` to a `session/new|load`'s `mcpServers`.
pub(crate) fn add_server(params: &mut Value, server: Value) {
    let Some(params) = params.as_object_mut() else {
        return;
    };
    match params.get_mut("mcpServers").and_then(Value::as_array_mut) {
        Some(servers) => servers.push(server),
        None => {
            params.insert("mcpServers".into(), Value::Array(vec![server]));
        }
    }
}

/// Whether the agent's `initialize` result says it takes HTTP MCP servers.
pub(crate) fn takes_http_mcp(init: &Value) -> bool {
    init.pointer("/agentCapabilities/mcpCapabilities/http")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

impl SessionMcp {
    /// Listens on loopback; the backend reaches helpers through `master`.
    pub async fn start(master: Weak<Master>) -> std::io::Result<Self> {
        let grants = Grants::new();
        let backend = Arc::new(MasterBackend {
            master,
            questions: AtomicU64::new(1),
        });
        let endpoint = Endpoint::bind(backend, grants.clone(), Limits::default()).await?;
        Ok(Self { endpoint, grants })
    }

    /// A grant for a session being opened, and its `mcpServers` entry.
    pub fn prepare(&self) -> Option<(PendingGrant, Value)> {
        match self.grants.prepare() {
            Ok(grant) => {
                let server = self.endpoint.mcp_server(&grant);
                Some((grant, server))
            }
            Err(err) => {
                tracing::warn!("no session MCP grant: {err}");
                None
            }
        }
    }

    pub fn bind(&self, grant: &PendingGrant, helper: u64, session: &str, instance: u64) {
        self.grants
            .bind(grant, grant_session(helper, session), grant_group(instance));
    }

    pub fn discard(&self, grant: PendingGrant) {
        self.grants.discard(grant);
    }

    pub fn revoke(&self, helper: u64, session: &str) {
        self.grants.revoke_session(&grant_session(helper, session));
    }

    pub fn revoke_instance(&self, instance: u64) {
        self.grants.revoke_all_of(&grant_group(instance));
    }

    /// The endpoint's URL (for logs and tests; it holds no secret).
    pub fn url(&self) -> String {
        self.endpoint.url()
    }
}

struct MasterBackend {
    master: Weak<Master>,
    /// The master's ids for questions (`_wta/user_input_gone` names them).
    questions: AtomicU64,
}

/// Why a call cannot reach the session's helper.
fn unreachable(why: &str) -> McpError {
    McpError::Unavailable {
        reason: why.to_owned(),
    }
}

/// Sends `method` with `params` to the helper of `session` and waits for
/// its answer.
async fn ask_helper<P: Serialize, R: DeserializeOwned>(
    master: &Weak<Master>,
    session: &McpSessionId,
    method: &str,
    params: impl FnOnce(&str) -> P,
) -> Result<R, McpError> {
    let master = master
        .upgrade()
        .ok_or_else(|| unreachable("the wta master is stopping"))?;
    let (helper_id, session_id) = session
        .as_str()
        .split_once(':')
        .ok_or_else(|| unreachable("a grant for no session"))?;
    let helper = helper_id
        .parse()
        .ok()
        .and_then(|id| master.helper(id))
        .ok_or(McpError::SessionGone)?;
    let cx = helper
        .cx
        .get()
        .ok_or_else(|| unreachable("the agent pane of this session is not connected"))?;
    let message = UntypedMessage::new(method, params(session_id))
        .map_err(|e| unreachable(&format!("cannot encode {method}: {e}")))?;
    let answer = helper
        .ordered(|| cx.send_request(message).block_task())
        .await
        .map_err(|e| unreachable(&format!("the agent pane refused {method}: {}", e.message)))?;
    serde_json::from_value(answer)
        .map_err(|e| unreachable(&format!("the agent pane answered {method} unreadably: {e}")))
}

impl Backend for MasterBackend {
    fn session_tool(
        &self,
        session: McpSessionId,
        call: SessionTool,
    ) -> BoxFuture<'static, Result<ProposalReport, McpError>> {
        let master = self.master.clone();
        async move {
            let wait_ms = u64::try_from(call.wait().as_millis()).unwrap_or(u64::MAX);
            ask_helper(&master, &session, session_tools::METHOD_SESSION_TOOL, |s| {
                SessionToolParams {
                    session_id: s.to_owned(),
                    call,
                    wait_ms,
                }
            })
            .await
        }
        .boxed()
    }

    fn proposal_result(
        &self,
        session: McpSessionId,
        id: ProposalId,
        wait: Duration,
    ) -> BoxFuture<'static, Result<ProposalReport, McpError>> {
        let master = self.master.clone();
        async move {
            let wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
            ask_helper(
                &master,
                &session,
                session_tools::METHOD_PROPOSAL_RESULT,
                |s| ProposalResultParams {
                    session_id: s.to_owned(),
                    proposal_id: id,
                    wait_ms,
                },
            )
            .await
        }
        .boxed()
    }

    fn user_input(
        &self,
        session: McpSessionId,
        args: UserInputArgs,
    ) -> BoxFuture<'static, UserInputOutcome> {
        let master = self.master.clone();
        let request = self.questions.fetch_add(1, Ordering::Relaxed);
        async move {
            // Dropped before the answer (the caller left, or the time ran
            // out): the helper takes the question down.
            let gone = QuestionGone {
                master: master.clone(),
                session: session.clone(),
                request,
                answered: false,
            };
            let asked = ask_helper(&master, &session, session_tools::METHOD_USER_INPUT, |s| {
                UserInputParams {
                    session_id: s.to_owned(),
                    request,
                    input: args,
                }
            })
            .await;
            gone.answered();
            asked.unwrap_or_else(|err| UserInputOutcome::Unavailable {
                reason: err.to_string(),
            })
        }
        .boxed()
    }
}

/// Tells the helper that a question's caller went away, unless answered.
struct QuestionGone {
    master: Weak<Master>,
    session: McpSessionId,
    request: u64,
    answered: bool,
}

impl QuestionGone {
    fn answered(mut self) {
        self.answered = true;
    }
}

impl Drop for QuestionGone {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        let Some(master) = self.master.upgrade() else {
            return;
        };
        let Some((helper_id, session_id)) = self.session.as_str().split_once(':') else {
            return;
        };
        let Some(helper) = helper_id.parse().ok().and_then(|id| master.helper(id)) else {
            return;
        };
        let Some(cx) = helper.cx.get() else { return };
        let params = UserInputGoneParams {
            session_id: session_id.to_owned(),
            request: self.request,
        };
        if let Ok(msg) = UntypedMessage::new(session_tools::METHOD_USER_INPUT_GONE, params) {
            helper.ordered(|| {
                let _ = cx.send_notification(msg);
            });
        }
    }
}
