//! The agent reaper: no agent process group outlives the master, however the
//! master ends (a SIGKILLed master runs no code, and `PR_SET_PDEATHSIG` only
//! reaches an agent's direct child, not what it started, nor exists on macOS).
//!
//! At start the master spawns `wta --agent-reaper` (a hidden role of the same
//! binary: this file's [`serve`], std only, no async runtime) in its own process
//! group, with a pipe on its stdin. The master writes `+<pgid>` when an agent
//! group starts and `-<pgid>` once it is stopped. The write end is close-on-exec
//! and held by the master alone, so the reaper reads EOF exactly when the master
//! is gone, for any reason. Then it SIGTERMs every group still listed, polls
//! `kill(-pgid, 0)` for up to [`GRACE`], SIGKILLs what is left, and exits.
//!
//! The reaper must never signal a group it was not told about: lines are parsed
//! strictly and pgids 0, 1 and its own group are refused (`kill(-1)` would hit
//! every process of the user).

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// The hidden command-line flag of the reaper role.
pub const ROLE_FLAG: &str = "--agent-reaper";
/// How long groups get between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// One line of the master → reaper pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaperLine {
    /// An agent process group started.
    Watch(i32),
    /// That group was stopped by the master; forget it.
    Forget(i32),
}

impl ReaperLine {
    /// Strict parse of `+<pgid>` / `-<pgid>`; `None` for anything else, including
    /// pgids that must never be signalled (≤ 1).
    pub fn parse(line: &str) -> Option<Self> {
        let line = line.trim_end_matches(['\n', '\r']);
        let (sign, digits) = line.split_at_checked(1)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let pgid: i32 = digits.parse().ok().filter(|p| *p > 1)?;
        match sign {
            "+" => Some(Self::Watch(pgid)),
            "-" => Some(Self::Forget(pgid)),
            _ => None,
        }
    }

    fn render(self) -> String {
        match self {
            Self::Watch(p) => format!("+{p}\n"),
            Self::Forget(p) => format!("-{p}\n"),
        }
    }
}

/// The reaper role: reads lines until EOF, then stops every listed group.
/// Returns the groups that were still alive at EOF.
pub fn serve(input: impl BufRead) -> Vec<i32> {
    let own = nix::unistd::getpgrp().as_raw();
    let mut groups = BTreeSet::new();
    for line in input.lines() {
        let Ok(line) = line else { break };
        match ReaperLine::parse(&line) {
            Some(ReaperLine::Watch(p)) if p != own => {
                groups.insert(p);
            }
            Some(ReaperLine::Forget(p)) => {
                groups.remove(&p);
            }
            _ => {}
        }
    }
    let live: Vec<i32> = groups.into_iter().filter(|p| alive(*p)).collect();
    stop_groups(&live, GRACE);
    live
}

fn alive(pgid: i32) -> bool {
    killpg(Pid::from_raw(pgid), None).is_ok()
}

/// SIGTERM each group, wait up to `grace` for all to vanish, SIGKILL the rest.
pub fn stop_groups(groups: &[i32], grace: Duration) {
    for pgid in groups {
        let _ = killpg(Pid::from_raw(*pgid), Signal::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    while groups.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for pgid in groups.iter().filter(|p| alive(**p)) {
        let _ = killpg(Pid::from_raw(*pgid), Signal::SIGKILL);
    }
}

/// The master's end: the reaper process and the pipe to it.
#[derive(Debug, Default)]
pub struct Reaper {
    pipe: Mutex<Option<(ChildStdin, Child)>>,
}

impl Reaper {
    /// Starts `<program> --agent-reaper` in its own process group (so a signal
    /// to the master's group or terminal does not take it down with the master).
    pub fn spawn(program: &Path) -> std::io::Result<Self> {
        let mut child = Command::new(program)
            .arg(ROLE_FLAG)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("the reaper's stdin was not piped"))?;
        Ok(Self {
            pipe: Mutex::new(Some((stdin, child))),
        })
    }

    /// No reaper (library tests that run the master in-process).
    pub fn disabled() -> Self {
        Self::default()
    }

    /// An agent group started.
    pub fn watch(&self, pgid: i32) {
        self.send(ReaperLine::Watch(pgid));
    }

    /// An agent group was stopped.
    pub fn forget(&self, pgid: i32) {
        self.send(ReaperLine::Forget(pgid));
    }

    fn send(&self, line: ReaperLine) {
        let mut pipe = self.pipe.lock().unwrap_or_else(|p| p.into_inner());
        let Some((stdin, child)) = pipe.as_mut() else {
            return;
        };
        // A few bytes into a pipe the reaper drains at once: never blocks for long.
        if let Err(err) = stdin.write_all(line.render().as_bytes()) {
            let status = child.try_wait().ok().flatten();
            tracing::error!(
                ?status,
                "the agent reaper is gone ({err}); agent groups may outlive a killed master"
            );
            *pipe = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_only_strict_lines_and_never_groups_0_or_1() {
        assert_eq!(ReaperLine::parse("+42"), Some(ReaperLine::Watch(42)));
        assert_eq!(ReaperLine::parse("-42\n"), Some(ReaperLine::Forget(42)));
        for bad in [
            "",
            "+",
            "42",
            "+0",
            "+1",
            "+-5",
            "- 4",
            "+4 ",
            "*4",
            "+99999999999",
            "+٣",
        ] {
            assert_eq!(ReaperLine::parse(bad), None, "{bad:?}");
        }
        for line in [ReaperLine::Watch(7), ReaperLine::Forget(1234)] {
            assert_eq!(ReaperLine::parse(&line.render()), Some(line));
        }
    }

    #[test]
    fn eof_stops_the_listed_groups_that_still_run() {
        let mut kept = Command::new("sleep")
            .arg("300")
            .process_group(0)
            .spawn()
            .unwrap();
        let mut stopped = Command::new("sleep")
            .arg("300")
            .process_group(0)
            .spawn()
            .unwrap();
        let (kept_pid, stopped_pid) = (kept.id() as i32, stopped.id() as i32);
        stopped.kill().unwrap();
        stopped.wait().unwrap();
        let input = format!("+{kept_pid}\n+{stopped_pid}\n-{stopped_pid}\n+1\n");
        let live = serve(std::io::Cursor::new(input));
        assert_eq!(live, [kept_pid]);
        let status = kept.wait().unwrap();
        assert!(
            !status.success(),
            "the listed group was signalled: {status}"
        );
    }

    proptest::proptest! {
        #[test]
        fn parse_never_yields_a_dangerous_pgid(s in ".{0,24}") {
            match ReaperLine::parse(&s) {
                Some(ReaperLine::Watch(p) | ReaperLine::Forget(p)) => proptest::prop_assert!(p > 1),
                None => {}
            }
        }
    }
}
