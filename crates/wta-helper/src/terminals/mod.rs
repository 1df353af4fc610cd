//! Agent terminals: ACP `terminal/*` served in a visible tmux pane.
//!
//! `terminal/create` runs the agent's command in a pane the user can watch
//! and type into (`pane.rs`: a split below the shell the agent works on
//! while it has room, else a window of its own named for the agent; see
//! `settings.rs`), behind a gate until its output pipe is attached, through
//! `wta terminal-exec` (`exec.rs`), which records how the command ended.
//! Only without tmux does it run as a local child process (`child.rs`: stdin
//! from `/dev/null`, a process group of its own, killed with the helper);
//! inside tmux a pane that cannot be made is the request's error, never a
//! hidden process. `output`, `wait_for_exit`, `kill` and `release` follow
//! ACP: output is the newest `outputByteLimit` bytes of what the pane showed
//! (`render.rs`), cut from the start on a character boundary, `truncated`
//! when cut; `kill` ends the command and keeps the terminal; `release` ends
//! it and forgets the id (the pane closes then, unless `keep_after_exit`).
//! An id this pane did not make, or made for another session, is an error.
//! A session's terminals end with it ([`Terminals::end_sessions`]: its agent
//! exited, the pane closed or replaced it, the master went away), and every
//! one ends when the helper exits ([`Terminals::shutdown`]): commands still
//! running are killed, the panes release would close are closed.
//!
//! Every change a user should see (started, output, ended) goes to the
//! machine as a [`crate::machine::TerminalNews`] (the machine makes the
//! transcript's tool-call row of it).

mod child;
mod end_mark;
pub mod exec;
mod pane;
mod render;
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

