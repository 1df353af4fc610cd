//! `wta sessions list [--json] [--master-socket PATH]`: the master's live sessions.
//!
//! The master is the one of the tmux server the server flags (`-L`,
//! `--socket`) or `$TMUX` name, like every other command. It answers within
//! [`ANSWER_WITHIN`] or the command fails saying so (naming its pid from the
//! lock file next to the socket); nothing listening fails at once, saying how
//! a master starts. The JSON is snake_case like every CLI command
//! ([`crate::json::agents::LiveSessions`]); the `_wta/sessions` wire message
//! keeps ACP's camelCase.

use std::io::ErrorKind;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};
use wta_helper::connection::{ConnectOptions, MasterConnection};
use wta_protocol::helper_master::{ClientKind, SessionState, SessionsListResponse};

use super::Ctx;
use crate::output::{self, Said, Table};

/// How long the master may take to answer (connect, initialize, list).
pub const ANSWER_WITHIN: Duration = Duration::from_millis(1500);

#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: SessionsCommand,
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List live ACP sessions: agent, session id, owning helper and tab, state.
    List(ListArgs),
    /// Every agent session of this tmux server: agent panes, agent CLIs in
    /// shell panes (with `wta hooks install`), and ended ones (resumable).
    All(super::sessions_registry::AllArgs),
    /// Select the tab and pane of a live session.
    Focus(super::sessions_registry::KeyArgs),
    /// Resume an ended session: `session/load` into a new agent pane, or the
    /// agent CLI's own resume flag in a new tab.
    Resume(super::sessions_registry::KeyArgs),
    /// Close a session: a live agent pane's session closes its pane (the
    /// session becomes history); an ended one is dropped from the history.
    /// A CLI in your shell pane is yours to end there.
    Close(super::sessions_registry::KeyArgs),
    /// Pick a session in a full-screen list (the `prefix S` popup): type to
    /// search, Enter goes to a live one or resumes an ended one, Ctrl+D
    /// closes one, Esc leaves.
    Pick(super::sessions_pick::PickArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The master's socket (default: the one for the tmux server named by
    /// -L/--socket, else the one this pane runs in).
    #[arg(long, value_name = "PATH")]
    pub master_socket: Option<PathBuf>,
}

/// The master socket of the tmux server the flags or `$TMUX` name.
fn master_socket(ctx: &Ctx) -> anyhow::Result<PathBuf> {
    let host = ctx.host()?;
    Ok(wta_env::dirs::socket_for_tmux(
        &host.location().socket_path(),
    ))
}

