//! One master per tmux server, started on demand.
//!
//! The socket name comes from the tmux server's socket
//! (`wta_env::dirs::socket_for_tmux`). A socket that accepts a connection
//! has a live master. Otherwise a new master is started through `/bin/sh -c
//! '… &'` so it is re-parented at once (no zombie under the launcher, which may
//! `exec` tmux next) and survives the launcher; it then takes a session of its
//! own (`wta_master::daemon`), so the launcher's terminal closing sends it
//! nothing, and it follows its tmux server. The master's lock file makes a
//! racing second start exit by itself, and it replaces a stale socket safely.

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use wta_i18n::tr;

/// True when something accepts connections on `socket`.
pub fn is_running(socket: &Path) -> bool {
    UnixStream::connect(socket).is_ok()
}

/// The master socket for the tmux server at `tmux_socket`.
pub fn socket_for(tmux_socket: &Path) -> PathBuf {
    wta_env::dirs::socket_for_tmux(tmux_socket)
}

/// Makes sure a master listens on `socket`, starting one for the tmux server
/// at `tmux_socket` if needed (it exits once that server is gone).
pub fn ensure(socket: &Path, tmux_socket: &Path) -> anyhow::Result<()> {
    if is_running(socket) {
        return Ok(());
    }
    let exe = std::env::current_exe().context(wta_i18n::tr!("cli.no_binary"))?;
    let status = Command::new("/bin/sh")
        .arg("-c")
        .arg(r#""$0" --master "$1" --tmux-socket "$2" </dev/null >/dev/null 2>&1 &"#)
        .arg(&exe)
        .arg(socket)
        .arg(tmux_socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context(tr!("cli.launch.cannot_start_master"))?;
    if !status.success() {
        bail!(tr!("cli.launch.master_sh_failed", status = status));
    }
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    while start.elapsed() < Duration::from_secs(10) {
        if is_running(socket) {
            return Ok(());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
    let log = wta_env::dirs::state_dir().join("master.log");
    bail!(tr!(
        "cli.launch.master_not_listening",
        socket = socket.display(),
        log = log.display()
    ))
}
