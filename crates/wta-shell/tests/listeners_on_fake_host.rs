//! One watcher per pane, many listeners, on the in-memory host: the test
//! plays tmux (it connects where the recorded pipe's sink would and writes
//! the pane's bytes) and the shell (it announces its nonce on the pane).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use wta_host::{FakeHost, TerminalHost};
use wta_protocol::PaneId;
use wta_shell::fanout_wire::{Fate, NoteIntegration};
use wta_shell::sink_wire::{Frame, encode};
use wta_shell::{
    Following, Host, LISTENERS_OPTION, PIPE_OWNER_OPTION, PaneNote, PaneWatcher, ShellError,
    TrackerConfig, WatchOptions, follow, nonce_option,
};

const T: Duration = Duration::from_secs(10);
const PID: u32 = 4242;
const NONCE: &str = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

fn mark(body: &str) -> String {
    format!("\x1b]133;{body};aid={PID};wta={NONCE}\x07")
}

fn opts(dir: &std::path::Path, name: &str) -> WatchOptions {
    WatchOptions {
        sink_argv: vec!["wta".into(), "pipe-sink".into()],
        runtime_dir: dir.join(name),
        config: TrackerConfig::default(),
    }
}

/// tmux's side of the pane's current pipe: a connection to its sink socket.
fn sink_of(host: &FakeHost, pane: &PaneId) -> UnixStream {
    let argv = host.pipe(pane).expect("a pipe is open");
    UnixStream::connect(argv.last().unwrap()).unwrap()
}

fn output(sink: &mut UnixStream, text: &str) {
    sink.write_all(&encode(&Frame::Data(text.as_bytes().to_vec())))
        .unwrap();
}

/// `ls /nope` failing with exit 2, from its prompt to the next.
fn one_command() -> String {
    format!(
        "{}$ {}{}ls: cannot access '/nope'\r\n{}{}$ {}",
        mark("A"),
        mark("B"),
        mark("C;cmdline_url=ls%20%2Fnope"),
        mark("D;2"),
        mark("A"),
        mark("B"),
    )
}

/// The next note that is not a hello, within `T`.
async fn next_note(following: &mut Following) -> Option<PaneNote> {
    loop {
        let note = tokio::time::timeout(T, following.next())
            .await
            .expect("a note in time");
        if !matches!(note, Some(PaneNote::Hello(_))) {
            return note;
        }
    }
}

/// Started, then finished: the command line and its exit code as heard
/// (integration notes on the way are kept in `integration`).
async fn heard_command(
    following: &mut Following,
    integration: &mut Vec<NoteIntegration>,
) -> (Option<String>, Option<String>, Option<i32>) {
    let mut started = None;
    loop {
        match next_note(following).await {
            Some(PaneNote::Integration(n)) => integration.push(n.integration),
            Some(PaneNote::Started(s)) if started.is_none() => started = Some(s.cmdline),
            Some(PaneNote::Finished(f)) if started.is_some() => {
                return (started.flatten(), f.record.cmdline, f.record.exit_code);
            }
            other => panic!("out of order: {other:?}"),
        }
    }
}

fn rig() -> (Arc<FakeHost>, Host, PaneId, tempfile::TempDir) {
    let fake = Arc::new(FakeHost::new());
    let pane = PaneId::from_number(0);
    TerminalHost::set_option(fake.as_ref(), &pane, &nonce_option(PID), NONCE).unwrap();
    let host: Host = fake.clone();
    (fake, host, pane, tempfile::tempdir().unwrap())
}

