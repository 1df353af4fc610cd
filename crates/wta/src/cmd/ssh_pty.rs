//! The terminal plumbing of `wta ssh`: the user's `ssh` on a pseudo-terminal
//! of its own (so `wta ssh` sees the session's output before the user does
//! and types into it first), the pane's terminal in raw mode while it is
//! proxied, window sizes passed on, and the user's keys copied to ssh.
//! Nothing here knows about WTA's integration ([`super::ssh`] does).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use nix::pty::Winsize;
use nix::sys::termios::{SetArg, Termios, cfmakeraw, tcgetattr, tcsetattr};

/// The pane's terminal settings, put back when dropped.
pub struct RawMode {
    saved: Termios,
}

impl RawMode {
    /// Puts stdin's terminal in raw mode: every key goes to ssh as it is
    /// (Ctrl+C and ssh's `~.` included).
    pub fn enter() -> Result<Self> {
        let stdin = std::io::stdin();
        let saved = tcgetattr(stdin.as_fd()).context("stdin is not a terminal")?;
        let mut raw = saved.clone();
        cfmakeraw(&mut raw);
        tcsetattr(stdin.as_fd(), SetArg::TCSANOW, &raw).context("raw mode")?;
        Ok(RawMode { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = tcsetattr(std::io::stdin().as_fd(), SetArg::TCSADRAIN, &self.saved);
    }
}

/// `TIOCGWINSZ`/`TIOCSWINSZ` on `fd`.
#[allow(unsafe_code)]
fn winsize_ioctl(fd: &impl AsRawFd, set: Option<Winsize>) -> Option<Winsize> {
    let mut size = set.unwrap_or(Winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    });
    let request = match set {
        Some(_) => nix::libc::TIOCSWINSZ,
        None => nix::libc::TIOCGWINSZ,
    };
    // SAFETY: both requests take a pointer to a `struct winsize`, which
    // `size` is, alive for the whole call; the fd is open (borrowed).
    let rc = unsafe { nix::libc::ioctl(fd.as_raw_fd(), request, &mut size) };
    (rc == 0).then_some(size)
}

/// The size of the pane's terminal (stdin), if it is one.
pub fn pane_size() -> Option<Winsize> {
    winsize_ioctl(&std::io::stdin(), None)
}

/// ssh on a pseudo-terminal of its own.
pub struct Session {
    pub child: Child,
    /// Where ssh's output comes from (EOF or `EIO` once ssh is gone).
    pub output: File,
    /// Where keys for ssh go; shared by the key copier and the bootstrap,
    /// each writing whole pieces under the lock.
    pub input: Arc<Mutex<File>>,
    /// Sets ssh's terminal size.
    pub resizer: Resizer,
}

/// ssh's terminal, to give it the pane's size.
pub struct Resizer(OwnedFd);

impl Resizer {
    /// Gives ssh's terminal the pane's size (after a resize).
    pub fn resize(&self) {
        if let Some(size) = pane_size() {
            winsize_ioctl(&self.0, Some(size));
        }
    }
}

impl Session {
    /// Starts `command` on a new terminal of `size`, as its session leader
    /// with that terminal as its controlling one (what ssh's `-t` needs).
    pub fn spawn(mut command: Command, size: Option<Winsize>) -> Result<Self> {
        let pty = nix::pty::openpty(size.as_ref(), None).context("openpty")?;
        let slave = pty.slave;
        command
            .stdin(Stdio::from(slave.try_clone()?))
            .stdout(Stdio::from(slave.try_clone()?))
            .stderr(Stdio::from(slave));
        controlling_terminal(&mut command);
        let child = command.spawn().context("cannot start ssh")?;
        // The child's copies of the terminal are its own now: `command`
        // holds ours, so it goes, and ssh's exit ends the output.
        drop(command);
        let output = File::from(pty.master.try_clone()?);
        let input = Arc::new(Mutex::new(File::from(pty.master.try_clone()?)));
        Ok(Session {
            child,
            output,
            input,
            resizer: Resizer(pty.master),
        })
    }

    /// Copies the user's keys (stdin) to `input` until stdin ends, on a
    /// thread of its own (left blocked in `read` when the session ends: the
    /// process exits right after).
    pub fn copy_keys(input: Arc<Mutex<File>>) {
        std::thread::spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = [0u8; 4096];
            loop {
                let n = match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let Ok(mut to) = input.lock() else { return };
                if to.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        });
    }
}

/// The child makes a session of its own whose controlling terminal is its
/// stdin (the new pseudo-terminal), as a terminal emulator starts a shell.
#[allow(unsafe_code)]
fn controlling_terminal(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure makes two async-signal-safe
    // system calls (setsid, ioctl) and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            nix::unistd::setsid().map_err(std::io::Error::from)?;
            if nix::libc::ioctl(0, nix::libc::TIOCSCTTY, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// On a thread of its own: passes the pane's size on at each `SIGWINCH`,
/// and on `SIGHUP` (the pane closed) or `SIGTERM` hangs ssh up (`pid`), so
/// the session ends through its usual path and the pane is cleaned up.
pub fn on_signals(resizer: Resizer, pid: u32) {
    use tokio::signal::unix::{SignalKind, signal};
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            let (Ok(mut winch), Ok(mut hup), Ok(mut term)) = (
                signal(SignalKind::window_change()),
                signal(SignalKind::hangup()),
                signal(SignalKind::terminate()),
            ) else {
                return;
            };
            // Never 0: kill(0) would signal our own process group.
            let Some(ssh) = i32::try_from(pid).ok().filter(|p| *p > 0) else {
                return;
            };
            let ssh = nix::unistd::Pid::from_raw(ssh);
            loop {
                tokio::select! {
                    _ = winch.recv() => resizer.resize(),
                    _ = hup.recv() => {
                        let _ = nix::sys::signal::kill(ssh, nix::sys::signal::Signal::SIGHUP);
                    }
                    _ = term.recv() => {
                        let _ = nix::sys::signal::kill(ssh, nix::sys::signal::Signal::SIGHUP);
                    }
                }
            }
        });
    });
}
