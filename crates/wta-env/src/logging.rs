//! Logging for the master and the helper: a file under the state dir, never
//! the terminal (the helper's terminal is the agent pane).
//! Filter from `WTA_LOG`; the default keeps the ACP crate at `info` (its `debug`
//! once grew a log to 3.85 GB).

use std::path::{Path, PathBuf};

use tracing_subscriber::EnvFilter;

/// The log file could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up logging in {}: {message}", path.display())]
pub struct LogError {
    pub path: PathBuf,
    pub message: String,
}

const DEFAULT_FILTER: &str = "info,agent_client_protocol=info";

/// Log lines queued for the writer thread before new ones are dropped. The
/// queue is allocated whole up front: the library's default (128,000
/// lines) costs every helper and master 4 MiB of resident memory.
pub const LOG_QUEUE_LINES: usize = 2048;

/// Installs a global subscriber writing to `<state_dir>/<file_name>`.
/// Returns the guard that flushes the writer; keep it alive for the process.
pub fn init_file_logging(
    state_dir: &Path,
    file_name: &str,
) -> Result<tracing_appender::non_blocking::WorkerGuard, LogError> {
    let fail = |message: String| LogError {
        path: state_dir.to_path_buf(),
        message,
    };
    std::fs::create_dir_all(state_dir).map_err(|e| fail(format!("cannot create it: {e}")))?;
    let appender = tracing_appender::rolling::never(state_dir, file_name);
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_QUEUE_LINES)
        .lossy(true)
        .finish(appender);
    let filter =
        EnvFilter::try_from_env("WTA_LOG").unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .map_err(|e| fail(e.to_string()))?;
    Ok(guard)
}