use crate::config_file::SettingsTable as _;
use crate::machine::{Input, TerminalNews};
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
    /// The shell pane the agent works on at start (splits go below it;
    /// [`Terminals::retarget`] moves it).
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
    /// The agent's `outputByteLimit` (or the default).
    output_limit: usize,
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
                let (text, cut) = render::newest(&raw, self.output_limit);
                (text, truncated || cut)
            }
            Backend::Child => (raw, truncated),
        }
    }

    fn show(&self) {
        let (lines, exit) = {
            let state = self.lock();
            (state.output.last_lines(VIEW_LINES), state.exit.clone())
        };
        let news = TerminalNews {
            id: self.id.clone(),
            command: self.display.clone(),
            exit,
            last_lines: lines,
        };
        let _ = self.events.send(Input::Terminal(news));
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

/// Bytes of raw output kept to answer with `limit` bytes: a pane's bytes
/// shrink when rendered (`\r\n`, escape sequences), so twice as many are
/// kept and the rendered text is what is cut to `limit`.
fn raw_limit(backend: &Backend, limit: usize) -> usize {
    match backend {
        Backend::Pane { .. } => limit.saturating_mul(2),
        Backend::Child => limit,
    }
}

/// The terminals of one helper.
#[derive(Debug)]
pub struct Terminals {
    config: TerminalsConfig,
    host: Option<TmuxHost>,
    events: mpsc::UnboundedSender<Input>,
    table: Mutex<Table>,
    /// Held while a pane's place is chosen and made (`pane.rs`).
    placing: Arc<Mutex<()>>,
}

#[derive(Debug, Default)]
struct Table {
    next: u64,
    terms: BTreeMap<String, Arc<Term>>,
    /// The agent of each session, for the names of terminal windows.
    agents: std::collections::HashMap<SessionId, String>,
    /// Sessions ended: a terminal made for one after its end is ended too.
    ended: std::collections::HashSet<SessionId>,
    /// The shell pane terminals are placed by now (follow focus moves it).
    target: Option<PaneId>,
}

/// What a terminal window is named for when its session's agent is unknown.
const UNKNOWN_AGENT: &str = "agent";

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
        let table = Table {
            target: config.target_pane.clone(),
            ..Table::default()
        };
        Self {
            config,
            host,
            events,
            table: Mutex::new(table),
            placing: Arc::new(Mutex::new(())),
        }
    }

    /// Later terminals are placed by `pane` (the agent's target moved with
    /// the focus); those already made stay where they are.
    pub fn retarget(&self, pane: PaneId) {
        self.lock().target = Some(pane);
    }

    /// Where a terminal made now goes, with `placement`'s setting.
    fn place(&self, placement: Placement) -> pane::Place {
        match (self.lock().target.clone(), placement) {
            (Some(target), Placement::Split) => pane::Place::Below(target),
            (target, _) => pane::Place::Window { target },
        }
    }

    /// `session` is served by `agent` (its terminals' windows are named so).
    pub fn note_session(&self, session: SessionId, agent: &str) {
        self.lock().agents.insert(session, agent.to_owned());
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
        let (id, agent) = {
            let mut table = self.lock();
            table.next += 1;
            let agent = table.agents.get(&request.session_id).cloned();
            (format!("term-{}", table.next), agent)
        };
        let settings = self.settings();
        let placement = self.place(settings.placement);
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
                    window_name: pane::window_name(
                        agent.as_deref().unwrap_or(UNKNOWN_AGENT),
                        &spec.display,
                    ),
                    placing: self.placing.clone(),
                };
                // Inside tmux a terminal is always a pane the user sees.
                let opened = open.run().await.map_err(|err| {
                    tracing::warn!("agent terminal {id}: no pane: {err}");
                    (
                        INTERNAL,
                        format!("cannot open a tmux pane for `{}`: {err}", spec.display),
                    )
                })?;
                Some(opened)
            }
            None => None,
        };
        let term = |backend: Backend| {
            Arc::new(Term {
                id: id.clone(),
                session: request.session_id.clone(),
                display: spec.display.clone(),
                output_limit: spec.output_limit,
                state: Mutex::new(TermState {
                    output: OutputBuffer::new(raw_limit(&backend, spec.output_limit)),
                    exit: None,
                    pgid: None,
                }),
                exited: Notify::new(),
                events: self.events.clone(),
                backend,
            })
        };
        let term = match opened {
            Some(opened) => {
                let term = term(Backend::Pane {
                    pane: opened.pane.clone(),
                    keep: settings.keep_after_exit,
                });
                if let Some(host) = &self.host {
                    pane::follow(host.clone(), opened, term.clone());
                }
                term
            }
            None => {
                let term = term(Backend::Child);
                child::start(&spec, term.clone())
                    .map_err(|err| (INTERNAL, format!("cannot run `{}`: {err}", spec.display)))?;
                term
            }
        };
        term.show();
        let ended = {
            let mut table = self.lock();
            let ended = table.ended.contains(&request.session_id);
            if !ended {
                table.terms.insert(id.clone(), term.clone());
            }
            ended
        };
        if ended {
            // The session ended while its terminal was being made.
            self.end(&term).await;
            return Err((
                INVALID_PARAMS,
                format!("session {} has ended", request.session_id),
            ));
        }
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

    /// `sessions` ended (their agent exited, the pane closed them): their
    /// terminals end as on release, and their ids are forgotten.
    pub async fn end_sessions(&self, sessions: &[SessionId]) {
        let terms: Vec<Arc<Term>> = {
            let mut table = self.lock();
            for session in sessions {
                table.agents.remove(session);
                table.ended.insert(session.clone());
            }
            let (ended, kept) = std::mem::take(&mut table.terms)
                .into_iter()
                .partition(|(_, t)| sessions.contains(&t.session));
            table.terms = kept;
            ended.into_values().collect()
        };
        if !terms.is_empty() {
            tracing::info!(
                count = terms.len(),
                "ending the terminals of ended sessions"
            );
        }
        for term in terms {
            self.end(&term).await;
        }
    }

    /// Every session ended (the master went away, the helper exits): every
    /// command still running is killed, every pane that release would close
    /// is closed.
    pub async fn shutdown(&self) {
        let terms: Vec<Arc<Term>> = {
            let mut table = self.lock();
            table.agents.clear();
            std::mem::take(&mut table.terms).into_values().collect()
        };
        for term in terms {
            self.end(&term).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminals_go_by_the_target_it_moved_to() {
        let config = TerminalsConfig {
            exe: PathBuf::from("wta"),
            target_pane: Some(PaneId::from_number(1)),
            cwd: PathBuf::from("/"),
            dir: PathBuf::from("/nonexistent"),
            config_file: None,
        };
        let (events, _rx) = mpsc::unbounded_channel();
        let terminals = Terminals::new(config, None, events);
        let first = PaneId::from_number(1);
        assert_eq!(terminals.place(Placement::Split), pane::Place::Below(first));
        let moved = PaneId::from_number(5);
        terminals.retarget(moved.clone());
        assert_eq!(
            terminals.place(Placement::Split),
            pane::Place::Below(moved.clone())
        );
        assert_eq!(
            terminals.place(Placement::Window),
            pane::Place::Window {
                target: Some(moved)
            }
        );
    }
}
