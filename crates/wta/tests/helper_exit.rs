//! When the agent pane's helper exits — `wta pane close`, its pane killed
//! (tmux hangs it up), SIGTERM, closed after the master went away, even while
//! a confirmed command is being followed — it stops the watcher it started on the shell
//! pane: `pipe-pane` off (`#{pane_pipe}` 0, `@wta_pipe` unset), the
//! `wta pipe-sink` process gone, its socket removed. Real tmux (private
//! server), `wta up` with the scripted test agent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::path::PathBuf;
use std::time::Duration;

use launch_common::card::Card;
use launch_common::{Launch, stop_master};
use wta_testkit::{wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);
/// The helper bounds its cleanup by 3 s; the sink then sees EOF at once.
const RELEASED: Duration = Duration::from_secs(10);

/// Running and not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

/// The process whose command line is `wta pipe-sink <socket>`.
fn sink_of(socket: &str) -> Option<i32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            let is_sink =
                args.contains(&b"pipe-sink".as_slice()) && args.contains(&socket.as_bytes());
            (is_sink && alive(pid)).then_some(pid)
        })
}

/// The helper's watcher on the shell pane: its socket and sink process.
/// Dropping it ends the sink if a failed test left it behind (tmux of this
/// test started it).
struct Watch {
    socket: PathBuf,
    sink: i32,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if alive(self.sink) && sink_of(&self.socket.to_string_lossy()) == Some(self.sink) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(self.sink),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }
}

/// Waits until the helper follows `shell` and finds its sink.
fn followed(l: &Launch, shell: &str) -> Watch {
    let socket = wait_for_value("the helper follows the shell pane", T, || {
        let pipe = l.tmux.display(shell, "#{pane_pipe}");
        let owner = l.tmux.display(shell, "#{@wta_pipe}");
        (pipe == "1" && !owner.is_empty()).then_some(owner)
    })
    .unwrap();
    let sink =
        wait_for_value("the shell pane's pipe-sink process", T, || sink_of(&socket)).unwrap();
    assert!(
        PathBuf::from(&socket).exists(),
        "the watcher's socket exists while it follows: {socket}"
    );
    Watch {
        socket: PathBuf::from(socket),
        sink,
    }
}

/// `pane` has no pipe, no owner mark, no sink and no socket left.
fn assert_released(l: &Launch, pane: &str, watch: &Watch) {
    wait_until(&format!("pipe-pane is off on {pane}"), RELEASED, || {
        l.tmux.display(pane, "#{pane_pipe}") == "0"
    })
    .unwrap();
    wait_until("the pipe-sink process is gone", RELEASED, || {
        !alive(watch.sink)
    })
    .unwrap();
    // The helper unsets the mark, then removes the socket.
    wait_until("the watcher's socket is removed", RELEASED, || {
        !watch.socket.exists()
    })
    .unwrap();
    assert_eq!(l.tmux.display(pane, "#{@wta_pipe}"), "", "owner mark unset");
    assert_eq!(sink_of(&watch.socket.to_string_lossy()), None);
}

/// `wta up` with the test agent; returns the shell pane, the agent pane
/// and the helper's watcher on the shell pane.
fn up(l: &mut Launch) -> (String, String, Watch) {
    let (_, shell, agent) = l.up_ready("custom:test");
    let watch = followed(l, &shell);
    (shell, agent, watch)
}

fn pane_gone(l: &Launch, pane: &str) -> bool {
    l.tmux
        .try_tmux(&["display", "-p", "-t", pane, "#{pane_id}"])
        .is_none_or(|id| id.trim() != pane)
}

