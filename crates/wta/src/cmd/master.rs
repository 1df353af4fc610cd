//! `wta --master <SOCKET>` (the daemon), `wta --agent-reaper` (the master's
//! watchdog that stops agent process groups once the master is gone) and
//! `wta --demo-agent` (the built-in offline demo agent on stdio). All are roles,
//! started by other wta processes.

use std::path::PathBuf;
use std::process::ExitCode;

use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// Runs the master until it is signalled. Logs go to the state dir only; the one
/// thing printed is a startup refusal (e.g. a second master), on stderr.
pub fn run(socket: PathBuf) -> ExitCode {
    let _guard =
        match wta_master::logging::init_file_logging(&wta_master::paths::state_dir(), "master.log")
        {
            Ok(guard) => Some(guard),
            Err(err) => {
                eprintln!("wta master: {err} (continuing without a log file)");
                None
            }
        };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("wta master: cannot start the async runtime: {err}");
            return ExitCode::from(1);
        }
    };
    let mut config = wta_master::MasterConfig::new(socket);
    match std::env::current_exe() {
        Ok(exe) => config.reaper_program = Some(exe),
        Err(err) => {
            eprintln!("wta master: cannot find the wta binary to start the agent reaper: {err}");
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
            eprintln!("wta demo agent: cannot start the async runtime: {err}");
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
