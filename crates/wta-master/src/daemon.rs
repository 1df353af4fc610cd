//! What makes the master a daemon whoever starts it: a session of its own
//! (so closing the terminal that ran `wta up` sends it nothing), no
//! controlling terminal, stdio on its log; a lifetime bound to its tmux
//! server (it exits once that server is gone); and its announcement there
//! once it listens.

use std::path::Path;
use std::time::Duration;

use crate::MasterError;

/// Set in the copy [`own_session`] starts, so it never starts another.
const RESPAWNED_ENV: &str = "WTA_MASTER_RESPAWNED";

/// How often the tmux server is checked.
pub const SERVER_POLL: Duration = Duration::from_millis(500);

/// What [`own_session`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session {
    /// This process leads a new session, without a controlling terminal.
    Own,
    /// This process leads a process group, which cannot start a session: a
    /// copy of it (with the same arguments) was started that can, and this
    /// one should exit now.
    Handed,
}

/// Moves this process into a session of its own (`setsid`), which also
/// drops its controlling terminal. A process started as a job of an
/// interactive shell leads its process group and cannot: it starts a copy of
/// itself, which is not a leader, and says so.
pub fn own_session() -> Result<Session, MasterError> {
    use nix::unistd::{getpid, getsid, setsid};
    if getsid(None).ok() == Some(getpid()) {
        return Ok(Session::Own);
    }
    match setsid() {
        Ok(_) => Ok(Session::Own),
        Err(nix::errno::Errno::EPERM) if std::env::var_os(RESPAWNED_ENV).is_none() => {
            let exe = std::env::current_exe()
                .map_err(|e| MasterError::io("cannot find the running binary", "", e))?;
            std::process::Command::new(&exe)
                .args(std::env::args_os().skip(1))
                .env(RESPAWNED_ENV, "1")
                .stdin(std::process::Stdio::null())
                .spawn()
                .map_err(|e| MasterError::io("cannot start the master's own session", exe, e))?;
            Ok(Session::Handed)
        }
        Err(errno) => Err(MasterError::io(
            "cannot start a session of its own",
            "",
            std::io::Error::from(errno),
        )),
    }
}

/// Points stdin at `/dev/null` and stdout and stderr at the end of `log`,
/// so nothing the master (or a panic) writes goes to a terminal.
pub fn stdio_to_log(log: &Path) -> Result<(), MasterError> {
    let null = std::fs::File::open("/dev/null")
        .map_err(|e| MasterError::io("cannot open", "/dev/null", e))?;
    let out = wta_env::state_files::open_append(log)
        .map_err(|e| MasterError::io("cannot open", log, e))?;
    let redirect = |what, r: nix::Result<()>| {
        r.map_err(|errno| MasterError::io(what, log, std::io::Error::from(errno)))
    };
    redirect(
        "cannot point stdin away from",
        nix::unistd::dup2_stdin(&null),
    )?;
    redirect("cannot point stdout at", nix::unistd::dup2_stdout(&out))?;
    redirect("cannot point stderr at", nix::unistd::dup2_stderr(&out))?;
    Ok(())
}

/// Returns once the tmux server at `socket` no longer accepts connections
/// (it exited, or was killed and its socket is dead), checking every
/// [`SERVER_POLL`]. Connecting and closing without a word is invisible to
/// tmux: it runs no hook for a client that never identified itself.
pub async fn tmux_server_gone(socket: &Path) {
    loop {
        if tokio::net::UnixStream::connect(socket).await.is_err() {
            return;
        }
        tokio::time::sleep(SERVER_POLL).await;
    }
}

/// Tells the tmux server at `socket` that a master listens now: signals
/// [`MASTER_UP_CHANNEL`], which every hidden agent pane whose master went
/// away waits on (tmux keeps the signal for the next waiter when none
/// waits yet; a waiter checks that a master answers before it links).
/// Blocking.
///
/// [`MASTER_UP_CHANNEL`]: wta_protocol::helper_master::MASTER_UP_CHANNEL
pub fn announce(socket: &Path) {
    let host =
        wta_host::TmuxHost::new(wta_host::ServerLocation::Socket(socket.to_path_buf()), None);
    if let Err(err) = host.signal_channel(wta_protocol::helper_master::MASTER_UP_CHANNEL) {
        tracing::debug!("cannot announce this master to tmux: {err}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_socket_nobody_serves_is_gone_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux-test");
        tokio::time::timeout(Duration::from_secs(1), tmux_server_gone(&socket))
            .await
            .unwrap();
        // A live listener is not gone until it closes.
        let listener = tokio::net::UnixListener::bind(&socket).unwrap();
        let watch = tokio::spawn({
            let socket = socket.clone();
            async move { tmux_server_gone(&socket).await }
        });
        let _ = listener.accept().await.unwrap();
        assert!(!watch.is_finished());
        drop(listener);
        std::fs::remove_file(&socket).unwrap();
        tokio::time::timeout(Duration::from_secs(2), watch)
            .await
            .unwrap()
            .unwrap();
    }
}
