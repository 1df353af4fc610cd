//! The rmcp server handler: `tools/list` and `tools/call` for the five
//! session tools, for the session the HTTP layer authenticated.
//!
//! The handler learns its caller only from the request's extensions (put
//! there by `server.rs` after the bearer check), never from the arguments.
//! Every backend future is dropped when the HTTP caller goes away (rmcp
//! cancels the request's token) or when its time is up, so the backend
//! can clean up. One question per session waits at a time (a lease,
//! released when the call ends however it ends).

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;
use wta_protocol::ValidationStatus;
use wta_protocol::session_tools::{
    ProposalResultArgs, SessionTool, TOOL_CREATE_WORKSPACE, TOOL_DELEGATE_TASK,
    TOOL_PROPOSAL_RESULT, TOOL_RUN_COMMAND, TOOL_USER_INPUT, UserInputArgs, UserInputOutcome,
    wait_for,
};

use crate::backend::Backend;
use crate::error::McpError;
use crate::grants::McpSessionId;
use crate::pool::ConnSlot;
use crate::results::{backend_failed, outcome_result, refused, report_result};
use crate::schema;

/// Who is calling: put in the HTTP request's extensions by the server
/// once the bearer checked out.
#[derive(Clone)]
pub(crate) struct Caller {
    pub session: McpSessionId,
    pub slot: Arc<ConnSlot>,
}

/// Time limits of the handler.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolTimes {
    /// How long a question waits for the user.
    pub user_input: Duration,
    /// How much longer than its own wait a terminal call may take before
    /// the endpoint gives up on the backend.
    pub backend_grace: Duration,
}

#[derive(Clone)]
pub(crate) struct SessionTools {
    inner: Arc<Inner>,
}

struct Inner {
    backend: Arc<dyn Backend>,
    times: ToolTimes,
    tools: Vec<Tool>,
    /// Sessions with a question waiting.
    asking: Mutex<HashSet<McpSessionId>>,
}

/// The lease of a waiting question; released on drop.
struct Asking<'a> {
    inner: &'a Inner,
    session: McpSessionId,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.inner
            .asking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.session);
    }
}

/// The caller left: nobody reads the answer.
fn gone() -> ErrorData {
    ErrorData::internal_error("the caller went away", None)
}

fn parse<T: DeserializeOwned>(request: &CallToolRequestParams) -> Result<T, String> {
    let arguments = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
    serde_json::from_value(arguments).map_err(|err| format!("invalid arguments: {err}"))
}

/// Runs `work` unless the caller goes away first (then it is dropped).
async fn unless_gone<T>(
    ct: &CancellationToken,
    work: impl Future<Output = T>,
) -> Result<T, ErrorData> {
    tokio::select! {
        biased;
        () = ct.cancelled() => Err(gone()),
        value = work => Ok(value),
    }
}

impl SessionTools {
    pub(crate) fn new(backend: Arc<dyn Backend>, times: ToolTimes) -> Self {
        Self {
            inner: Arc::new(Inner {
                backend,
                times,
                tools: schema::tools(),
                asking: Mutex::new(HashSet::new()),
            }),
        }
    }

    async fn terminal(
        &self,
        caller: &Caller,
        call: Result<SessionTool, String>,
        ct: &CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let call = match call {
            Ok(call) => call,
            Err(reason) => {
                return Ok(report_result(&refused(
                    ValidationStatus::InvalidSchema,
                    reason,
                    true,
                )));
            }
        };
        let limit = call.wait() + self.inner.times.backend_grace;
        let work = self
            .inner
            .backend
            .session_tool(caller.session.clone(), call);
        let report = match unless_gone(ct, tokio::time::timeout(limit, work)).await? {
            Ok(Ok(report)) => report,
            Ok(Err(err)) => backend_failed(&err),
            Err(_elapsed) => backend_failed(&McpError::NoAnswer),
        };
        Ok(report_result(&report))
    }

    async fn proposal_result(
        &self,
        caller: &Caller,
        args: Result<ProposalResultArgs, String>,
        ct: &CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args {
            Ok(args) => args,
            Err(reason) => {
                return Ok(report_result(&refused(
                    ValidationStatus::InvalidSchema,
                    reason,
                    true,
                )));
            }
        };
        let wait = wait_for(args.wait_secs);
        let work =
            self.inner
                .backend
                .proposal_result(caller.session.clone(), args.proposal_id, wait);
        let report = match unless_gone(
            ct,
            tokio::time::timeout(wait + self.inner.times.backend_grace, work),
        )
        .await?
        {
            Ok(Ok(report)) => report,
            Ok(Err(err)) => backend_failed(&err),
            Err(_elapsed) => backend_failed(&McpError::NoAnswer),
        };
        Ok(report_result(&report))
    }

    async fn user_input(
        &self,
        caller: &Caller,
        args: Result<UserInputArgs, String>,
        ct: &CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let unavailable =
            |reason: String| Ok(outcome_result(&UserInputOutcome::Unavailable { reason }));
        let args = match args.and_then(|a| a.validate().map(|()| a).map_err(|e| e.to_string())) {
            Ok(args) => args,
            Err(reason) => return unavailable(reason),
        };
        let Some(_lease) = self.lease(&caller.session) else {
            return unavailable("another question is waiting for the user's answer".into());
        };
        if !caller.slot.enter_question() {
            return unavailable("too many questions are waiting for answers".into());
        }
        let limit = self.inner.times.user_input;
        let work = self.inner.backend.user_input(caller.session.clone(), args);
        let outcome = match unless_gone(ct, tokio::time::timeout(limit, work)).await? {
            Ok(outcome) => outcome,
            Err(_elapsed) => UserInputOutcome::Unavailable {
                reason: format!("the user did not answer within {} seconds", limit.as_secs()),
            },
        };
        Ok(outcome_result(&outcome))
    }

    fn lease(&self, session: &McpSessionId) -> Option<Asking<'_>> {
        let mut asking = self
            .inner
            .asking
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        asking.insert(session.clone()).then(|| Asking {
            inner: &self.inner,
            session: session.clone(),
        })
    }
}

fn caller(context: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>())
        .cloned()
        .ok_or_else(|| ErrorData::internal_error("request without an authenticated session", None))
}

impl ServerHandler for SessionTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("wta", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Tools of the WTA terminal: propose commands, new tabs or panels and delegated \
                 tasks to the user (each on a card the user decides), and ask the user a \
                 question.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = caller(&context)?;
        let ct = &context.ct;
        let result = match request.name.as_ref() {
            TOOL_RUN_COMMAND => {
                self.terminal(&caller, parse(&request).map(SessionTool::RunCommand), ct)
                    .await?
            }
            TOOL_CREATE_WORKSPACE => {
                self.terminal(
                    &caller,
                    parse(&request).map(SessionTool::CreateWorkspace),
                    ct,
                )
                .await?
            }
            TOOL_DELEGATE_TASK => {
                self.terminal(&caller, parse(&request).map(SessionTool::DelegateTask), ct)
                    .await?
            }
            TOOL_PROPOSAL_RESULT => self.proposal_result(&caller, parse(&request), ct).await?,
            TOOL_USER_INPUT => self.user_input(&caller, parse(&request), ct).await?,
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool: {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}
