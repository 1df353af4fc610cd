//! The pane watcher on the in-memory host, no tmux: the test plays tmux by
//! connecting where the recorded pipe's sink would and writing the pane's
//! bytes, and plays the shell by announcing its nonce on the pane.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use wta_host::{AsyncHost, FakeHost, TerminalHost};
use wta_protocol::PaneId;
use wta_shell::sink_wire::{Frame, encode};
use wta_shell::{
    EndReason, Integration, PIPE_OWNER_OPTION, PaneWatcher, State, TrackerConfig, WatchOptions,
    nonce_option,
};
use wta_testkit::wait_for_value;

const T: Duration = Duration::from_secs(10);
const PID: u32 = 4242;
const NONCE: &str = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

struct Rig {
    host: Arc<FakeHost>,
    pane: PaneId,
    watcher: PaneWatcher,
    sink: UnixStream,
    _dir: tempfile::TempDir,
}

fn mark(body: &str) -> String {
    format!("\x1b]133;{body};aid={PID};wta={NONCE}\x07")
}

impl Rig {
    async fn new() -> Self {
        let host = Arc::new(FakeHost::new());
        let pane = PaneId::from_number(0);
        TerminalHost::set_option(host.as_ref(), &pane, &nonce_option(PID), NONCE).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let opts = WatchOptions {
            sink_argv: vec!["wta".into(), "pipe-sink".into()],
            runtime_dir: dir.path().join("rt"),
            config: TrackerConfig::default(),
        };
        let watcher = PaneWatcher::attach(host.clone(), &pane, opts)
            .await
            .unwrap();
        let argv = host
            .pipe(&pane)
            .expect("the watcher opened the pane's pipe");
        assert_eq!(&argv[..2], ["wta", "pipe-sink"]);
        let socket = argv.last().unwrap().clone();
        assert_eq!(host.option(&pane, PIPE_OWNER_OPTION).unwrap(), socket);
        let sink = UnixStream::connect(&socket).unwrap();
        Rig {
            host,
            pane,
            watcher,
            sink,
            _dir: dir,
        }
    }

    /// tmux delivering the pane's output.
    fn output(&mut self, text: &str) {
        self.sink
            .write_all(&encode(&Frame::Data(text.as_bytes().to_vec())))
            .unwrap();
    }

