//! Execution results on real tmux with bash, zsh and fish (one private
//! server per test, `HOME` in a temp dir): the confirmed command's exit
//! code and exactly its output; unrelated output excluded; no integration;
//! Insert; timeout without killing; interactive programs; Ctrl+C; the pane
//! closed mid-run; per-action results of a multi-action choice. Shells get
//! integration through `wta_shell::launch`, the same builder the runtime
//! gives the executor for the panes it opens.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers panic on setup failure

use std::path::Path;
use std::time::Duration;

use wta_helper::executor::{ActionOutcome, ActionResult, Executor, ExecutorConfig, Launch};
use wta_helper::proposals::ConfirmMode;
use wta_host::TmuxHost;
use wta_protocol::{
    Action, ExecutionId, ExecutionLine, ExecutionStatus, OpenTarget, PaneId, ProposalId,
};
use wta_shell::{ScriptSource, State, gated_command};
use wta_testkit::{TmuxServer, wait_until};

mod common;
use common::{choice, line, send};

const T: Duration = Duration::from_secs(15);
#[derive(Clone, Copy, Debug)]
enum Sh {
    Bash,
    Zsh,
    Fish,
}

impl Sh {
    fn program(self) -> &'static str {
        match self {
            Sh::Bash => "bash",
            Sh::Zsh => "zsh",
            Sh::Fish => "fish",
        }
    }

    /// A shell without any integration (and without user config).
    fn plain(self) -> Vec<String> {
        let argv: &[&str] = match self {
            Sh::Bash => &["bash", "--norc", "--noprofile", "-i"],
            Sh::Zsh => &["zsh", "-f", "-i"],
            Sh::Fish => &["fish", "--no-config", "-i"],
        };
        argv.iter().map(|s| (*s).to_owned()).collect()
    }
}

/// The user's config in the temp `HOME`: a `$ ` prompt, no greeting.
fn write_home(home: &Path) {
    std::fs::write(home.join(".bashrc"), "PS1='$ '\n").unwrap();
    std::fs::write(home.join(".zshrc"), "PROMPT='$ '\nunsetopt BEEP\n").unwrap();
    let fish = home.join(".config/fish");
    std::fs::create_dir_all(&fish).unwrap();
    std::fs::write(
        fish.join("config.fish"),
        "set -g fish_greeting ''\nfunction fish_prompt; printf '$ '; end\n",
    )
    .unwrap();
}

struct Rig {
    server: TmuxServer,
    _dir: tempfile::TempDir,
    target: PaneId,
    exec: Executor<TmuxHost>,
}

async fn rig(sh: Sh, integrate: bool, tweak: impl FnOnce(&mut ExecutorConfig)) -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    write_home(&home);
    let server = TmuxServer::start_with_env(
        "bash --norc --noprofile",
        &[
            ("HOME", home.as_os_str()),
            ("XDG_CONFIG_HOME", home.join(".config").as_os_str()),
            ("XDG_DATA_HOME", home.join(".local/share").as_os_str()),
        ],
    );
    let launch =
        wta_shell::integrated(sh.program(), ScriptSource::Embedded, &home.join("rc")).unwrap();
    let launch = Launch {
        argv: launch.argv,
        env: launch.env,
    };
    let (argv, env) = if integrate {
        (launch.argv.clone(), launch.env.clone())
    } else {
        (sh.plain(), Vec::new())
    };
    let gate = format!("wta-test-go-{}", std::process::id());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let mut args: Vec<String> = ["new-window", "-d", "-P", "-F", "#{pane_id}", "-n", "target"]
        .map(str::to_owned)
        .into();
    args.extend(["-c".into(), home.to_string_lossy().into_owned()]);
    for (k, v) in &env {
        args.extend(["-e".into(), format!("{k}={v}")]);
    }
    args.push(gated_command(&gate, &argv));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let target = PaneId::parse(server.tmux(&args).trim()).unwrap();
    let exec = common::executor(&server, launch, home.join("rt"), |config| {
        config.interactive_after = Duration::from_secs(1);
        tweak(config);
    });
    exec.watch(&target).await.unwrap();
    server.tmux(&["wait-for", "-S", &gate]);
    let rig = Rig {
        server,
        _dir: dir,
        target,
        exec,
    };
    // Integrated shells show `$ `; plain ones their default prompt.
    wait_until("a prompt", T, || {
        rig.screen().ends_with(['$', '#', '>', '%'])
    })
    .unwrap_or_else(|e| panic!("{e}: {}", rig.screen()));
    if integrate {
        rig.wait_state(State::Idle);
    }
    rig
}

