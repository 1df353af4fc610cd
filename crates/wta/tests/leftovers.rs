//! What a killed helper or a signalled `wta listen` leaves behind (issue
//! 26, item 10), end to end on private tmux servers:
//!
//! - a helper SIGKILLed with a card waiting unseen: the master reaps its
//!   shell pane's `pipe-pane` (the sink process ends), its watch
//!   directory, its proposal socket and the tab's card indicator;
//! - `wta listen` ended by SIGTERM, SIGHUP or SIGPIPE detaches like
//!   Ctrl+C: no pipe, no owner mark, no sink left (SIGTERM and SIGHUP exit
//!   0 as Ctrl+C does, SIGPIPE 141).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;
mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use launch_common::Launch;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use wta_testkit::{TmuxServer, wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);

fn option(tmux: &TmuxServer, scope: &str, target: &str, name: &str) -> String {
    tmux.try_tmux(&["show-options", scope, "-v", "-t", target, name])
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Pids of processes whose command line mentions `needle` (Linux `/proc`).
fn processes_with(needle: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}

fn proposal_sockets(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with("proposal-") && n.ends_with(".sock"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_killed_helpers_pipes_sockets_and_indicator_are_reaped_by_the_master() {
    let mut l = Launch::new();
    let (_, shell, agent) = l.up_ready("custom:test");
    let window = l.tmux.display(&shell, "#{window_id}");
    let helper = l.pane_pid(&agent);
    let runtime = l.env.path("runtime/wta");
    let watch_dir = runtime.join(format!("watch/helper-{helper}"));
    let owner = wait_for_value("the helper's pipe on its shell", T, || {
        Some(option(&l.tmux, "-p", &shell, "@wta_pipe")).filter(|o| !o.is_empty())
    })
    .unwrap();
    assert!(Path::new(&owner).starts_with(&watch_dir), "{owner}");
    wait_until("its sink runs", T, || !processes_with(&owner).is_empty()).unwrap();
    assert_eq!(proposal_sockets(&runtime).len(), 1, "{runtime:?}");
    // A card up where nobody looks (no client is attached): the tab says so.
    l.say(&agent, "permission");
    wait_until("the tab's indicator", T, || {
        option(&l.tmux, "-w", &window, "@wta_card_waiting") == "permission"
    })
    .unwrap();

    kill(Pid::from_raw(helper), Signal::SIGKILL).unwrap();
    wait_until("the shell's pipe closed", T, || {
        l.tmux.display(&shell, "#{pane_pipe}") == "0"
            && option(&l.tmux, "-p", &shell, "@wta_pipe").is_empty()
    })
    .unwrap();
    wait_until("the sink to end", T, || processes_with(&owner).is_empty()).unwrap();
    wait_until("the proposal socket to go", T, || {
        proposal_sockets(&runtime).is_empty()
    })
    .unwrap_or_else(|e| panic!("{e}: {:?}", proposal_sockets(&runtime)));
    wait_until("the indicator to go", T, || {
        option(&l.tmux, "-w", &window, "@wta_card_waiting").is_empty()
    })
    .unwrap();
    assert!(!watch_dir.exists(), "{watch_dir:?}");
    assert!(
        wta_testkit::procs::running(l.master_pid()),
        "the master runs on"
    );
}

#[test]
fn listen_detaches_on_sigterm_sighup_and_sigpipe() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let gate = "wta-listen-signals-gate";
    let pane = support::integrated_bash_window(&server, dir.path(), gate);
    let socket = server.socket().to_string_lossy().into_owned();
    for (n, (sig, code)) in [
        (Signal::SIGTERM, 0),
        (Signal::SIGHUP, 0),
        (Signal::SIGPIPE, 141),
    ]
    .into_iter()
    .enumerate()
    {
        let mut child = server
            .sandbox()
            .command(support::wta_bin())
            .args(["-S", &socket, "listen", "-t", &pane, "--json"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let owner = wait_for_value("listen attached", T, || {
            let attached = server.display(&pane, "#{pane_pipe}") == "1";
            Some(option(&server, "-p", &pane, "@wta_pipe")).filter(|o| attached && !o.is_empty())
        })
        .unwrap();
        if n == 0 {
            server.tmux(&["wait-for", "-S", gate]);
        }
        wait_until("its sink runs", T, || !processes_with(&owner).is_empty()).unwrap();
        kill(Pid::from_raw(child.id() as i32), sig).unwrap();
        let status = wait_for_value("listen exits", T, || child.try_wait().ok().flatten()).unwrap();
        assert_eq!(status.code(), Some(code), "{sig:?}: {status:?}");
        assert_eq!(server.display(&pane, "#{pane_pipe}"), "0", "{sig:?}");
        assert!(
            option(&server, "-p", &pane, "@wta_pipe").is_empty(),
            "{sig:?}"
        );
        wait_until("its sink to end", T, || processes_with(&owner).is_empty())
            .unwrap_or_else(|e| panic!("{sig:?}: {e}"));
    }
}
