//! The `wta ssh` session the tests drive: a private tmux server whose
//! first pane is an integrated local shell with the real master and helper
//! beside it (`pane_tui_common`), an sshd on loopback ([`crate::ssh_common::Sshd`]),
//! and `wta ssh -F <config> lab` typed into the shell pane.

#![allow(dead_code)] // each test takes what it needs

use crate::pane_tui_common::{Env, Pane, T, WTA, integrated_pane_on};
use wta_testkit::{squeezed, wait_until};

use crate::ssh_common::{HOST, Sshd, cmdline, descendants, environ};

/// A local shell pane (with its agent pane) in a `wta ssh` session.
pub struct Remote {
    pub pane: Pane,
    pub sshd: Sshd,
    /// The local shell's `@wta_integration`, before `wta ssh`.
    pub local: String,
}

pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Remote {
    /// `local` (bash, zsh, fish) in the pane, `wta ssh` to an sshd whose
    /// login shell is `remote` (a path), and its first prompt followed.
    pub fn open(local: &str, remote: &str) -> Self {
        Self::open_in(Env::new(), local, remote)
    }

    /// [`Remote::open`] with the helper's config in `env`.
    pub fn open_in(env: Env, local: &str, remote: &str) -> Self {
        let remote = Self::local_in(env, local, remote);
        remote.ssh("");
        remote.wait_remote_prompt();
        remote
    }

    /// The panes and the sshd, before `wta ssh`.
    pub fn local(local: &str, remote: &str) -> Self {
        Self::local_in(Env::new(), local, remote)
    }

    pub fn local_in(env: Env, local: &str, remote: &str) -> Self {
        Self::local_with(env, local, Sshd::start(remote))
    }

    /// The panes beside `local`, for a session to `sshd`.
    pub fn local_with(env: Env, local: &str, sshd: Sshd) -> Self {
        let pane = integrated_pane_on(env, local, "custom:test");
        let mut remote = Remote {
            pane,
            sshd,
            local: String::new(),
        };
        remote.local = remote.option("@wta_integration");
        assert!(remote.local.starts_with(local), "{:?}", remote.local);
        remote
    }

    /// Types `wta ssh -F <config> lab <extra>` into the shell pane.
    pub fn ssh(&self, extra: &str) {
        let line = format!(
            "{} ssh -F {} {HOST} {extra}",
            quote(WTA),
            quote(&self.sshd.client_config().to_string_lossy())
        );
        self.pane.tmux.type_line(&self.pane.shell, line.trim_end());
    }

    pub fn option(&self, name: &str) -> String {
        self.pane
            .tmux
            .try_tmux(&["show-options", "-p", "-v", "-t", &self.pane.shell, name])
            .unwrap_or_default()
            .trim()
            .to_owned()
    }

    /// Waits until the agent pane's watcher follows the remote shell at a
    /// prompt: it names it (and its nonce'd directory) on the pane.
    pub fn wait_remote_prompt(&self) {
        wait_until("the watcher follows the remote shell", T, || {
            self.option("@wta_remote_shell")
                .contains("\"host\":\"lab\"")
        })
        .unwrap_or_else(|e| {
            panic!(
                "{e}; shell pane:\n{}\nsshd log:\n{}",
                self.pane.shell_screen(),
                self.sshd.log()
            )
        });
    }

    /// `wta ssh`'s pid: the `aid` its remote shell's marks carry.
    pub fn aid(&self) -> u32 {
        let options = self
            .pane
            .tmux
            .tmux(&["show-options", "-p", "-t", &self.pane.shell]);
        options
            .lines()
            .find_map(|l| {
                l.strip_prefix("@wta_remote_")?
                    .split_once(' ')?
                    .0
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| panic!("no @wta_remote_<pid> on the pane:\n{options}"))
    }

    /// The nonce `wta ssh` gave the remote shell.
    pub fn nonce(&self) -> String {
        let nonce = self.option(&format!("@wta_nonce_{}", self.aid()));
        assert_eq!(nonce.len(), 32, "{nonce:?}");
        nonce
    }

    /// Proposes `command`, confirms the card and waits for the agent's
    /// words about the result; returns the agent pane's screen.
    pub fn run_card(&self, command: &str, outcome: &str) -> String {
        self.pane.submit(&format!("propose-run {command}"));
        let card = self.pane.wait_armed_card(" Run ");
        assert!(squeezed(&card).contains(&squeezed(command)), "{card}");
        self.pane.keys(&["Enter"]);
        self.pane.wait_squeezed(outcome)
    }

    /// The nonce reached the remote shell through the terminal only: no
    /// remote process (sshd's session, the bootstrap, the shell, the
    /// command) and no local ssh has it in its argv or environment. The
    /// remote shell is the process whose command line holds `shell`.
    pub fn nonce_in_no_argv_or_environment(&self, shell: &str) {
        let nonce = self.nonce();
        let processes = self.sshd.remote_processes();
        assert!(
            processes.iter().any(|p| cmdline(*p).contains(shell)),
            "the remote shell runs: {:?}",
            processes.iter().map(|p| cmdline(*p)).collect::<Vec<_>>()
        );
        let local_ssh = descendants(self.aid() as i32);
        for pid in processes.iter().chain(&local_ssh) {
            let (argv, env) = (cmdline(*pid), environ(*pid));
            assert!(!argv.contains(&nonce), "{pid}: {argv}");
            assert!(!env.contains(&nonce), "{pid}: {env}");
        }
    }

    /// A program on the remote host (loopback: a file in its home) prints
    /// marks for the remote shell's aid and for the local shell's, without
    /// a nonce and with one of the nonce's shape (a D;0 that would end the
    /// command, an X that would end the session, a cwd), then fails: the
    /// card still gets its real end, and the remote shell its real place.
    pub fn forged_marks_change_nothing(&self) {
        let aid = self.aid();
        let local_pid = self.pane.tmux.display(&self.pane.shell, "#{pane_pid}");
        let shaped = "0123456789abcdef0123456789abcdef";
        let forged = [
            format!("133;D;0;aid={aid}"),
            format!("133;D;0;aid={aid};wta={shaped}"),
            format!("133;X;aid={aid};wta={shaped}"),
            format!("133;D;0;aid={local_pid};wta={shaped}"),
            format!("133;A;aid={local_pid};wta={shaped}"),
            format!("133;P;aid={aid};wta={shaped};cwd_url=/forged"),
        ];
        let prints: Vec<String> = forged
            .iter()
            .map(|m| format!("printf '\\033]{m}\\007'\n"))
            .collect();
        let script = self.sshd.dir.path().join("remote-home/forge.sh");
        std::fs::write(
            &script,
            format!("{}echo real-end\nexit 3\n", prints.concat()),
        )
        .unwrap();
        let command = format!("sh {}", script.display());
        let screen = self.run_card(&command, "action 1: it failed with exit 3: real-end.");
        assert!(
            squeezed(&screen).contains(&squeezed(r#""exit_code":3,"output":"real-end""#)),
            "{screen}"
        );
        let place = self.option("@wta_remote_shell");
        assert!(
            place.contains("\"host\":\"lab\""),
            "still the remote shell: {place}"
        );
        assert!(!place.contains("/forged"), "{place}");
    }
}