impl Rig {
    fn screen(&self) -> String {
        self.server.capture(self.target.as_str())
    }

    fn wait_state(&self, want: State) {
        wait_until(&format!("tracker state {want:?}"), T, || {
            futures::executor::block_on(self.exec.pane_state(&self.target)).as_ref() == Some(&want)
        })
        .unwrap_or_else(|e| panic!("{e}: {}", self.screen()));
    }

    async fn run(&self, actions: Vec<Action>, mode: ConfirmMode) -> Vec<ActionResult> {
        self.exec
            .execute(&self.target, &choice(actions), mode, |_| {})
            .await
    }

    async fn run_one(&self, input: &str) -> ExecutionLine {
        line(&self.run(vec![send(input)], ConfirmMode::Run).await[0])
    }

    /// Starts a thread that waits for `needle` on the target's screen, then
    /// runs `then` against the server's socket.
    fn when_screen_shows(&self, needle: &'static str, then: Vec<&'static str>) {
        self.when_shown_and_running(needle, None, then);
    }

    /// Like [`Rig::when_screen_shows`], also waiting until `program` is the
    /// pane's foreground command: a Ctrl+C that lands between two commands of
    /// a list ends the list with the last status (fish: 0), not 130.
    fn when_shown_and_running(
        &self,
        needle: &'static str,
        program: Option<&'static str>,
        then: Vec<&'static str>,
    ) {
        let socket = self.server.socket().to_path_buf();
        let pane = self.target.as_str().to_owned();
        std::thread::spawn(move || {
            let tmux = |args: &[&str]| {
                wta_testkit::env::clean("tmux")
                    .arg("-S")
                    .arg(&socket)
                    .args(args)
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default()
            };
            let _ = wait_until("screen text", T, || {
                tmux(&["capture-pane", "-p", "-t", &pane]).contains(needle)
                    && program.is_none_or(|p| {
                        tmux(&["display", "-p", "-t", &pane, "#{pane_current_command}"]).trim() == p
                    })
            });
            let mut args = then.clone();
            for a in args.iter_mut() {
                if *a == "{pane}" {
                    *a = Box::leak(pane.clone().into_boxed_str());
                }
            }
            tmux(&args);
        });
    }
}

async fn exit_codes_and_exact_output(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    let l = rig.run_one("ls /nonexistent-wta").await;
    assert_eq!(
        (l.status, l.exit_code),
        (ExecutionStatus::Failed, Some(2)),
        "{l:?}"
    );
    assert_eq!(
        l.output.as_deref(),
        Some("ls: cannot access '/nonexistent-wta': No such file or directory")
    );
    assert_eq!((l.truncated, l.reason.as_deref()), (Some(false), None));
    assert_eq!(l.interrupted, None);
    let ok = rig.run_one("echo all good").await;
    assert_eq!(
        (ok.status, ok.exit_code, ok.output.as_deref()),
        (ExecutionStatus::Completed, Some(0), Some("all good"))
    );
    assert!(ok.duration_ms.is_some());
}

/// A multi-line `send` (pasted as one buffer) is one run: every line's
/// output, the last line's exit status, no "different command" note.
async fn a_multi_line_send_is_one_command(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    let l = rig.run_one("echo line-one\necho line-two; false").await;
    assert_eq!(
        (
            l.status,
            l.exit_code,
            l.output.as_deref(),
            l.reason.as_deref()
        ),
        (
            ExecutionStatus::Failed,
            Some(1),
            Some("line-one\nline-two"),
            None
        ),
        "{l:?}"
    );
}

async fn unrelated_output_is_excluded(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    // Another pane printing continuously during the run.
    rig.server.tmux(&[
        "split-window",
        "-d",
        "-t",
        rig.target.as_str(),
        "while :; do echo noise-from-elsewhere; sleep 0.01; done",
    ]);
    // Text on the screen before.
    rig.server
        .type_line(rig.target.as_str(), "echo before-the-run");
    rig.server
        .wait_for_text(rig.target.as_str(), "\nbefore-the-run", T);
    rig.wait_state(State::Idle);
    // A command the user runs right after ours ends.
    rig.when_screen_shows(
        "\nsecond-half\n$",
        vec!["send-keys", "-t", "{pane}", "-l", "--", "echo user-after\n"],
    );
    let l = rig
        .run_one("echo first-half; sleep 0.3; echo second-half")
        .await;
    assert_eq!(l.status, ExecutionStatus::Completed, "{l:?}");
    assert_eq!(
        l.output.as_deref(),
        Some("first-half\nsecond-half"),
        "{l:?}"
    );
    rig.server
        .wait_for_text(rig.target.as_str(), "\nuser-after", T);
}

