//! [`TmuxHost`]: the terminal host on a real tmux server, and the only tmux
//! client of WTA.
//!
//! Each operation is one `tmux` process (commands chained with `;` when an
//! operation needs several), so `wta` stays within a small factor of tmux's
//! own start-up time. Every word goes through the literal encoder
//! ([`cmd`]); the blocking operations are [`TerminalHost`] and the session
//! operations in [`session`], the async ones [`crate::AsyncHost`]
//! (`async_ops`).

mod async_ops;
mod channels;
mod cmd;
pub mod format;
mod hooks;
mod locate;
mod native;
mod notify;
mod popup;
mod recent;
mod run;
mod session;
mod stash;
mod version;
mod wire;

pub use hooks::{HookWord, run_shell_hook};
pub use popup::is_private_session;
pub use recent::Recency;
pub use session::{NewSession, RecentSession};
pub use stash::STASH_SESSION;

use std::path::{Path, PathBuf};

pub(crate) use cmd::Cmd;
pub use locate::{ServerLocation, socket_dir};
pub use version::TmuxVersion;

use wta_protocol::{PaneId, TmuxSessionId, WindowId};

use crate::async_host::check_option_name;
use crate::{
    HostError, NewTab, PaneCommand, PaneInfo, PaneState, PaneStatus, Popup, ServerInfo,
    SessionInfo, Split, SplitDirection, StashRecord, TerminalHost, Typing, WindowInfo,
};
use async_ops::{checked_display, display_cmd, set_option_cmd, typing_cmds, unset_option_cmd};

/// A tmux server reached through the `tmux` binary.
#[derive(Debug, Clone)]
pub struct TmuxHost {
    location: ServerLocation,
    caller: Option<PaneId>,
    binary: PathBuf,
}

impl TmuxHost {
    /// A host for `location`; `caller` is the pane the calling process runs in
    /// (only meaningful when it belongs to that server).
    pub fn new(location: ServerLocation, caller: Option<PaneId>) -> Self {
        Self {
            location,
            caller,
            binary: PathBuf::from("tmux"),
        }
    }

    /// The same host, running `binary` when the tmux program is needed (to
    /// start a server, or for a tmux that speaks another protocol).
    pub fn with_binary(mut self, binary: impl Into<PathBuf>) -> Self {
        self.binary = binary.into();
        self
    }

    /// Finds the server from explicit flags, else `$TMUX`; the caller's pane
    /// comes from `$TMUX_PANE` only when the server is the one `$TMUX` names.
    pub fn discover(socket: Option<PathBuf>, name: Option<String>) -> Result<Self, HostError> {
        let env_tmux = std::env::var("TMUX").ok();
        let env_pane = std::env::var("TMUX_PANE").ok();
        let (location, caller) =
            locate::locate(socket, name, env_tmux.as_deref(), env_pane.as_deref())?;
        Ok(Self::new(location, caller))
    }

    /// Where this host's server lives.
    pub fn location(&self) -> &ServerLocation {
        &self.location
    }

    /// `tmux -V`, parsed.
    pub fn version(&self) -> Result<TmuxVersion, HostError> {
        version::query(&self.binary)
    }

    fn one_pane(&self, output: &str, what: &str) -> Result<PaneInfo, HostError> {
        format::parse_panes(output)?
            .into_iter()
            .next()
            .ok_or_else(|| HostError::Parse(format!("{what} printed no pane")))
    }

    /// `display-message` of `format` (a format of ours) for a pane proven to exist.
    fn display(&self, pane: &PaneId, format: &str) -> Result<String, HostError> {
        checked_display(pane, &self.run(&display_cmd(pane, format))?)
    }

    /// Opens a pane process behind a `wait-for` gate so the caller can prepare
    /// (set `remain-on-exit`, attach a pipe) before the process starts.
    ///
    /// The wrapper records the command's exit status in the `@wta_exit_status`
    /// pane option: tmux 3.3a sometimes marks a pane dead without ever
    /// recording `pane_dead_status` (its pty EOF races the child's exit).
    fn gated_argv(gate: &str, command: &str) -> Vec<String> {
        vec![
            "/bin/sh".into(),
            "-c".into(),
            concat!(
                r#"tmux wait-for "$1"; /bin/sh -c "$2"; s=$?; "#,
                r#"tmux set-option -p -t "$TMUX_PANE" @wta_exit_status "$s" 2>/dev/null; exit "$s""#
            )
            .into(),
            "wta-gate".into(),
            gate.into(),
            command.into(),
        ]
    }

