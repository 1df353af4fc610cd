//! Agent terminals: ACP `terminal/*` served in a visible tmux pane.
//!
//! `terminal/create` runs the agent's command in a pane the user can watch
//! and type into (`pane.rs`: a split below the shell the agent works on, or
//! a window of its own; see `settings.rs`), behind a gate until its output
//! pipe is attached, through `wta terminal-exec` (`exec.rs`), which records
//! how the command ended. Without tmux, or when no pane can be made, it runs
//! as a local child process instead (`child.rs`: stdin from `/dev/null`, a
//! process group of its own, killed with the helper). `output`,
//! `wait_for_exit`, `kill` and `release` follow ACP: output is the newest
//! `outputByteLimit` bytes cut on a character boundary; `kill` ends the
//! command and keeps the terminal; `release` ends it and forgets the id (the
//! pane closes then, unless `keep_after_exit`). An id this pane did not make,
//! or made for another session, is an error. When the helper exits,
//! [`Terminals::shutdown`] kills every command still running and closes
//! the panes it would close on release.
//!
//! Every change a user should see (started, output, ended) goes to the
//! machine as a [`TerminalView`] for the transcript's tool-call row.

mod child;
pub mod exec;
mod pane;
pub mod settings;
pub mod spec;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest, KillTerminalResponse,
    ReleaseTerminalRequest, ReleaseTerminalResponse, SessionId, TerminalExitStatus, TerminalId,
    TerminalOutputRequest, TerminalOutputResponse, WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
};
use tokio::sync::{Notify, mpsc};
use wta_host::TmuxHost;
use wta_protocol::PaneId;
use wta_state::{DomainEvent, TerminalView};

use crate::machine::Input;
use settings::{Placement, TerminalSettings};
use spec::{OutputBuffer, TerminalSpec};

/// JSON-RPC invalid params: an unknown terminal id.
const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC internal error: the command could not be started.
const INTERNAL: i32 = -32603;
/// Lines of output the transcript row shows.
const VIEW_LINES: usize = 3;

/// A refused request: (code, message).
pub type TermError = (i32, String);

/// Where terminals go and what runs them.
#[derive(Debug, Clone)]
pub struct TerminalsConfig {
    /// The `wta` binary (it runs `terminal-exec` and `pipe-sink`).
    pub exe: PathBuf,
    /// The shell pane the agent works on (splits go below it).
    pub target_pane: Option<PaneId>,
    /// Sessions' default directory.
    pub cwd: PathBuf,
    /// A directory of this helper's own for the output sockets.
    pub dir: PathBuf,
    /// `~/.config/wta/config.toml` (read at each create), if known.
    pub config_file: Option<PathBuf>,
}

/// How a terminal runs.
#[derive(Debug)]
enum Backend {
    Pane { pane: PaneId, keep: bool },
    Child,
}

/// One terminal's changing state.
#[derive(Debug)]
struct TermState {
    output: OutputBuffer,
    exit: Option<TerminalExitStatus>,
    /// The command's process group, once known.
    pgid: Option<i32>,
}

/// One terminal.
#[derive(Debug)]
pub(crate) struct Term {
    id: String,
    session: SessionId,
    display: String,
    backend: Backend,
    state: Mutex<TermState>,
    exited: Notify,
    events: mpsc::UnboundedSender<Input>,
}

impl Term {
    fn lock(&self) -> std::sync::MutexGuard<'_, TermState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends output and tells the transcript.
    pub(crate) fn push(&self, bytes: &[u8]) {
        self.lock().output.push(bytes);
        self.show();
    }

    pub(crate) fn note_lost(&self) {
        self.lock().output.note_lost();
    }

    pub(crate) fn set_pgid(&self, pgid: i32) {
        self.lock().pgid = Some(pgid);
    }

