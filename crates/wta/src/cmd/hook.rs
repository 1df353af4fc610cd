//! `wta hook --cli-source NAME --event EVENT`: the bridge an agent CLI's hook
//! runs (installed by `wta hooks install`). Reads the hook's JSON from stdin,
//! keeps only ids, cwd, a tool's name and a short notification text
//! ([`wta_agent::hooks::extract`]), and sends it with the pane from
//! `$TMUX_PANE` to the master of the tmux server as `_wta/hook_event`.
//!
//! It must never disturb the CLI: it always exits 0, prints nothing on
//! stdout or stderr, and gives up after [`STDIN_WITHIN`] reading and
//! [`SEND_WITHIN`] sending. What goes wrong is written to the wta log
//! (`hook.log` in the state dir) only.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use wta_helper::connection::{ConnectOptions, MasterConnection};
use wta_protocol::PaneId;
use wta_protocol::agent_sessions::{HookCli, HookEvent, HookEventKind};
use wta_protocol::helper_master::ClientKind;

use super::Ctx;

/// The most of stdin read (a hook's JSON can carry a whole prompt).
pub const MAX_STDIN_BYTES: u64 = 256 * 1024;
/// How long stdin may take to reach its end.
pub const STDIN_WITHIN: Duration = Duration::from_secs(2);
/// How long connecting to the master and its answer may take, together.
pub const SEND_WITHIN: Duration = Duration::from_secs(2);

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent CLI whose hook runs this (claude, copilot, codex, gemini, opencode).
    #[arg(long, value_name = "NAME")]
    pub cli_source: String,
    /// What happened: session_start, session_end, prompt_submit, tool_starting,
    /// notification, stop, error.
    #[arg(long, value_name = "EVENT")]
    pub event: String,
    /// The master's socket (default: the one of the tmux server this pane runs in).
    #[arg(long, value_name = "PATH", hide = true)]
    pub master_socket: Option<PathBuf>,
}

/// Runs the bridge; whatever happens, exit 0 and nothing printed.
pub fn run(ctx: &Ctx, args: &HookArgs) -> ExitCode {
    let _guard = wta_env::logging::init_file_logging(&wta_env::dirs::state_dir(), "hook.log").ok();
    if let Err(why) = bridge(ctx, args) {
        tracing::warn!(target: "hook", cli = %args.cli_source, event = %args.event, "hook event not sent: {why}");
    }
    ExitCode::SUCCESS
}

fn bridge(ctx: &Ctx, args: &HookArgs) -> Result<(), String> {
    let cli = HookCli::parse(&args.cli_source)
        .ok_or_else(|| format!("unknown --cli-source {:?}", args.cli_source))?;
    let kind = HookEventKind::parse(&args.event)
        .ok_or_else(|| format!("unknown --event {:?}", args.event))?;
    let payload = read_stdin();
    let pane = std::env::var("TMUX_PANE")
        .ok()
        .and_then(|p| PaneId::parse(&p).ok());
    let event = wta_agent::hooks::extract::extract(cli, kind, pane, &payload);
    let socket = match &args.master_socket {
        Some(path) => path.clone(),
        None => {
            let host = ctx.host().map_err(|e| format!("no tmux server: {e}"))?;
            crate::launch::master::socket_for(&host.location().socket_path())
        }
    };
    // One look: a hook does not wait for a master to appear.
    UnixStream::connect(&socket).map_err(|e| format!("no master at {}: {e}", socket.display()))?;
    send(&socket, &event)?;
    tracing::debug!(target: "hook", cli = cli.as_str(), event = kind.as_str(), "hook event sent");
    Ok(())
}

/// Stdin up to [`MAX_STDIN_BYTES`], or what arrived within [`STDIN_WITHIN`]
/// (nothing, if it did not end in time: a half payload is not parsed).
fn read_stdin() -> Vec<u8> {
    let (tx, rx) = std::sync::mpsc::channel();
    // Left blocked on a stdin that never ends; the process exits anyway.
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let read = std::io::stdin()
            .lock()
            .take(MAX_STDIN_BYTES + 1)
            .read_to_end(&mut buf);
        let _ = tx.send(read.map(|_| buf));
    });
    match rx.recv_timeout(STDIN_WITHIN) {
        Ok(Ok(buf)) if buf.len() as u64 > MAX_STDIN_BYTES => {
            tracing::info!(target: "hook", "hook stdin over {MAX_STDIN_BYTES} bytes: ignored");
            Vec::new()
        }
        Ok(Ok(buf)) => buf,
        Ok(Err(e)) => {
            tracing::info!(target: "hook", "cannot read the hook's stdin: {e}");
            Vec::new()
        }
        Err(_) => {
            tracing::info!(target: "hook", "the hook's stdin did not end within {STDIN_WITHIN:?}");
            Vec::new()
        }
    }
}

fn send(socket: &Path, event: &HookEvent) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let sent = runtime.block_on(async {
        tokio::time::timeout(SEND_WITHIN, async {
            let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
            let options = ConnectOptions {
                socket: socket.to_path_buf(),
                client: ClientKind::Cli,
                ..ConnectOptions::default()
            };
            let conn = MasterConnection::connect(options, tx)
                .await
                .map_err(|e| e.to_string())?;
            conn.hook_event(event).await.map_err(|e| e.to_string())
        })
        .await
    });
    // Its tasks may still wait on a master that stopped answering.
    runtime.shutdown_background();
    match sent {
        Ok(result) => result,
        Err(_) => Err(format!(
            "the master at {} did not answer within {SEND_WITHIN:?}",
            socket.display()
        )),
    }
}
