//! [`ProposalGlue`]: what the runtime calls, one line per hook, so the
//! proposal engine stays out of `runtime/`: bind the socket, issue a
//! channel and add the context to each prompt, run the permission preflight,
//! and forward lifecycle events (cancel, turn end, new session, transport
//! loss, yolo).

use std::collections::HashSet;

use wta_host::TmuxHost;
use wta_protocol::PaneId;

use super::preflight::Preflight;
use super::server::{ProposalServer, runtime_dir};
use super::service::ProposalService;
use super::types::TurnContext;
use agent_client_protocol::v1::schema::{PermissionOptionKind, SessionId};

use crate::connection::{ConnectionError, MasterConnection, PermissionRequest};
use crate::context;
use crate::machine::PreflightAnswer;

/// The runtime's handle on proposals.
#[derive(Debug)]
pub struct ProposalGlue {
    service: ProposalService,
    server: Option<ProposalServer>,
    /// ACP sessions that already got the base prompt.
    based: HashSet<String>,
    /// The configured delegate agent, put into every turn's trusted context.
    delegate: Option<String>,
    /// Proposals made by the session endpoint's tools.
    session_tools: crate::session_tools::SessionTools,
    /// The executor's long runs: those that ended since the last turn go
    /// into the next turn's context, once.
    long_runs: Option<crate::executor::LongRuns>,
}

impl Default for ProposalGlue {
    fn default() -> Self {
        Self::new()
    }
}

impl ProposalGlue {
    pub fn new() -> Self {
        let service = ProposalService::with_random_id().unwrap_or_else(|err| {
            // /dev/urandom missing: a fixed id would make channels guessable,
            // so the engine runs without a socket (start() will not bind).
            tracing::error!("no randomness for the proposal helper id: {err}");
            ProposalService::new(wta_protocol::HelperId::from_bytes([0; 16]))
        });
        Self {
            session_tools: crate::session_tools::SessionTools::new(service.clone()),
            service,
            server: None,
            based: HashSet::new(),
            delegate: None,
            long_runs: None,
        }
    }

    /// Which delegate agent `delegate: true` proposals may use (`None`: they
    /// are rejected at validation).
    pub fn set_delegate(&mut self, name: Option<String>) {
        self.delegate = name;
    }

    /// Where the long runs' ended results come from.
    pub fn set_long_runs(&mut self, runs: crate::executor::LongRuns) {
        self.long_runs = Some(runs);
    }

    /// The long runs that ended since the last turn (each given out once).
    fn ended_long_runs(&self) -> Vec<crate::executor::LateResult> {
        self.long_runs
            .as_ref()
            .map(crate::executor::LongRuns::take_ended)
            .unwrap_or_default()
    }

    /// The engine, for the card side (`attach_ui`, `confirm`, `cancel_card`).
    pub fn service(&self) -> &ProposalService {
        &self.service
    }

    /// The session endpoint's proposals.
    pub fn session_tools(&self) -> &crate::session_tools::SessionTools {
        &self.session_tools
    }

    /// Binds `proposal-<helper>.sock` in the runtime dir (call inside tokio).
    /// A failure is the caller's to show; the pane still works without
    /// proposals.
    pub fn start(&mut self) -> Result<(), super::ServerError> {
        if self.server.is_some() || self.service.helper().as_bytes() == &[0; 16] {
            return Ok(());
        }
        self.server = Some(ProposalServer::bind(self.service.clone(), &runtime_dir())?);
        Ok(())
    }

    /// Issues this turn's channel and starts the prompt with its context
    /// (terminal facts are read off the UI task, then the prompt is sent).
    pub fn start_prompt(
        &mut self,
        conn: &MasterConnection,
        session: &SessionId,
        text: &str,
        host: Option<TmuxHost>,
        target: Option<PaneId>,
        own: Option<PaneId>,
    ) {
        let mut turn = TurnContext::agent_turn(target.clone(), own);
        turn.delegate_agent = self.delegate.clone();
        let channel = match self.service.issue_turn(turn) {
            Ok(channel) => channel,
            Err(err) => {
                tracing::warn!("no proposal channel this turn: {err}");
                conn.start_prompt(session, text);
                return;
            }
        };
        let base = self
            .based
            .insert(session.0.to_string())
            .then(context::base_prompt);
        let (conn, session, text) = (conn.clone(), session.clone(), text.to_owned());
        let delegate = self.delegate.clone();
        let ended = self.ended_long_runs();
        tokio::task::spawn_blocking(move || {
            let mut terminal = match &host {
                Some(host) => context::gather(host, target.as_ref()),
                None => context::TerminalContext::default(),
            };
            terminal.delegate_agent = delegate;
            terminal.untrusted.long_running = context::long_running(&ended);
            let block =
                context::turn_block(&channel, &terminal, wta_protocol::Origin::TerminalAgent);
            conn.start_prompt(&session, &context::compose(base.as_deref(), &block, &text));
        });
    }

