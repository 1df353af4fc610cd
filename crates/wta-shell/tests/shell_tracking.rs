//! End-to-end command tracking on private tmux servers with real bash, zsh and fish.
//!
//! Each test starts its own server, opens a gated pane running the shell with
//! the WTA integration script, attaches a [`PaneWatcher`] (the sink is the
//! `wta-shell-test-sink` helper program), then submits commands and checks
//! the tracker's run records.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers panic on setup failure

use std::path::PathBuf;
use std::time::Duration;

use wta_shell::{EndReason, Integration, Shell, State, SubmitRefusal, TrackerConfig};
use wta_testkit::{TmuxServer, holds_for, wait_for_value};

#[macro_use]
mod common;
use common::*;

/// The nonce the gap sink's shell (pid 7) announces.
const GAP_NONCE: &str = "00112233445566778899aabbccddeeff";

async fn exit_zero(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let run = p.run("echo hello; echo world").await;
    assert_eq!((run.exit, run.end_reason), (Some(0), Some(EndReason::Mark)));
    assert_eq!(run.render().text, "hello\nworld");
    assert!(run.cmdline_matches, "{:?}", run.cmdline);
}

async fn exit_two(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let run = p.run("ls /nope").await;
    assert_eq!(run.exit, Some(2));
    assert_eq!(
        run.render().text,
        "ls: cannot access '/nope': No such file or directory"
    );
}

/// Command output that prints an end mark with the shell's own pid (with no
/// nonce, and with a guessed one), then keeps going: the run ends only at
/// the shell's real `D`, exit 1, with the output printed after the forgeries.
async fn forged_end_mark_is_ignored(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let pid = if sh == Shell::Fish { "$fish_pid" } else { "$$" };
    let forge = format!(
        "printf '\\033]133;D;0;aid=%s\\007' {pid}; \
         printf '\\033]133;D;0;aid=%s;wta=0123456789abcdef0123456789abcdef\\007' {pid}; \
         printf '\\033]133;A;aid=%s\\007' {pid}; echo still-running; false"
    );
    let run = p.run(&forge).await;
    assert_eq!((run.exit, run.end_reason), (Some(1), Some(EndReason::Mark)));
    assert_eq!(run.render().text, "still-running");
}

async fn pipeline(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let run = p.run("printf 'a\\nb\\nc\\n' | grep -c .").await;
    assert_eq!((run.exit, run.render().text.as_str()), (Some(0), "3"));
}

async fn many_lines_bounded(sh: Shell) {
    let small = TrackerConfig {
        head_cap: 200,
        tail_cap: 200,
        ..cfg()
    };
    let p = open(sh, small, true).await;
    let run = p.run("seq 1 200").await;
    assert_eq!(run.exit, Some(0));
    assert!(run.output.truncated());
    assert!(run.output.held() <= 400);
    let expected: usize = (1..=200).map(|i: usize| i.to_string().len() + 2).sum();
    // fish adds a title OSC and mode switches between C and D.
    assert!(
        (expected as u64..expected as u64 + 200).contains(&run.output.total()),
        "{}",
        run.output.total()
    );
    let r = run.render();
    assert!(r.truncated);
    assert!(r.text.starts_with("1\n2\n3\n"), "{}", r.text);
    assert!(r.text.ends_with("199\n200"), "{}", r.text);
}

async fn progress_rendered(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let run = p
        .run("printf 'progress 10%%\\rprogress 100%%\\nab\\bX\\n'")
        .await;
    assert_eq!(run.render().text, "progress 100%\naX");
}

async fn ctrl_c_is_130(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let after = p.last_id().await;
    p.start("sleep 100").await;
    p.wait_foreground("sleep");
    p.keys("C-c");
    let run = p.wait_run(after).await;
    assert_eq!(run.exit, Some(130));
}

async fn long_sleep_still_running(sh: Shell) {
    let config = cfg();
    let p = open(sh, config, true).await;
    p.start("sleep 30").await;
    p.wait_foreground("sleep");
    // Seen running, with `sleep` in the foreground: the submit timer (set
    // at Enter, before this) is the one thing that could end a run that
    // prints nothing. From here, for twice its timeout, the run stays
    // current and unended (a timer later than that makes this pass
    // without testing; it cannot make it fail).
    let window = Duration::from_millis(config.submit_timeout_ms * 2);
    let tracker = p.watcher.tracker();
    tokio::task::block_in_place(|| {
        holds_for("the run to stay running", window, || {
            // A tracker busy right now is looked at on the next poll.
            tracker.try_lock().map_or(true, |t| {
                t.state == State::Running
                    && t.last.is_none()
                    && t.current
                        .as_ref()
                        .is_some_and(|c| (c.exit, c.end_reason) == (None, None))
            })
        })
    })
    .unwrap_or_else(|e| panic!("{e}; screen:\n{}", p.server.capture(&p.pane)));
}

