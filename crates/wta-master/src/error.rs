//! The one error enum of this crate; messages are written for the user.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum MasterError {
    #[error(
        "another wta master is already serving {socket} (pid {pid}); not starting a second one"
    )]
    AlreadyRunning { socket: PathBuf, pid: String },
    #[error(transparent)]
    UnsafeDir(#[from] wta_env::UnsafeDir),
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no runtime directory: neither XDG_RUNTIME_DIR nor a uid for /tmp/wta-<uid> is usable")]
    NoRuntimeDir,
    #[error(transparent)]
    Agent(#[from] wta_agent::AgentError),
}

impl MasterError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
