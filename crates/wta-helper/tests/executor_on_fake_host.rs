//! The card executor on the in-memory host, no tmux: the test plays tmux (it
//! writes the pane's bytes where the recorded pipe's sink would connect) and
//! the shell (it announces its nonce and answers typed text with marks).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use wta_helper::executor::{ActionOutcome, Executor, ExecutorConfig, Launch};
use wta_helper::proposals::ConfirmMode;
use wta_host::{FakeHost, TerminalHost};
use wta_protocol::{ExecutionStatus, PaneId};
use wta_shell::sink_wire::{Frame, encode};
use wta_shell::{State, TrackerConfig, WatchOptions, nonce_option};
use wta_testkit::{wait_for_value, wait_until};

mod common;
use common::{choice, line, send};

const T: Duration = Duration::from_secs(10);
const NONCE: &str = "c0ffeec0ffeec0ffeec0ffeec0ffeec0";

struct Rig {
    host: Arc<FakeHost>,
    exec: Arc<Executor<FakeHost>>,
    target: PaneId,
    _dir: tempfile::TempDir,
}

/// A mark of the fake shell (pid 1000, the fake's first pane process).
fn mark(body: &str) -> String {
    format!("\x1b]133;{body};aid=1000;wta={NONCE}\x07")
}

fn write(sink: &mut UnixStream, text: &str) {
    sink.write_all(&encode(&Frame::Data(text.as_bytes().to_vec())))
        .unwrap();
}

/// The executor following the fake's first pane, its shell at a prompt.
async fn rig() -> (Rig, UnixStream) {
    let host = Arc::new(FakeHost::new());
    let target = PaneId::from_number(0);
    let pid = host.pane(&target).unwrap().pid;
    host.set_option(&target, &nonce_option(pid), NONCE).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let watch = WatchOptions {
        sink_argv: vec!["wta".into(), "pipe-sink".into()],
        runtime_dir: dir.path().join("rt"),
        config: TrackerConfig::default(),
    };
    let mut config = ExecutorConfig::new(watch, Launch::default());
    config.run_timeout = Duration::from_secs(10);
    let exec = Arc::new(Executor::new(host.clone(), config));
    exec.watch(&target).await.unwrap();
    let socket = host.pipe(&target).unwrap().last().unwrap().clone();
    let mut sink = UnixStream::connect(socket).unwrap();
    write(&mut sink, &format!("{}$ {}", mark("A"), mark("B")));
    let rig = Rig {
        host,
        exec,
        target,
        _dir: dir,
    };
    let (exec, pane) = (rig.exec.clone(), rig.target.clone());
    tokio::task::block_in_place(|| {
        wait_until("an idle prompt", T, || {
            futures::executor::block_on(exec.pane_state(&pane)) == Some(State::Idle)
        })
    })
    .unwrap();
    (rig, sink)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_types_through_the_host_and_reports_the_shells_exit() {
    let (r, mut sink) = rig().await;
    let (exec, target) = (r.exec.clone(), r.target.clone());
    let running = tokio::spawn(async move {
        exec.execute(
            &target,
            &choice(vec![send(r"find . -exec ls {} \;")]),
            ConfirmMode::Run,
            |_| {},
        )
        .await
    });
    // The shell: once the text is typed, it runs it.
    let host = r.host.clone();
    let pane = r.target.clone();
    tokio::task::block_in_place(|| {
        wait_for_value("the typed command", T, || host.typed(&pane).pop())
    })
    .map(|typed| assert_eq!(typed, r"find . -exec ls {} \;"))
    .unwrap();
    write(
        &mut sink,
        &format!(
            "{}./a: denied\r\n{}{}$ {}",
            mark("C;cmdline_url=find%20.%20-exec%20ls%20%7B%7D%20%5C%3B"),
            mark("D;1"),
            mark("A"),
            mark("B")
        ),
    );
    let results = running.await.unwrap();
    assert_eq!(results.len(), 1);
    let ActionOutcome::Finished(report) = &results[0].outcome else {
        panic!("{:?}", results[0].outcome)
    };
    assert_eq!(report.exit, Some(1));
    let line = line(&results[0]);
    assert_eq!(line.status, ExecutionStatus::Failed);
    assert_eq!(line.output.as_deref(), Some("./a: denied"));
    assert!(
        r.host
            .log()
            .iter()
            .any(|l| l == r#"type %0 "find . -exec ls {} \\;" clear enter"#),
        "{:?}",
        r.host.log()
    );
}

/// The confirmed command and the user's typed-ahead ones after it end in
/// one burst, more than the tracker keeps: the card still gets its own
/// run's exit and output, not a "record was replaced" or a timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_followed_by_a_burst_of_typed_ahead_ones_is_still_reported() {
    let (r, mut sink) = rig().await;
    let (exec, target) = (r.exec.clone(), r.target.clone());
    let running = tokio::spawn(async move {
        exec.execute(
            &target,
            &choice(vec![send("make")]),
            ConfirmMode::Run,
            |_| {},
        )
        .await
    });
    let (host, pane) = (r.host.clone(), r.target.clone());
    tokio::task::block_in_place(|| {
        wait_for_value("the typed command", T, || host.typed(&pane).pop())
    })
    .unwrap();
    let mut burst = format!(
        "{}built it\r\n{}{}$ {}",
        mark("C;cmdline_url=make"),
        mark("D;2"),
        mark("A"),
        mark("B")
    );
    for i in 0..2 * (wta_shell::tracker::EARLIER_RUNS + 1) {
        burst.push_str(&format!(
            "{}ahead {i}\r\n{}{}$ {}",
            mark(&format!("C;cmdline_url=echo%20ahead%20{i}")),
            mark("D;0"),
            mark("A"),
            mark("B")
        ));
    }
    write(&mut sink, &burst);
    let results = tokio::time::timeout(T, running).await.unwrap().unwrap();
    let ActionOutcome::Finished(report) = &results[0].outcome else {
        panic!("{:?}", results[0].outcome)
    };
    assert_eq!(report.exit, Some(2));
    assert_eq!(line(&results[0]).output.as_deref(), Some("built it"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_types_without_enter_and_nothing_runs() {
    let (r, _sink) = rig().await;
    let results = r
        .exec
        .execute(
            &r.target,
            &choice(vec![send("git push"), send("echo second")]),
            ConfirmMode::Insert,
            |_| {},
        )
        .await;
    assert!(matches!(results[0].outcome, ActionOutcome::Inserted { .. }));
    assert!(matches!(
        results[1].outcome,
        ActionOutcome::Cancelled { .. }
    ));
    assert_eq!(r.host.typed(&r.target), ["git push"]);
    assert!(
        r.host
            .log()
            .iter()
            .any(|l| l == r#"type %0 "git push" clear"#),
        "{:?}",
        r.host.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_the_card_could_not_show_is_never_typed() {
    let (r, _sink) = rig().await;
    let results = r
        .exec
        .execute(
            &r.target,
            &choice(vec![send("ls\tmore")]),
            ConfirmMode::Run,
            |_| {},
        )
        .await;
    let ActionOutcome::Unavailable { reason } = &results[0].outcome else {
        panic!("{:?}", results[0].outcome)
    };
    assert!(reason.contains("U+0009"), "{reason}");
    assert!(r.host.typed(&r.target).is_empty());
}
