//! Asking the user's own shell: start it interactively (so that it loads the
//! rc files with their aliases and functions), put the [`Probe`] to it and
//! read the answer, within a hard time limit.
//!
//! The shell must never touch the user's terminal or tmux state: it runs in a
//! session of its own (no controlling terminal, so an interactive shell cannot
//! grab or stop on one), stdin is /dev/null, and `TMUX_PANE` is removed so an
//! integration script in the rc files does not mark the caller's pane. On
//! time-out, and once the answer is complete, the whole session's process
//! group is killed: whatever the rc files left running (a `sleep`, a prompt
//! helper) goes with it. A daemon that left the group itself is the rc
//! files' own, as in any new terminal.
//!
//! A shell that cannot be started, hangs, stops half way or is not one WTA can
//! ask is `unavailable` with a reason, never an error. The reader threads end
//! when the shell's pipes close; one held open by an escaped daemon is left
//! to the process's exit.

use std::hash::BuildHasher;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::answer::{ShellAnswer, interpret};
use super::probe::Probe;
use super::report::Lookup;
use crate::scripts::Shell;

/// An answer larger than this is not read further (a `names` list is a few
/// hundred KiB at most).
const MAX_ANSWER: usize = 8 << 20;
/// How much of the shell's stderr is kept for the reason of a failure.
const STDERR_TAIL: usize = 4 << 10;

/// What the shell said: its lookup (checked or unavailable) and the names
/// it knows (empty unless checked).
#[derive(Debug, Clone)]
pub struct ShellReply {
    pub shell: Option<Shell>,
    pub lookup: Lookup,
    pub names: Vec<String>,
}

impl ShellReply {
    fn unavailable(shell: Option<Shell>, reason: String) -> ShellReply {
        ShellReply {
            shell,
            lookup: Lookup::unavailable(reason),
            names: Vec::new(),
        }
    }
}

/// Asks `program` (bash, zsh or fish, by its file name) about `name`,
/// running in `cwd`, for at most `timeout`.
pub fn ask_shell(program: &str, name: &str, cwd: &Path, timeout: Duration) -> ShellReply {
    let Some(shell) = Shell::from_program(program) else {
        return ShellReply::unavailable(
            None,
            format!("{program} is not a shell WTA can ask (bash, zsh or fish)"),
        );
    };
    let Some(probe) = Probe::new(shell, name, &nonce()) else {
        return ShellReply::unavailable(
            Some(shell),
            format!("WTA cannot ask {shell} (bash, zsh or fish)"),
        );
    };
    let mut command = Command::new(program);
    command
        .args(probe.args())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("TMUX_PANE");
    if cwd.is_dir() {
        command.current_dir(cwd);
    }
    in_new_session(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return ShellReply::unavailable(Some(shell), format!("could not start {program}: {e}"));
        }
    };
    let group = i32::try_from(child.id()).ok().map(Pid::from_raw);
    let answer = Arc::new(Mutex::new(Vec::new()));
    let (done_tx, done_rx) = mpsc::channel();
    if let Some(mut stdout) = child.stdout.take() {
        let answer = Arc::clone(&answer);
        let probe = probe.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 16 << 10];
            loop {
                let n = match stdout.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let Ok(mut buf) = answer.lock() else { break };
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > MAX_ANSWER || probe.is_complete(&buf) {
                    break;
                }
            }
            let _ = done_tx.send(());
        });
    }
    let (err_tx, err_rx) = mpsc::channel();
    if let Some(mut stderr) = child.stderr.take() {
        std::thread::spawn(move || {
            let mut tail = Vec::new();
            let mut chunk = [0u8; 4 << 10];
            while let Ok(n @ 1..) = stderr.read(&mut chunk) {
                tail.extend_from_slice(&chunk[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
            let _ = err_tx.send(tail);
        });
    }
    let started = Instant::now();
    let timed_out = done_rx.recv_timeout(timeout).is_err();
    // The leader is not reaped before this, so the group id is still ours.
    if let Some(group) = group {
        let _ = killpg(group, Signal::SIGKILL);
    }
    let status = child.wait().ok();
    let output = answer.lock().map(|b| b.clone()).unwrap_or_default();
    if let Some(sections) = probe.read(&output) {
        let ShellAnswer { found, names } = interpret(shell, name, &sections);
        return ShellReply {
            shell: Some(shell),
            lookup: Lookup::checked(found),
            names,
        };
    }
    let reason = if timed_out {
        format!(
            "{shell} did not answer within {} (something its rc files run may wait or hang)",
            seconds(timeout)
        )
    } else if output.len() > MAX_ANSWER {
        format!("{shell} answered with more than {} MiB", MAX_ANSWER >> 20)
    } else {
        let left = timeout.saturating_sub(started.elapsed());
        let stderr = err_rx.recv_timeout(left).unwrap_or_default();
        ended_early(shell, status, &stderr)
    };
    ShellReply::unavailable(Some(shell), reason)
}

/// Why a shell that ended gave no answer, with the last line it printed
/// on stderr (usually its own message).
fn ended_early(shell: Shell, status: Option<ExitStatus>, stderr: &[u8]) -> String {
    let how = match status {
        Some(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => s.to_string(),
        },
        None => "status unknown".into(),
    };
    let text = String::from_utf8_lossy(stderr);
    match text.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(last) => format!("{shell} ended before answering ({how}): {}", last.trim()),
        None => format!("{shell} ended before answering ({how})"),
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// A nonce for the probe's markers: rc output must not look like them.
fn nonce() -> String {
    let seed = std::collections::hash_map::RandomState::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{:016x}", seed.hash_one((std::process::id(), now)))
}

#[allow(unsafe_code)]
fn in_new_session(command: &mut Command) {
    // SAFETY: between fork and exec the closure makes one async-signal-safe
    // system call (setsid) and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            nix::unistd::setsid()
                .map(drop)
                .map_err(std::io::Error::from)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_name_the_shell_and_what_it_said() {
        let reason = ended_early(Shell::Zsh, None, b"zsh: bad option\n\n");
        assert_eq!(
            reason,
            "zsh ended before answering (status unknown): zsh: bad option"
        );
        assert_eq!(seconds(Duration::from_secs(3)), "3 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }

    #[test]
    fn a_shell_wta_cannot_ask_is_unavailable_not_an_error() {
        let here = Path::new("/");
        let sh = ask_shell("/bin/sh", "ls", here, Duration::from_secs(1));
        assert!(sh.shell.is_none());
        assert!(sh.lookup.reason.unwrap().contains("bash, zsh or fish"));
        let pwsh = ask_shell("pwsh", "ls", here, Duration::from_secs(1));
        assert_eq!(pwsh.shell, Some(Shell::Pwsh));
        let missing = ask_shell("/nonexistent/bash", "ls", here, Duration::from_secs(1));
        assert!(
            missing.lookup.reason.unwrap().contains("could not start"),
            "the program is checked by starting it"
        );
    }

    #[test]
    fn nonces_differ() {
        assert_ne!(nonce(), nonce());
        assert!(nonce().chars().all(|c| c.is_ascii_hexdigit()));
    }
}