    /// Records the end (once) and wakes the waiters.
    pub(crate) fn exited(&self, status: TerminalExitStatus) {
        {
            let mut state = self.lock();
            if state.exit.is_some() {
                return;
            }
            state.exit = Some(status);
        }
        self.exited.notify_waiters();
        self.show();
    }

    fn exit(&self) -> Option<TerminalExitStatus> {
        self.lock().exit.clone()
    }

    /// Output as ACP reports it: rendered like the pane showed it (`\r`
    /// progress lines, colours gone) for a pane, as written for a child.
    fn text(&self) -> (String, bool) {
        let state = self.lock();
        let (raw, truncated) = state.output.text();
        match self.backend {
            Backend::Pane { .. } => {
                let mut capped = wta_shell::CappedOutput::new(raw.len(), 0);
                capped.push(raw.as_bytes());
                (wta_shell::render(&capped, 200).text, truncated)
            }
            Backend::Child => (raw, truncated),
        }
    }

    fn show(&self) {
        let (lines, exit) = {
            let state = self.lock();
            (state.output.last_lines(VIEW_LINES), state.exit.clone())
        };
        let view = TerminalView {
            id: self.id.clone(),
            command: self.display.clone(),
            exit: exit.as_ref().map(describe_exit),
            last_lines: lines,
        };
        let _ = self.events.send(Input::Report(DomainEvent::Terminal(view)));
    }

    /// Ends the command: its process group (a pane whose command has not
    /// started yet goes whole).
    async fn kill(&self, host: Option<&TmuxHost>) {
        if self.exit().is_some() {
            return;
        }
        let mut pgid = self.lock().pgid;
        if let (None, Backend::Pane { pane, .. }, Some(host)) = (pgid, &self.backend, host) {
            // Not polled yet: ask the pane now.
            pgid = pane::pgid(host, pane).await;
        }
        match (pgid, &self.backend) {
            (Some(pgid), _) => {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pgid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            (None, Backend::Pane { pane, .. }) => {
                if let Some(host) = host {
                    pane::close(host, pane).await;
                }
            }
            (None, Backend::Child) => {}
        }
    }
}

/// `exit 0`, `signal SIGKILL` as the transcript says it.
fn describe_exit(status: &TerminalExitStatus) -> String {
    match (&status.exit_code, &status.signal) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by {signal}"),
        (None, None) => "ended".to_owned(),
    }
}

/// The terminals of one helper.
#[derive(Debug)]
pub struct Terminals {
    config: TerminalsConfig,
    host: Option<TmuxHost>,
    events: mpsc::UnboundedSender<Input>,
    table: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    next: u64,
    terms: BTreeMap<String, Arc<Term>>,
}

fn unknown(id: &TerminalId) -> TermError {
    (
        INVALID_PARAMS,
        format!("no terminal {id} in this pane (it was released, or never made here)"),
    )
}

