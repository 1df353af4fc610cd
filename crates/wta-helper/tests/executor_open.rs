//! The card executor opening tabs, panels and delegates against real tmux
//! and bash with WTA shell integration, one private server per test: cwd
//! and titles taken literally, open-and-send after the new shell's first
//! prompt, the gate, a shell without integration, the delegate agent read
//! from the config at each launch. The pipe-pane sink is the
//! `wta-helper-test-sink` helper program.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers panic on setup failure

use wta_helper::executor::{ActionOutcome, DelegateLaunch, DelegateSource, Launch};
use wta_helper::proposals::ConfirmMode;
use wta_protocol::{Action, Direction, ExecutionStatus, OpenTarget, PaneId};
use wta_shell::State;
use wta_testkit::wait_until;

mod common;
use common::rig::{T, rig, wait_prompt};
use common::send;

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
