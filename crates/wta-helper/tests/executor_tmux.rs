//! The card executor against real tmux and bash with WTA shell integration,
//! one private server per test. The pipe-pane sink is the
//! `wta-helper-test-sink` helper program. Observed through execution results
//! and capture-pane.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers panic on setup failure

use std::path::Path;
use std::time::Duration;

use wta_helper::config_file::SettingsTable as _;
use wta_helper::executor::{
    ActionOutcome, ActionResult, DelegateLaunch, DelegateSource, ExecutionSettings, Executor,
    ExecutorConfig, Launch,
};
use wta_helper::proposals::ConfirmMode;
use wta_host::TmuxHost;
use wta_protocol::{Action, Direction, ExecutionStatus, OpenTarget, PaneId};
use wta_shell::{Shell, State, gated_command};
use wta_testkit::{TmuxServer, wait_until};

mod common;
use common::{choice, send};

const T: Duration = Duration::from_secs(15);
struct Rig {
    server: TmuxServer,
    dir: tempfile::TempDir,
    target: PaneId,
    exec: Executor<TmuxHost>,
}

/// bash with PS1 `$ ` and the integration script (or none).
fn bash(dir: &Path, integrate: bool) -> Launch {
    let script = if integrate { Shell::Bash.script() } else { "" };
    let home = dir.to_string_lossy().into_owned();
    let rc = dir.join(if integrate { "bashrc" } else { "bashrc-plain" });
    std::fs::write(&rc, format!("PS1='$ '\nHISTFILE={home}/.hist\n{script}")).unwrap();
    Launch {
        argv: vec![
            "env".into(),
            format!("HOME={home}"),
            "bash".into(),
            "--rcfile".into(),
            rc.to_string_lossy().into_owned(),
            "-i".into(),
        ],
        env: vec![],
    }
}

async fn rig(integrate_target: bool, tweak: impl FnOnce(&mut ExecutorConfig)) -> Rig {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let launch = bash(dir.path(), true);
    let target_launch = bash(dir.path(), integrate_target);
    let gate = format!("wta-test-go-{}", std::process::id());
    let argv: Vec<&str> = target_launch.argv.iter().map(String::as_str).collect();
    let target = server
        .tmux(&[
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-n",
            "target",
            "-c",
            &dir.path().to_string_lossy(),
            &gated_command(&gate, &argv),
        ])
        .trim()
        .to_owned();
    let target = PaneId::parse(&target).unwrap();
    let exec = common::executor(&server, launch, dir.path().join("rt"), tweak);
    exec.watch(&target).await.unwrap();
    server.tmux(&["wait-for", "-S", &gate]);
    wait_prompt(&server, target.as_str());
    Rig {
        server,
        dir,
        target,
        exec,
    }
}

/// Waits until the pane's screen ends at the `$ ` prompt.
fn wait_prompt(server: &TmuxServer, pane: &str) {
    wait_until("a prompt", T, || server.capture(pane).ends_with('$'))
        .unwrap_or_else(|e| panic!("{e}: {}", server.capture(pane)));
}

impl Rig {
    async fn run(&self, actions: Vec<Action>, mode: ConfirmMode) -> Vec<ActionResult> {
        let mut seen = Vec::new();
        let results = self
            .exec
            .execute(&self.target, &choice(actions), mode, |r| {
                seen.push(r.clone())
            })
            .await;
        assert_eq!(seen, results, "each result is reported as it is known");
        results
    }

    fn line(&self, r: &ActionResult) -> wta_protocol::ExecutionLine {
        common::line(r)
    }

