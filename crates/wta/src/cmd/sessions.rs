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
use wta_protocol::helper_master::{ClientKind, SESSIONS_TABLE_HEADER};

use super::Ctx;
use crate::output::{self, Table};

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
        output::line("no live sessions")?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(&SESSIONS_TABLE_HEADER);
    for s in &sessions.sessions {
        table.row(s.table_cells().to_vec());
    }
    table.print()?;
    Ok(ExitCode::SUCCESS)
}

/// Why the master gave no answer.
#[derive(Debug)]
pub(super) enum Unanswered {
    /// It listens but did not answer in time (stopped, stuck): the
    /// message names its pid and how to resume it.
    Silent(anyhow::Error),
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
            Self::Silent(err) | Self::Failed(err) => err,
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
            let who = match master_pid(&socket) {
                Some(pid) => format!("the wta master (pid {pid})"),
                None => "the wta master".to_owned(),
            };
            Err(Unanswered::Silent(anyhow::anyhow!(
                "{who} at {} did not answer within {:.1} s: it may be stopped (SIGSTOP; \
                 `kill -CONT <pid>` resumes it) or stuck; its log is {}",
                socket.display(),
                within.as_secs_f64(),
                wta_env::dirs::state_dir().join("master.log").display()
            )))
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
        anyhow::anyhow!(
            "{e} (a master starts with the first agent pane: `wta up` or `wta pane open`)"
        )
    })
}