async fn alt_screen_flagged(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let after = p.last_id().await;
    p.start("less /etc/os-release").await;
    let tracker = p.watcher.tracker();
    tokio::task::block_in_place(|| {
        wta_testkit::wait_until("alt screen", T, || {
            tracker.try_lock().is_ok_and(|t| t.alt_screen)
        })
    })
    .unwrap();
    p.keys("q");
    let run = p.wait_run(after).await;
    assert!(run.alt_screen);
    assert_eq!(run.exit, Some(0));
}

async fn nested_shell(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let after = p.last_id().await;
    let argv = shell_argv(sh, p.dir.path(), true);
    let quoted: Vec<String> = argv.iter().map(|a| wta_shell::sh_quote(a)).collect();
    p.start(&quoted.join(" ")).await;
    // The inner shell's prompt marks must not end the outer run.
    p.server.wait_for_text(&p.pane, "", T);
    tokio::task::block_in_place(|| {
        wta_testkit::wait_until("inner prompt", T, || {
            let screen = p.server.capture(&p.pane);
            screen.lines().count() >= 2
        })
    })
    .unwrap();
    p.server.type_line(&p.pane, "echo inner-out");
    p.server.wait_for_text(&p.pane, "inner-out\n", T);
    p.server.type_line(&p.pane, "exit 5");
    let run = p.wait_run(after).await;
    assert_eq!(run.exit, Some(5), "{:?}", run.render());
    assert!(
        run.render().text.contains("inner-out"),
        "{}",
        run.render().text
    );
    assert_eq!(run.end_reason, Some(EndReason::Mark));
}

/// The cwd comes from the shell's nonce'd `P` mark (a path with spaces and
/// non-ASCII letters survives its percent-encoding); an OSC 7 printed by a
/// command afterwards changes nothing.
async fn cwd_from_the_shells_own_mark(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let target: PathBuf = p.dir.path().join("dir with spaces").join("ünï☃");
    std::fs::create_dir_all(&target).unwrap();
    p.run(&format!(
        "cd {}",
        wta_shell::sh_quote(&target.to_string_lossy())
    ))
    .await;
    let tracker = p.watcher.tracker();
    let want = target.to_string_lossy().into_owned();
    tokio::task::block_in_place(|| {
        wta_testkit::wait_until("cwd from the shell's mark", T, || {
            tracker
                .try_lock()
                .is_ok_and(|t| t.cwd.as_ref().is_some_and(|c| c.path == want))
        })
    })
    .unwrap();
    let run = p
        .run(r"printf '\033]7;file://vm/etc/evil-dir\033\\'; echo forged-osc7")
        .await;
    assert!(run.render().text.contains("forged-osc7"));
    let cwd = tracker.lock().await.cwd.clone().map(|c| c.path);
    assert_eq!(cwd.as_deref(), Some(want.as_str()), "output cannot move it");
}

async fn absent_without_integration(sh: Shell) {
    let p = open(sh, cfg(), false).await;
    let state = p.wait_state("absent", |s| *s == State::Absent).await;
    assert_eq!(state, State::Absent);
    assert_eq!(
        p.watcher.tracker().lock().await.integration,
        Integration::Absent
    );
    assert_eq!(
        p.watcher.submit("echo hi").await.unwrap(),
        Err(SubmitRefusal::IntegrationAbsent)
    );
}

async fn other_pane_never_attached(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let other = p
        .server
        .tmux(&[
            "split-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-t",
            &p.pane,
            "bash --norc --noprofile",
        ])
        .trim()
        .to_owned();
    p.server.type_line(
        &other,
        "echo other-pane-secret; sleep 0.2; echo other-pane-done",
    );
    p.server.wait_for_text(&other, "other-pane-done\n", T);
    let run = p.run("echo mine").await;
    assert_eq!(run.render().text, "mine");
    assert_eq!(run.id.0, 1, "only our command made a run");
}

async fn typeahead_never_sent(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let after = p.last_id().await;
    p.start("sleep 100").await;
    assert_eq!(
        p.watcher.submit("echo typed-ahead").await.unwrap(),
        Err(SubmitRefusal::Busy)
    );
    p.wait_foreground("sleep");
    p.keys("C-c");
    let run = p.wait_run(after).await;
    assert_eq!(run.exit, Some(130));
    assert!(!run.render().text.contains("typed-ahead"));
    let next = p.run("echo after").await;
    assert_eq!(next.render().text, "after");
    assert!(!p.server.capture(&p.pane).contains("typed-ahead"));
}

