//! `wta terminal-exec --gate G [--keep] -- ARGV…`: the process of an agent
//! terminal's pane.
//!
//! It waits on the gate (the helper attaches its output pipe first, so no
//! byte is lost), runs `ARGV` as the pane's foreground job in a process
//! group of its own (Ctrl+C in the pane reaches the command, and
//! `terminal/kill` can signal exactly that group, whose id it records in
//! [`PGID_OPTION`]), and records how the command ended in [`EXIT_OPTION`],
//! after printing the end mark (`super::end_mark`).
//! tmux's own `pane_dead_status` is not used: tmux 3.3a can miss the exit
//! of a pane process. With `--keep` the pane stays open after the command
//! for the user to read, until Enter.

use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

use nix::sys::signal::{SigSet, Signal};
use nix::unistd::{Pid, getpgrp, getpid, setpgid, tcsetpgrp};
use wta_host::{TerminalHost, TmuxHost};
use wta_protocol::PaneId;

use super::spec::{EXIT_OPTION, PGID_OPTION, encode_exit};

/// Runs the wrapped command; the exit code is the command's (128 + signal
/// when it was killed).
pub fn run(gate: &str, keep: bool, argv: &[String]) -> ExitCode {
    let host = TmuxHost::discover(None, None).ok();
    let pane = std::env::var("TMUX_PANE")
        .ok()
        .and_then(|p| PaneId::parse(&p).ok());
    if let Some(host) = &host
        && let Err(err) = host.wait_for(gate)
    {
        eprintln!("wta terminal-exec: cannot wait for the helper: {err}");
    }
    let record = |option: &str, value: &str| {
        if let (Some(host), Some(pane)) = (&host, &pane)
            && let Err(err) = host.set_option(pane, option, value)
        {
            eprintln!("wta terminal-exec: cannot record {option}: {err}");
        }
    };
    // The command ended as `exit` says: the end mark goes out after all it
    // wrote, then the end is recorded (the helper tells it once the mark
    // has come through the pane's output pipe).
    let ended = |exit: &str| {
        use std::io::Write;
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(super::end_mark::END_MARK);
        let _ = stdout.flush();
        record(EXIT_OPTION, exit);
    };
    let Some((program, args)) = argv.split_first() else {
        ended("exit 127");
        return ExitCode::from(127);
    };
    let mut command = Command::new(program);
    command.args(args);
    foreground_group(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            eprintln!("wta terminal-exec: cannot run {program}: {err}");
            ended("exit 127");
            return finish(keep, 127);
        }
    };
    let pgid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(0));
    // SIGTTOU blocked, so this background process may take the terminal
    // back once the command is done.
    let _ = ttou().thread_block();
    let _ = setpgid(pgid, pgid);
    record(PGID_OPTION, &pgid.to_string());
    let status = child.wait();
    let _ = tcsetpgrp(std::io::stdin(), getpgrp());
    let _ = ttou().thread_unblock();
    let (exit, code) = match &status {
        Ok(status) => {
            use std::os::unix::process::ExitStatusExt;
            let code = status
                .code()
                .or_else(|| status.signal().map(|s| 128 + s))
                .unwrap_or(255);
            (encode_exit(status), code)
        }
        Err(_) => ("exit 255".to_owned(), 255),
    };
    ended(&exit);
    finish(keep, code)
}

fn ttou() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGTTOU);
    set
}

/// The child makes its own process group and the terminal's foreground
/// group before it runs the command (as a shell does for a job), so the
/// command never starts in the background.
#[allow(unsafe_code)]
fn foreground_group(command: &mut Command) {
    // SAFETY: between fork and exec the closure only makes system calls that
    // are async-signal-safe (setpgid, sigprocmask, tcsetpgrp, getpid); it
    // allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(|| {
            setpgid(Pid::from_raw(0), Pid::from_raw(0)).map_err(std::io::Error::from)?;
            let set = ttou();
            let _ = set.thread_block();
            let _ = tcsetpgrp(std::io::stdin(), getpid());
            let _ = set.thread_unblock();
            Ok(())
        });
    }
}

fn finish(keep: bool, code: i32) -> ExitCode {
    if keep {
        let what = if code == 0 {
            "finished".to_owned()
        } else {
            format!("ended with status {code}")
        };
        println!("\r\n[the agent's command {what}; press Enter to close this pane]");
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }
    ExitCode::from(u8::try_from(code & 0xff).unwrap_or(255))
}