    fn panes(&self) -> Vec<String> {
        self.server
            .tmux(&["list-panes", "-a", "-F", "#{pane_id} #{pane_current_path}"])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

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
async fn open_tab_and_panel_with_cwd_and_title() {
    let rig = rig(true, |_| {}).await;
    let sub = rig.dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let results = rig
        .run(
            vec![
                Action::Open {
                    target: OpenTarget::Tab,
                    cwd: Some(sub.to_string_lossy().into_owned()),
                    title: Some("logs".into()),
                    direction: None,
                },
                Action::Open {
                    target: OpenTarget::Panel,
                    cwd: Some(sub.to_string_lossy().into_owned()),
                    title: Some("side".into()),
                    direction: Some(Direction::Down),
                },
            ],
            ConfirmMode::Open,
        )
        .await;
    let pane = |i: usize| match &results[i].outcome {
        ActionOutcome::Opened { pane } => pane.clone(),
        other => panic!("{other:?}"),
    };
    let (tab, panel) = (pane(0), pane(1));
    assert_eq!(rig.server.display(&tab, "#{window_name}"), "logs");
    assert_eq!(
        rig.server.display(&panel, "#{window_id}"),
        rig.server.display(rig.target.as_str(), "#{window_id}"),
        "the panel splits the target's tab"
    );
    assert_eq!(rig.server.display(&panel, "#{pane_title}"), "side");
    assert_eq!(
        rig.server.display(&panel, "#{pane_top}"),
        rig.server
            .display(rig.target.as_str(), "#{pane_bottom}")
            .parse::<u32>()
            .map(|b| (b + 2).to_string())
            .unwrap(),
        "below the target"
    );
    for p in [&tab, &panel] {
        wait_prompt(&rig.server, p);
        assert!(
            rig.panes()
                .iter()
                .any(|l| l == &format!("{p} {}", sub.display()))
        );
    }
}

/// An innocent-looking "open" card whose title and directory hold tmux
/// format jobs: confirming it opens the tab and panel with exactly those
/// names, and nothing in them runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_titles_and_directories_are_literal_and_never_run() {
    let rig = rig(true, |_| {}).await;
    let sentinel = rig.dir.path().join("pwned");
    let job = format!("#(touch {})", sentinel.display());
    let title = format!("logs {job}#{{pane_id}};");
    let sub = rig.dir.path().join(format!("d {}", job.replace('/', "_")));
    std::fs::create_dir(&sub).unwrap();
    let open = |target, direction| Action::Open {
        target,
        cwd: Some(sub.to_string_lossy().into_owned()),
        title: Some(title.clone()),
        direction,
    };
    let results = rig
        .run(
            vec![
                open(OpenTarget::Tab, None),
                open(OpenTarget::Panel, Some(Direction::Right)),
            ],
            ConfirmMode::Open,
        )
        .await;
    let pane = |i: usize| match &results[i].outcome {
        ActionOutcome::Opened { pane } => pane.clone(),
        other => panic!("{other:?}"),
    };
    let (tab, panel) = (pane(0), pane(1));
    assert_eq!(rig.server.display(&tab, "#{window_name}"), title);
    assert_eq!(rig.server.display(&panel, "#{pane_title}"), title);
    for p in [&tab, &panel] {
        wait_prompt(&rig.server, p);
        assert_eq!(
            rig.server.display(p, "#{pane_current_path}"),
            sub.to_string_lossy()
        );
    }
    rig.server.tmux(&["run-shell", "true"]);
    assert!(!sentinel.exists(), "a tmux job from the card ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_and_send_waits_for_the_new_shell_then_runs() {
    let rig = rig(true, |_| {}).await;
    let results = rig
        .run(
            vec![Action::OpenAndSend {
                target: OpenTarget::Panel,
                input: "pwd; exit 4".into(),
                delegate: false,
                cwd: Some("/tmp".into()),
            }],
            ConfirmMode::Run,
        )
        .await;
    let line = rig.line(&results[0]);
    // `exit 4` closes the shell: the run ends with the pane, exit unknown,
    // or with its D mark first. Either way the output is this run's.
    assert!(
        line.output.as_deref().unwrap_or("").contains("/tmp"),
        "{line:?}"
    );
    let results = rig
        .run(
            vec![Action::OpenAndSend {
                target: OpenTarget::Tab,
                input: "echo from-new-tab".into(),
                delegate: false,
                cwd: None,
            }],
            ConfirmMode::Run,
        )
        .await;
    let line = rig.line(&results[0]);
    assert_eq!(
        line.status,
        ExecutionStatus::Completed,
        "{line:?} {}",
        rig.server.tmux(&["capture-pane", "-p", "-t", "%3"])
    );
    assert_eq!(line.output.as_deref(), Some("from-new-tab"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_integration_is_completion_unavailable_and_delegate_starts_the_agent() {
    let rig = rig(false, |c| {
        c.delegate = DelegateSource::Fixed(DelegateLaunch {
            agent: "echo-agent".into(),
            launch: Launch {
                argv: vec![
                    "sh".into(),
                    "-c".into(),
                    "echo \"task: $1\"; sleep 30".into(),
                    "agent".into(),
                ],
                env: vec![],
            },
            // `sh -c` takes no `--`: the task is `$1`.
            end_of_options: None,
        });
    })
    .await;
    let results = rig
        .run(vec![send("echo plain-shell")], ConfirmMode::Run)
        .await;
    assert_eq!(
        rig.line(&results[0]).status,
        ExecutionStatus::CompletionUnavailable,
        "{results:?}"
    );
    rig.server
        .wait_for_text(rig.target.as_str(), "\nplain-shell", T);
    let results = rig
        .run(
            vec![Action::OpenAndSend {
                target: OpenTarget::Tab,
                input: "fix the tests".into(),
                delegate: true,
                cwd: None,
            }],
            ConfirmMode::Run,
        )
        .await;
    let ActionOutcome::Delegated { pane, agent } = &results[0].outcome else {
        panic!("{results:?}");
    };
    assert_eq!(agent, "echo-agent");
    rig.server.wait_for_text(pane, "task: fix the tests", T);
}

/// The `[delegate]` table is read when a card launches one: added after the
/// pane started, it is used at once; broken, the launch says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_delegate_is_read_from_the_config_at_each_launch() {
    let config = tempfile::tempdir().unwrap();
    let file = config.path().join("config.toml");
    let paths = wta_agent::RegistryPaths {
        config_file: file.clone(),
        policy_file: config.path().join("policy.toml"),
        wta_exe: std::env::current_exe().unwrap(),
        // An empty directory: no delegate CLI is installed.
        path_var: Some(config.path().join("empty-bin").into_os_string()),
    };
    let rig = rig(true, |c| c.delegate = DelegateSource::Config(paths)).await;
    let delegate = || Action::OpenAndSend {
        target: OpenTarget::Tab,
        input: "review the diff".into(),
        delegate: true,
        cwd: None,
    };
    let results = rig.run(vec![delegate()], ConfirmMode::Run).await;
    let ActionOutcome::Unavailable { reason } = &results[0].outcome else {
        panic!("{results:?}");
    };
    assert!(
        reason.contains("no delegate agent is configured"),
        "{reason}"
    );
    std::fs::write(
        &file,
        // `sh -c` takes no `--`: the task is its `$1`.
        "[delegate]\nname = \"late\"\nargv = [\"sh\", \"-c\", \"echo \\\"late: $1\\\"; sleep 30\", \"agent\"]\nend_of_options = \"\"\n",
    )
    .unwrap();
    let results = rig.run(vec![delegate()], ConfirmMode::Run).await;
    let ActionOutcome::Delegated { pane, agent } = &results[0].outcome else {
        panic!("{results:?}");
    };
    assert_eq!(agent, "late");
    rig.server.wait_for_text(pane, "late: review the diff", T);
    std::fs::write(&file, "[delegate\n").unwrap();
    let results = rig.run(vec![delegate()], ConfirmMode::Run).await;
    let ActionOutcome::Unavailable { reason } = &results[0].outcome else {
        panic!("{results:?}");
    };
    assert!(
        reason.contains("cannot read the delegate agent"),
        "{reason}"
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

/// `open` starts its shell behind the same gate as `open_and_send`: the new
/// pane is followed from its first prompt, so its integration is known
/// (the watcher's verdict is on the pane) without any keypress.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_is_gated_and_followed_from_its_first_prompt() {
    let rig = rig(true, |_| {}).await;
    let results = rig
        .run(
            vec![
                Action::Open {
                    target: OpenTarget::Tab,
                    cwd: None,
                    title: None,
                    direction: None,
                },
                Action::Open {
                    target: OpenTarget::Panel,
                    cwd: None,
                    title: None,
                    direction: Some(Direction::Right),
                },
            ],
            ConfirmMode::Open,
        )
        .await;
    for r in &results {
        let ActionOutcome::Opened { pane } = &r.outcome else {
            panic!("{results:?}");
        };
        let id = PaneId::parse(pane).unwrap();
        assert_eq!(r.dispatch.as_ref().map(|d| &d.pane), Some(&id));
        assert_eq!(
            futures::executor::block_on(rig.exec.pane_state(&id)),
            Some(State::Idle),
            "followed and at its first prompt: {}",
            rig.server.capture(pane)
        );
        wait_until("the watcher's integration verdict", T, || {
            rig.server.display(pane, "#{@wta_integration_state}") == "present"
        })
        .unwrap_or_else(|e| panic!("{e}: {}", rig.server.capture(pane)));
        // The shell runs under the gate wrapper, not in place of it.
        assert_eq!(rig.server.display(pane, "#{pane_current_command}"), "bash");
    }
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
