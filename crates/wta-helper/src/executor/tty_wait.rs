//! Is the pane's foreground job waiting for the user to type? (tmux-host.md
//! §4.6). Reads `/proc` only: the terminal's foreground process group from
//! the shell's `stat`, then each member's current system call (`syscall`,
//! readable for our own processes without Yama restrictions) or, failing
//! that, its `wchan`. A process counts as waiting when it blocks in `read`
//! on a descriptor that is the pane's terminal, or in `poll`/`ppoll`/
//! `select`/`pselect6` with that terminal among the descriptors it reads
//! (the descriptor set is read from `/proc/<pid>/mem`: fish's `read`, REPLs,
//! ssh).
//! The caller adds the "no output for N s" condition.

use std::path::Path;

#[cfg(target_arch = "x86_64")]
mod nr {
    pub const READ: u64 = 0;
    pub const POLL: u64 = 7;
    pub const SELECT: u64 = 23;
    pub const PSELECT6: u64 = 270;
    pub const PPOLL: u64 = 271;
}
#[cfg(target_arch = "aarch64")]
mod nr {
    pub const READ: u64 = 63;
    pub const POLL: u64 = u64::MAX; // aarch64 has only ppoll and pselect6
    pub const SELECT: u64 = u64::MAX;
    pub const PSELECT6: u64 = 72;
    pub const PPOLL: u64 = 73;
}
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod nr {
    pub const READ: u64 = u64::MAX;
    pub const POLL: u64 = u64::MAX;
    pub const SELECT: u64 = u64::MAX;
    pub const PSELECT6: u64 = u64::MAX;
    pub const PPOLL: u64 = u64::MAX;
}

/// Most descriptors of a poll/select set that are looked at.
const MAX_FDS: u64 = 64;
const POLLIN: i16 = 1;

/// A process's blocking point, as `/proc/<pid>/syscall` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blocked {
    pub nr: u64,
    pub arg0: u64,
    pub arg1: u64,
}

/// Parses `/proc/<pid>/syscall` (`"<nr> <arg0> …"`, or `running`/`-1 …`).
pub(crate) fn parse_syscall(text: &str) -> Option<Blocked> {
    let mut it = text.split_whitespace();
    let nr = it.next()?.parse::<u64>().ok()?;
    let mut arg = || u64::from_str_radix(it.next()?.trim_start_matches("0x"), 16).ok();
    let arg0 = arg()?;
    let arg1 = arg()?;
    Some(Blocked { nr, arg0, arg1 })
}

/// Field 8 (`tpgid`) and field 5 (`pgrp`) of `/proc/<pid>/stat`.
pub(crate) fn parse_stat(text: &str) -> Option<(i64, i64)> {
    // comm (field 2) may contain spaces and ')': fields start after the last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest[0] is field 3 (state).
    let pgrp = f.get(2)?.parse().ok()?;
    let tpgid = f.get(5)?.parse().ok()?;
    Some((tpgid, pgrp))
}

/// The descriptors a blocked `poll`/`select` waits to read, decoded from
/// the process's memory by `mem(address, len)`.
pub(crate) fn polled_fds(b: Blocked, mem: impl Fn(u64, usize) -> Option<Vec<u8>>) -> Vec<u64> {
    if b.nr == nr::POLL || b.nr == nr::PPOLL {
        // struct pollfd { int fd; short events; short revents; }
        let n = b.arg1.min(MAX_FDS) as usize;
        let Some(bytes) = mem(b.arg0, n * 8) else {
            return Vec::new();
        };
        return bytes
            .chunks_exact(8)
            .filter(|p| i16::from_ne_bytes([p[4], p[5]]) & POLLIN != 0)
            .filter_map(|p| u64::try_from(i32::from_ne_bytes([p[0], p[1], p[2], p[3]])).ok())
            .collect();
    }
    if b.nr == nr::SELECT || b.nr == nr::PSELECT6 {
        // arg0 = nfds, arg1 = readfds (a bit set in machine words).
        let n = b.arg0.min(MAX_FDS);
        if n == 0 || b.arg1 == 0 {
            return Vec::new();
        }
        let Some(bytes) = mem(b.arg1, n.div_ceil(8) as usize) else {
            return Vec::new();
        };
        return (0..n)
            .filter(|fd| bytes[(*fd / 8) as usize] & (1 << (fd % 8)) != 0)
            .collect();
    }
    Vec::new()
}

/// Whether a process blocked at `b` (or at kernel function `wchan` when
/// the system call is not readable) waits on the terminal; `fd_is_tty`
/// says which descriptors are that terminal.
pub(crate) fn waits_on(
    b: Option<Blocked>,
    wchan: &str,
    fd_is_tty: impl Fn(u64) -> bool,
    mem: impl Fn(u64, usize) -> Option<Vec<u8>>,
) -> bool {
    match b {
        Some(b) if b.nr == nr::READ => fd_is_tty(b.arg0),
        Some(b) => polled_fds(b, mem).into_iter().any(fd_is_tty),
        None => wchan == "n_tty_read" || (wchan == "wait_woken" && fd_is_tty(0)),
    }
}

