//! Fixture for the agent-pane end-to-end tests and the idle-CPU bench: a
//! private tmux server whose first pane is a shell (the target pane) with the
//! real `wta --connect-master` helper split beside it, a real master with temp
//! HOME/XDG dirs, and the scripted test agent as `custom:test`.

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

#[path = "../acp_common/mod.rs"]
mod acp_common;
pub mod card;

use std::time::Duration;

pub use acp_common::{Env, Proc, WTA};
pub use card::Card;
use wta_testkit::{TmuxServer, squeezed, wait_for_value, wait_until};

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

    /// Waits for one screen holding every needle (see `wait_for_texts`).
    pub fn wait_for_all(&self, needles: &[&str]) -> String {
        self.tmux.wait_for_texts(&self.pane, needles, T)
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
    // Over the server's scrubbed environment: this test's dirs and policy.
    let mut vars = env.dirs();
    vars.push(("WTA_POLICY_FILE", env.policy.clone().into()));
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

/// The tmux command for `shell` (bash, zsh or fish) with WTA's integration
/// and a plain prompt, its rc files under `env`'s `shell-home`.
pub fn integrated_shell(env: &Env, shell: &str) -> String {
    let script = env
        .command()
        .args(["shell-integration", shell])
        .output()
        .expect("wta shell-integration");
    assert!(script.status.success());
    let script = String::from_utf8_lossy(&script.stdout).into_owned();
    let home = env.path("shell-home");
    std::fs::create_dir_all(&home).unwrap();
    let h = home.display();
    match shell {
        "bash" => {
            let rc = home.join("bashrc");
            std::fs::write(&rc, format!("PS1='$ '\nHISTFILE={h}/.hist\n{script}")).unwrap();
            format!(
                "env HOME='{h}' bash --noprofile --rcfile '{}' -i",
                rc.display()
            )
        }
        "zsh" => {
            std::fs::write(home.join(".zshrc"), format!("PS1='%# '\n{script}")).unwrap();
            format!("env HOME='{h}' ZDOTDIR='{h}' zsh -i")
        }
        "fish" => {
            let rc = home.join("rc.fish");
            std::fs::write(&rc, script).unwrap();
            format!(
                "env HOME='{h}' fish --no-config -C 'source {}'",
                rc.display()
            )
        }
        other => panic!("no fixture for {other}"),
    }
}

/// A private server whose first pane runs `shell` (bash, zsh or fish) with
/// WTA's integration and a plain prompt, plus master and helper for the
/// scripted agent in a pane beside it.
pub fn integrated_pane_in(shell: &str) -> Pane {
    integrated_pane_for(shell, "custom:test")
}

/// [`integrated_pane_in`] with `agent` in the agent pane.
pub fn integrated_pane_for(shell: &str, agent: &str) -> Pane {
    integrated_pane_on(Env::new(), shell, agent)
}

/// [`integrated_pane_for`] on `env` (e.g. with extra config).
pub fn integrated_pane_on(env: Env, shell: &str, agent: &str) -> Pane {
    let command = integrated_shell(&env, shell);
    // Panes the helper opens get the server's environment: keep them off
    // the real user's rc files too.
    let home = env.path("shell-home");
    let tmux = TmuxServer::start_with_env(&command, &[("HOME", home.as_os_str())]);
    let first = tmux.first_pane().to_owned();
    wait_until("the target shell announces its integration", T, || {
        tmux.try_tmux(&["show-options", "-p", "-v", "-t", &first, "@wta_integration"])
            .is_some_and(|v| !v.trim().is_empty())
    })
    .unwrap_or_else(|e| panic!("{e}; screen:\n{}", tmux.capture(&first)));
    let pane = Pane::open_on(env, agent, tmux);
    pane.wait_ready();
    pane
}

/// What an unarmed card says (the proposal was not pre-approved by the
/// agent's permission flow), squeezed: the canonical path must never show it.
pub const UNARMED_NOTE: &str = "notpre-approved";

impl Pane {
    /// Waits until the squeezed agent pane contains `needle` (squeezed too).
    pub fn wait_squeezed(&self, needle: &str) -> String {
        let want = squeezed(needle);
        wait_for_value(&format!("{needle:?} in pane {}", self.pane), T, || {
            let screen = self.screen();
            squeezed(&screen).contains(&want).then_some(screen)
        })
        .unwrap_or_else(|e| panic!("{e}; screen was:\n{}", self.screen()))
    }

    /// [`Pane::wait_card`] for a proposal that came through the canonical
    /// permission request: the card must be armed (pre-approved), so it
    /// shows no unarmed note. An unarmed proposal also gets a card and runs,
    /// so without this check arming could break unnoticed.
    pub fn wait_armed_card(&self, button: &str) -> String {
        let screen = self.wait_card(button);
        assert!(
            !squeezed(&screen).contains(UNARMED_NOTE),
            "the canonical proposal must arrive armed:\n{screen}"
        );
        screen
    }

    /// Waits until the proposal card offering `button` (`"Run"`, `" Run "`,
    /// `"[ Run ]"`: its button row, not the transcript's "Propose: Run …")
    /// is up and takes keys, and checks that no permission card came first.
    /// Returns the screen.
    pub fn wait_card(&self, button: &str) -> String {
        let screen = self.wait_for_card(&Card::proposal(button));
        assert!(
            !screen.contains("Always Allow") && !screen.contains("Reject"),
            "the canonical command must be allowed without a permission card:\n{screen}"
        );
        screen
    }

    /// Waits until `card` is up in the agent pane and takes keys (the
    /// guard's "read the card first" gone); returns the screen.
    pub fn wait_for_card(&self, card: &Card) -> String {
        card::wait_armed(&self.tmux, &self.pane, card, T)
    }

    pub fn shell_screen(&self) -> String {
        self.tmux.capture(&self.shell)
    }

    /// The agent pane's status line: its last non-empty row.
    pub fn status_line(&self) -> String {
        self.screen()
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_owned()
    }

    /// Splits the shell pane (below it, not focused) with another `shell`
    /// with WTA's integration; returns its pane id once it announced it.
    pub fn split_integrated_shell(&self, shell: &str) -> String {
        let command = integrated_shell(&self.env, shell);
        let id = self
            .tmux
            .tmux(&[
                "split-window",
                "-d",
                "-v",
                "-t",
                &self.shell,
                "-P",
                "-F",
                "#{pane_id}",
                &command,
            ])
            .trim()
            .to_owned();
        wait_until("the second shell announces its integration", T, || {
            self.tmux
                .try_tmux(&["show-options", "-p", "-v", "-t", &id, "@wta_integration"])
                .is_some_and(|v| !v.trim().is_empty())
        })
        .unwrap_or_else(|e| panic!("{e}; screen:\n{}", self.tmux.capture(&id)));
        id
    }
}