/// A pane opened with the gate left in `@wta_gate` (as `wta up` does for the
/// helper): attaching the watcher alone releases it, and the first prompt's
/// marks are seen with no key pressed.
async fn gate_named_on_the_pane_is_released_by_attach(sh: Shell) {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let argv = shell_argv(sh, dir.path(), true);
    let gate = wta_shell::new_gate_name();
    let mut cmd = vec!["new-window", "-d", "-P", "-F", "#{pane_id}", "--"];
    let gated = wta_shell::gated_argv(&gate, &argv);
    cmd.extend(gated.iter().map(String::as_str));
    let pane = server.tmux(&cmd).trim().to_owned();
    server.tmux(&["set", "-p", "-t", &pane, wta_shell::GATE_OPTION, &gate]);
    // Still gated: no shell has started (the gate's sh, or its `tmux wait-for`).
    let waiting = server.display(&pane, "#{pane_current_command}");
    assert!(["sh", "tmux"].contains(&waiting.as_str()), "{waiting}");
    let watcher = attach(&server, &pane, sink_argv(), dir.path().join("rt"), cfg())
        .await
        .unwrap();
    let p = Pane {
        server,
        watcher,
        pane,
        dir,
    };
    p.wait_state("first prompt", |s| *s == State::Idle).await;
    assert_eq!(
        p.watcher.tracker().lock().await.integration,
        Integration::Present
    );
    assert_eq!(
        p.server.display(&p.pane, "#{@wta_gate}"),
        "",
        "gate used up"
    );
    // The shell replaced the gate's sh: it is the pane's own process.
    let pid = p.server.display(&p.pane, "#{pane_pid}");
    assert_eq!(
        p.server.display(&p.pane, "#{@wta_integration}"),
        format!("{} {pid}", sh.name())
    );
}

