//! The master killed under a working agent pane, end to end: `wta up` on a
//! private tmux server with the scripted test agent, the master killed by
//! the pid in its lock file. The pane stays with its transcript and says
//! what happened; nothing restarts on its own; Enter starts a new master
//! and a new session in the same pane, under a divider, and it answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use launch_common::Launch;
use wta_testkit::procs::running;
use wta_testkit::wait_until;

const T: Duration = Duration::from_secs(20);

fn kill9(pid: i32) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
}

#[test]
fn a_killed_master_leaves_the_pane_and_enter_reconnects_it() {
    let mut l = Launch::new();
    let (up, _shell, pane) = l.up_ready("custom:test");
    let socket = PathBuf::from(up["master_socket"].as_str().unwrap());
    let helper = l.pane_pid(&pane);
    l.say(&pane, "echo said before the master died");
    l.tmux
        .wait_for_text(&pane, "• said before the master died", T);

    let old = l.master_pid();
    kill9(old);
    wait_until("the old master is gone", T, || !running(old)).unwrap();
    let screen = l.tmux.wait_for_text(&pane, "Master gone", T);
    assert!(
        screen.contains(&format!("(pid {old})")) && screen.contains("killed or crashed"),
        "the pane says what happened:\n{screen}"
    );
    assert!(screen.contains("Enter: start a new master"), "{screen}");
    assert!(screen.contains("• said before the master died"), "{screen}");
    assert_eq!(l.pane_pid(&pane), helper, "the same helper, still running");
    // Nothing came back on its own.
    assert!(
        UnixStream::connect(&socket).is_err(),
        "no master was started without the user"
    );

    l.tmux.tmux(&["send-keys", "-t", &pane, "Enter"]);
    let screen = l
        .tmux
        .wait_for_text(&pane, "A new session with custom:test is ready", T);
    assert!(screen.contains("reconnected to a new master"), "{screen}");
    let new = l.master_pid();
    assert_ne!(new, old, "a new master holds the lock");
    assert!(running(new));
    l.say(&pane, "echo answered by the new master");
    let screen = l
        .tmux
        .wait_for_text(&pane, "• answered by the new master", T);
    let at = |needle: &str| {
        screen
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} on screen:\n{screen}"))
    };
    assert!(at("• said before the master died") < at("── reconnected to a new master"));
    assert!(at("── reconnected to a new master") < at("• answered by the new master"));
    assert_eq!(l.pane_pid(&pane), helper, "still the same pane and helper");
}
