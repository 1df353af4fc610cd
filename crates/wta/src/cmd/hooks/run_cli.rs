//! Running one agent CLI's own hook command: stdin closed, in a process
//! group of its own, killed (the group, by its id) after [`super::CLI_TIMEOUT`];
//! its output kept for lenient reading and its failure said for people.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use super::CLI_TIMEOUT;
use crate::output::Said;

/// What one CLI command did.
pub(super) struct Ran {
    pub ok: bool,
    /// Its stdout and stderr together (for lenient reading).
    pub output: String,
    /// Why it failed, for people (exit status or timeout, and its stderr).
    pub failure: Said,
}

pub(super) fn run_cli(program: &Path, args: &[String]) -> Ran {
    let shown = display_argv(program, args);
    let fail = |failure: Said| Ran {
        ok: false,
        output: String::new(),
        failure,
    };
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            let e = e.to_string();
            return fail(Said::new(
                "cli.hooks.could_not_start",
                &[("command", &shown), ("error", &e)],
            ));
        }
    };
    let pgid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let done = match rx.recv_timeout(CLI_TIMEOUT) {
        Ok(done) => done,
        Err(_) => {
            // Only the group we started, by its id.
            if let Ok(pgid) = i32::try_from(pgid) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pgid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let secs = CLI_TIMEOUT.as_secs().to_string();
            return fail(Said::new(
                "cli.hooks.timed_out",
                &[("command", &shown), ("secs", &secs)],
            ));
        }
    };
    match done {
        Err(e) => {
            let e = e.to_string();
            fail(Said::new(
                "cli.hooks.failed",
                &[("command", &shown), ("error", &e)],
            ))
        }
        Ok(out) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let output = format!("{stdout}\n{stderr}");
            let failure = {
                let said = stderr.trim();
                let said = if said.is_empty() { stdout.trim() } else { said };
                let status = out.status.to_string();
                Said::new(
                    "cli.hooks.failed_status",
                    &[("command", &shown), ("status", &status), ("output", said)],
                )
            };
            Ran {
                ok: out.status.success(),
                output,
                failure,
            }
        }
    }
}

pub(super) fn display_argv(program: &Path, args: &[String]) -> String {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    std::iter::once(name)
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}
