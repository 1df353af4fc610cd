//! Running `tmux`: the only place WTA starts a tmux process, blocking (the
//! one-shot CLI) or on tokio (watchers, the executor). Both read the same
//! way: stdout on success, else a typed error from tmux's stderr.

use std::process::{Output, Stdio};

use super::{Cmd, ServerLocation, TmuxHost, version};
use crate::HostError;

impl TmuxHost {
    /// Runs one command line and returns stdout.
    pub(crate) fn run(&self, cmd: &Cmd) -> Result<String, HostError> {
        self.run_raw(cmd, None)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// Runs one command line, writing `input` to tmux's stdin (for
    /// `load-buffer -`), and returns stdout as raw bytes (paths may not be UTF-8).
    pub(crate) fn run_raw(&self, cmd: &Cmd, input: Option<&[u8]>) -> Result<Vec<u8>, HostError> {
        let mut command = std::process::Command::new(&self.binary);
        command.args(self.location.args()).args(cmd.argv());
        command.stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().map_err(spawn_error)?;
        if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
            use std::io::Write;
            stdin.write_all(bytes).map_err(HostError::Spawn)?;
        }
        let out = child.wait_with_output().map_err(HostError::Spawn)?;
        self.finish(cmd, out)
    }

    /// [`TmuxHost::run`] on the tokio runtime.
    pub(crate) async fn run_async(&self, cmd: &Cmd) -> Result<String, HostError> {
        let out = tokio::process::Command::new(&self.binary)
            .args(self.location.args())
            .args(cmd.argv())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .output()
            .await
            .map_err(spawn_error)?;
        let this = self.clone();
        let cmd = cmd.clone();
        // An unknown failure asks `tmux -V` (blocking): off the runtime.
        let finished = tokio::task::spawn_blocking(move || this.finish(&cmd, out)).await;
        finished
            .map_err(|e| HostError::Spawn(std::io::Error::other(e.to_string())))?
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    fn finish(&self, cmd: &Cmd, out: Output) -> Result<Vec<u8>, HostError> {
        let message = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        // tmux 3.3 exits 0 when it cannot create a server's socket and only
        // says so on stderr; nothing on stdout plus an error line is a failure.
        let silent_error = out.stdout.is_empty() && message.starts_with("error ");
        if out.status.success() && !silent_error {
            return Ok(out.stdout);
        }
        Err(self.classify(cmd, message))
    }

    /// Turns tmux's stderr into a typed error. Unknown failures trigger one
    /// `tmux -V` so an old tmux is reported as such rather than as a riddle.
    fn classify(&self, cmd: &Cmd, message: String) -> HostError {
        if let Some(err) = classify_message(&message, &self.location) {
            return err;
        }
        if let Ok(version) = version::query(&self.binary)
            && !version.is_supported()
        {
            return HostError::TmuxTooOld {
                found: version.to_string(),
            };
        }
        HostError::Tmux {
            command: cmd.name().to_owned(),
            message,
        }
    }
}

fn spawn_error(e: std::io::Error) -> HostError {
    match e.kind() {
        std::io::ErrorKind::NotFound => HostError::TmuxMissing,
        _ => HostError::Spawn(e),
    }
}

/// Maps well-known tmux error messages to typed errors.
pub(super) fn classify_message(message: &str, location: &ServerLocation) -> Option<HostError> {
    let after = |prefix: &str| {
        message
            .find(prefix)
            .map(|i| message[i + prefix.len()..].trim().to_owned())
    };
    if message.contains("no server running") || message.contains("error connecting to") {
        return Some(HostError::NoServer {
            socket: location.socket_path(),
        });
    }
    if let Some(pane) = after("can't find pane: ") {
        return Some(HostError::PaneNotFound(pane));
    }
    if let Some(window) = after("can't find window: ") {
        return Some(HostError::WindowNotFound(window));
    }
    if let Some(session) = after("can't find session: ") {
        return Some(HostError::SessionNotFound(session));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn tmux_messages_map_to_typed_errors() {
        let loc = ServerLocation::Socket(PathBuf::from("/tmp/x"));
        assert!(
            matches!(classify_message("can't find pane: %99", &loc), Some(HostError::PaneNotFound(p)) if p == "%99")
        );
        assert!(matches!(
            classify_message("no server running on /tmp/x", &loc),
            Some(HostError::NoServer { .. })
        ));
        assert!(matches!(
            classify_message(
                "error connecting to /tmp/x (No such file or directory)",
                &loc
            ),
            Some(HostError::NoServer { .. })
        ));
        assert!(classify_message("something else", &loc).is_none());
    }

    /// tmux exits 0 when it cannot create a server's socket; the error on
    /// its stderr must still come back as one.
    #[test]
    fn a_server_that_could_not_start_is_an_error_not_empty_output() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("missing/default");
        let host = TmuxHost::new(ServerLocation::Socket(socket.clone()), None);
        let cmd = Cmd::new("new-session")
            .flag("-d")
            .opt_format("-F", "#{pane_id}")
            .flag("-P")
            .arg("true");
        let err = host.run(&cmd).unwrap_err().to_string();
        assert!(err.contains("error creating"), "{err}");
        assert!(!socket.exists());
    }
}
