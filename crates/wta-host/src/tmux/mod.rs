//! [`TmuxHost`]: the terminal host on a real tmux server.
//!
//! Each operation is one `tmux` process (commands chained with `;` when an
//! operation needs several), so `wta` stays within a small factor of tmux's
//! own start-up time. Arguments go through [`Cmd`], which escapes a trailing
//! `;` that tmux would otherwise take as a command separator.

mod cmd;
pub mod format;
mod locate;
mod stash;
mod version;

pub use stash::STASH_SESSION;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use cmd::Cmd;
pub use locate::{ServerLocation, socket_dir};
pub use version::TmuxVersion;

use wta_protocol::{PaneId, SessionId, WindowId};

use crate::{
    HostError, NewTab, PaneCommand, PaneInfo, PaneState, PaneStatus, ServerInfo, SessionInfo,
    Split, SplitDirection, StashRecord, TerminalHost, WindowInfo,
};

/// A tmux server reached through the `tmux` binary.
#[derive(Debug, Clone)]
pub struct TmuxHost {
    location: ServerLocation,
    caller: Option<PaneId>,
    binary: PathBuf,
}

impl TmuxHost {
    /// A host for `location`; `caller` is the pane the calling process runs in
    /// (only meaningful when it belongs to that server).
    pub fn new(location: ServerLocation, caller: Option<PaneId>) -> Self {
        Self {
            location,
            caller,
            binary: PathBuf::from("tmux"),
        }
    }

    /// Finds the server from explicit flags, else `$TMUX`; the caller's pane
    /// comes from `$TMUX_PANE` only when the server is the one `$TMUX` names.
    pub fn discover(socket: Option<PathBuf>, name: Option<String>) -> Result<Self, HostError> {
        let env_tmux = std::env::var("TMUX").ok();
        let env_pane = std::env::var("TMUX_PANE").ok();
        let (location, caller) =
            locate::locate(socket, name, env_tmux.as_deref(), env_pane.as_deref())?;
        Ok(Self::new(location, caller))
    }

    /// Where this host's server lives.
    pub fn location(&self) -> &ServerLocation {
        &self.location
    }

    /// Runs one tmux command line (already built with [`Cmd`]) and returns stdout.
    pub fn run(&self, cmd: &Cmd) -> Result<String, HostError> {
        self.run_with_input(cmd, None)
    }

