//! A private tmux server for one test.
//!
//! Each server gets a unique `-L` name and `-f /dev/null`, so the user's
//! configuration and servers are never involved. Every tmux command it runs
//! starts from the scrubbed environment of [`crate::env`] with a private
//! HOME and XDG dirs of its own, so the server (and every pane it starts)
//! sees nothing of the runner's `WTA_*`, `TMUX*` or locale. Drop runs
//! `kill-server` on that name only and removes the socket file.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::env::Sandbox;
use crate::wait::wait_for_value;

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A running private tmux server with one session named `main`.
#[derive(Debug)]
pub struct TmuxServer {
    name: String,
    socket: PathBuf,
    first_pane: String,
    /// HOME and XDG dirs of the server's environment (unless overridden).
    sandbox: Sandbox,
}

impl TmuxServer {
    /// Starts a server whose first pane runs `bash --norc --noprofile`
    /// in a 160x40 session named `main`, window named `shell` (a fixed name:
    /// automatic renaming would make listings racy).
    pub fn start() -> Self {
        Self::start_with("bash --norc --noprofile")
    }

    /// Starts a server whose first pane runs `command` (through `sh -c`).
    pub fn start_with(command: &str) -> Self {
        Self::start_with_env(command, &[])
    }

    /// Like [`TmuxServer::start_with`], with extra environment for the server
    /// (and so for every pane it starts), set over the scrubbed one.
    pub fn start_with_env(command: &str, env: &[(&str, &std::ffi::OsStr)]) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let name = format!(
            "wta-test-{}-{}-{:x}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            nanos
        );
        let mut server = Self {
            name,
            socket: PathBuf::new(),
            first_pane: String::new(),
            sandbox: Sandbox::new(),
        };
        let env: Vec<(String, std::ffi::OsString)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let out = server.raw_env(
            &[
                "new-session",
                "-d",
                "-s",
                "main",
                "-n",
                "shell",
                "-x",
                "160",
                "-y",
                "40",
                "-P",
                "-F",
                "#{pane_id}",
                command,
            ],
            &env,
        );
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        server.first_pane = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        // remain-on-exit keeps dead panes so tests can read their exit status.
        server.tmux(&["set", "-g", "remain-on-exit", "on"]);
        server.socket = PathBuf::from(server.tmux(&["display", "-p", "#{socket_path}"]).trim());
        server
    }

    /// The `-L` name of this server.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server's socket path (what `$TMUX` starts with inside it).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The private HOME and XDG dirs the server's panes get unless the test
    /// gave its own.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The pane id of the first pane of session `main`.
    pub fn first_pane(&self) -> &str {
        &self.first_pane
    }

    /// The `$TMUX` value a process inside this server's pane would see.
    pub fn tmux_env(&self) -> String {
        format!("{},{},0", self.socket.display(), std::process::id())
    }

    fn raw(&self, args: &[&str]) -> Output {
        self.raw_env(args, &[])
    }

    fn raw_env(&self, args: &[&str], env: &[(String, std::ffi::OsString)]) -> Output {
        // The first command starts the server, which keeps this environment
        // as its global one: what every pane starts with.
        let mut cmd = self.sandbox.command("tmux");
        cmd.args(["-L", &self.name, "-f", "/dev/null"]).args(args);
        cmd.envs(env.iter().map(|(k, v)| (k, v)));
        match cmd.output() {
            Ok(out) => out,
            Err(err) => panic!("cannot run tmux (is it installed?): {err}"),
        }
    }

    /// Runs a tmux command on this server; panics with stderr on failure.
    pub fn tmux(&self, args: &[&str]) -> String {
        let out = self.raw(args);
        assert!(
            out.status.success(),
            "tmux {:?} failed: {}",
            args,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs a tmux command and returns its output, or `None` when it failed.
    pub fn try_tmux(&self, args: &[&str]) -> Option<String> {
        let out = self.raw(args);
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Opens a detached window running `command`; returns its pane id.
    pub fn new_window(&self, command: &str) -> String {
        self.tmux(&["new-window", "-d", "-P", "-F", "#{pane_id}", command])
            .trim()
            .to_owned()
    }

    /// [`TmuxServer::new_window`] with `cwd` as the working directory.
    pub fn new_window_in(&self, cwd: &Path, command: &str) -> String {
        let cwd = cwd.to_string_lossy();
        self.tmux(&[
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-c",
            &cwd,
            command,
        ])
        .trim()
        .to_owned()
    }

    /// `capture-pane -p -J` of `pane`, trailing blank lines removed.
    pub fn capture(&self, pane: &str) -> String {
        let text = self
            .try_tmux(&["capture-pane", "-p", "-J", "-t", pane])
            .unwrap_or_default();
        text.trim_end().to_owned()
    }

    /// Types literal text into `pane` followed by Enter.
    pub fn type_line(&self, pane: &str, text: &str) {
        self.tmux(&["send-keys", "-t", pane, "-l", "--", text]);
        self.tmux(&["send-keys", "-t", pane, "Enter"]);
    }

    /// `display -p -t pane FORMAT`.
    pub fn display(&self, pane: &str, format: &str) -> String {
        self.tmux(&["display", "-p", "-t", pane, format])
            .trim_end_matches('\n')
            .to_owned()
    }

    /// Waits until `pane`'s process has exited and tmux knows its status;
    /// returns `pane_dead_status`.
    ///
    /// A tmux built with utempter can miss the `SIGCHLD` of a pane process
    /// that exits while the pane's pty is being torn down (utempter has its
    /// own handler in for a moment): the pane then shows dead with no status
    /// until the server's next child exits. While that is the picture, this
    /// sends `SIGCHLD` to this test's own server, which reaps every exited
    /// child on it.
    pub fn wait_dead(&self, pane: &str, timeout: Duration) -> String {
        let server_pid: i32 = self
            .tmux(&["display", "-p", "#{pid}"])
            .trim()
            .parse()
            .unwrap_or(0);
        let waited = wait_for_value(&format!("pane {pane} to die"), timeout, || {
            let seen = self.display(pane, "#{pane_dead} #{pane_dead_status}");
            match seen.split_once(' ') {
                Some(("1", "")) => {
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(server_pid),
                        nix::sys::signal::Signal::SIGCHLD,
                    );
                    None
                }
                Some(("1", status)) => Some(status.to_owned()),
                _ => None,
            }
        });
        match waited {
            Ok(status) => status,
            Err(err) => panic!("{err}; screen was:\n{}", self.capture(pane)),
        }
    }

    /// Waits until `pane`'s captured screen contains `needle`; returns the screen.
    pub fn wait_for_text(&self, pane: &str, needle: &str, timeout: Duration) -> String {
        self.wait_for_texts(pane, &[needle], timeout)
    }

    /// Waits until one captured screen of `pane` contains every needle;
    /// returns it. A capture can land mid-frame, so text drawn together is
    /// waited for together rather than one needle then an assert.
    pub fn wait_for_texts(&self, pane: &str, needles: &[&str], timeout: Duration) -> String {
        match wait_for_value(&format!("{needles:?} in pane {pane}"), timeout, || {
            let screen = self.capture(pane);
            needles.iter().all(|n| screen.contains(n)).then_some(screen)
        }) {
            Ok(screen) => screen,
            Err(err) => panic!("{err}; screen was:\n{}", self.capture(pane)),
        }
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = self.raw(&["kill-server"]);
        if !self.socket.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.socket);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_runs_and_cleans_up() {
        let socket;
        {
            let server = TmuxServer::start();
            socket = server.socket().to_path_buf();
            assert!(socket.exists());
            assert!(server.first_pane().starts_with('%'));
            server.type_line(server.first_pane(), "echo hel''lo-there");
            server.wait_for_text(server.first_pane(), "hello-there", Duration::from_secs(10));
        }
        assert!(!socket.exists(), "socket must be removed on drop");
    }
}