/// Opens an agent pane beside a shell, ends its helper with `end(launch,
/// shell, agent, helper pid)`, then checks the shell pane's watcher is
/// released, the helper is gone and so is its pane.
fn ending_the_helper_releases_the_shell(end: impl FnOnce(&Launch, &str, &str, i32)) {
    let mut l = Launch::new();
    let (shell, agent, watch) = up(&mut l);
    let helper = l.pane_pid(&agent);
    end(&l, &shell, &agent, helper);
    assert_released(&l, &shell, &watch);
    wait_until("the helper exits", T, || !alive(helper)).unwrap();
    wait_until("the agent pane closes", T, || pane_gone(&l, &agent)).unwrap();
}

#[test]
fn pane_close_stops_the_watcher_on_the_shell_pane() {
    ending_the_helper_releases_the_shell(|l, shell, _, _| {
        l.pane(&["close", "-t", shell]);
    });
}

#[test]
fn killing_the_agent_pane_stops_the_watcher_on_the_shell_pane() {
    ending_the_helper_releases_the_shell(|l, _, agent, _| {
        l.tmux.tmux(&["kill-pane", "-t", agent]);
    });
}

#[test]
fn sigterm_to_the_helper_stops_the_watcher_on_the_shell_pane() {
    ending_the_helper_releases_the_shell(|_, _, _, helper| {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(helper),
            nix::sys::signal::Signal::SIGTERM,
        )
        .unwrap();
    });
}

/// The master going away leaves the pane (it offers to reconnect); closing
/// it then (Ctrl+C twice) releases the shell like any other exit.
#[test]
fn closing_the_pane_after_the_master_went_away_stops_the_watcher() {
    ending_the_helper_releases_the_shell(|l, _, agent, _| {
        stop_master(l.master_lock.as_ref().unwrap());
        l.tmux.wait_for_text(agent, "Master gone", T);
        l.tmux.tmux(&["send-keys", "-t", agent, "C-c"]);
        l.tmux.wait_for_text(agent, "Ctrl+C again", T);
        l.tmux.tmux(&["send-keys", "-t", agent, "C-c"]);
    });
}

#[test]
fn closing_while_a_confirmed_command_runs_stops_the_watcher() {
    let mut l = Launch::new();
    let (shell, agent, watch) = up(&mut l);
    l.say(&agent, "propose-run sleep 30");
    l.wait_card(&agent, &Card::proposal("Run"));
    l.tmux.tmux(&["send-keys", "-t", &agent, "Enter"]);
    wait_until("sleep runs in the shell pane", T, || {
        l.tmux.display(&shell, "#{pane_current_command}") == "sleep"
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&agent)));
    l.pane(&["close", "-t", &shell]);
    assert_released(&l, &shell, &watch);
    assert_eq!(
        l.tmux.display(&shell, "#{pane_current_command}"),
        "sleep",
        "the user's command is left running"
    );
}

/// A panel an `open_and_send` opened is followed by that action until its
/// command ends; closing the agent pane meanwhile still stops its watcher.
#[test]
fn closing_while_an_opened_panel_runs_its_command_stops_that_watcher() {
    let mut l = Launch::new();
    let (shell, agent, watch) = up(&mut l);
    let payload = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Sleep in a panel","actions":[{"type":"open_and_send","target":"panel","input":"sleep 30","delegate":false}]}]}"#;
    l.say(&agent, &format!("propose {payload}"));
    l.wait_card(&agent, &Card::proposal("Run"));
    l.tmux.tmux(&["send-keys", "-t", &agent, "Enter"]);
    let panel = wait_for_value("sleep runs in a new panel", T, || {
        let panes = l.tmux.tmux(&[
            "list-panes",
            "-t",
            &shell,
            "-F",
            "#{pane_id} #{pane_current_command}",
        ]);
        panes.lines().find_map(|line| {
            let (id, command) = line.split_once(' ')?;
            (id != shell && id != agent && command == "sleep").then(|| id.to_owned())
        })
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&agent)));
    let panel_watch = followed(&l, &panel);
    l.pane(&["close", "-t", &shell]);
    assert_released(&l, &shell, &watch);
    assert_released(&l, &panel, &panel_watch);
}
