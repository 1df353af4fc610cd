//! The card executor against real tmux and bash with WTA shell integration,
//! one private server per test: Run and Insert in the target pane, refusals,
//! the execution deadline and the dispatch binding (opening tabs, panels and
//! delegates: `executor_open`). The pipe-pane sink is the
//! `wta-helper-test-sink` helper program. Observed through execution
//! results and capture-pane.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers panic on setup failure

use std::time::Duration;

use wta_helper::config_file::SettingsTable as _;
use wta_helper::executor::{ActionOutcome, ExecutionSettings};
use wta_helper::proposals::ConfirmMode;
use wta_protocol::{Action, ExecutionStatus, OpenTarget};
use wta_shell::State;
use wta_testkit::wait_until;

mod common;
use common::rig::{T, rig};
use common::send;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_reports_exit_code_output_and_cwd() {
    let rig = rig(true, |_| {}).await;
    rig.server.tmux(&[
        "send-keys",
        "-t",
        rig.target.as_str(),
        "echo before-run",
        "Enter",
    ]);
    rig.server
        .wait_for_text(rig.target.as_str(), "before-run\n$", T);
    let results = rig
        .run(
            vec![send("ls /nonexistent-wta; echo tail-line")],
            ConfirmMode::Run,
        )
        .await;
    let line = rig.line(&results[0]);
    assert_eq!(line.status, ExecutionStatus::Completed, "{line:?}");
    assert_eq!(line.exit_code, Some(0));
    let output = line.output.unwrap();
    assert!(output.contains("No such file or directory"), "{output}");
    assert!(output.ends_with("tail-line"), "{output}");
    assert!(
        !output.contains("before-run"),
        "only this run's bytes: {output}"
    );
    assert_eq!(
        line.cwd.as_deref(),
        Some(&*rig.dir.path().to_string_lossy())
    );
    let failed = rig.run(vec![send("(exit 3)")], ConfirmMode::Run).await;
    let line = rig.line(&failed[0]);
    assert_eq!(
        (line.status, line.exit_code),
        (ExecutionStatus::Failed, Some(3))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_pane_refuses_and_insert_types_without_enter() {
    let rig = rig(true, |_| {}).await;
    rig.server
        .tmux(&["send-keys", "-t", rig.target.as_str(), "sleep 30", "Enter"]);
    rig.server.wait_for_text(rig.target.as_str(), "sleep 30", T);
    // The run starts a moment after Enter: wait until the watcher saw it.
    wait_until("the watcher sees sleep running", T, || {
        futures::executor::block_on(rig.exec.pane_state(&rig.target)) == Some(State::Running)
    })
    .unwrap();
    let refused = rig.run(vec![send("echo nope")], ConfirmMode::Run).await;
    assert!(
        matches!(&refused[0].outcome, ActionOutcome::Unavailable { reason } if reason.contains("still running")),
        "{refused:?}"
    );
    let inserted = rig.run(vec![send("echo nope")], ConfirmMode::Insert).await;
    assert!(
        matches!(&inserted[0].outcome, ActionOutcome::Unavailable { .. }),
        "{inserted:?}"
    );
    assert!(
        !rig.server
            .capture(rig.target.as_str())
            .contains("echo nope")
    );
    rig.server
        .tmux(&["send-keys", "-t", rig.target.as_str(), "C-c"]);
    rig.server.wait_for_text(rig.target.as_str(), "^C", T);
    wait_until("the watcher sees the prompt again", T, || {
        futures::executor::block_on(rig.exec.pane_state(&rig.target)) == Some(State::Idle)
    })
    .unwrap();
    let results = rig
        .run(vec![send("echo inserted-text")], ConfirmMode::Insert)
        .await;
    assert_eq!(rig.line(&results[0]).status, ExecutionStatus::Inserted);
    rig.server
        .wait_for_text(rig.target.as_str(), "$ echo inserted-text", T);
    assert!(
        !rig.server
            .capture(rig.target.as_str())
            .contains("\ninserted-text"),
        "Insert must not run the command"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_open_stops_the_choice_and_a_long_run_times_out_still_running() {
    let rig = rig(true, |c| c.run_timeout = Duration::from_millis(800)).await;
    let results = rig
        .run(
            vec![
                Action::Open {
                    target: OpenTarget::Panel,
                    cwd: Some("/nonexistent-wta-dir".into()),
                    title: None,
                    direction: None,
                },
                send("echo must-not-run"),
            ],
            ConfirmMode::Run,
        )
        .await;
    assert!(matches!(
        &results[0].outcome,
        ActionOutcome::Unavailable { .. }
    ));
    // The send never ran: `cancelled`, naming the action that stopped it.
    let second = rig.line(&results[1]);
    assert_eq!(second.status, ExecutionStatus::Cancelled, "{second:?}");
    assert!(
        second.reason.as_deref().is_some_and(
            |r| r.starts_with("not run because action 1 failed: cannot open a new panel")
        ),
        "{second:?}"
    );
    assert_eq!((&results[0].dispatch, &results[1].dispatch), (&None, &None));
    assert!(
        !rig.server
            .capture(rig.target.as_str())
            .contains("must-not-run")
    );
    let results = rig
        .run(vec![send("echo started; sleep 5")], ConfirmMode::Run)
        .await;
    let line = rig.line(&results[0]);
    assert_eq!(
        (line.status, line.still_running),
        (ExecutionStatus::TimedOut, Some(true)),
        "{line:?}"
    );
    assert_eq!(line.output.as_deref(), Some("started"));
    assert_eq!(
        rig.server
            .display(rig.target.as_str(), "#{pane_current_command}"),
        "sleep",
        "never killed"
    );
}

/// The lifecycle: a run is dispatched to the trusted target with an
/// execution id drawn then and bound to the tracker run it opened; the
/// execution line carries that id; each dispatch draws a new one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispatched_run_is_bound_to_its_pane_run_and_execution_id() {
    let rig = rig(true, |_| {}).await;
    let first = rig.run(vec![send("echo bound-1")], ConfirmMode::Run).await;
    let second = rig.run(vec![send("echo bound-2")], ConfirmMode::Run).await;
    let mut runs = Vec::new();
    for r in [&first[0], &second[0]] {
        let d = r.dispatch.as_ref().unwrap_or_else(|| panic!("{r:?}"));
        assert_eq!(d.pane, rig.target);
        assert_eq!(d.execution, r.execution);
        let line = r
            .execution_line(wta_protocol::ProposalId::from_bytes([9; 16]))
            .unwrap();
        assert_eq!(line.execution_id, d.execution);
        assert_eq!(line.status, ExecutionStatus::Completed);
        runs.push(d.run.expect("bound to the tracker run our Enter opened"));
    }
    assert_ne!(first[0].execution, second[0].execution);
    assert!(runs[0].0 < runs[1].0, "{runs:?}");
}

/// One deadline for the whole confirmed choice: the second command gets
/// only what the first left, and the third, which would run after a
/// command still running, is cancelled naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_execution_deadline_covers_the_whole_choice() {
    let limit = Duration::from_secs(4);
    // As configured in config.toml.
    let settings = ExecutionSettings::from_toml("[execution]\ntimeout_secs = 4\n").unwrap();
    let rig = rig(true, |c| *c = c.clone().with_settings(settings)).await;
    assert_eq!(settings.timeout, limit);
    let started = std::time::Instant::now();
    let results = rig
        .run(
            vec![
                send("sleep 2.5; echo one"),
                send("echo two; sleep 30"),
                send("echo three-never"),
            ],
            ConfirmMode::Run,
        )
        .await;
    let elapsed = started.elapsed();
    let lines: Vec<_> = results.iter().map(|r| rig.line(r)).collect();
    assert_eq!(lines[0].status, ExecutionStatus::Completed, "{lines:?}");
    assert_eq!(
        (lines[1].status, lines[1].still_running),
        (ExecutionStatus::TimedOut, Some(true)),
        "{lines:?}"
    );
    assert_eq!(lines[1].output.as_deref(), Some("two"));
    // One deadline: what the first two commands were followed for adds up
    // to the limit, where per-send timeouts would give the second the full
    // 4 s as well (6.5 s in all). The slack, under the first command's
    // 2.5 s, is for a loaded machine noticing the deadline late: these are
    // the executor's own durations, not a performance claim.
    let first_ms = lines[0].duration_ms.unwrap();
    let second_ms = lines[1].duration_ms.unwrap();
    let limit_ms = limit.as_millis() as u64;
    assert!(
        first_ms + second_ms < limit_ms + 2000,
        "followed {first_ms} + {second_ms} ms with a {limit:?} limit: {lines:?}"
    );
    // Only catches a choice never cut at all (`sleep 30` running out);
    // loose so that no load breaks it.
    assert!(
        elapsed < Duration::from_secs(25),
        "the choice took {elapsed:?} with a {limit:?} limit"
    );
    assert!(
        lines[1]
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("execution time limit (4 s)")),
        "{lines:?}"
    );
    assert_eq!(lines[2].status, ExecutionStatus::Cancelled, "{lines:?}");
    assert!(
        lines[2]
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("not run because action 2 is still running in")),
        "{lines:?}"
    );
    assert_eq!(results[2].dispatch, None);
    assert_eq!(
        rig.server
            .display(rig.target.as_str(), "#{pane_current_command}"),
        "sleep",
        "never killed"
    );
    assert!(
        !rig.server
            .capture(rig.target.as_str())
            .contains("three-never")
    );
}

