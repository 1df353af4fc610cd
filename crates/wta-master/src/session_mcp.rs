//! The session MCP endpoint in the master (DESIGN §4.5): one endpoint for
//! every session (`wta-mcp`), a grant per ACP session whose helper asked
//! for it and whose agent takes HTTP MCP servers, and the [`Backend`] that
//! forwards each authenticated tool call to the helper of that session as
//! a `_wta/*` request, in order with the rest of what that helper gets.
//!
//! Agents connect to their MCP servers while `session/new` runs, before
//! the session id is known: a grant is therefore bound at once to a key of
//! its own (`g<n>`, grouped by agent instance), and the key learns its
//! helper and session when `session/new|load` succeeds; a tool call before
//! that is told the session is still opening. The grant is revoked when
//! the call fails, the session is unbound or its agent dies.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use agent_client_protocol::UntypedMessage;
use agent_client_protocol::v1::schema::McpServer;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wta_mcp::{
    Backend, Endpoint, GrantGroup, Grants, Limits, McpError, McpSessionId, PendingGrant,
};
use wta_protocol::ProposalId;
use wta_protocol::session_tools::{
    self, ProposalReport, ProposalResultParams, SessionTool, SessionToolParams, UserInputArgs,
    UserInputGoneParams, UserInputOutcome, UserInputParams,
};

use crate::table::Table;

/// The grants of one agent instance.
fn grant_group(instance: u64) -> GrantGroup {
    GrantGroup::new(instance.to_string())
}

/// Where a grant's key leads once its session is open.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    helper: u64,
    session: String,
    instance: u64,
}

/// Grant keys, and the sessions they opened (`None`: still opening).
#[derive(Debug, Clone, Default)]
struct Keys(Arc<Mutex<HashMap<McpSessionId, Option<Target>>>>);

impl Keys {
    fn map(&self) -> MutexGuard<'_, HashMap<McpSessionId, Option<Target>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The session `key` opened.
    fn resolve(&self, key: &McpSessionId) -> Result<Target, McpError> {
        match self.map().get(key) {
            Some(Some(target)) => Ok(target.clone()),
            Some(None) => Err(McpError::Unavailable {
                reason: "this agent session is still opening; call again once it is ready".into(),
            }),
            None => Err(McpError::SessionGone),
        }
    }

    /// Removes the keys of the sessions `which` selects; returns them.
    fn take(&self, which: impl Fn(&Target) -> bool) -> Vec<McpSessionId> {
        let mut map = self.map();
        let keys: Vec<McpSessionId> = map
            .iter()
            .filter(|(_, target)| target.as_ref().is_some_and(&which))
            .map(|(key, _)| key.clone())
            .collect();
        for key in &keys {
            map.remove(key);
        }
        keys
    }
}

/// A grant given with a `session/new|load` that has not answered yet.
#[derive(Debug)]
pub(crate) struct Offered {
    key: McpSessionId,
    grant: PendingGrant,
}

impl Offered {
    /// The name of the server the grant opens (`wta_<20 hex>`).
    pub fn server_name(&self) -> &str {
        self.grant.server_name()
    }
}

/// The master's endpoint and the grants it checks.
#[derive(Debug)]
pub(crate) struct SessionMcp {
    endpoint: Endpoint,
    grants: Grants,
    keys: Keys,
    next_key: AtomicU64,
}

impl SessionMcp {
    /// Listens on loopback; the backend finds helpers in `helpers`.
    pub async fn start(helpers: Arc<Table>) -> std::io::Result<Self> {
        let grants = Grants::new();
        let keys = Keys::default();
        let backend = Arc::new(MasterBackend {
            helpers,
            keys: keys.clone(),
            questions: AtomicU64::new(1),
        });
        let endpoint = Endpoint::bind(backend, grants.clone(), Limits::default()).await?;
        Ok(Self {
            endpoint,
            grants,
            keys,
            next_key: AtomicU64::new(1),
        })
    }

    /// A grant for a session of `instance` being opened, and its
    /// `mcpServers` entry. It opens the endpoint at once (agents connect
    /// during `session/new`), its tools once the session is open.
    pub fn offer(&self, instance: u64) -> Option<(Offered, McpServer)> {
        let grant = match self.grants.prepare() {
            Ok(grant) => grant,
            Err(err) => {
                tracing::warn!("no session MCP grant: {err}");
                return None;
            }
        };
        // The endpoint writes its server's entry; read once as the schema's.
        let server = match McpServer::deserialize(&self.endpoint.mcp_server(&grant)) {
            Ok(server) => server,
            Err(err) => {
                tracing::warn!("no session MCP grant: its server entry is unreadable: {err}");
                self.grants.discard(grant);
                return None;
            }
        };
        let n = self.next_key.fetch_add(1, Ordering::Relaxed);
        let key = McpSessionId::new(format!("g{n}"));
        self.keys.map().insert(key.clone(), None);
        self.grants.bind(&grant, key.clone(), grant_group(instance));
        Some((Offered { key, grant }, server))
    }