/// The first reader owns the pipe, the second listens to it: both hear the
/// same command with its exit code, and the socket is private.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_readers_of_one_pane_hear_the_same_command() {
    let (fake, host, pane, dir) = rig();
    let mut owner = follow(host.clone(), &pane, opts(dir.path(), "a"))
        .await
        .unwrap();
    assert!(owner.is_owner());
    assert!(owner.hello().yields, "a listen's watcher yields the pipe");
    let socket = TerminalHost::option(fake.as_ref(), &pane, LISTENERS_OPTION).unwrap();
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{socket}");

    let mut listener = follow(host.clone(), &pane, opts(dir.path(), "b"))
        .await
        .unwrap();
    assert!(!listener.is_owner(), "one pipe, one owner");
    assert_eq!(listener.hello().pane, pane);
    assert_eq!(
        fake.log()
            .iter()
            .filter(|l| l.starts_with("open-pipe"))
            .count(),
        1
    );

    let mut sink = sink_of(&fake, &pane);
    output(&mut sink, &one_command());
    let want = (
        Some("ls /nope".to_owned()),
        Some("ls /nope".to_owned()),
        Some(2),
    );
    let (mut owner_saw, mut listener_saw) = (Vec::new(), Vec::new());
    assert_eq!(heard_command(&mut owner, &mut owner_saw).await, want);
    assert_eq!(heard_command(&mut listener, &mut listener_saw).await, want);
    // The integration is known from the marks, and said so to listeners.
    assert_eq!(listener_saw, [NoteIntegration::Present]);
    assert_eq!(owner_saw, listener_saw);

    // The owner stops: the listener's stream ends without an end note (the
    // pane lives on), and the pipe is free for it to take.
    owner.stop().await;
    let rest = loop {
        match tokio::time::timeout(T, listener.next()).await.unwrap() {
            Some(PaneNote::Integration(_)) => continue,
            other => break other,
        }
    };
    assert_eq!(rest, None);
    assert!(fake.pipe(&pane).is_none());
    let again = follow(host.clone(), &pane, opts(dir.path(), "b"))
        .await
        .unwrap();
    assert!(again.is_owner(), "the listener takes the pipe over");
    again.stop().await;
}

/// An agent pane's watcher takes the pipe over from a listen's: the listen's
/// watcher ends `taken_over`, and it then listens to the new owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_panes_watcher_takes_the_pipe_from_a_listen() {
    let (fake, host, pane, dir) = rig();
    let mut listen = follow(host.clone(), &pane, opts(dir.path(), "listen"))
        .await
        .unwrap();
    assert!(listen.is_owner());
    let old_sink = sink_of(&fake, &pane);

    let helper = PaneWatcher::attach(host.clone(), &pane, opts(dir.path(), "helper"))
        .await
        .unwrap();
    let owner = TerminalHost::option(fake.as_ref(), &pane, PIPE_OWNER_OPTION).unwrap();
    assert_eq!(
        owner,
        *fake.pipe(&pane).unwrap().last().unwrap(),
        "the helper's sink owns the pipe now"
    );
    // tmux closes the replaced pipe: its sink's stream ends.
    drop(old_sink);
    let ended = loop {
        match next_note(&mut listen).await {
            Some(PaneNote::Ended(e)) => break e,
            Some(_) => continue,
            None => panic!("no end note"),
        }
    };
    assert_eq!(ended.fate, Fate::TakenOver, "{}", ended.reason);
    listen.stop().await;
    assert!(
        fake.pipe(&pane).is_some(),
        "the listen left the helper's pipe alone"
    );

    let mut rejoined = follow(host.clone(), &pane, opts(dir.path(), "listen"))
        .await
        .unwrap();
    assert!(!rejoined.is_owner());
    assert!(!rejoined.hello().yields, "the helper keeps the pipe");
    let mut sink = sink_of(&fake, &pane);
    output(&mut sink, &one_command());
    let heard = heard_command(&mut rejoined, &mut Vec::new()).await;
    assert_eq!(heard.2, Some(2));

    // A second agent pane's watcher is refused: the helper does not yield.
    let err = PaneWatcher::attach(host.clone(), &pane, opts(dir.path(), "other"))
        .await
        .unwrap_err();
    assert!(matches!(err, ShellError::FollowedByWta { .. }), "{err}");
    helper.stop().await;
}

/// The pane's death reaches every listener as an end with its fate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_pane_ends_every_listener_with_its_status() {
    let (fake, host, pane, dir) = rig();
    let mut owner = follow(host.clone(), &pane, opts(dir.path(), "a"))
        .await
        .unwrap();
    let mut listener = follow(host.clone(), &pane, opts(dir.path(), "b"))
        .await
        .unwrap();
    let sink = sink_of(&fake, &pane);
    fake.exit_pane(&pane, 3);
    drop(sink);
    for following in [&mut owner, &mut listener] {
        let ended = loop {
            match next_note(following).await {
                Some(PaneNote::Ended(e)) => break e,
                Some(_) => continue,
                None => panic!("no end note"),
            }
        };
        assert_eq!(ended.fate, Fate::Died { status: Some(3) });
        assert_eq!(ended.reason, "pane %0 died (status 3)");
    }
}
