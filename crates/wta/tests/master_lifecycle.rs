//! The master's lifetime (issue 12): it is a daemon whoever starts it (the
//! terminal that ran `wta up` closing sends it nothing), and it follows its
//! tmux server (gone within seconds of it, with its agents and reaper, no
//! process left behind).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::time::Duration;

use launch_common::{Launch, WTA, user_env};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use wta_testkit::procs::running;
use wta_testkit::{wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);

/// Every process below `pid` now (children, their children, …).
fn descendants(pid: i32) -> Vec<i32> {
    let mut parents = vec![pid];
    let mut found = Vec::new();
    while let Some(parent) = parents.pop() {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            break;
        };
        for entry in dir.flatten() {
            let Ok(child) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            let ppid = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
                .and_then(|p| p.parse::<i32>().ok());
            if ppid == Some(parent) {
                found.push(child);
                parents.push(child);
            }
        }
    }
    found
}

/// `wta up` run from a shell in a session of its own (as from a terminal
/// window); hanging up that shell's whole process group, as closing the
/// window does, leaves the master, the helper and the agent pane working.
#[test]
fn closing_the_terminal_that_ran_up_changes_nothing() {
    let mut l = Launch::new();
    let out = l.env.path("up.json");
    let done = l.env.path("up.done");
    let script = format!(
        "\"$0\" -L {} up --detach --json --agent demo > '{}'; : > '{}'; exec sleep 120",
        l.tmux.name(),
        out.display(),
        done.display()
    );
    let mut terminal = wta_testkit::env::clean("setsid")
        .args(["sh", "-c", &script, WTA])
        .envs(user_env(&l.env))
        .spawn()
        .unwrap();
    wait_until("wta up to finish", T, || done.exists()).unwrap();
    let up: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    l.master_lock = Some(
        std::path::PathBuf::from(up["master_socket"].as_str().unwrap()).with_extension("lock"),
    );
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    l.tmux.wait_for_text(&agent, "Ready", T);
    let master = l.master_pid();
    let helper = l.pane_pid(&agent);
    // The shell leads its session and group (setsid made it so).
    let group = Pid::from_raw(i32::try_from(terminal.id()).unwrap());
    assert_ne!(
        nix::unistd::getpgid(Some(Pid::from_raw(master))).unwrap(),
        group,
        "the master left the launching shell's process group"
    );
    kill(Pid::from_raw(-group.as_raw()), Signal::SIGHUP).unwrap();
    terminal.wait().unwrap();
    l.say(&agent, "echo still here after the hangup");
    l.tmux
        .wait_for_text(&agent, "still here after the hangup", T);
    assert!(running(master), "the master survived the hangup");
    assert!(running(helper), "the helper survived the hangup");
    let session = std::fs::read_to_string(format!("/proc/{master}/stat")).unwrap();
    let fields: Vec<&str> = session[session.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .collect();
    // Fields after comm: state ppid pgrp session tty_nr …
    assert_eq!(
        fields[3],
        master.to_string(),
        "the master leads its session"
    );
    assert_eq!(fields[4], "0", "the master has no controlling terminal");
}

/// After `tmux kill-server` the master exits, ending its agents and its
/// reaper: no process it started is left.
#[test]
fn the_master_follows_its_tmux_server() {
    let mut l = Launch::new();
    let (_, _, agent) = l.up_ready("demo");
    l.say(&agent, "echo warm");
    l.tmux.wait_for_text(&agent, "warm", T);
    let master = l.master_pid();
    let below = descendants(master);
    assert!(
        below.len() >= 2,
        "the master runs its reaper and the demo agent: {below:?}"
    );
    l.tmux.tmux(&["kill-server"]);
    wait_until("the master to exit", T, || !running(master)).unwrap();
    let left: Vec<i32> = wait_for_value("its processes to end", T, || {
        let left: Vec<i32> = below.iter().copied().filter(|p| running(*p)).collect();
        left.is_empty().then_some(left)
    })
    .unwrap_or_else(|e| {
        let left: Vec<String> = below
            .iter()
            .filter(|p| running(**p))
            .map(|p| {
                std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                    .unwrap_or_default()
                    .replace('\0', " ")
            })
            .collect();
        panic!("{e}: still running: {left:?}")
    });
    assert!(left.is_empty());
    l.master_lock = None;
}