/// The pid the master wrote into its lock file next to `socket`.
fn master_pid(socket: &Path) -> Option<u32> {
    std::fs::read_to_string(socket.with_extension("lock"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

pub fn run(ctx: &Ctx, args: &SessionsArgs) -> anyhow::Result<ExitCode> {
    let list = match &args.command {
        SessionsCommand::List(list) => list,
        SessionsCommand::All(a) => return super::sessions_registry::all(ctx, a),
        SessionsCommand::Focus(k) => return super::sessions_registry::focus(ctx, k),
        SessionsCommand::Resume(k) => return super::sessions_registry::resume(ctx, k),
        SessionsCommand::Close(k) => return super::sessions_registry::close(ctx, k),
        SessionsCommand::Pick(p) => return super::sessions_pick::run(ctx, p),
    };
    let sessions = ask_master(
        ctx,
        list.master_socket.as_deref(),
        ANSWER_WITHIN,
        |conn| async move {
            conn.sessions()
                .await
                .with_context(|| wta_i18n::tr!("cli.sessions.not_listed"))
        },
    )?;
    if ctx.json {
        output::json(&crate::json::agents::LiveSessions::new(&sessions))?;
        return Ok(ExitCode::SUCCESS);
    }
    if sessions.sessions.is_empty() {
        output::line(&wta_i18n::tr!("cli.sessions.none_live"))?;
        return Ok(ExitCode::SUCCESS);
    }
    table(&sessions).print()?;
    Ok(ExitCode::SUCCESS)
}

/// `sessions list`'s table for people, headers and words in their language.
fn table(sessions: &SessionsListResponse) -> Table {
    let mut table = Table::localized(&[
        "cli.col.agent",
        "cli.col.agent_session",
        "cli.col.helper",
        "cli.col.pid",
        "cli.col.tab",
        "cli.col.pane",
        "cli.col.yolo",
        "cli.col.state",
    ]);
    let dash = || "-".to_owned();
    for s in &sessions.sessions {
        let yolo = match s.yolo {
            Some(y) if y.blocked_by_policy => wta_i18n::tr!("cli.sessions.yolo_blocked"),
            Some(y) if y.on => wta_i18n::tr!("cli.sessions.yolo_on"),
            Some(_) => wta_i18n::tr!("cli.sessions.yolo_off"),
            None => dash(),
        };
        let state = match s.state {
            SessionState::Active => wta_i18n::tr!("cli.sessions.state_active"),
            SessionState::AgentExited => wta_i18n::tr!("cli.sessions.state_agent_exited"),
        };
        table.row(vec![
            s.agent_id.clone(),
            s.session_id.clone(),
            s.helper.to_string(),
            s.helper_pid.map_or_else(dash, |p| p.to_string()),
            s.owner_tab.as_ref().map_or_else(dash, |t| t.to_string()),
            s.target_pane.as_ref().map_or_else(dash, |p| p.to_string()),
            yolo,
            state,
        ]);
    }
    table
}

/// Why the master gave no answer.
#[derive(Debug)]
pub(super) enum Unanswered {
    /// It listens but did not answer in time (stopped, stuck): the
    /// message names its pid and how to resume it (in English for JSON).
    Silent(Said),
    /// None listens, it cannot be reached, or it answered with an error.
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for Unanswered {
    fn from(err: anyhow::Error) -> Self {
        Self::Failed(err)
    }
}

impl Unanswered {
    pub(super) fn into_error(self) -> anyhow::Error {
        match self {
            Self::Silent(said) => anyhow::anyhow!(said.shown().to_owned()),
            Self::Failed(err) => err,
        }
    }
}

/// Connects to the master (of `explicit`, else of the tmux server the flags
/// name) as a CLI client and runs `call`, within `within`; fails at once
/// when none listens, and names its pid when it does not answer.
pub(super) fn ask_master<T, F, Fut>(
    ctx: &Ctx,
    explicit: Option<&Path>,
    within: Duration,
    call: F,
) -> anyhow::Result<T>
where
    F: FnOnce(MasterConnection) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    try_ask_master(ctx, explicit, within, call).map_err(Unanswered::into_error)
}

/// [`ask_master`], telling a master that did not answer in time
/// ([`Unanswered::Silent`]) from every other failure.
pub(super) fn try_ask_master<T, F, Fut>(
    ctx: &Ctx,
    explicit: Option<&Path>,
    within: Duration,
    call: F,
) -> Result<T, Unanswered>
where
    F: FnOnce(MasterConnection) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let socket = match explicit {
        Some(path) => path.to_path_buf(),
        None => master_socket(ctx)?,
    };
    // One look first: a CLI does not wait for a master to appear.
    match UnixStream::connect(&socket) {
        Ok(_) => {}
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => {
            return Err(Unanswered::Failed(anyhow::anyhow!(wta_i18n::tr!(
                "cli.sessions.no_master",
                socket = socket.display()
            ))));
        }
        Err(e) => {
            return Err(Unanswered::Failed(anyhow::anyhow!(wta_i18n::tr!(
                "cli.sessions.cannot_reach",
                socket = socket.display(),
                error = e
            ))));
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .with_context(|| wta_i18n::tr!("cli.no_async_runtime"))
        .map_err(Unanswered::Failed)?;
    let asked = runtime.block_on(async {
        tokio::time::timeout(within, async { call(connect(&socket).await?).await }).await
    });
    // Its tasks may still wait on a master that stopped answering: do not wait for them.
    runtime.shutdown_background();
    match asked {
        Ok(answer) => answer.map_err(Unanswered::Failed),
        Err(_) => {
            let pid = master_pid(&socket).map(|p| p.to_string());
            let socket = socket.display().to_string();
            let secs = format!("{:.1}", within.as_secs_f64());
            let log = wta_env::dirs::state_dir().join("master.log");
            let log = log.display().to_string();
            let mut args = vec![
                ("socket", socket.as_str()),
                ("secs", secs.as_str()),
                ("log", log.as_str()),
            ];
            let key = match &pid {
                Some(pid) => {
                    args.push(("pid", pid));
                    "cli.sessions.silent_pid"
                }
                None => "cli.sessions.silent",
            };
            Err(Unanswered::Silent(Said::new(key, &args)))
        }
    }
}

/// Connects as a CLI client (no agent is started).
async fn connect(socket: &Path) -> anyhow::Result<MasterConnection> {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let options = ConnectOptions {
        socket: socket.to_path_buf(),
        client: ClientKind::Cli,
        ..ConnectOptions::default()
    };
    // The error already names the socket and its cause: said once.
    MasterConnection::connect(options, tx).await.map_err(|e| {
        let error = output::user_message(&anyhow::Error::from(e));
        anyhow::anyhow!(wta_i18n::tr!("cli.sessions.cannot_connect", error = error))
    })
}