impl Terminals {
    pub fn new(
        config: TerminalsConfig,
        host: Option<TmuxHost>,
        events: mpsc::UnboundedSender<Input>,
    ) -> Self {
        Self {
            config,
            host,
            events,
            table: Mutex::new(Table::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn find(&self, session: &SessionId, id: &TerminalId) -> Result<Arc<Term>, TermError> {
        self.lock()
            .terms
            .get(&*id.0)
            .filter(|t| t.session == *session)
            .cloned()
            .ok_or_else(|| unknown(id))
    }

    fn settings(&self) -> TerminalSettings {
        let Some(file) = &self.config.config_file else {
            return TerminalSettings::default();
        };
        let (settings, warning) = TerminalSettings::load(file);
        if let Some(warning) = warning {
            tracing::warn!("terminal settings ignored: {warning}");
        }
        settings
    }

    /// `terminal/create`.
    pub async fn create(
        &self,
        request: &CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, TermError> {
        let base = spec::agent_env(&self.config.exe);
        let spec = TerminalSpec::from_request(request, &self.config.cwd, &spec::shell(), &base);
        let id = {
            let mut table = self.lock();
            table.next += 1;
            format!("term-{}", table.next)
        };
        let settings = self.settings();
        let placement = match (&self.config.target_pane, settings.placement) {
            (Some(target), Placement::Split) => pane::Place::Below(target.clone()),
            _ => pane::Place::Window,
        };
        let opened = match &self.host {
            Some(host) => {
                let open = pane::Open {
                    host,
                    spec: &spec,
                    place: &placement,
                    exe: &self.config.exe,
                    socket: self.config.dir.join(format!("{id}.sock")),
                    gate: format!("wta-term-{}-{id}", std::process::id()),
                    keep: settings.keep_after_exit,
                };
                open.run().await.map_err(|err| {
                    tracing::warn!("agent terminal {id}: no pane ({err}); running it as a child");
                })
            }
            None => Err(()),
        };
        let term = |backend| {
            Arc::new(Term {
                id: id.clone(),
                session: request.session_id.clone(),
                display: spec.display.clone(),
                backend,
                state: Mutex::new(TermState {
                    output: OutputBuffer::new(spec.output_limit),
                    exit: None,
                    pgid: None,
                }),
                exited: Notify::new(),
                events: self.events.clone(),
            })
        };
        let term = match opened {
            Ok(opened) => {
                let term = term(Backend::Pane {
                    pane: opened.pane.clone(),
                    keep: settings.keep_after_exit,
                });
                if let Some(host) = &self.host {
                    pane::follow(host.clone(), opened, term.clone());
                }
                term
            }
            Err(()) => {
                let term = term(Backend::Child);
                child::start(&spec, term.clone())
                    .map_err(|err| (INTERNAL, format!("cannot run `{}`: {err}", spec.display)))?;
                term
            }
        };
        term.show();
        self.lock().terms.insert(id.clone(), term);
        Ok(CreateTerminalResponse::new(id))
    }

    /// `terminal/output`.
    pub fn output(
        &self,
        request: &TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, TermError> {
        let term = self.find(&request.session_id, &request.terminal_id)?;
        let (text, truncated) = term.text();
        Ok(TerminalOutputResponse::new(text, truncated).exit_status(term.exit()))
    }

    /// `terminal/wait_for_exit`: resolves when the command has ended.
    pub async fn wait_for_exit(
        &self,
        request: &WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, TermError> {
        let term = self.find(&request.session_id, &request.terminal_id)?;
        loop {
            let notified = term.exited.notified();
            if let Some(status) = term.exit() {
                return Ok(WaitForTerminalExitResponse::new(status));
            }
            notified.await;
        }
    }

    /// `terminal/kill`: ends the command; the terminal stays.
    pub async fn kill(
        &self,
        request: &KillTerminalRequest,
    ) -> Result<KillTerminalResponse, TermError> {
        let term = self.find(&request.session_id, &request.terminal_id)?;
        term.kill(self.host.as_ref()).await;
        Ok(KillTerminalResponse::new())
    }

    /// `terminal/release`: ends the command, forgets the id, closes the pane
    /// unless it is kept.
    pub async fn release(
        &self,
        request: &ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, TermError> {
        let term = self.find(&request.session_id, &request.terminal_id)?;
        self.lock().terms.remove(&term.id);
        self.end(&term).await;
        Ok(ReleaseTerminalResponse::new())
    }

    async fn end(&self, term: &Term) {
        term.kill(self.host.as_ref()).await;
        if let (Backend::Pane { pane, keep: false }, Some(host)) = (&term.backend, &self.host) {
            pane::close(host, pane).await;
        }
    }

    /// The helper is exiting: every command still running is killed, every
    /// pane that release would close is closed.
    pub async fn shutdown(&self) {
        let terms: Vec<Arc<Term>> = std::mem::take(&mut self.lock().terms)
            .into_values()
            .collect();
        for term in terms {
            self.end(&term).await;
        }
    }
}
