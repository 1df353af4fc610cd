//! The harness of the real-shell tests: a private tmux server, a gated pane
//! running bash, zsh or fish with the WTA integration script, a watcher on it
//! (the sink is the `wta-shell-test-sink` helper program, `pipe` mode).

#![allow(dead_code)]

use std::time::Duration;

use wta_shell::{PaneWatcher, Run, Shell, State, TrackerConfig, WatchOptions, gated_command};
use wta_testkit::{TmuxServer, wait_for_value};

pub const T: Duration = Duration::from_secs(15);

/// `per_shell!(a, b)`: tests `bash::a`, `zsh::a`, `fish::a`, … each running
/// `async fn a(Shell)` on a two-thread runtime.
macro_rules! per_shell {
    ($($name:ident),* $(,)?) => {
        mod bash { use super::*; $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $name() { super::$name(Shell::Bash).await } )* }
        mod zsh { use super::*; $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $name() { super::$name(Shell::Zsh).await } )* }
        mod fish { use super::*; $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $name() { super::$name(Shell::Fish).await } )* }
    };
}

pub struct Pane {
    pub server: TmuxServer,
    pub watcher: PaneWatcher,
    pub pane: String,
    pub dir: tempfile::TempDir,
}

/// The real pipe-pane sink (the watcher appends its socket).
pub fn sink_argv() -> Vec<String> {
    vec![SINK.to_owned(), "pipe".to_owned()]
}

/// The sink helper program (see `tests/bin/sink.rs`).
pub const SINK: &str = env!("CARGO_BIN_EXE_wta-shell-test-sink");

/// argv that starts `shell` interactively with the integration loaded (or not).
pub fn shell_argv(shell: Shell, dir: &std::path::Path, integrate: bool) -> Vec<String> {
    shell_argv_with(shell, dir, integrate, ("", ""))
}

/// [`shell_argv`] with rc lines `around` the script: `.0` before it, `.1`
/// after it (settings users have: key maps, history options, bindings).
pub fn shell_argv_with(
    shell: Shell,
    dir: &std::path::Path,
    integrate: bool,
    around: (&str, &str),
) -> Vec<String> {
    let script = if integrate { shell.script() } else { "" };
    let (before, extra) = around;
    let script = format!("{before}\n{script}\n{extra}\n");
    let script = script.as_str();
    let home = dir.to_string_lossy().into_owned();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match shell {
        Shell::Bash => {
            let rc = dir.join("bashrc");
            std::fs::write(&rc, format!("PS1='$ '\nHISTFILE={home}/.hist\n{script}")).unwrap();
            s(&[
                "env",
                &format!("HOME={home}"),
                "bash",
                "--rcfile",
                &rc.to_string_lossy(),
                "-i",
            ])
        }
        Shell::Zsh => {
            std::fs::write(dir.join(".zshrc"), format!("PS1='%# '\n{script}")).unwrap();
            s(&[
                "env",
                &format!("HOME={home}"),
                &format!("ZDOTDIR={home}"),
                "zsh",
                "-i",
            ])
        }
        // With settings, as a user's config.fish (fish sets up key bindings
        // such as fish_vi_key_bindings only with its config read).
        Shell::Fish if !extra.is_empty() || !before.is_empty() => {
            let config = dir.join(".config/fish");
            std::fs::create_dir_all(&config).unwrap();
            let rc = format!("set -g fish_greeting\n{script}");
            std::fs::write(config.join("config.fish"), rc).unwrap();
            s(&[
                "env",
                &format!("HOME={home}"),
                &format!("XDG_CONFIG_HOME={home}/.config"),
                "fish",
            ])
        }
        Shell::Fish => {
            let rc = dir.join("rc.fish");
            std::fs::write(&rc, script).unwrap();
            s(&[
                "env",
                &format!("HOME={home}"),
                "fish",
                "--no-config",
                "-C",
                &format!("source {}", rc.display()),
            ])
        }
        Shell::Pwsh => unreachable!("pwsh is not installed"),
    }
}

pub async fn open(shell: Shell, config: TrackerConfig, integrate: bool) -> Pane {
    open_with(shell, config, integrate, ("", "")).await
}

