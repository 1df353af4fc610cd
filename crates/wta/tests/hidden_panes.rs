//! Hidden agent panes (issue 26, items 6 and 7), end to end on a private
//! tmux server with a real client attached (from a pane of a second
//! private server, so what the user's terminal gets can be read there):
//!
//! - a stashed pane whose master was killed links to the next master on
//!   its own (nobody can press its Enter), and `wta fix` works there again;
//!   while no master runs, `wta fix` says so and exits 1;
//! - the fix's card waits in the hidden pane with the tab marked in the
//!   user's status line (`wta tmux-config`'s window-status marks) and one
//!   bell in the user's terminal, until `prefix a` (`wta pane toggle`)
//!   shows the pane; then it is confirmed and runs;
//! - `wta fix` exits 1 when the pane has nothing to fix, and when the
//!   tab's agent pane does not answer, at its 5 s deadline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use launch_common::Launch;
use launch_common::card::Card;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use wta_testkit::procs::running;
use wta_testkit::{TmuxServer, squeezed, wait_until};

const T: Duration = Duration::from_secs(20);
/// `wta fix`'s wait for the helper's answer (`ANSWER_WITHIN` in
/// `cmd/fix.rs`; the binary has no library to import it from).
const FIX_ANSWER_WITHIN: Duration = Duration::from_secs(5);
/// Not a performance claim: only catches a `wta fix` that hangs.
const NO_HANG: Duration = Duration::from_secs(30);