per_shell!(
    exit_zero,
    exit_two,
    forged_end_mark_is_ignored,
    pipeline,
    many_lines_bounded,
    progress_rendered,
    ctrl_c_is_130,
    long_sleep_still_running,
    alt_screen_flagged,
    nested_shell,
    cwd_from_the_shells_own_mark,
    absent_without_integration,
    other_pane_never_attached,
    typeahead_never_sent,
    gate_named_on_the_pane_is_released_by_attach,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_pipe_is_refused_not_replaced() {
    let server = TmuxServer::start();
    let pane = server.first_pane().to_owned();
    server.tmux(&["pipe-pane", "-O", "-t", &pane, "exec cat > /dev/null"]);
    let dir = tempfile::tempdir().unwrap();
    let err = attach(&server, &pane, sink_argv(), dir.path().join("rt"), cfg())
        .await
        .unwrap_err();
    assert!(
        matches!(err, wta_shell::ShellError::ForeignPipe { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("refusing to replace"), "{err}");
    assert_eq!(server.display(&pane, "#{pane_pipe}"), "1");
}

/// A pane another WTA watcher follows is named as such (not as a foreign
/// tool whose pipe the user should close), and that watcher keeps it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_wta_watcher_is_refused_and_says_why() {
    let server = TmuxServer::start();
    let pane = server.first_pane().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let first = attach(&server, &pane, sink_argv(), dir.path().join("rt"), cfg())
        .await
        .unwrap();
    let err = attach(&server, &pane, sink_argv(), dir.path().join("rt2"), cfg())
        .await
        .unwrap_err();
    assert!(
        matches!(err, wta_shell::ShellError::FollowedByWta { .. }),
        "{err}"
    );
    assert!(!err.to_string().contains("tmux pipe-pane -t"), "{err}");
    assert_eq!(server.display(&pane, "#{pane_pipe}"), "1");
    first.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gap_reported_by_the_sink_flags_the_run_truncated() {
    let server = TmuxServer::start();
    let pane = server.first_pane().to_owned();
    server.tmux(&["set", "-p", "-t", &pane, "@wta_nonce_7", GAP_NONCE]);
    let dir = tempfile::tempdir().unwrap();
    let watcher = attach(
        &server,
        &pane,
        vec![SINK.to_owned(), "gap".to_owned(), GAP_NONCE.to_owned()],
        dir.path().join("rt"),
        cfg(),
    )
    .await
    .unwrap();
    let tracker = watcher.tracker();
    let run = tokio::task::block_in_place(|| {
        wait_for_value("the run across the gap", T, || {
            tracker.try_lock().ok()?.last.clone()
        })
    })
    .unwrap();
    assert_eq!((run.exit, run.end_reason), (Some(0), Some(EndReason::Mark)));
    assert_eq!(run.output.lost(), 123_456);
    let rendered = run.render();
    assert!(rendered.truncated, "{rendered:?}");
    assert_eq!(
        rendered.text,
        "first\n\n[… 123456 bytes of output lost here: WTA's pane reader fell behind …]\nlast"
    );
    watcher.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unverified_submit_to_a_plain_pane_makes_it_absent() {
    // A plain bash opened outside WTA: its prompt was drawn before anyone
    // watched, and it never prints a mark.
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let pane = server.new_window("env PS1='plain$ ' bash --norc --noprofile");
    server.wait_for_text(&pane, "plain$", T);
    let watcher = attach(&server, &pane, sink_argv(), dir.path().join("rt"), cfg())
        .await
        .unwrap();
    let tracker = watcher.tracker();
    assert_eq!(tracker.lock().await.state, State::Unknown);
    assert_eq!(
        watcher.submit("echo verified").await.unwrap(),
        Err(SubmitRefusal::NotAtPrompt),
        "the verified path refuses a pane it never saw at a prompt"
    );
    watcher
        .submit_unverified("echo blind-$((6*7))")
        .await
        .unwrap()
        .unwrap();
    server.wait_for_text(&pane, "blind-42", T);
    let state = tokio::task::block_in_place(|| {
        wait_for_value("absent after the quiet submit", T, || {
            let t = tracker.try_lock().ok()?;
            (t.state == State::Absent).then(|| t.integration)
        })
    })
    .unwrap();
    assert_eq!(state, Integration::Absent);
    tokio::task::block_in_place(|| {
        wta_testkit::wait_until("absent published on the pane", T, || {
            server.display(&pane, "#{@wta_integration_state}") == "absent"
        })
    })
    .unwrap();
    // The reader hears it too (the executor stops waiting for a run).
    let mut watcher = watcher;
    let why = tokio::time::timeout(T, async {
        loop {
            match watcher.next_event().await {
                Some(wta_shell::WatchEvent::Effect(wta_shell::Effect::SubmitNotStarted {
                    why,
                    ..
                })) => break Some(why),
                None => break None,
                Some(_) => {}
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(why, Some(wta_shell::NotStarted::IntegrationAbsent));
    watcher.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runtime_dir_that_is_not_private_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let server = TmuxServer::start();
    let pane = server.first_pane().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let rt = dir.path().join("rt");
    std::fs::create_dir(&rt).unwrap();
    std::fs::set_permissions(&rt, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = attach(&server, &pane, sink_argv(), rt.clone(), cfg())
        .await
        .unwrap_err();
    assert!(matches!(err, wta_shell::ShellError::UnsafeDir(_)), "{err}");
    assert!(err.to_string().contains("mode is 755"), "{err}");
    assert_eq!(server.display(&pane, "#{pane_pipe}"), "0");
    assert_eq!(std::fs::read_dir(&rt).unwrap().count(), 0, "no socket made");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pane_death_ends_the_run_with_its_status() {
    let mut p = open(Shell::Bash, cfg(), true).await;
    let after = p.last_id().await;
    p.watcher.submit("exit 4").await.unwrap().unwrap();
    let run = p.wait_run(after).await;
    assert_eq!(
        run.end_reason,
        Some(EndReason::PaneDied { status: Some(4) })
    );
    assert_eq!(
        p.wait_state("dead", |s| matches!(s, State::Dead { .. }))
            .await,
        State::Dead { status: Some(4) }
    );
    let mut saw_end = false;
    while let Some(ev) = p.watcher.next_event().await {
        if let wta_shell::WatchEvent::Ended { reason } = ev {
            assert!(reason.contains("died (status 4)"), "{reason}");
            saw_end = true;
        }
    }
    assert!(saw_end);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watcher_re_arms_after_its_sink_dies() {
    let p = open(Shell::Bash, cfg(), true).await;
    // Kill our sink: tmux closes the pipe; the watcher must re-attach.
    let pid = p.server.display(&p.pane, "#{pane_pipe}");
    assert_eq!(pid, "1");
    p.server.tmux(&["pipe-pane", "-t", &p.pane]);
    tokio::task::block_in_place(|| {
        wta_testkit::wait_until("pipe re-armed", T, || {
            p.server.display(&p.pane, "#{pane_pipe}") == "1"
        })
    })
    .unwrap();
    let run = p.run("echo still-tracked").await;
    assert_eq!(run.render().text, "still-tracked");
}
