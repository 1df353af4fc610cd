//! Fixture for the agent-pane end-to-end tests and the idle-CPU bench: a
//! private tmux server whose first pane is a shell (the target pane) with the
//! real `wta --connect-master` helper split beside it, a real master with temp
//! HOME/XDG dirs, and the scripted test agent as `custom:test`.

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

#[path = "../acp_common/mod.rs"]
mod acp_common;

use std::time::Duration;

pub use acp_common::{Env, Proc, WTA};
use wta_testkit::{TmuxServer, wait_for_value};

pub const T: Duration = Duration::from_secs(20);

/// Marker the wrapper shell prints after the helper exits.
pub const EXITED: &str = "helper exited";

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub struct Pane {
    pub env: Env,
    pub master: Proc,
    pub tmux: TmuxServer,
    /// The agent pane.
    pub pane: String,
    /// The shell pane it targets.
    pub shell: String,
}

impl Pane {
    /// Master + helper for `agent` with the default test config.
    pub fn open(agent: &str) -> Self {
        Self::open_in(Env::new(), agent)
    }

    pub fn open_in(env: Env, agent: &str) -> Self {
        Self::open_on(env, agent, TmuxServer::start())
    }

    /// Master + helper on `tmux`, whose first pane is the target pane.
    pub fn open_on(env: Env, agent: &str, tmux: TmuxServer) -> Self {
        Self::open_with(env, agent, tmux, &[])
    }

    /// Like [`Pane::open_on`], with extra helper flags (e.g. `--auto-approve-tools`).
    pub fn open_with(env: Env, agent: &str, tmux: TmuxServer, extra: &[&str]) -> Self {
        let master = env.start_master();
        let shell = tmux.first_pane().to_owned();
        let pane = split_helper(&env, &tmux, &shell, agent, extra);
        Self {
            env,
            master,
            tmux,
            pane,
            shell,
        }
    }

    /// A second agent pane on the same master and tmux server, beside
    /// `target` (a new shell pane is made when `None`); returns its pane id.
    pub fn add_helper(&self, agent: &str, extra: &[&str]) -> String {
        let target = self.tmux.new_window("bash --norc --noprofile");
        split_helper(&self.env, &self.tmux, &target, agent, extra)
    }

    pub fn screen(&self) -> String {
        self.tmux.capture(&self.pane)
    }

    pub fn wait_for(&self, needle: &str) -> String {
        self.tmux.wait_for_text(&self.pane, needle, T)
    }

    /// Waits until the wrapper shell reports the helper's exit; returns the
    /// pane's text with history (tmux's dead-pane notice scrolls the top line off).
    pub fn wait_exit(&self) -> String {
        let what = format!("{EXITED:?} in pane {}", self.pane);
        wait_for_value(&what, T, || {
            let text = self.tmux.try_tmux(&[
                "capture-pane",
                "-p",
                "-J",
                "-S",
                "-200",
                "-t",
                &self.pane,
            ])?;
            text.contains(EXITED).then_some(text)
        })
        .unwrap_or_else(|e| panic!("{e}; screen was:\n{}", self.screen()))
    }

    /// Waits until the session is ready for a prompt.
    pub fn wait_ready(&self) -> String {
        self.wait_for("Ready")
    }

    /// Types `text` literally, then Enter.
    pub fn submit(&self, text: &str) {
        self.tmux.type_line(&self.pane, text);
    }

    /// Sends tmux key names (`C-c`, `Enter`, `y`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.pane.as_str()];
        args.extend_from_slice(keys);
        self.tmux.tmux(&args);
    }

    /// The helper process: the child of the pane's wrapper shell.
    pub fn helper_pid(&self) -> i32 {
        let shell_pid: i32 = self
            .tmux
            .display(&self.pane, "#{pane_pid}")
            .parse()
            .unwrap();
        wait_for_value("helper process", T, || child_of(shell_pid)).unwrap()
    }
}

/// Splits `shell` with a helper pane for `agent` on `env`'s master.
fn split_helper(env: &Env, tmux: &TmuxServer, shell: &str, agent: &str, extra: &[&str]) -> String {
    let vars = [
        ("HOME", env.path("home")),
        ("XDG_CONFIG_HOME", env.path("config")),
        ("XDG_STATE_HOME", env.path("state")),
        ("XDG_RUNTIME_DIR", env.path("runtime")),
        ("WTA_POLICY_FILE", env.policy.clone()),
    ];
    let vars: Vec<String> = vars
        .iter()
        .map(|(k, v)| format!("{k}={}", quote(&v.to_string_lossy())))
        .collect();
    let window = tmux.display(shell, "#{window_id}");
    let extra: Vec<String> = extra.iter().map(|a| quote(a)).collect();
    let helper = format!(
        "cd {dir} && env -u WTA_LOG {vars} {wta} --connect-master {sock} --agent {agent} --owner-tab {window} --target-pane {shell} {extra}; echo \"{EXITED} $?\"",
        dir = quote(&env.path("").to_string_lossy()),
        vars = vars.join(" "),
        wta = quote(WTA),
        sock = quote(&env.socket.to_string_lossy()),
        agent = quote(agent),
        extra = extra.join(" "),
    );
    tmux.tmux(&[
        "split-window",
        "-h",
        "-t",
        shell,
        "-P",
        "-F",
        "#{pane_id}",
        &helper,
    ])
    .trim()
    .to_owned()
}

/// A child of `parent`, from /proc.
pub fn child_of(parent: i32) -> Option<i32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // pid (comm) state ppid …: comm may hold spaces, so split after the last ')'.
            let ppid: i32 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (ppid == parent).then_some(pid)
        })
}

/// utime + stime of `pid` in clock ticks.
pub fn cpu_ticks(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // After ')': state(0) ppid(1) … utime is field 14 overall → index 11 here.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}