fn signal(pid: i32, sig: Signal) {
    kill(Pid::from_raw(pid), sig).unwrap();
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn card_option(l: &Launch, window: &str) -> String {
    l.tmux
        .try_tmux(&[
            "show-options",
            "-w",
            "-v",
            "-t",
            window,
            "@wta_card_waiting",
        ])
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// A client of `l`'s server attached to `session`, running in a pane of a
/// second private server; returns that server and the client's pane.
fn attach(l: &Launch, session: &str) -> (TmuxServer, String) {
    let viewer = TmuxServer::start_with(&format!(
        "env -u TMUX tmux -S '{}' attach -t '{session}'",
        l.tmux.socket().display()
    ));
    let client = viewer.first_pane().to_owned();
    wait_until("the client to attach", T, || {
        l.tmux.display(session, "#{session_attached}") == "1"
    })
    .unwrap();
    (viewer, client)
}

#[test]
fn a_hidden_pane_links_to_a_new_master_and_its_fix_card_is_told_until_shown() {
    let mut l = Launch::new();
    let (up, shell, agent) = l.up_ready("custom:test");
    let session = up["session_name"].as_str().unwrap().to_owned();
    let window = l.tmux.display(&shell, "#{window_id}");
    // The user's tmux.conf has WTA's lines.
    let conf = l.wta(&["tmux-config"]);
    assert!(conf.status.success(), "{conf:?}");
    let file = l.env.path("wta.tmux.conf");
    std::fs::write(&file, &conf.stdout).unwrap();
    l.tmux.tmux(&["source-file", file.to_str().unwrap()]);
    let (viewer, client) = attach(&l, &session);

    // prefix a: hidden.
    let hidden = l.pane(&["toggle", "-t", &shell]);
    assert_eq!(hidden["action"], "stashed", "{hidden}");
    let helper = l.pane_pid(&agent);

    // The master dies; no master runs.
    let old = l.master_pid();
    signal(old, Signal::SIGKILL);
    wait_until("the old master to be gone", T, || !running(old)).unwrap();
    l.tmux.wait_for_text(&agent, "Master gone", T);
    let out = l.wta(&["fix", "-t", &shell]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains(&format!("the agent pane {agent} has no wta master")),
        "{out:?}"
    );

    // A new master (as `wta up` in another terminal would start it).
    let socket = PathBuf::from(up["master_socket"].as_str().unwrap());
    let mut master = l
        .env
        .command()
        .arg("--master")
        .arg(&socket)
        .arg("--tmux-socket")
        .arg(up["tmux_socket"].as_str().unwrap())
        .spawn()
        .unwrap();
    // Nobody pressed Enter in the hidden pane: it linked on its own.
    let screen = l
        .tmux
        .wait_for_text(&agent, "A new session with custom:test is ready", T);
    assert!(screen.contains("reconnected to a new master"), "{screen}");
    assert_eq!(l.pane_pid(&agent), helper, "the same helper");
    assert_eq!(l.tmux.display(&agent, "#{session_name}"), "_wta_stash");

    // A failure in the tab, and `prefix F` (`wta fix`) while the pane is hidden.
    l.tmux.type_line(&shell, "false");
    let pill = squeezed(&format!("✗ exit 1 in {shell} · Ctrl+F fix"));
    wait_until("the pill in the hidden pane", T, || {
        squeezed(&l.tmux.capture(&agent)).contains(&pill)
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", l.tmux.capture(&agent)));
    assert_eq!(
        viewer.display(&client, "#{window_bell_flag}"),
        "0",
        "no bell yet"
    );
    let out = l.wta(&[
        "fix",
        "-t",
        &shell,
        "--hint",
        "propose-run echo fixed-4\"\"2",
    ]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("asked the agent pane {agent}")) && said.contains("is hidden"),
        "{said}"
    );

    // The card waits in the hidden pane; the user's status line says so
    // and their terminal got the bell.
    wait_until("the tab's indicator", T, || {
        card_option(&l, &window) == "proposal"
    })
    .unwrap();
    let mark = squeezed("wta: proposal waits · prefix a");
    wait_until("the mark in the user's status line", T, || {
        squeezed(&viewer.capture(&client)).contains(&mark)
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", viewer.capture(&client)));
    wait_until("the bell in the user's terminal", T, || {
        viewer.display(&client, "#{window_bell_flag}") == "1"
    })
    .unwrap();
    assert!(!l.tmux.capture(&shell).contains("fixed-42"), "unconfirmed");

    // prefix a: shown; the mark goes without a key reaching the pane.
    let shown = l.pane(&["toggle", "-t", &shell]);
    assert_eq!(shown["action"], "restored", "{shown}");
    wait_until("the indicator to go", T, || {
        card_option(&l, &window).is_empty()
    })
    .unwrap();
    wait_until("the mark to leave the status line", T, || {
        !squeezed(&viewer.capture(&client)).contains(&mark)
    })
    .unwrap();
    l.wait_card(&agent, &Card::proposal("Run"));
    l.tmux.tmux(&["send-keys", "-t", &agent, "Enter"]);
    l.tmux.wait_for_text(&shell, "fixed-42", T);

    drop(viewer);
    let _ = master.kill();
    let _ = master.wait();
}

#[test]
fn wta_fix_exits_1_when_the_pane_has_nothing_to_fix_or_does_not_answer() {
    let mut l = Launch::new();
    let (_, shell, agent) = l.up_ready("custom:test");
    let out = l.wta(&["fix", "-t", &shell]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains(&format!(
            "the agent pane {agent} has seen no failed command to fix in {shell}"
        )),
        "{out:?}"
    );

    // A pane the tab names as its agent pane whose program does not answer
    // (stuck, or a helper from before answers existed): the deadline ends it.
    // (A stopped helper cannot stand in: tmux resumes a pane's stopped
    // process at once.)
    let mute = l
        .tmux
        .tmux(&[
            "split-window",
            "-d",
            "-t",
            &shell,
            "-P",
            "-F",
            "#{pane_id}",
            "cat",
        ])
        .trim()
        .to_owned();
    let window = l.tmux.display(&shell, "#{window_id}");
    l.tmux
        .tmux(&["set-option", "-w", "-t", &window, "@wta_agent_pane", &mute]);
    let started = Instant::now();
    let out = l.wta(&["fix", "-t", &shell]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains(&format!("the agent pane {mute} did not answer within 5 s")),
        "{out:?}"
    );
    assert!(took >= FIX_ANSWER_WITHIN, "the deadline ended it: {took:?}");
    assert!(took < NO_HANG, "{took:?}");
    // The request was taken back: nothing acts on it later.
    let left = l
        .tmux
        .try_tmux(&["show-options", "-p", "-v", "-t", &mute, "@wta_fix_request"])
        .unwrap_or_default();
    assert!(left.trim().is_empty(), "{left:?}");
    l.tmux
        .tmux(&["set-option", "-w", "-t", &window, "@wta_agent_pane", &agent]);
    // The real agent pane answers again.
    let out = l.wta(&["fix", "-t", &shell]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains("has seen no failed command"),
        "{out:?}"
    );
}
