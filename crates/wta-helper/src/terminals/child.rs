//! The fallback when no pane can be made (no tmux, or tmux refused): the
//! command as a local child process, stdin from `/dev/null`, stdout and
//! stderr into the terminal's output, in a process group of its own that is
//! killed with the helper (`PR_SET_PDEATHSIG` on Linux; on exit elsewhere).

use std::process::Stdio;
use std::sync::Arc;

use agent_client_protocol::v1::schema::TerminalExitStatus;
use tokio::io::AsyncReadExt;

use super::Term;
use super::spec::{TerminalSpec, encode_exit};

/// Starts `spec` as a child; its output and end go to `term`.
pub(super) fn start(spec: &TerminalSpec, term: Arc<Term>) -> std::io::Result<()> {
    let (program, args) = spec
        .argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("no command"))?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    die_with_parent(&mut command);
    let mut child = command.spawn()?;
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        term.set_pgid(pid);
    }
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
    ]
    .into_iter()
    .flatten()
    .map(|mut stream| {
        let term = term.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 16 * 1024];
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                term.push(&buf[..n]);
            }
        })
    })
    .collect();
    tokio::spawn(async move {
        let status = child.wait().await;
        // The output first, so what the agent reads after the exit is whole.
        for reader in readers {
            let _ = reader.await;
        }
        let status = match status {
            Ok(status) => super::spec::decode_exit(&encode_exit(&status)),
            Err(_) => None,
        };
        term.exited(status.unwrap_or_else(|| TerminalExitStatus::new().exit_code(255)));
    });
    Ok(())
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(command: &mut tokio::process::Command) {
    // SAFETY: between fork and exec the closure makes one async-signal-safe
    // system call (prctl) and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
                .map_err(std::io::Error::from)
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut tokio::process::Command) {}
