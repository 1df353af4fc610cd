//! Facts about processes and sockets that tests and benches check: whether
//! a process still runs, its resident memory, and whether the far side
//! closed a socket.

use std::io::{ErrorKind, Read};
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// Whether `pid` still runs: it exists and is not a zombie.
///
/// An exited process stays in the table (state `Z`) until its parent reaps
/// it, and a tmux server built with utempter can miss the `SIGCHLD` of a
/// pane process that exits while a pane is being torn down, leaving the
/// zombie until its next child exits. Tests of "this process ended" ask
/// this, not whether the pid is still known.
pub fn running(pid: i32) -> bool {
    if nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err() {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        // No /proc (macOS): a known pid is taken as running.
        return true;
    };
    // `pid (comm) state …`; comm may hold spaces and parentheses.
    stat.rfind(')')
        .and_then(|i| stat[i + 1..].split_whitespace().next())
        .is_none_or(|state| state != "Z")
}

/// `VmRSS` of `pid`, in KiB; `None` when the process is gone.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// Reads `stream` until the far side closes it (EOF or reset) within
/// `timeout`; returns what arrived before the end, `None` on a timeout or
/// another read error.
pub fn read_until_closed(stream: &mut UnixStream, timeout: Duration) -> Option<Vec<u8>> {
    stream.set_read_timeout(Some(timeout)).ok()?;
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(seen),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Some(seen),
            Err(_) => return None,
        }
    }
}

/// Whether the far side still holds `stream` open right now: nothing to
/// read and no end.
pub fn still_open(stream: &mut UnixStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let open = matches!(stream.read(&mut [0u8; 1]), Err(e) if e.kind() == ErrorKind::WouldBlock);
    let _ = stream.set_nonblocking(false);
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exited_unreaped_child_is_not_running() {
        let mut child = crate::env::clean("sh")
            .args(["-c", "read _"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        assert!(running(pid));
        drop(child.stdin.take());
        crate::wait_until("the child to exit", Duration::from_secs(10), || {
            !running(pid)
        })
        .unwrap();
        // Exited but not yet waited for: a zombie, still known by pid.
        assert!(nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok());
        child.wait().unwrap();
        assert!(!running(pid));
    }

    #[test]
    fn closes_and_memory_are_seen() {
        assert!(rss_kib(std::process::id()).is_some_and(|k| k > 0));
        let (mut a, mut b) = UnixStream::pair().unwrap();
        assert!(still_open(&mut a));
        std::io::Write::write_all(&mut b, b"bye").unwrap();
        drop(b);
        assert_eq!(
            read_until_closed(&mut a, Duration::from_secs(5)),
            Some(b"bye".to_vec())
        );
        assert!(!still_open(&mut a));
    }
}
