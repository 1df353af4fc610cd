//! Running a tmux command line: over the server's socket when it can
//! ([`super::native`]: no process, a fraction of a millisecond), else with
//! the `tmux` binary — when no server answers (the binary starts one, or
//! says in its own words why not: not installed, too old, no server), for a
//! tmux of another protocol version, or when `WTA_TMUX_CLIENT=binary` asks. Blocking (the
//! one-shot CLI) or on tokio (watchers, the executor). Both read the same
//! way: stdout on success, else a typed error from tmux's stderr. This is
//! the only place WTA runs tmux.

use std::process::Stdio;

use super::native::{self, NativeError};
use super::wire::Outcome;
use super::{Cmd, ServerLocation, TmuxHost, version};
use crate::HostError;

/// What the native attempt says about running `cmd` with the binary.
enum Native {
    Ran(Outcome),
    UseBinary,
}

impl TmuxHost {
    /// Runs one command line and returns stdout.
    pub(crate) fn run(&self, cmd: &Cmd) -> Result<String, HostError> {
        self.run_raw(cmd)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// Runs one command line and returns stdout as raw bytes (paths may not be UTF-8).
    pub(crate) fn run_raw(&self, cmd: &Cmd) -> Result<Vec<u8>, HostError> {
        let attempt = native::enabled().then(|| {
            let argv: Vec<&str> = cmd.argv().collect();
            native::run_blocking(&self.location.socket_path(), &argv)
        });
        let outcome = match self.native_verdict(cmd, attempt)? {
            Native::Ran(outcome) => outcome,
            Native::UseBinary => self.spawn_blocking(cmd)?,
        };
        self.finish(cmd, outcome)
    }

    /// Runs one command line with the tmux binary, for the few commands
    /// that write to the client's own stdout through tmux's file protocol
    /// (`show-buffer`), which the native client does not speak.
    pub(crate) fn run_binary(&self, cmd: &Cmd) -> Result<String, HostError> {
        let outcome = self.spawn_blocking(cmd)?;
        self.finish(cmd, outcome)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// [`TmuxHost::run`] on the tokio runtime.
    pub(crate) async fn run_async(&self, cmd: &Cmd) -> Result<String, HostError> {
        let attempt = if native::enabled() {
            let argv: Vec<&str> = cmd.argv().collect();
            Some(native::run_async(&self.location.socket_path(), &argv).await)
        } else {
            None
        };
        let outcome = match self.native_verdict(cmd, attempt)? {
            Native::Ran(outcome) => outcome,
            Native::UseBinary => self.spawn_async(cmd).await?,
        };
        let this = self.clone();
        let cmd = cmd.clone();
        // An unknown failure asks `tmux -V` (blocking): off the runtime.
        let finished = tokio::task::spawn_blocking(move || this.finish(&cmd, outcome)).await;
        finished
            .map_err(|e| HostError::Spawn(std::io::Error::other(e.to_string())))?
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// Says whether the native attempt's outcome stands or the binary must
    /// run (`None`: native runs are off).
    fn native_verdict(
        &self,
        cmd: &Cmd,
        attempt: Option<Result<Outcome, NativeError>>,
    ) -> Result<Native, HostError> {
        let Some(attempt) = attempt else {
            return Ok(Native::UseBinary);
        };
        match attempt {
            Ok(outcome) => Ok(Native::Ran(outcome)),
            // Only the binary can start a server, and it knows best why it
            // cannot (missing, too old, nothing to connect to).
            Err(NativeError::Unreachable(e)) => {
                tracing::debug!("no tmux server answers ({e}); running the tmux binary");
                Ok(Native::UseBinary)
            }
            Err(NativeError::Mismatch { server }) => {
                tracing::info!(
                    server,
                    "tmux speaks another protocol; running the tmux binary from now on"
                );
                native::disable();
                Ok(Native::UseBinary)
            }
            Err(NativeError::TooLong) => Err(HostError::InvalidArgument(format!(
                "the tmux command {} is too long for tmux (16 KiB at most)",
                cmd.name()
            ))),
            // The server went away mid-command or answered oddly: the binary
            // says what is wrong in tmux's own words.
            Err(NativeError::Lost(why)) => {
                tracing::debug!("tmux {}: {why}; running the tmux binary", cmd.name());
                Ok(Native::UseBinary)
            }
        }
    }

    fn command(&self, cmd: &Cmd) -> std::process::Command {
        let mut command = std::process::Command::new(&self.binary);
        // `-u`: the tmux client takes the first of LC_ALL, LC_CTYPE and LANG
        // that is set to tell whether its terminal reads UTF-8; when it does
        // not (`C`, `POSIX`, none set, `en_US.ISO-8859-1`), it replaces every
        // byte of a command's output that is not printable ASCII with `_`:
        // the US/RS separators of our formats, non-ASCII names and titles,
        // the raw bytes of a path. That output is read by `format`, never
        // shown on a terminal, so it must come raw whatever the user's
        // locale (the native client announces UTF-8 the same way).
        // `attach_command` has no `-u`: that client draws on the user's
        // terminal, whose encoding the locale does describe.
        command
            .arg("-u")
            .args(self.location.args())
            .args(cmd.argv())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn spawn_blocking(&self, cmd: &Cmd) -> Result<Outcome, HostError> {
        let out = self.command(cmd).output().map_err(spawn_error)?;
        Ok(outcome_of(out))
    }

    async fn spawn_async(&self, cmd: &Cmd) -> Result<Outcome, HostError> {
        let mut command = tokio::process::Command::from(self.command(cmd));
        command.kill_on_drop(true);
        let out = command.output().await.map_err(spawn_error)?;
        Ok(outcome_of(out))
    }

    fn finish(&self, cmd: &Cmd, out: Outcome) -> Result<Vec<u8>, HostError> {
        let message = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        // tmux 3.3 exits 0 when it cannot create a server's socket and only
        // says so on stderr; nothing on stdout plus an error line is a failure.
        let silent_error = out.stdout.is_empty() && message.starts_with("error ");
        if out.status == 0 && !silent_error {
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

fn outcome_of(out: std::process::Output) -> Outcome {
    Outcome {
        status: out.status.code().unwrap_or(1),
        stdout: out.stdout,
        stderr: out.stderr,
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

    /// Without a server a command fails as "no server", natively or not.
    #[test]
    fn no_server_is_no_server() {
        let dir = tempfile::tempdir().unwrap();
        let host = TmuxHost::new(ServerLocation::Socket(dir.path().join("none")), None);
        let err = host.run(&Cmd::new("list-sessions")).unwrap_err();
        assert!(err.is_no_server(), "{err}");
    }
}