/// [`open`] with rc lines around the script ([`shell_argv_with`]).
pub async fn open_with(
    shell: Shell,
    config: TrackerConfig,
    integrate: bool,
    around: (&str, &str),
) -> Pane {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let argv = shell_argv_with(shell, dir.path(), integrate, around);
    let argv_ref: Vec<&str> = argv.iter().map(String::as_str).collect();
    let gate = format!("wta-go-{}", std::process::id());
    let cmd = gated_command(&gate, &argv_ref);
    let pane = server.new_window_in(dir.path(), &cmd);
    let watcher = attach(&server, &pane, sink_argv(), dir.path().join("rt"), config)
        .await
        .unwrap();
    watcher.release_gate(&gate).await.unwrap();
    let p = Pane {
        server,
        watcher,
        pane,
        dir,
    };
    if integrate {
        p.wait_state("first prompt", |s| *s == State::Idle).await;
    }
    p
}

impl Pane {
    pub async fn wait_state(&self, what: &str, pred: impl Fn(&State) -> bool) -> State {
        let tracker = self.watcher.tracker();
        tokio::task::block_in_place(|| {
            wait_for_value(what, T, || {
                let t = tracker.try_lock().ok()?;
                pred(&t.state).then(|| t.state.clone())
            })
        })
        .unwrap_or_else(|e| panic!("{e}; screen:\n{}", self.server.capture(&self.pane)))
    }

    /// Waits for a finished run with id > `after`.
    pub async fn wait_run(&self, after: u64) -> Run {
        let tracker = self.watcher.tracker();
        tokio::task::block_in_place(|| {
            wait_for_value("a finished run", T, || {
                let t = tracker.try_lock().ok()?;
                t.last.as_ref().filter(|r| r.id.0 > after).cloned()
            })
        })
        .unwrap_or_else(|e| panic!("{e}; screen:\n{}", self.server.capture(&self.pane)))
    }

    pub async fn last_id(&self) -> u64 {
        self.watcher
            .tracker()
            .lock()
            .await
            .last
            .as_ref()
            .map_or(0, |r| r.id.0)
    }

    /// Submits at an idle prompt and waits for the run to finish.
    pub async fn run(&self, cmd: &str) -> Run {
        self.wait_state("idle prompt", |s| *s == State::Idle).await;
        let after = self.last_id().await;
        self.watcher.submit(cmd).await.unwrap().unwrap();
        let run = self.wait_run(after).await;
        assert_eq!(run.submitted.as_deref(), Some(cmd));
        run
    }

    pub async fn start(&self, cmd: &str) {
        self.wait_state("idle prompt", |s| *s == State::Idle).await;
        self.watcher.submit(cmd).await.unwrap().unwrap();
        self.wait_state("running", |s| *s == State::Running).await;
    }

    /// Waits until `program` is the pane's foreground process (so a key such as
    /// C-c reaches it, not the shell still expanding its PS0 hook).
    pub fn wait_foreground(&self, program: &str) {
        let what = format!("{program} in the foreground");
        tokio::task::block_in_place(|| {
            wta_testkit::wait_until(&what, T, || {
                self.server.display(&self.pane, "#{pane_current_command}") == program
            })
        })
        .unwrap();
    }

    pub fn keys(&self, keys: &str) {
        self.server.tmux(&["send-keys", "-t", &self.pane, keys]);
    }
}

pub fn cfg() -> TrackerConfig {
    TrackerConfig::default()
}

/// Attaches a watcher to `pane` of `server` with the given sink, runtime dir
/// and tracker config.
pub async fn attach(
    server: &TmuxServer,
    pane: &str,
    sink_argv: Vec<String>,
    runtime_dir: std::path::PathBuf,
    config: TrackerConfig,
) -> Result<PaneWatcher, wta_shell::ShellError> {
    let host = wta_host::TmuxHost::new(
        wta_host::ServerLocation::Socket(server.socket().to_path_buf()),
        None,
    );
    let opts = WatchOptions {
        sink_argv,
        runtime_dir,
        config,
    };
    let pane = wta_protocol::PaneId::parse(pane).expect("a pane id");
    PaneWatcher::attach(std::sync::Arc::new(host), &pane, opts).await
}
