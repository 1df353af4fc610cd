//! Tracker throughput: parser + `step` over a 50 MB raw pane stream made of a
//! recorded bash session repeated end to end (reported as MB/s; no budget).
//!
//! `recorded/bash-session.raw` holds the bytes a real bash with WTA's
//! integration wrote to its tmux pane while running the commands of
//! `recorded/record.sh` (ls, a `\r` progress loop, seq, grep and git log with
//! colours, a failing command, cd, an alternate-screen program, unicode, a
//! command printing a forged `D` mark): every mark carries the shell's pid
//! (`aid`) and nonce (`wta=`), and `recorded/bash-session.nonce` is what
//! that shell announced in its pane option `@wta_nonce_<pid>`. The tracker
//! learns it the way the watcher does: a mark it cannot judge yet asks for a
//! lookup ([`wta_shell::MarkTrust::lookup_for`]), answered here from that
//! file with [`Event::NonceLearned`] before the mark is stepped. Time stands
//! still (every step at 0 ms), so a pid is looked up once.
//!
//! What it asserts, in both runs: one finished run per command of
//! `record.sh`, per copy, in order, each ended by its shell's `D` mark with
//! its command line and exit code (`ls /nope` fails, the rest succeed); the
//! forged `D` ends nothing (that command's run holds the output printed
//! after it); and the cwd follows the shell's nonce'd `P` marks (`cd /tmp`
//! and back, twice per copy).
//!
//! `cargo bench -p wta-shell --bench tracker_throughput`: 50 MB, best of 3.
//! `cargo test -p wta-shell --bench tracker_throughput`: the quick run (1 MB, once).
//! Re-record with `recorded/record.sh` (its header says how).

use std::time::Instant;

use wta_shell::tracker::EndReason;
use wta_shell::{Effect, Event, Parser, Token, Tracker, TrackerConfig, step};
use wta_testkit::bench::Mode;

const RECORDED: &[u8] = include_bytes!("recorded/bash-session.raw");
/// `<pid> <nonce>`: what the recorded shell announced in `@wta_nonce_<pid>`.
const ANNOUNCED: &str = include_str!("recorded/bash-session.nonce");
/// The script that made the recording: its `run '…'` lines are the commands.
const SCRIPT: &str = include_str!("recorded/record.sh");

/// The commands `record.sh` ran, in order, as the shell reports them.
fn commands() -> Vec<&'static str> {
    SCRIPT
        .lines()
        .filter_map(|l| l.strip_prefix("run '")?.strip_suffix('\''))
        .collect()
}

/// The recorded shell's answer to a nonce lookup of `pid`.
fn announced(pid: u32) -> Option<String> {
    let (shell, nonce) = ANNOUNCED.trim().split_once(' ')?;
    (shell.parse() == Ok(pid)).then(|| nonce.to_owned())
}

fn stream(target: usize) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(target + RECORDED.len());
    let mut copies = 0;
    while out.len() < target {
        out.extend_from_slice(RECORDED);
        copies += 1;
    }
    (out, copies)
}

/// What one pass over the stream saw.
#[derive(Debug, Default)]
struct Pass {
    finished: usize,
    lookups: usize,
    cwd_changes: usize,
}

/// Feeds `data` through a fresh parser and tracker, checking every
/// finished run against `commands` (cycled).
fn pass(data: &[u8], commands: &[&str]) -> Pass {
    let mut parser = Parser::new();
    let mut tracker = Tracker::new(120, TrackerConfig::default());
    let mut tokens = Vec::new();
    let mut seen = Pass::default();
    for chunk in data.chunks(64 * 1024) {
        tokens.clear();
        parser.feed(chunk, &mut tokens);
        for token in tokens.drain(..) {
            if let Token::Mark(mark) = &token
                && let Some(pid) = tracker.trust.lookup_for(mark, 0)
            {
                seen.lookups += 1;
                let nonce = announced(pid);
                tracker = step(tracker, Event::NonceLearned { pid, nonce }, 0).0;
            }
            let (next, fx) = step(tracker, Event::Token(token), 0);
            tracker = next;
            for effect in &fx {
                match effect {
                    Effect::RunFinished { id } => {
                        let Some(run) = tracker.finished(*id) else {
                            panic!("run {id:?} finished but is not kept");
                        };
                        check_run(run, commands[seen.finished % commands.len()]);
                        seen.finished += 1;
                    }
                    Effect::CwdChanged => seen.cwd_changes += 1,
                    _ => {}
                }
            }
        }
    }
    let cwd = tracker.cwd.as_ref().map(|c| c.path.as_str());
    assert!(
        cwd.is_some_and(|p| p != "/tmp"),
        "the last command went back from /tmp: {cwd:?}"
    );
    seen
}

fn check_run(run: &wta_shell::tracker::Run, command: &str) {
    assert_eq!(run.cmdline.as_deref(), Some(command), "commands in order");
    assert_eq!(run.end_reason, Some(EndReason::Mark), "{command}");
    let failing = command.starts_with("ls /nope");
    assert_eq!(
        run.exit.map(|code| code != 0),
        Some(failing),
        "{command}: exit {:?}",
        run.exit
    );
    if command.contains("forged") {
        let head = String::from_utf8_lossy(run.output.head());
        assert!(head.contains("still running"), "a forged D ended {command}");
    }
}

fn main() {
    let mode = Mode::from_env();
    let commands = commands();
    assert!(commands.len() >= 10, "record.sh's commands: {commands:?}");
    let (megabytes, passes) = if mode.is_quick() { (1, 1) } else { (50, 3) };
    let (data, copies) = stream(megabytes * 1024 * 1024);
    let expected_runs = copies * commands.len();
    let mut best = 0f64;
    for _ in 0..passes {
        let start = Instant::now();
        let seen = pass(&data, &commands);
        let secs = start.elapsed().as_secs_f64();
        let mbps = data.len() as f64 / 1e6 / secs;
        best = best.max(mbps);
        println!(
            "{:.1} MB ({copies} copies of the recording) in {secs:.3}s: {mbps:.1} MB/s \
             ({} runs finished, {} nonce lookups, {} cwd changes)",
            data.len() as f64 / 1e6,
            seen.finished,
            seen.lookups,
            seen.cwd_changes
        );
        assert_eq!(
            seen.finished,
            expected_runs,
            "one finished run per recorded command ({} commands x {copies} copies)",
            commands.len()
        );
        assert_eq!(seen.lookups, 1, "the shell's nonce is looked up once");
        assert!(
            seen.cwd_changes >= 2 * copies,
            "cd /tmp and back in every copy: {} cwd changes",
            seen.cwd_changes
        );
    }
    println!(
        "tracker throughput (best of {passes}{}): {best:.1} MB/s",
        if mode.is_quick() {
            ", quick run: a debug build"
        } else {
            ""
        }
    );
}