/// A pane showing a full-screen program refuses Run and Insert with a
/// visible reason; nothing is typed (the program would echo it); the rest
/// of the choice is cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_screen_pane_refuses_and_nothing_is_typed() {
    let rig = rig(true, |_| {}).await;
    let pane = rig.target.as_str();
    // An alternate-screen program that echoes whatever reaches it.
    rig.server.type_line(pane, "printf '\\033[?1049h'; cat");
    wait_until("the alternate screen", T, || {
        rig.server
            .display(pane, "#{alternate_on} #{pane_current_command}")
            == "1 cat"
    })
    .unwrap_or_else(|e| panic!("{e}: {}", rig.server.capture(pane)));
    let results = rig
        .run(
            vec![send("echo nope-run"), send("echo nope-second")],
            ConfirmMode::Run,
        )
        .await;
    let ActionOutcome::Unavailable { reason } = &results[0].outcome else {
        panic!("{results:?}");
    };
    assert_eq!(
        reason,
        &format!("{pane} shows a full-screen program (cat); nothing was sent")
    );
    assert!(
        results[0]
            .outcome
            .display(1)
            .contains("full-screen program (cat)")
    );
    assert_eq!(results[0].dispatch, None);
    assert_eq!(rig.line(&results[1]).status, ExecutionStatus::Cancelled);
    let inserted = rig
        .run(vec![send("echo nope-insert")], ConfirmMode::Insert)
        .await;
    assert!(
        matches!(&inserted[0].outcome, ActionOutcome::Unavailable { reason }
            if reason.ends_with("shows a full-screen program (cat); nothing was typed")),
        "{inserted:?}"
    );
    // Keys reach the pane in order: once our marker is echoed, anything
    // typed before it would be on the screen too.
    rig.server
        .tmux(&["send-keys", "-t", pane, "-l", "marker-typed-after"]);
    let screen = rig.server.wait_for_text(pane, "marker-typed-after", T);
    assert!(!screen.contains("nope"), "{screen}");
}
