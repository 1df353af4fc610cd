//! Fixture for launcher tests: temp HOME/XDG dirs (with the scripted test
//! agent as `custom:test`), a private tmux server whose environment points at
//! them, `wta` commands run with the same environment, and the master that
//! `wta up` starts ended by its pid on drop.

#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

#[path = "../acp_common/mod.rs"]
pub mod acp_common;
#[path = "../pane_tui_common/card.rs"]
pub mod card;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Output;

pub use acp_common::{Env, WTA};
use serde_json::Value;
use wta_testkit::TmuxServer;

/// The environment a user's wta sees in these tests, over the testkit's
/// scrubbed one: the user's dirs, policy file and login shell.
pub fn user_env(env: &Env) -> Vec<(&'static str, OsString)> {
    let mut vars = env.dirs();
    vars.push(("WTA_POLICY_FILE", env.policy.clone().into()));
    vars.push(("SHELL", "/bin/bash".into()));
    vars
}

/// Sends SIGTERM to the process whose pid a master lock file holds.
pub fn stop_master(lock: &std::path::Path) {
    if let Some(pid) = std::fs::read_to_string(lock)
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
    {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
}

pub struct Launch {
    pub env: Env,
    pub tmux: TmuxServer,
    pub master_lock: Option<PathBuf>,
}

impl Launch {
    pub fn new() -> Self {
        Self::with_config("")
    }

    /// [`Launch::new`] with `extra` appended to the user's config.toml.
    pub fn with_config(extra: &str) -> Self {
        let env = Env::with_config(extra);
        let vars = user_env(&env);
        let refs: Vec<(&str, &std::ffi::OsStr)> =
            vars.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
        let tmux = TmuxServer::start_with_env("bash --norc --noprofile", &refs);
        Self {
            env,
            tmux,
            master_lock: None,
        }
    }

    pub fn wta(&self, args: &[&str]) -> Output {
        self.wta_with_shell("/bin/bash", args)
    }

    /// `wta ARGS` for a user whose `$SHELL` is `shell`.
    pub fn wta_with_shell(&self, shell: &str, args: &[&str]) -> Output {
        self.env
            .command()
            .env("SHELL", shell)
            .arg("-L")
            .arg(self.tmux.name())
            .args(args)
            .output()
            .unwrap()
    }

    /// `wta up --detach --json ARGS`; remembers the master to stop it on drop.
    pub fn up(&mut self, args: &[&str]) -> Value {
        self.up_with_shell("/bin/bash", args)
    }

    /// [`Launch::up`] for a user whose `$SHELL` is `shell`.
    pub fn up_with_shell(&mut self, shell: &str, args: &[&str]) -> Value {
        self.up_with_env(&[("SHELL", shell.as_ref())], args)
    }

    /// [`Launch::up`] with `env` set for `wta up` (and so for the panes
    /// it opens: tmux gives them the command's environment).
    pub fn up_with_env(&mut self, env: &[(&str, &std::ffi::OsStr)], args: &[&str]) -> Value {
        let mut all = vec!["up", "--detach", "--json"];
        all.extend_from_slice(args);
        let mut command = self.env.command();
        command.env("SHELL", "/bin/bash");
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command
            .arg("-L")
            .arg(self.tmux.name())
            .args(&all)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "wta up failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        self.master_lock =
            Some(PathBuf::from(v["master_socket"].as_str().unwrap()).with_extension("lock"));
        v
    }

    /// `wta up` for `agent`, then waits for its pane to be Ready; returns
    /// the `up` JSON, the shell pane and the agent pane.
    pub fn up_ready(&mut self, agent: &str) -> (Value, String, String) {
        let up = self.up(&["--agent", agent]);
        let shell = up["shell_pane"].as_str().unwrap().to_owned();
        let pane = up["agent_pane"].as_str().unwrap().to_owned();
        self.tmux
            .wait_for_text(&pane, "Ready", std::time::Duration::from_secs(20));
        (up, shell, pane)
    }

    /// `wta pane ARGS --json`.
    pub fn pane(&self, args: &[&str]) -> Value {
        let mut all = vec!["pane"];
        all.extend_from_slice(args);
        all.push("--json");
        let out = self.wta(&all);
        assert!(
            out.status.success(),
            "wta pane failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    pub fn pane_pid(&self, pane: &str) -> i32 {
        self.tmux.display(pane, "#{pane_pid}").parse().unwrap()
    }

    /// Waits until the agent pane's status line says Ready (a prompt typed
    /// while a turn runs is refused by design), then types `text`.
    pub fn say(&self, pane: &str, text: &str) {
        wta_testkit::wait_until(
            "the agent pane to be ready",
            std::time::Duration::from_secs(20),
            || {
                self.tmux
                    .capture(pane)
                    .lines()
                    .rev()
                    .find(|l| l.contains("yolo"))
                    .is_some_and(|l| l.contains("Ready"))
            },
        )
        .unwrap_or_else(|e| panic!("{e}:\n{}", self.tmux.capture(pane)));
        self.tmux.type_line(pane, text);
    }

    /// Waits until `card` is up in `pane` and takes keys (see `card.rs`).
    pub fn wait_card(&self, pane: &str, card: &card::Card) -> String {
        card::wait_armed(&self.tmux, pane, card, std::time::Duration::from_secs(20))
    }

    pub fn master_pid(&self) -> i32 {
        let lock = self.master_lock.as_ref().expect("master started");
        std::fs::read_to_string(lock)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        if let Some(lock) = &self.master_lock {
            stop_master(lock);
        }
    }
}