    /// Releases a gated pane; keeps it (dead) after its command exits so its
    /// exit status can be read.
    fn release(&self, pane: &PaneId, gate: &str) -> Result<(), HostError> {
        let cmd = Cmd::new("set-option")
            .flag("-p")
            .opt("-t", pane.as_str())
            .args(["remain-on-exit", "on"])
            .then("wait-for")
            .flag("-S")
            .arg(gate);
        self.run(&cmd).map(drop)
    }

    fn checked_cwd(cwd: Option<&Path>) -> Result<Option<PathBuf>, HostError> {
        let Some(cwd) = cwd else { return Ok(None) };
        let abs =
            std::path::absolute(cwd).map_err(|_| HostError::BadDirectory(cwd.to_path_buf()))?;
        if abs.is_dir() {
            Ok(Some(abs))
        } else {
            Err(HostError::BadDirectory(cwd.to_path_buf()))
        }
    }

    /// Adds the start directory, environment and command of a new pane.
    fn pane_spec(
        mut cmd: Cmd,
        cwd: Option<&Path>,
        env: &[(String, String)],
        argv: Option<&[String]>,
    ) -> Result<Cmd, HostError> {
        if let Some(cwd) = cwd {
            let cwd = cwd.to_str().ok_or_else(|| {
                HostError::InvalidArgument(format!(
                    "directory {} is not valid UTF-8, which tmux cannot take",
                    cwd.display()
                ))
            })?;
            cmd = cmd.opt_text("-c", cwd);
        }
        for (k, v) in env {
            if k.is_empty() || k.contains('=') {
                return Err(HostError::InvalidArgument(format!(
                    "{k:?} is not an environment variable name"
                )));
            }
            cmd = cmd.opt("-e", &format!("{k}={v}"));
        }
        if let Some(argv) = argv {
            if argv.is_empty() {
                return Err(HostError::InvalidArgument(
                    "an empty command was given for a new pane".into(),
                ));
            }
            cmd = cmd.args(argv.iter().map(String::as_str));
        }
        Ok(cmd)
    }

    fn spawn_pane(
        &self,
        cmd: Cmd,
        cwd: Option<PathBuf>,
        env: &[(String, String)],
        command: Option<&PaneCommand>,
    ) -> Result<PaneInfo, HostError> {
        let (argv, gate) = match command {
            Some(PaneCommand::Shell(line)) => {
                let gate = unique_name("wta-gate");
                (Some(Self::gated_argv(&gate, line)), Some(gate))
            }
            Some(PaneCommand::Argv(argv)) => (Some(argv.clone()), None),
            None => (None, None),
        };
        let cmd = Self::pane_spec(cmd, cwd.as_deref(), env, argv.as_deref())?;
        let pane = self.one_pane(&self.run(&cmd)?, cmd.name())?;
        if let Some(gate) = gate {
            self.release(&pane.id, &gate)?;
        }
        Ok(pane)
    }
}

/// A fresh name for a gate channel or a paste buffer: `prefix-<pid>-<ns>`.
pub(crate) fn unique_name(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{}-{nanos:x}-{n}", std::process::id())
}