async fn no_integration_is_completion_unavailable(sh: Sh) {
    let rig = rig(sh, false, |_| {}).await;
    let l = rig.run_one("echo plain-shell").await;
    assert_eq!(l.status, ExecutionStatus::CompletionUnavailable, "{l:?}");
    assert!(l.reason.is_some() && l.exit_code.is_none() && l.output.is_none());
    rig.server
        .wait_for_text(rig.target.as_str(), "\nplain-shell", T);
}

async fn insert_reports_inserted_and_runs_nothing(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    let results = rig
        .run(vec![send("echo typed-not-run")], ConfirmMode::Insert)
        .await;
    let l = line(&results[0]);
    assert_eq!(l.status, ExecutionStatus::Inserted);
    assert_eq!((l.exit_code, l.output), (None, None));
    rig.server
        .wait_for_text(rig.target.as_str(), "$ echo typed-not-run", T);
    assert!(!rig.screen().contains("\ntyped-not-run"));
    assert_eq!(
        futures::executor::block_on(rig.exec.pane_state(&rig.target)),
        Some(State::Idle)
    );
}

/// Insert leaves one command at the prompt: a second `send` of the same
/// choice is not typed over it, and says so.
async fn insert_types_only_the_first_send(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    let results = rig
        .run(
            vec![send("echo first-part"), send("echo second-part")],
            ConfirmMode::Insert,
        )
        .await;
    let (first, second) = (line(&results[0]), line(&results[1]));
    assert_eq!(first.status, ExecutionStatus::Inserted, "{first:?}");
    assert_eq!(second.status, ExecutionStatus::Cancelled, "{second:?}");
    assert!(
        second
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("action 1 is waiting")),
        "{second:?}"
    );
    rig.server
        .wait_for_text(rig.target.as_str(), "$ echo first-part", T);
    assert!(!rig.screen().contains("second-part"), "{}", rig.screen());
}

async fn long_run_times_out_and_keeps_running(sh: Sh) {
    let rig = rig(sh, true, |c| c.run_timeout = Duration::from_millis(1500)).await;
    let l = rig.run_one("echo started; sleep 300").await;
    assert_eq!(
        (l.status, l.still_running, l.interactive),
        (ExecutionStatus::TimedOut, Some(true), None),
        "{l:?}"
    );
    assert_eq!(l.output.as_deref(), Some("started"));
    assert!(l.duration_ms.is_some_and(|d| d >= 1000), "{l:?}");
    assert!(
        l.reason
            .as_deref()
            .is_some_and(|r| r.contains("not stopped"))
    );
    assert_eq!(
        rig.server
            .display(rig.target.as_str(), "#{pane_current_command}"),
        "sleep",
        "never killed"
    );
    assert_eq!(
        futures::executor::block_on(rig.exec.pane_state(&rig.target)),
        Some(State::Running)
    );
}

async fn interactive_programs_are_reported(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    // Full screen.
    let l = rig.run_one("less /etc/hostname").await;
    assert_eq!(
        (l.status, l.interactive, l.still_running),
        (ExecutionStatus::TimedOut, Some(true), Some(true)),
        "{l:?}"
    );
    assert!(
        l.reason
            .as_deref()
            .is_some_and(|r| r.contains("full-screen"))
    );
    assert!(
        l.duration_ms.is_some_and(|d| d < 8000),
        "reported early: {l:?}"
    );
    rig.server
        .tmux(&["send-keys", "-t", rig.target.as_str(), "q"]);
    rig.wait_state(State::Idle);
    // Waiting on the terminal: a builtin `read` and an external `cat`.
    for cmd in ["read answer", "cat"] {
        let l = rig.run_one(cmd).await;
        assert_eq!(
            (l.status, l.interactive, l.still_running),
            (ExecutionStatus::TimedOut, Some(true), Some(true)),
            "{cmd}: {l:?}"
        );
        assert!(
            l.reason
                .as_deref()
                .is_some_and(|r| r.contains("waiting for input")),
            "{l:?}"
        );
        rig.server
            .tmux(&["send-keys", "-t", rig.target.as_str(), "C-c"]);
        rig.wait_state(State::Idle);
    }
    // Busy but not waiting on the terminal: not interactive (times out later).
    let rig = rig_with_timeout(sh, Duration::from_millis(2500)).await;
    let l = rig.run_one("sleep 300").await;
    assert_eq!(
        (l.status, l.interactive),
        (ExecutionStatus::TimedOut, None),
        "{l:?}"
    );
}