fn read_mem(pid: u32, addr: u64, len: usize) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(format!("/proc/{pid}/mem")).ok()?;
    f.seek(SeekFrom::Start(addr)).ok()?;
    let mut buf = vec![0; len];
    f.read_exact(&mut buf).ok()?;
    Some(buf)
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// True when a process of the foreground job on the terminal of
/// `shell_pid` waits for keyboard input.
pub(crate) fn foreground_waits_for_input(shell_pid: u32) -> bool {
    let Some(tty) = std::fs::read_link(format!("/proc/{shell_pid}/fd/0")).ok() else {
        return false;
    };
    let Some((tpgid, _)) = read(&format!("/proc/{shell_pid}/stat")).and_then(|s| parse_stat(&s))
    else {
        return false;
    };
    if tpgid <= 0 {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            read(&format!("/proc/{pid}/stat"))
                .and_then(|s| parse_stat(&s))
                .is_some_and(|(_, pgrp)| pgrp == tpgid)
        })
        .any(|pid| process_waits(pid, &tty))
}

fn process_waits(pid: u32, tty: &Path) -> bool {
    let blocked = read(&format!("/proc/{pid}/syscall")).and_then(|s| parse_syscall(&s));
    let wchan = read(&format!("/proc/{pid}/wchan")).unwrap_or_default();
    waits_on(
        blocked,
        wchan.trim(),
        |fd| std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).is_ok_and(|p| p == tty),
        |addr, len| read_mem(pid, addr, len),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_files() {
        assert_eq!(
            parse_syscall("0 0x0 0x55a4 0x1000 0x0 0x7f 0x0 0x7ffe 0x7f5b\n"),
            Some(Blocked {
                nr: 0,
                arg0: 0,
                arg1: 0x55a4
            })
        );
        assert_eq!(
            parse_syscall("270 0x1 0x7ffe 0x0 0x0 0x0 0x7ffe 0x7ffe 0x7f5b"),
            Some(Blocked {
                nr: 270,
                arg0: 1,
                arg1: 0x7ffe
            })
        );
        assert_eq!(parse_syscall("running"), None);
        assert_eq!(parse_syscall("-1 0x7ffe 0x7f"), None);
        let stat = "31108 (my (odd) prog) S 31100 31108 31108 34816 31188 4194560 0 0";
        assert_eq!(parse_stat(stat), Some((31188, 31108)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn classifies_blocking_points() {
        let tty = |fd: u64| fd == 0;
        let not_tty = |_: u64| false;
        let no_mem = |_: u64, _: usize| None;
        let b = |nr, arg0, arg1| Some(Blocked { nr, arg0, arg1 });
        assert!(waits_on(b(0, 0, 0), "", tty, no_mem), "read on the tty");
        assert!(!waits_on(b(0, 3, 0), "", tty, no_mem), "read on another fd");
        assert!(!waits_on(b(230, 0, 0), "hrtimer_nanosleep", tty, no_mem));
        assert!(!waits_on(b(0, 0, 0), "", not_tty, no_mem), "read on a pipe");
        assert!(waits_on(None, "n_tty_read", not_tty, no_mem));
        assert!(waits_on(None, "wait_woken", tty, no_mem));
        assert!(!waits_on(None, "do_nanosleep", tty, no_mem));
        // pselect6(nfds=1, readfds={0}) — a REPL.
        let set = |bits: u8| move |_: u64, len: usize| Some([vec![bits], vec![0; len]].concat());
        assert!(waits_on(b(270, 1, 0x10), "", tty, set(1)));
        assert!(
            !waits_on(b(270, 6, 0x10), "", tty, set(0b10_0000)),
            "socket only"
        );
        // poll([{4,POLLIN},{0,POLLIN},{5,POLLOUT}], 3) — fish's `read`.
        let fds: Vec<u8> = [(4i32, 1i16), (0, 1), (5, 4)]
            .iter()
            .flat_map(|(fd, ev)| {
                [
                    fd.to_ne_bytes().to_vec(),
                    ev.to_ne_bytes().to_vec(),
                    vec![0, 0],
                ]
                .concat()
            })
            .collect();
        let mem = |_: u64, len: usize| Some(fds[..len].to_vec());
        assert!(waits_on(b(7, 0x1000, 3), "", tty, mem));
        assert!(!waits_on(b(7, 0x1000, 1), "", tty, mem), "only fd 4");
        assert!(
            !waits_on(b(7, 0x1000, 3), "", tty, no_mem),
            "memory unreadable"
        );
    }
}