    /// Like [`TmuxHost::run`], writing `input` to tmux's stdin (for `load-buffer -`).
    pub fn run_with_input(&self, cmd: &Cmd, input: Option<&[u8]>) -> Result<String, HostError> {
        self.run_raw(cmd, input)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// Runs one tmux command and returns stdout as raw bytes (for output that
    /// may hold paths which are not UTF-8).
    pub fn run_raw(&self, cmd: &Cmd, input: Option<&[u8]>) -> Result<Vec<u8>, HostError> {
        let mut command = Command::new(&self.binary);
        command.args(self.location.args()).args(cmd.argv());
        command.stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => HostError::TmuxMissing,
            _ => HostError::Spawn(e),
        })?;
        if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
            use std::io::Write;
            stdin.write_all(bytes).map_err(HostError::Spawn)?;
        }
        let out = child.wait_with_output().map_err(HostError::Spawn)?;
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

    /// `tmux -V`, parsed.
    pub fn version(&self) -> Result<TmuxVersion, HostError> {
        version::query(&self.binary)
    }

    fn one_pane(&self, output: &str, what: &str) -> Result<PaneInfo, HostError> {
        format::parse_panes(output)?
            .into_iter()
            .next()
            .ok_or_else(|| HostError::Parse(format!("{what} printed no pane")))
    }

    /// Sets a pane user option (`@name`).
    pub fn set_pane_option(&self, pane: &PaneId, name: &str, value: &str) -> Result<(), HostError> {
        self.run(
            &Cmd::new("set-option")
                .args(["-p", "-t", pane.as_str(), name])
                .arg(value),
        )
        .map(drop)
    }

    /// `display-message -p -t PANE` of `format`, with the pane proven to exist:
    /// tmux 3.3a expands a missing pane's format to empty fields and exits 0.
    pub fn display(&self, pane: &PaneId, format: &str) -> Result<String, HostError> {
        let cmd = Cmd::new("display-message")
            .args(["-p", "-t", pane.as_str()])
            .arg(&format!("#{{pane_id}}\x1f{format}"));
        let out = self.run(&cmd)?;
        let out = out.strip_suffix('\n').unwrap_or(&out);
        match out.split_once('\x1f') {
            Some((id, rest)) if id == pane.as_str() => Ok(rest.to_owned()),
            _ => Err(HostError::PaneNotFound(pane.to_string())),
        }
    }

    /// Reads a pane user option; empty when unset.
    pub fn pane_option(&self, pane: &PaneId, name: &str) -> Result<String, HostError> {
        self.display(pane, &format!("#{{{name}}}"))
    }

    /// Opens a pane process behind a `wait-for` gate so the caller can prepare
    /// (set `remain-on-exit`, attach a pipe) before the process starts.
    ///
    /// The wrapper records the command's exit status in the `@wta_exit_status`
    /// pane option: tmux 3.3a sometimes marks a pane dead without ever
    /// recording `pane_dead_status` (its pty EOF races the child's exit).
    fn gated_argv(gate: &str, command: &str) -> Vec<String> {
        vec![
            "/bin/sh".into(),
            "-c".into(),
            concat!(
                r#"tmux wait-for "$1"; /bin/sh -c "$2"; s=$?; "#,
                r#"tmux set-option -p -t "$TMUX_PANE" @wta_exit_status "$s" 2>/dev/null; exit "$s""#
            )
            .into(),
            "wta-gate".into(),
            gate.into(),
            command.into(),
        ]
    }

    /// Releases a gated pane; keeps it (dead) after its command exits so its
    /// exit status can be read.
    fn release(&self, pane: &PaneId, gate: &str) -> Result<(), HostError> {
        let cmd = Cmd::new("set-option")
            .args(["-p", "-t", pane.as_str(), "remain-on-exit", "on"])
            .then("wait-for")
            .args(["-S", gate]);
        self.run(&cmd).map(drop)
    }

    fn checked_cwd(cwd: Option<&Path>) -> Result<Option<PathBuf>, HostError> {
        let Some(cwd) = cwd else { return Ok(None) };
        let abs =
            std::path::absolute(cwd).map_err(|_| HostError::BadDirectory(cwd.to_path_buf()))?;
        if abs.is_dir() {
            Ok(Some(abs))
        } else {
            Err(HostError::BadDirectory(cwd.to_path_buf()))
        }
    }
}

/// Maps well-known tmux error messages to typed errors.
fn classify_message(message: &str, location: &ServerLocation) -> Option<HostError> {
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

fn gate_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("wta-gate-{}-{nanos:x}", std::process::id())
}