    /// Starts an autofix turn: its channel's trusted context is origin
    /// autofix and the failing pane (the only pane its `send` can reach);
    /// the failed command's record goes under the context's untrusted key,
    /// with `resolve` (the `resolve-command` answer for a command not
    /// found) beside it.
    pub fn start_fix_prompt(
        &mut self,
        conn: &MasterConnection,
        session: &SessionId,
        fix: &crate::autofix::prompt::FixTurn,
        host: Option<TmuxHost>,
        own: Option<PaneId>,
    ) {
        let turn = TurnContext {
            origin: wta_protocol::Origin::Autofix,
            target_pane: Some(fix.pane.clone()),
            agent_pane: own,
            delegate_agent: None,
        };
        let text = fix.request();
        let channel = match self.service.issue_turn(turn) {
            Ok(channel) => channel,
            Err(err) => {
                tracing::warn!("no proposal channel for the fix turn: {err}");
                conn.start_prompt(session, &text);
                return;
            }
        };
        let base = self
            .based
            .insert(session.0.to_string())
            .then(context::base_prompt);
        let (conn, session, fix) = (conn.clone(), session.clone(), fix.clone());
        let ended = self.ended_long_runs();
        tokio::task::spawn_blocking(move || {
            let mut terminal = match &host {
                Some(host) => context::gather(host, Some(&fix.pane)),
                None => context::TerminalContext::default(),
            };
            let shell = terminal.shell.clone();
            // A command not found: where the failing pane's shell would
            // have looked, and what is close.
            let resolve_command = fix.missing_command().and_then(|name| {
                let cwd = fix.finished.cwd.as_deref();
                match &terminal.remote_host {
                    // It failed over `wta ssh`: this machine cannot say.
                    Some(host) => crate::autofix::resolve_remote(&name, host),
                    None => crate::autofix::resolve(&name, cwd, shell.as_deref()),
                }
            });
            terminal.untrusted = context::Untrusted {
                failed_command: Some(fix.failed_command(shell)),
                resolve_command,
                long_running: context::long_running(&ended),
                ..context::Untrusted::default()
            };
            let block = context::turn_block(&channel, &terminal, wta_protocol::Origin::Autofix);
            conn.start_prompt(&session, &context::compose(base.as_deref(), &block, &text));
        });
    }

    /// The permission preflight of a request in a session whose MCP server
    /// is `own_server`. `Err(p)` gives the request back for the normal
    /// card; `Ok` means it was answered here: how, and whether the answer
    /// reached the agent.
    pub fn preflight(
        &self,
        p: Box<PermissionRequest>,
        own_server: Option<&str>,
    ) -> Result<(PreflightAnswer, Result<(), ConnectionError>), Box<PermissionRequest>> {
        // The trust scan reads the tool call as JSON, every field of it (a
        // proposal command may hide anywhere): the one place a typed
        // request is looked at as its wire shape.
        let tool_call = serde_json::to_value(&p.request.tool_call).unwrap_or_default();
        Ok(match self.service.preflight(own_server, &tool_call) {
            Preflight::NormalCard => return Err(p),
            Preflight::AllowAndArm { .. } | Preflight::AllowSessionTool { .. } => {
                let allow = p
                    .request
                    .options
                    .iter()
                    .find(|o| o.kind == PermissionOptionKind::AllowOnce)
                    .map(|o| o.option_id.0.to_string());
                match allow {
                    Some(id) => (PreflightAnswer::Allowed, p.select(&id)),
                    None => (PreflightAnswer::NoAllowOnce, p.cancel()),
                }
            }
            Preflight::SilentCancel { reason } => {
                tracing::info!("proposal permission cancelled silently: {reason}");
                (PreflightAnswer::CancelledSilently, p.cancel())
            }
            Preflight::FailClosed { why } => (PreflightAnswer::UnknownShape { why }, p.cancel()),
        })
    }

    /// A new ACP session replaces the old one (`/new`, `/restart`, switch).
    pub fn session_replaced(&mut self) {
        self.service.session_replaced();
        if let Some(runs) = &self.long_runs {
            runs.session_replaced();
        }
    }
}

impl Drop for ProposalGlue {
    fn drop(&mut self) {
        self.service.shutdown();
    }
}
