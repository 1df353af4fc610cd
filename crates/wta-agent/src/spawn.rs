//! Starting and stopping agent processes.
//!
//! Each agent runs in its own process group (`setpgid(0,0)`) with
//! `PR_SET_PDEATHSIG=SIGKILL` (Linux), so a killed master does not leave its
//! direct child behind, and a clean stop can signal the whole group (codex-acp's
//! node wrapper and claude-code-acp ignore stdin EOF; their children must go
//! too). The rest of a group whose master died (what the agent started, or the
//! agent itself on macOS) is stopped by the master's reaper process
//! (`wta_master::reaper`), which is told each [`AgentProcess::pgid`].
//! Stopping: close stdin, wait up to 1 s, SIGTERM the group, wait up to 2 s, SIGKILL.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::AgentError;
use crate::registry::LaunchSpec;

/// A started agent process; its stdin/stdout carry ACP.
#[derive(Debug)]
pub struct AgentProcess {
    pub child: Child,
    /// The process group id (equal to the child's pid).
    pub pgid: i32,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    /// The agent's stderr, for the caller to read (the master logs it and
    /// keeps its end to say why a start failed).
    pub stderr: ChildStderr,
}

/// Starts `spec` with piped stdio.
pub fn spawn_agent(spec: &LaunchSpec, cwd: Option<&Path>) -> Result<AgentProcess, AgentError> {
    let spawn_err = |source| AgentError::Spawn {
        id: spec.key.id.to_string(),
        program: spec.key.argv.first().cloned().unwrap_or_default(),
        source,
    };
    let program = spec
        .key
        .argv
        .first()
        .ok_or_else(|| spawn_err(std::io::Error::other("empty argv")))?;
    let mut cmd = Command::new(program);
    cmd.args(&spec.key.argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("CLAUDECODE")
        .process_group(0)
        .kill_on_drop(true);
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    set_parent_death_signal(&mut cmd);
    let mut child = cmd.spawn().map_err(spawn_err)?;
    let pid = child.id().unwrap_or(0) as i32;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(spawn_err(std::io::Error::other("stdio was not piped")));
    };
    Ok(AgentProcess {
        child,
        pgid: pid,
        stdin,
        stdout,
        stderr,
    })
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[allow(unsafe_code)]
fn set_parent_death_signal(cmd: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec and only makes the
    // async-signal-safe prctl(2) syscall; it touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)
        });
    }
}

/// No parent-death signal outside Linux: the master's reaper stops the group.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn set_parent_death_signal(_cmd: &mut Command) {}

/// True while any process of group `pgid` exists.
pub fn group_alive(pgid: i32) -> bool {
    pgid > 0 && killpg(Pid::from_raw(pgid), None).is_ok()
}

/// Sends `signal` to group `pgid`; a vanished group is not an error.
pub fn signal_group(pgid: i32, signal: Signal) {
    if pgid > 0 {
        let _ = killpg(Pid::from_raw(pgid), signal);
    }
}

/// Stops an agent: stdin EOF, 1 s grace, SIGTERM to the group, 2 s, SIGKILL.
/// `stdin` is whatever still holds the write end (dropping it sends EOF).
pub async fn stop_agent(mut child: Child, pgid: i32, stdin: Option<ChildStdin>) {
    drop(stdin);
    let exited = tokio::time::timeout(Duration::from_secs(1), child.wait())
        .await
        .is_ok();
    if !exited || group_alive(pgid) {
        signal_group(pgid, Signal::SIGTERM);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        let _ = tokio::time::timeout_at(deadline, child.wait()).await;
        while group_alive(pgid) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if group_alive(pgid) {
            signal_group(pgid, Signal::SIGKILL);
        }
    }
    let _ = child.wait().await;
}