impl TerminalHost for TmuxHost {
    fn server_info(&self) -> Result<ServerInfo, HostError> {
        let mut cmd = Cmd::new("display-message").arg("-p");
        if let Some(pane) = &self.caller {
            cmd = cmd.args(["-t", pane.as_str()]);
        }
        let out = self.run(&cmd.arg("#{version}\x1f#{socket_path}\x1f#{session_id}\x1f#{window_id}\x1f#{pane_id}\x1f#{session_name}"))?;
        let f: Vec<&str> = out.trim_end_matches('\n').splitn(6, '\x1f').collect();
        if f.len() != 6 {
            return Err(HostError::Parse(
                "display-message printed too few fields".into(),
            ));
        }
        let version = TmuxVersion::parse(f[0]);
        if !version.is_supported() {
            return Err(HostError::TmuxTooOld {
                found: version.to_string(),
            });
        }
        let inside = self.caller.is_some();
        Ok(ServerInfo {
            socket: PathBuf::from(f[1]),
            tmux_version: f[0].to_owned(),
            pane: inside.then(|| PaneId::parse(f[4]).ok()).flatten(),
            window: inside.then(|| WindowId::parse(f[3]).ok()).flatten(),
            session: inside.then(|| SessionId::parse(f[2]).ok()).flatten(),
            session_name: inside.then(|| f[5].to_owned()),
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>, HostError> {
        let out = self.run(
            &Cmd::new("list-sessions")
                .arg("-F")
                .arg(&format::session_format()),
        )?;
        format::parse_sessions(&out)
    }

    fn list_windows(&self, session: Option<&SessionId>) -> Result<Vec<WindowInfo>, HostError> {
        let cmd = match session {
            Some(s) => Cmd::new("list-windows").args(["-t", s.as_str()]),
            None => Cmd::new("list-windows").arg("-a"),
        };
        format::parse_windows(&self.run(&cmd.arg("-F").arg(&format::window_format()))?)
    }

    fn list_panes(&self) -> Result<Vec<PaneInfo>, HostError> {
        let cmd = Cmd::new("list-panes")
            .arg("-a")
            .arg("-F")
            .arg(&format::pane_format());
        format::parse_pane_bytes(&self.run_raw(&cmd, None)?)
    }

    fn window_panes(&self, window: &WindowId) -> Result<Vec<PaneInfo>, HostError> {
        let cmd = Cmd::new("list-panes")
            .args(["-t", window.as_str(), "-F"])
            .arg(&format::pane_format());
        format::parse_pane_bytes(&self.run_raw(&cmd, None)?)
    }

    fn pane(&self, pane: &PaneId) -> Result<PaneInfo, HostError> {
        format::parse_panes(&self.display(pane, &format::pane_format())?)?
            .into_iter()
            .next()
            .ok_or_else(|| HostError::PaneNotFound(pane.to_string()))
    }

    fn caller_pane(&self) -> Option<PaneId> {
        self.caller.clone()
    }

    fn active_pane(&self) -> Result<PaneInfo, HostError> {
        match &self.caller {
            Some(pane) => self.pane(pane),
            None => {
                let out = self.run(
                    &Cmd::new("display-message")
                        .arg("-p")
                        .arg(&format::pane_format()),
                )?;
                self.one_pane(&out, "display-message")
            }
        }
    }

    fn capture(&self, pane: &PaneId, lines: Option<u32>) -> Result<String, HostError> {
        let mut cmd = Cmd::new("capture-pane").args(["-p", "-J", "-t", pane.as_str()]);
        if let Some(n) = lines {
            cmd = cmd.arg("-S").arg(&format!("-{n}"));
        }
        let text = self.run(&cmd)?;
        let trimmed = text.trim_end_matches(['\n', ' ']);
        Ok(match lines {
            Some(n) => {
                let all: Vec<&str> = trimmed.lines().collect();
                let start = all.len().saturating_sub(n as usize);
                all[start..].join("\n")
            }
            None => trimmed.to_owned(),
        })
    }

    fn new_tab(&self, spec: &NewTab) -> Result<PaneInfo, HostError> {
        let cwd = Self::checked_cwd(spec.cwd.as_deref())?;
        let mut cmd = Cmd::new("new-window")
            .args(["-P", "-F"])
            .arg(&format::pane_format());
        if !spec.focus {
            cmd = cmd.arg("-d");
        }
        match (&spec.session, &self.caller) {
            (Some(s), _) => cmd = cmd.arg("-t").arg(&format!("{s}:")),
            // Right after the caller's tab (new-window takes no pane target).
            (None, Some(p)) => {
                let window = self.pane(p)?.window;
                cmd = cmd.args(["-a", "-t", window.as_str()]);
            }
            (None, None) => {}
        }
        if let Some(title) = &spec.title {
            cmd = cmd.arg("-n").arg(title);
        }
        self.spawn_pane(cmd, cwd, &spec.env, spec.command.as_ref())
    }

    fn split(&self, spec: &Split) -> Result<PaneInfo, HostError> {
        let cwd = Self::checked_cwd(spec.cwd.as_deref())?;
        if let Some(p) = spec.percent
            && !(1..=99).contains(&p)
        {
            return Err(HostError::InvalidArgument(format!(
                "split size must be 1–99 percent, got {p}"
            )));
        }
        let mut cmd = Cmd::new("split-window")
            .args(["-P", "-F"])
            .arg(&format::pane_format());
        cmd = cmd.args(["-t", spec.target.as_str()]);
        cmd = cmd.arg(match spec.direction {
            SplitDirection::Right | SplitDirection::Left => "-h",
            SplitDirection::Down | SplitDirection::Up => "-v",
        });
        if matches!(spec.direction, SplitDirection::Left | SplitDirection::Up) {
            cmd = cmd.arg("-b");
        }
        if spec.full {
            cmd = cmd.arg("-f");
        }
        if !spec.focus {
            cmd = cmd.arg("-d");
        }
        if let Some(p) = spec.percent {
            cmd = cmd.arg("-l").arg(&format!("{p}%"));
        }
        self.spawn_pane(cmd, cwd, &spec.env, spec.command.as_ref())
    }

    fn kill_pane(&self, pane: &PaneId) -> Result<(), HostError> {
        self.run(&Cmd::new("kill-pane").args(["-t", pane.as_str()]))
            .map(drop)
    }

    fn pane_status(&self, pane: &PaneId) -> Result<PaneStatus, HostError> {
        let out = self.display(
            pane,
            "#{pane_dead}\x1f#{pane_dead_status}\x1f#{@wta_exit_status}\x1f#{pane_dead_signal}\x1f#{pane_pid}\x1f#{pane_current_command}",
        )?;
        let f: Vec<&str> = out.splitn(6, '\x1f').collect();
        if f.len() != 6 {
            return Err(HostError::Parse(
                "display-message printed too few fields".into(),
            ));
        }
        let dead = f[0] == "1";
        Ok(PaneStatus {
            pane: pane.clone(),
            state: if dead {
                PaneState::Dead
            } else {
                PaneState::Running
            },
            exit_status: if dead {
                f[1].parse().or_else(|_| f[2].parse()).ok()
            } else {
                None
            },
            exit_signal: if dead { f[3].parse().ok() } else { None },
            pid: if dead { None } else { f[4].parse().ok() },
            command: if dead { None } else { Some(f[5].to_owned()) },
        })
    }

    fn focus(&self, pane: &PaneId) -> Result<(), HostError> {
        let cmd = Cmd::new("select-window")
            .args(["-t", pane.as_str()])
            .then("select-pane")
            .args(["-t", pane.as_str()]);
        self.run(&cmd).map(drop)
    }

    fn stash(&self, pane: &PaneId, neighbour: &PaneId) -> Result<StashRecord, HostError> {
        self.stash_pane(pane, neighbour)
    }

    fn restore(&self, pane: &PaneId) -> Result<StashRecord, HostError> {
        self.restore_pane(pane)
    }

    fn send_text(&self, pane: &PaneId, text: &str, enter: bool) -> Result<(), HostError> {
        // paste-buffer reads the text from a buffer, so no byte of it is ever
        // parsed as a tmux key name or command separator.
        let buffer = format!("wta-send-{}", gate_name());
        self.run_with_input(
            &Cmd::new("load-buffer").args(["-b", &buffer, "-"]),
            Some(text.as_bytes()),
        )?;
        let mut cmd = Cmd::new("copy-mode")
            .args(["-q", "-t", pane.as_str()])
            .then("paste-buffer")
            .args(["-p", "-r", "-d", "-b", &buffer, "-t", pane.as_str()]);
        if enter {
            cmd = cmd.then("send-keys").args(["-t", pane.as_str(), "Enter"]);
        }
        self.run(&cmd).map(drop)
    }
}

impl TmuxHost {
    fn spawn_pane(
        &self,
        mut cmd: Cmd,
        cwd: Option<PathBuf>,
        env: &[(String, String)],
        command: Option<&PaneCommand>,
    ) -> Result<PaneInfo, HostError> {
        if let Some(cwd) = &cwd {
            cmd = cmd.arg("-c").arg(&cwd.to_string_lossy());
        }
        for (k, v) in env {
            cmd = cmd.arg("-e").arg(&format!("{k}={v}"));
        }
        let mut gate = None;
        match command {
            Some(PaneCommand::Shell(line)) => {
                let name = gate_name();
                cmd = cmd.arg("--");
                for a in Self::gated_argv(&name, line) {
                    cmd = cmd.arg(&a);
                }
                gate = Some(name);
            }
            Some(PaneCommand::Argv(argv)) => {
                if argv.is_empty() {
                    return Err(HostError::InvalidArgument(
                        "an empty command was given for a new pane".into(),
                    ));
                }
                cmd = cmd.arg("--");
                for a in argv {
                    cmd = cmd.arg(a);
                }
            }
            None => {}
        }
        let pane = self.one_pane(&self.run(&cmd)?, cmd.name())?;
        if let Some(gate) = gate {
            self.release(&pane.id, &gate)?;
        }
        Ok(pane)
    }
}

#[cfg(test)]
mod tests {
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
        let cmd = Cmd::new("new-session").args(["-d", "-P", "-F", "#{pane_id}", "true"]);
        let err = host.run(&cmd).unwrap_err().to_string();
        assert!(err.contains("error creating"), "{err}");
        assert!(!socket.exists());
    }
}
