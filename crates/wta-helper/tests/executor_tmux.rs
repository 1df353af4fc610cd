//! The card executor against real tmux and bash with WTA shell integration,
//! one private server per test. The pipe-pane sink is this test binary re-run
//! as `pipe_sink_entry`. Observed through execution results and capture-pane.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers panic on setup failure

use std::path::Path;
use std::time::Duration;

use wta_helper::executor::{
    ActionOutcome, ActionResult, DelegateLaunch, Executor, ExecutorConfig, Launch,
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
        c.delegate = Some(DelegateLaunch {
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
    assert!(
        matches!(&results[1].outcome, ActionOutcome::Unavailable { reason } if reason.contains("earlier action"))
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