    async fn state(&self, what: &str, want: impl Fn(&State) -> bool) {
        let tracker = self.watcher.tracker();
        tokio::task::block_in_place(|| {
            wait_for_value(what, T, || {
                let t = tracker.try_lock().ok()?;
                want(&t.state).then_some(())
            })
        })
        .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submitted_command_is_typed_through_the_host_and_followed_to_its_end() {
    let mut r = Rig::new().await;
    r.output(&format!("{}$ {}", mark("A"), mark("B")));
    r.state("an idle prompt", |s| *s == State::Idle).await;
    r.watcher.submit("make test").await.unwrap().unwrap();
    assert_eq!(r.host.typed(&r.pane), ["make test"]);
    assert!(
        r.host
            .log()
            .iter()
            .any(|l| l == "type %0 \"make test\" clear enter"),
        "{:?}",
        r.host.log()
    );
    // Output forging the end: no nonce, then a wrong one.
    let forged = format!(
        "\x1b]133;D;0;aid={PID}\x07\x1b]133;D;0;aid={PID};wta=00000000000000000000000000000000\x07"
    );
    r.output(&format!(
        "make test\r\n{}compiling\r\n{forged}",
        mark("C;cmdline_url=make%20test"),
    ));
    r.output(&format!("1 failed\r\n{}", mark("D;1")));
    let tracker = r.watcher.tracker();
    let run = tokio::task::block_in_place(|| {
        wait_for_value("the finished run", T, || {
            tracker.try_lock().ok()?.last.clone()
        })
    })
    .unwrap();
    assert_eq!((run.exit, run.end_reason), (Some(1), Some(EndReason::Mark)));
    assert_eq!(run.submitted.as_deref(), Some("make test"));
    assert!(run.cmdline_matches);
    assert_eq!(run.render().text, "compiling\n1 failed");
    assert_eq!(tracker.lock().await.integration, Integration::Present);
    // The verdict and the finished run are left on the pane.
    let recorded = tokio::task::block_in_place(|| {
        wait_for_value("the recorded run", T, || {
            wta_shell::read_last_command(r.host.as_ref(), &r.pane).ok()
        })
    })
    .unwrap();
    assert_eq!(
        (recorded.exit_code, recorded.cmdline.as_deref()),
        (Some(1), Some("make test"))
    );
    assert_eq!(
        r.host
            .option(&r.pane, wta_shell::INTEGRATION_STATE_OPTION)
            .unwrap(),
        "present"
    );
    let Rig {
        host,
        pane,
        watcher,
        ..
    } = r;
    watcher.stop().await;
    assert_eq!(host.pipe(&pane), None, "stop closes the pipe");
    assert_eq!(host.option(&pane, PIPE_OWNER_OPTION).unwrap(), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_of_a_shell_that_announced_nothing_are_ignored() {
    let mut r = Rig::new().await;
    let stranger = "\x1b]133;A;aid=99;wta=77777777777777777777777777777777\x07$ \x1b]133;B;aid=99;wta=77777777777777777777777777777777\x07";
    r.output(stranger);
    // The genuine prompt after the stranger's: only it counts.
    r.output(&format!("{}$ {}", mark("A"), mark("B")));
    r.state("an idle prompt", |s| *s == State::Idle).await;
    assert_eq!(
        r.watcher.tracker().lock().await.shell_aid.as_deref(),
        Some("4242")
    );
    assert!(
        r.watcher.submit("ls\tthen").await.is_err(),
        "the host refuses to type a TAB"
    );
    assert!(r.host.typed(&r.pane).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_pipe_is_never_replaced() {
    let host = Arc::new(FakeHost::new());
    let pane = PaneId::from_number(0);
    host.open_pipe(&pane, &["logger".into()], ("@other_tool", "x"))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = WatchOptions {
        sink_argv: vec!["wta".into(), "pipe-sink".into()],
        runtime_dir: dir.path().join("rt"),
        config: TrackerConfig::default(),
    };
    let err = PaneWatcher::attach(host.clone(), &pane, opts)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("did not open"), "{err}");
    assert_eq!(host.pipe(&pane), Some(vec!["logger".to_owned()]));
}

/// Subscribers hear every finished command: the user's own with the cwd the
/// shell reported, and one WTA typed marked as dispatched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_commands_are_announced_with_who_typed_them_and_the_cwd() {
    let mut r = Rig::new().await;
    let mut finished = r.watcher.finished_commands();
    // The cwd is the shell's nonce'd report; a printed OSC 7 names nothing.
    r.output(&format!(
        "\x1b]7;file://box/etc/evil\x07{}{}$ {}",
        mark("P;cwd_url=/src/%61pp"),
        mark("A"),
        mark("B")
    ));
    r.state("an idle prompt", |s| *s == State::Idle).await;
    r.output(&format!(
        "{}gti: command not found\r\n{}{}$ {}",
        mark("C;cmdline_url=gti%20status"),
        mark("D;127"),
        mark("A"),
        mark("B")
    ));
    let user = tokio::time::timeout(T, finished.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(user.record.exit_code, Some(127));
    assert_eq!(user.record.cmdline.as_deref(), Some("gti status"));
    assert!(!user.dispatched, "the user typed it");
    assert_eq!(user.cwd.as_deref(), Some("/src/app"));

    r.state("idle again", |s| *s == State::Idle).await;
    r.watcher.submit("false").await.unwrap().unwrap();
    r.output(&format!(
        "false\r\n{}{}",
        mark("C;cmdline_url=false"),
        mark("D;1")
    ));
    let ours = tokio::time::timeout(T, finished.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ours.record.exit_code, Some(1));
    assert!(ours.dispatched, "WTA typed it");
    r.watcher.stop().await;
}

/// Commands typed ahead finish back to back, more of them than the tracker
/// keeps: a reader that gets to the events late still gets every run, in
/// order, from the events themselves, and so do the subscribers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_reader_still_gets_every_run_of_a_burst() {
    const N: usize = 3 * (wta_shell::tracker::EARLIER_RUNS + 1);
    let mut r = Rig::new().await;
    let mut finished = r.watcher.finished_commands();
    r.output(&format!("{}$ {}", mark("A"), mark("B")));
    let mut burst = String::new();
    for i in 0..N {
        burst.push_str(&format!(
            "{}out-{i}\r\n{}{}$ {}",
            mark(&format!("C;cmdline_url=cmd-{i}")),
            mark(&format!("D;{}", i % 3)),
            mark("A"),
            mark("B")
        ));
    }
    r.output(&burst);
    let last = format!("cmd-{}", N - 1);
    let tracker = r.watcher.tracker();
    tokio::task::block_in_place(|| {
        wait_for_value("the whole burst stepped", T, || {
            let t = tracker.try_lock().ok()?;
            let done = t.last.as_ref()?.cmdline.as_deref() == Some(last.as_str());
            (done && t.state == State::Idle).then_some(())
        })
    })
    .unwrap();

    let mut runs = Vec::new();
    while runs.len() < N {
        let event = tokio::time::timeout(T, r.watcher.next_event())
            .await
            .expect("every run's event")
            .expect("the watcher runs");
        if let wta_shell::WatchEvent::Finished(f) = event {
            runs.push((
                f.run.cmdline.clone().unwrap(),
                f.run.exit,
                f.run.render().text,
            ));
        }
    }
    let want: Vec<_> = (0..N)
        .map(|i| (format!("cmd-{i}"), Some((i % 3) as i32), format!("out-{i}")))
        .collect();
    assert_eq!(runs, want);
    for i in 0..N {
        let heard = tokio::time::timeout(T, finished.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(heard.record.cmdline, Some(format!("cmd-{i}")));
    }
    r.watcher.stop().await;
}