impl TerminalHost for TmuxHost {
    fn server_info(&self) -> Result<ServerInfo, HostError> {
        let mut cmd = Cmd::new("display-message").flag("-p");
        if let Some(pane) = &self.caller {
            cmd = cmd.opt("-t", pane.as_str());
        }
        let out = self.run(&cmd.arg_format(
            "#{version}\x1f#{socket_path}\x1f#{session_id}\x1f#{window_id}\x1f#{pane_id}\x1f#{session_name}",
        ))?;
        let f: Vec<&str> = out.trim_end_matches('\n').splitn(6, '\x1f').collect();
        if f.len() != 6 {
            return Err(HostError::Parse(
                "display-message printed too few fields".into(),
            ));
        }
        let version = TmuxVersion::parse(f[0]);
        if !version.is_supported() {
            return Err(HostError::TmuxTooOld {
                found: version.to_string(),
            });
        }
        let inside = self.caller.is_some();
        Ok(ServerInfo {
            socket: PathBuf::from(f[1]),
            tmux_version: f[0].to_owned(),
            pane: inside.then(|| PaneId::parse(f[4]).ok()).flatten(),
            window: inside.then(|| WindowId::parse(f[3]).ok()).flatten(),
            session: inside.then(|| TmuxSessionId::parse(f[2]).ok()).flatten(),
            session_name: inside.then(|| f[5].to_owned()),
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>, HostError> {
        let out =
            self.run(&Cmd::new("list-sessions").opt_format("-F", &format::session_format()))?;
        let mut sessions = format::parse_sessions(&out)?;
        sessions.retain(|s| !is_private_session(&s.name));
        Ok(sessions)
    }

    fn list_windows(&self, session: Option<&TmuxSessionId>) -> Result<Vec<WindowInfo>, HostError> {
        let cmd = match session {
            Some(s) => Cmd::new("list-windows").opt("-t", s.as_str()),
            None => Cmd::new("list-windows").flag("-a"),
        };
        format::parse_windows(&self.run(&cmd.opt_format("-F", &format::window_format()))?)
    }

    fn window_exists(&self, window: &WindowId) -> Result<bool, HostError> {
        let cmd = Cmd::new("display-message")
            .flag("-p")
            .opt("-t", window.as_str())
            .arg_format("#{window_id}");
        match self.run(&cmd) {
            Ok(out) => Ok(out.trim() == window.as_str()),
            Err(HostError::WindowNotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn list_panes(&self) -> Result<Vec<PaneInfo>, HostError> {
        let cmd = Cmd::new("list-panes")
            .flag("-a")
            .opt_format("-F", &format::pane_format());
        let mut panes = format::parse_pane_bytes(&self.run_raw(&cmd)?)?;
        panes.retain(|p| !is_private_session(&p.session_name));
        Ok(panes)
    }

    fn window_panes(&self, window: &WindowId) -> Result<Vec<PaneInfo>, HostError> {
        let cmd = Cmd::new("list-panes")
            .opt("-t", window.as_str())
            .opt_format("-F", &format::pane_format());
        format::parse_pane_bytes(&self.run_raw(&cmd)?)
    }

    fn pane(&self, pane: &PaneId) -> Result<PaneInfo, HostError> {
        format::parse_panes(&self.display(pane, &format::pane_format())?)?
            .into_iter()
            .next()
            .ok_or_else(|| HostError::PaneNotFound(pane.to_string()))
    }

    fn caller_pane(&self) -> Option<PaneId> {
        self.caller.clone()
    }

    fn active_pane(&self) -> Result<PaneInfo, HostError> {
        match &self.caller {
            Some(pane) => self.pane(pane),
            // Outside tmux: the active pane of the session attached last,
            // never tmux's own pick (which can be the stash).
            None => {
                let session = self.recent_session()?.ok_or(HostError::NoRecentSession)?;
                self.active_pane_of(&session.id)
            }
        }
    }

    fn capture(&self, pane: &PaneId, lines: Option<u32>) -> Result<String, HostError> {
        let mut cmd = Cmd::new("capture-pane")
            .flag("-p")
            .flag("-J")
            .opt("-t", pane.as_str());
        if let Some(n) = lines {
            cmd = cmd.opt("-S", &format!("-{n}"));
        }
        let text = self.run(&cmd)?;
        let trimmed = text.trim_end_matches(['\n', ' ']);
        Ok(match lines {
            Some(n) => {
                let all: Vec<&str> = trimmed.lines().collect();
                let start = all.len().saturating_sub(n as usize);
                all[start..].join("\n")
            }
            None => trimmed.to_owned(),
        })
    }

    fn new_tab(&self, spec: &NewTab) -> Result<PaneInfo, HostError> {
        let cwd = Self::checked_cwd(spec.cwd.as_deref())?;
        let mut cmd = Cmd::new("new-window")
            .flag("-P")
            .opt_format("-F", &format::pane_format());
        if !spec.focus {
            cmd = cmd.flag("-d");
        }
        match (&spec.session, spec.after.as_ref().or(self.caller.as_ref())) {
            (Some(s), _) => cmd = cmd.opt("-t", &format!("{s}:")),
            // Right after that pane's tab (new-window takes no pane target).
            (None, Some(p)) => {
                let window = self.pane(p)?.window;
                cmd = cmd.flag("-a").opt("-t", window.as_str());
            }
            // Outside tmux: the session attached last, never tmux's own
            // pick (the most recently active one: it can be the stash).
            (None, None) => {
                let session = self.recent_session()?.ok_or(HostError::NoRecentSession)?;
                cmd = cmd.opt("-t", &format!("{}:", session.id));
            }
        }
        if let Some(title) = &spec.title {
            check_name("tab title", title)?;
            cmd = cmd.opt_text("-n", title);
        }
        self.spawn_pane(cmd, cwd, &spec.env, spec.command.as_ref())
    }

    fn split(&self, spec: &Split) -> Result<PaneInfo, HostError> {
        let cwd = Self::checked_cwd(spec.cwd.as_deref())?;
        if let Some(p) = spec.percent
            && !(1..=99).contains(&p)
        {
            return Err(HostError::InvalidArgument(format!(
                "split size must be 1–99 percent, got {p}"
            )));
        }
        let mut cmd = Cmd::new("split-window")
            .flag("-P")
            .opt_format("-F", &format::pane_format())
            .opt("-t", spec.target.as_str())
            .flag(match spec.direction {
                SplitDirection::Right | SplitDirection::Left => "-h",
                SplitDirection::Down | SplitDirection::Up => "-v",
            });
        if matches!(spec.direction, SplitDirection::Left | SplitDirection::Up) {
            cmd = cmd.flag("-b");
        }
        if spec.full {
            cmd = cmd.flag("-f");
        }
        if !spec.focus {
            cmd = cmd.flag("-d");
        }
        if let Some(p) = spec.percent {
            cmd = cmd.opt("-l", &format!("{p}%"));
        }
        self.spawn_pane(cmd, cwd, &spec.env, spec.command.as_ref())
    }

    fn kill_pane(&self, pane: &PaneId) -> Result<(), HostError> {
        self.run(&Cmd::new("kill-pane").opt("-t", pane.as_str()))
            .map(drop)
    }

    fn pane_status(&self, pane: &PaneId) -> Result<PaneStatus, HostError> {
        let out = self.display(
            pane,
            "#{pane_dead}\x1f#{pane_dead_status}\x1f#{@wta_exit_status}\x1f#{pane_dead_signal}\x1f#{pane_pid}\x1f#{pane_current_command}",
        )?;
        let f: Vec<&str> = out.splitn(6, '\x1f').collect();
        if f.len() != 6 {
            return Err(HostError::Parse(
                "display-message printed too few fields".into(),
            ));
        }
        let dead = f[0] == "1";
        Ok(PaneStatus {
            pane: pane.clone(),
            state: if dead {
                PaneState::Dead
            } else {
                PaneState::Running
            },
            exit_status: if dead {
                f[1].parse().or_else(|_| f[2].parse()).ok()
            } else {
                None
            },
            exit_signal: if dead { f[3].parse().ok() } else { None },
            pid: if dead { None } else { f[4].parse().ok() },
            command: if dead { None } else { Some(f[5].to_owned()) },
        })
    }

    fn visible(&self, pane: &PaneId) -> Result<bool, HostError> {
        // Clients whose session shows the pane's window, in any session it
        // is linked into: a popup's client on its private session counts
        // (`display -t %P` alone would pick one of those sessions).
        let out = self.display(pane, "#{window_active_clients}")?;
        Ok(out.trim().parse::<u32>().is_ok_and(|n| n > 0))
    }

    fn focus(&self, pane: &PaneId) -> Result<(), HostError> {
        let cmd = Cmd::new("select-window")
            .opt("-t", pane.as_str())
            .then("select-pane")
            .opt("-t", pane.as_str());
        self.run(&cmd).map(drop)
    }

    fn set_title(&self, pane: &PaneId, title: &str) -> Result<(), HostError> {
        check_name("pane title", title)?;
        let cmd = Cmd::new("select-pane")
            .opt("-t", pane.as_str())
            .opt_text("-T", title);
        self.run(&cmd).map(drop)
    }

    fn stash(&self, pane: &PaneId, neighbour: &PaneId) -> Result<StashRecord, HostError> {
        self.stash_pane(pane, neighbour)
    }

    fn restore(&self, pane: &PaneId) -> Result<StashRecord, HostError> {
        self.restore_pane(pane)
    }

    fn show_popup(&self, pane: &PaneId, popup: &Popup) -> Result<(), HostError> {
        self.show_popup_of(pane, popup)
    }

    fn close_popup(&self, pane: &PaneId) -> Result<bool, HostError> {
        self.close_popup_of(pane)
    }

    fn in_popup(&self, pane: &PaneId) -> Result<bool, HostError> {
        self.in_popup_of(pane)
    }

    fn send_text(&self, pane: &PaneId, text: &str, enter: bool) -> Result<(), HostError> {
        let typing = Typing {
            clear_line: false,
            enter,
        };
        let buffer = unique_name("wta-send");
        for cmd in typing_cmds(pane, text, typing, &buffer)? {
            self.run(&cmd)?;
        }
        Ok(())
    }

    fn option(&self, pane: &PaneId, name: &str) -> Result<String, HostError> {
        check_option_name(name)?;
        self.display(pane, &format!("#{{{name}}}"))
    }

    fn set_options(&self, pane: &PaneId, options: &[(&str, &str)]) -> Result<(), HostError> {
        let mut chain: Option<Cmd> = None;
        for (name, value) in options {
            let one = set_option_cmd(pane, name, value)?;
            chain = Some(match chain {
                None => one,
                Some(cmd) => cmd.chain(one),
            });
        }
        match chain {
            Some(cmd) => self.run(&cmd).map(drop),
            None => Ok(()),
        }
    }

    fn keep_when_dead(&self, pane: &PaneId, keep: bool) -> Result<(), HostError> {
        let cmd = Cmd::new("set-option")
            .flag("-p")
            .opt("-t", pane.as_str())
            .args(["remain-on-exit", if keep { "on" } else { "off" }]);
        self.run(&cmd).map(drop)
    }

    fn tab_option(&self, window: &WindowId, name: &str) -> Result<String, HostError> {
        check_option_name(name)?;
        let cmd = Cmd::new("show-options")
            .flag("-w")
            .flag("-q")
            .flag("-v")
            .opt("-t", window.as_str())
            .arg(name);
        Ok(self.run(&cmd)?.trim_end_matches('\n').to_owned())
    }

    fn set_tab_option(
        &self,
        window: &WindowId,
        name: &str,
        value: Option<&str>,
    ) -> Result<(), HostError> {
        check_option_name(name)?;
        let cmd = Cmd::new("set-option").flag("-w");
        let cmd = match value {
            Some(value) => cmd.opt("-t", window.as_str()).arg(name).arg(value),
            None => cmd.flag("-u").opt("-t", window.as_str()).arg(name),
        };
        self.run(&cmd).map(drop)
    }

    fn unset_option(&self, pane: &PaneId, name: &str) -> Result<(), HostError> {
        self.run(&unset_option_cmd(pane, name)?).map(drop)
    }

    fn options_of_all_panes(&self, name: &str) -> Result<Vec<(PaneId, String)>, HostError> {
        check_option_name(name)?;
        let format = format!("#{{pane_id}}\x1f#{{{name}}}\x1e");
        let out = self.run(&Cmd::new("list-panes").flag("-a").opt_format("-F", &format))?;
        let mut seen = Vec::new();
        for record in out.split("\x1e\n").filter(|r| !r.is_empty()) {
            let (id, value) = record.split_once('\x1f').unwrap_or((record, ""));
            let id = PaneId::parse(id).map_err(|e| HostError::Parse(e.to_string()))?;
            if !seen.iter().any(|(p, _): &(PaneId, String)| p == &id) {
                seen.push((id, value.to_owned()));
            }
        }
        Ok(seen)
    }

    fn close_pipe(&self, pane: &PaneId, owner_option: &str) -> Result<(), HostError> {
        check_option_name(owner_option)?;
        self.run(&async_ops::close_pipe_cmd(pane, owner_option))
            .map(drop)
    }

    fn signal(&self, channel: &str) -> Result<(), HostError> {
        self.run(&async_ops::signal_cmd(channel)).map(drop)
    }

    fn copy_to_clipboard(&self, text: &str) -> Result<(), HostError> {
        // `-w` also sends it to the terminal's clipboard (OSC 52).
        self.run(&Cmd::new("set-buffer").flag("-w").arg(text))
            .map(drop)
    }
}

/// Names and titles must show as typed: tmux escapes control characters in
/// names (so they would not read back as given) and strips them from titles.
fn check_name(what: &str, name: &str) -> Result<(), HostError> {
    match name.chars().find(|c| c.is_control()) {
        Some(c) => Err(HostError::InvalidArgument(format!(
            "the {what} {name:?} holds the control character U+{:04X}; use printable text",
            u32::from(c)
        ))),
        None => Ok(()),
    }
}