async fn rig_with_timeout(sh: Sh, t: Duration) -> Rig {
    rig(sh, true, |c| c.run_timeout = t).await
}

async fn ctrl_c_reports_130_interrupted(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    rig.when_shown_and_running(
        "\ngo-now",
        Some("sleep"),
        vec!["send-keys", "-t", "{pane}", "C-c"],
    );
    let l = rig.run_one("echo go-now; sleep 300").await;
    assert_eq!(
        (l.status, l.exit_code, l.interrupted),
        (ExecutionStatus::Failed, Some(130), Some(true)),
        "{l:?}"
    );
    assert!(
        l.output.as_deref().is_some_and(|o| o.starts_with("go-now")),
        "{l:?}"
    );
}

async fn pane_killed_mid_run_is_unavailable(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    rig.when_screen_shows("\ngo-now", vec!["kill-pane", "-t", "{pane}"]);
    let l = rig.run_one("echo go-now; sleep 300").await;
    assert_eq!(l.status, ExecutionStatus::Unavailable, "{l:?}");
    assert!(
        l.reason.as_deref().is_some_and(|r| r.contains("closed")),
        "{l:?}"
    );
}

async fn multi_action_reports_per_action(sh: Sh) {
    let rig = rig(sh, true, |_| {}).await;
    let results = rig
        .run(
            vec![
                Action::Open {
                    target: OpenTarget::Panel,
                    cwd: Some("/tmp".into()),
                    title: None,
                    direction: None,
                },
                send("echo in-target; sh -c 'exit 3'"),
                Action::OpenAndSend {
                    target: OpenTarget::Panel,
                    input: "pwd; false".into(),
                    delegate: false,
                    cwd: Some("/tmp".into()),
                },
            ],
            ConfirmMode::Run,
        )
        .await;
    assert_eq!(results.len(), 3);
    assert!(matches!(results[0].outcome, ActionOutcome::Opened { .. }));
    assert!(
        results[0]
            .outcome
            .execution_line(
                ProposalId::from_bytes([1; 16]),
                ExecutionId::from_bytes([2; 16]),
                1
            )
            .is_none(),
        "opening runs nothing"
    );
    let second = line(&results[1]);
    assert_eq!(
        (
            second.action,
            second.status,
            second.exit_code,
            second.output.as_deref()
        ),
        (2, ExecutionStatus::Failed, Some(3), Some("in-target")),
        "{second:?}"
    );
    // The new panel's shell is integrated: its first prompt is seen behind
    // the gate and the command's result comes back.
    let third = line(&results[2]);
    assert_eq!(
        (
            third.action,
            third.status,
            third.exit_code,
            third.output.as_deref()
        ),
        (3, ExecutionStatus::Failed, Some(1), Some("/tmp")),
        "{third:?}"
    );
}

macro_rules! per_shell {
    ($($case:ident),* $(,)?) => {
        mod bash {
            use super::*;
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() { super::$case(Sh::Bash).await }
            )*
        }
        mod zsh {
            use super::*;
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() { super::$case(Sh::Zsh).await }
            )*
        }
        mod fish {
            use super::*;
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() { super::$case(Sh::Fish).await }
            )*
        }
    };
}

per_shell!(
    exit_codes_and_exact_output,
    a_multi_line_send_is_one_command,
    unrelated_output_is_excluded,
    no_integration_is_completion_unavailable,
    insert_reports_inserted_and_runs_nothing,
    insert_types_only_the_first_send,
    long_run_times_out_and_keeps_running,
    interactive_programs_are_reported,
    ctrl_c_reports_130_interrupted,
    pane_killed_mid_run_is_unavailable,
    multi_action_reports_per_action,
);
