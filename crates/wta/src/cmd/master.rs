//! `wta --master <SOCKET>` (the daemon), `wta --agent-reaper` (the master's
//! watchdog that stops agent process groups once the master is gone) and
//! `wta --demo-agent` (the built-in offline demo agent on stdio). All are roles,
//! started by other wta processes.

use std::path::PathBuf;
use std::process::ExitCode;

use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};
use wta_i18n::tr;

/// Runs the master until it is signalled or its tmux server is gone. It first
/// takes a session of its own (no controlling terminal: closing the terminal
/// that started it changes nothing). Logs go to the state dir only; the one
/// thing printed is a startup refusal (e.g. a second master), on stderr, after
/// which stdio points at the log.
pub fn run(socket: PathBuf, tmux_socket: Option<PathBuf>) -> ExitCode {
    match wta_master::daemon::own_session() {
        Ok(wta_master::daemon::Session::Own) => {}
        Ok(wta_master::daemon::Session::Handed) => return ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("wta master: {err}");
            return ExitCode::from(1);
        }
    }
    let _guard =
        match wta_env::logging::init_file_logging(&wta_env::dirs::state_dir(), "master.log") {
            Ok(guard) => Some(guard),
            Err(err) => {
                eprintln!("wta master: {}", tr!("cli.master.no_log_file", error = err));
                None
            }
        };
    // Each helper logs to a file of its own; the ones no helper wrote to
    // for a week are gone helpers'.
    let pruned = wta_env::logging::prune_stale(
        &wta_env::dirs::state_dir(),
        "helper-",
        wta_env::logging::STALE_AFTER,
        std::time::SystemTime::now(),
    );
    if pruned > 0 {
        tracing::info!(pruned, "removed helper logs older than a week");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("wta master: {}", tr!("cli.no_runtime", error = err));
            return ExitCode::from(1);
        }
    };
    let mut config = wta_master::MasterConfig::new(socket);
    config.tmux_socket = tmux_socket;
    config.stdio_log = Some(wta_env::dirs::state_dir().join("master.log"));
    match std::env::current_exe() {
        Ok(exe) => config.reaper_program = Some(exe),
        Err(err) => {
            eprintln!("wta master: {}", tr!("cli.master.no_reaper", error = err));
            return ExitCode::from(1);
        }
    }
    match runtime.block_on(wta_master::run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("master failed: {err}");
            eprintln!("wta master: {err}");
            ExitCode::from(1)
        }
    }
}

/// The reaper role: reads agent groups from the master on stdin; at EOF stops
/// the ones still running. No async runtime, no logging: it must stay tiny.
pub fn agent_reaper() -> ExitCode {
    wta_master::reaper::serve(std::io::stdin().lock());
    ExitCode::SUCCESS
}

/// Serves the demo agent on stdin/stdout.
pub fn demo_agent() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("wta demo agent: {}", tr!("cli.no_runtime", error = err));
            return ExitCode::from(1);
        }
    };
    let served = runtime.block_on(wta_agent::demo::serve(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    ));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("wta demo agent: {err}");
            ExitCode::from(1)
        }
    }
}
