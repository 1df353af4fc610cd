//! Logging for the master and the helper: a file under the state dir, never
//! the terminal (the helper's terminal is the agent pane).
//! Filter from `WTA_LOG`; the default keeps the ACP crate at `info` (its `debug`
//! once grew a log to 3.85 GB).
//!
//! Private: the state dir is 0700 and every log 0600 ([`crate::state_files`]).
//! Bounded on disk: a log over [`ROTATE_AT`] is moved to `<name>.1` when a
//! process opens it (one old generation is kept), and the master removes
//! per-process logs nobody wrote to for [`STALE_AFTER`].

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

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
    crate::state_files::ensure_state_dir(state_dir)
        .map_err(|e| fail(format!("cannot create it: {e}")))?;
    // A log that cannot be moved aside is still written to: losing the
    // rotation is better than losing the log.
    let path = state_dir.join(file_name);
    let _ = rotate_if_large(&path, ROTATE_AT);
    // Created 0600 here, before the appender opens it with default modes.
    crate::state_files::open_append(&path)
        .map_err(|e| fail(format!("cannot open {file_name}: {e}")))?;
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

/// Size past which a log is moved aside when it is opened.
pub const ROTATE_AT: u64 = 8 << 20;

/// Age past which a per-process log (`helper-<pid>.log`) is removed.
pub const STALE_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// Moves `path` to `<path>.1` (replacing an older one) when it is larger
/// than `limit` bytes. Returns whether it did. A process still writing to
/// the old file goes on writing to `<path>.1`; the next opener starts fresh.
pub fn rotate_if_large(path: &Path, limit: u64) -> std::io::Result<bool> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > limit => {
            let mut old = path.as_os_str().to_owned();
            old.push(".1");
            std::fs::rename(path, old)?;
            Ok(true)
        }
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes the files in `dir` whose name starts with `prefix` and that were
/// last written before `now - max_age`; returns how many went. A file named
/// for a running process (`<prefix><pid>.log`) stays however old, since its
/// writer is idle, not gone; files that cannot be read or removed are left
/// alone.
pub fn prune_stale(dir: &Path, prefix: &str, max_age: Duration, now: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let Some(cutoff) = now.checked_sub(max_age) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(prefix) && !names_a_running_process(&name, prefix)
        })
        .filter(|e| {
            e.metadata()
                .ok()
                .filter(|m| m.is_file())
                .and_then(|m| m.modified().ok())
                .is_some_and(|at| at < cutoff)
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// `<prefix><pid>.…` with a pid that is running.
fn names_a_running_process(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.split('.').next())
        .and_then(|pid| pid.parse::<u32>().ok())
        .is_some_and(|pid| pid > 0 && crate::process::running(pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn a_large_log_moves_aside_and_replaces_the_older_one() {
        let d = dir();
        let log = d.path().join("master.log");
        std::fs::write(&log, "x".repeat(11)).unwrap();
        std::fs::write(d.path().join("master.log.1"), "older").unwrap();
        assert!(!rotate_if_large(&log, 11).unwrap(), "at the limit it stays");
        assert!(rotate_if_large(&log, 10).unwrap());
        assert!(!log.exists());
        assert_eq!(
            std::fs::read_to_string(d.path().join("master.log.1")).unwrap(),
            "x".repeat(11)
        );
        assert!(!rotate_if_large(&log, 10).unwrap(), "a missing log is fine");
    }

    #[test]
    fn only_old_files_with_the_prefix_are_pruned() {
        let d = dir();
        let mine = format!("helper-{}.log", std::process::id());
        for name in [
            "helper-999999999.log",
            "helper-x.log.1",
            "master.log",
            &mine,
        ] {
            std::fs::write(d.path().join(name), "").unwrap();
        }
        std::fs::create_dir(d.path().join("helper-3.log")).unwrap();
        let now = SystemTime::now();
        let hour = Duration::from_secs(3600);
        assert_eq!(prune_stale(d.path(), "helper-", hour, now), 0, "all fresh");
        let later = now + 2 * hour;
        assert_eq!(prune_stale(d.path(), "helper-", hour, later), 2);
        let mut left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut kept = vec!["helper-3.log".to_owned(), mine, "master.log".to_owned()];
        kept.sort();
        assert_eq!(
            left, kept,
            "a directory, a running process's log, another prefix"
        );
        assert_eq!(
            prune_stale(&d.path().join("none"), "helper-", hour, later),
            0
        );
    }
}