    /// `session/new|load` succeeded: the grant's tools reach `session`.
    pub fn opened(&self, offered: &Offered, helper: u64, session: &str, instance: u64) {
        // A session given a grant again (load) keeps only the new one.
        self.revoke(helper, session);
        let target = Target {
            helper,
            session: session.to_owned(),
            instance,
        };
        self.keys.map().insert(offered.key.clone(), Some(target));
    }

    /// The call failed: the grant opens nothing.
    pub fn withdraw(&self, offered: Offered) {
        self.keys.map().remove(&offered.key);
        self.grants.revoke_session(&offered.key);
        self.grants.discard(offered.grant);
    }

    /// The session was unbound.
    pub fn revoke(&self, helper: u64, session: &str) {
        for key in self
            .keys
            .take(|t| t.helper == helper && t.session == session)
        {
            self.grants.revoke_session(&key);
        }
    }

    /// The agent instance died.
    pub fn revoke_instance(&self, instance: u64) {
        self.keys.take(|t| t.instance == instance);
        self.grants.revoke_all_of(&grant_group(instance));
    }

    /// The endpoint's URL (for logs; it holds no secret).
    pub fn url(&self) -> String {
        self.endpoint.url()
    }
}

struct MasterBackend {
    /// Only to find a session's helper by id.
    helpers: Arc<Table>,
    keys: Keys,
    /// The master's ids for questions (`_wta/user_input_gone` names them).
    questions: AtomicU64,
}

/// Why a call cannot reach the session's helper.
fn unreachable(why: &str) -> McpError {
    McpError::Unavailable {
        reason: why.to_owned(),
    }
}

/// Sends `method` with `params` to the helper of `target` and waits for
/// its answer.
async fn ask_helper<P: Serialize, R: DeserializeOwned>(
    helpers: &Table,
    target: &Target,
    method: &str,
    params: impl FnOnce(&str) -> P,
) -> Result<R, McpError> {
    let helper = helpers.helper(target.helper).ok_or(McpError::SessionGone)?;
    let cx = helper
        .cx
        .get()
        .ok_or_else(|| unreachable("the agent pane of this session is not connected"))?;
    let message = UntypedMessage::new(method, params(&target.session))
        .map_err(|e| unreachable(&format!("cannot encode {method}: {e}")))?;
    let answer = helper
        .ordered(|| cx.send_request(message).block_task())
        .await
        .map_err(|e| unreachable(&format!("the agent pane refused {method}: {}", e.message)))?;
    serde_json::from_value(answer)
        .map_err(|e| unreachable(&format!("the agent pane answered {method} unreadably: {e}")))
}

fn millis(wait: Duration) -> u64 {
    u64::try_from(wait.as_millis()).unwrap_or(u64::MAX)
}

impl Backend for MasterBackend {
    fn session_tool(
        &self,
        session: McpSessionId,
        call: SessionTool,
    ) -> BoxFuture<'static, Result<ProposalReport, McpError>> {
        let (helpers, target) = (self.helpers.clone(), self.keys.resolve(&session));
        async move {
            let wait_ms = millis(call.wait());
            ask_helper(
                &helpers,
                &target?,
                session_tools::METHOD_SESSION_TOOL,
                |s| SessionToolParams {
                    session_id: s.to_owned(),
                    call,
                    wait_ms,
                },
            )
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
        let (helpers, target) = (self.helpers.clone(), self.keys.resolve(&session));
        async move {
            let method = session_tools::METHOD_PROPOSAL_RESULT;
            ask_helper(&helpers, &target?, method, |s| ProposalResultParams {
                session_id: s.to_owned(),
                proposal_id: id,
                wait_ms: millis(wait),
            })
            .await
        }
        .boxed()
    }

    fn user_input(
        &self,
        session: McpSessionId,
        args: UserInputArgs,
    ) -> BoxFuture<'static, UserInputOutcome> {
        let (helpers, target) = (self.helpers.clone(), self.keys.resolve(&session));
        let request = self.questions.fetch_add(1, Ordering::Relaxed);
        async move {
            let target = match target {
                Ok(target) => target,
                Err(err) => {
                    return UserInputOutcome::Unavailable {
                        reason: err.to_string(),
                    };
                }
            };
            // Dropped before the answer (the caller left, or the time ran
            // out): the helper takes the question down.
            let gone = QuestionGone {
                helpers: helpers.clone(),
                target: target.clone(),
                request,
                answered: false,
            };
            let method = session_tools::METHOD_USER_INPUT;
            let asked = ask_helper(&helpers, &target, method, |s| UserInputParams {
                session_id: s.to_owned(),
                request,
                input: args,
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
    helpers: Arc<Table>,
    target: Target,
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
        let Some(helper) = self.helpers.helper(self.target.helper) else {
            return;
        };
        let params = UserInputGoneParams {
            session_id: self.target.session.clone(),
            request: self.request,
        };
        if let Ok(msg) = UntypedMessage::new(session_tools::METHOD_USER_INPUT_GONE, params) {
            helper.notify(msg);
        }
    }
}
