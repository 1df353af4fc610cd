//! Whether a process named by pid still runs: for files and sockets named
//! after the process that made them (a helper's log, a master's pid).

/// Running and not a zombie.
pub fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) state …`: comm may hold spaces, so look after the last ')'.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))),
        // No /proc (or no such process): ask the kernel.
        Err(_) => i32::try_from(pid)
            .is_ok_and(|pid| nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_runs_and_a_pid_past_the_maximum_does_not() {
        assert!(running(std::process::id()));
        assert!(!running(999_999_999));
    }
}
