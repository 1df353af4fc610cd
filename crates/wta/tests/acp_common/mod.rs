//! Shared fixtures for the black-box ACP tests: temp HOME/XDG dirs, a config with
//! `custom:` entries pointing at the scripted test agent, the real `wta` binary as
//! master and headless helpers, and JSON event readers with deadlines.

#![allow(dead_code)]

pub mod raw;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const WTA: &str = env!("CARGO_BIN_EXE_wta");

pub struct Env {
    pub tmp: tempfile::TempDir,
    pub socket: PathBuf,
    pub policy: PathBuf,
}

impl Env {
    /// Temp dirs plus a config with `custom:test` and `custom:other` (two argvs of
    /// the test agent, hence two pool keys and two processes).
    pub fn new() -> Self {
        Self::with_config("")
    }

    pub fn with_config(extra: &str) -> Self {
        let agent = wta_testkit::acp::agent_path();
        let tmp = tempfile::tempdir().expect("tempdir");
        // home/, config/, data/, state/, cache/, runtime/ (0700).
        wta_testkit::Sandbox::in_dir(tmp.path());
        std::fs::create_dir_all(tmp.path().join("config/wta")).expect("mkdir");
        let config = format!(
            "{extra}\n[custom_agents.test]\nargv = [{a:?}]\n\n[custom_agents.other]\nargv = [{a:?}, \"--other\"]\n",
            a = agent.to_string_lossy()
        );
        std::fs::write(tmp.path().join("config/wta/config.toml"), config).expect("config");
        let socket = tmp.path().join("runtime/wta/master.sock");
        let policy = tmp.path().join("policy.toml");
        Self {
            tmp,
            socket,
            policy,
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// HOME and the XDG dirs of this user, in the temp dir.
    pub fn dirs(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        wta_testkit::Sandbox::in_dir(self.tmp.path()).dirs()
    }

    /// `wta` as this user runs it: the testkit's scrubbed environment
    /// (nothing of the runner's `WTA_*`, `TMUX*` or locale), these dirs
    /// and the policy file.
    pub fn command(&self) -> Command {
        let mut cmd = wta_testkit::Sandbox::in_dir(self.tmp.path()).command(WTA);
        cmd.env("WTA_POLICY_FILE", &self.policy);
        cmd
    }

    pub fn start_master(&self) -> Proc {
        let child = self
            .command()
            .arg("--master")
            .arg(&self.socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn master");
        let socket = self.socket.clone();
        wta_testkit::wait_until("master socket", Duration::from_secs(10), || socket.exists())
            .expect("master up");
        Proc { child }
    }

    pub fn helper(&self, agent: &str) -> Helper {
        self.helper_with(agent, self.command(), "@1", "%2")
    }

    /// A headless helper inside the tmux server `tmux` (`$TMUX` points at
    /// it), working on its pane `target`.
    pub fn helper_in_tmux(
        &self,
        agent: &str,
        tmux: &wta_testkit::TmuxServer,
        target: &str,
    ) -> Helper {
        let mut command = self.command();
        command.env("TMUX", tmux.tmux_env());
        let tab = tmux.display(target, "#{window_id}");
        self.helper_with(agent, command, &tab, target)
    }

    fn helper_with(&self, agent: &str, mut command: Command, tab: &str, target: &str) -> Helper {
        let mut child = command
            .arg("--connect-master")
            .arg(&self.socket)
            .args([
                "--agent",
                agent,
                "--headless",
                "--owner-tab",
                tab,
                "--target-pane",
                target,
            ])
            .current_dir(self.tmp.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn helper");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("bad line {line:?}: {e}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut helper = Helper {
            proc: Proc { child },
            stdin: Some(stdin),
            rx,
            seen: Vec::new(),
            session: String::new(),
        };
        let ready = helper.expect(Duration::from_secs(20), |e| {
            e["event"] == "ready" || e["event"] == "error"
        });
        assert_eq!(
            ready["event"], "ready",
            "helper did not get a session: {ready}"
        );
        helper.session = ready["sessionId"].as_str().expect("sessionId").to_owned();
        helper
    }
}

/// A child process killed on drop.
pub struct Proc {
    pub child: Child,
}

impl Proc {
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for exit up to `timeout`; returns the exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        wta_testkit::wait_for_value("process exit", timeout, || {
            self.child
                .try_wait()
                .ok()
                .flatten()
                .map(|s| s.code().unwrap_or(-1))
        })
        .ok()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Helper {
    pub proc: Proc,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    /// Every event received so far, in order.
    pub seen: Vec<Value>,
    pub session: String,
}

impl Helper {
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write helper stdin");
        stdin.flush().expect("flush");
    }

    /// Next event matching `pred` (all events are kept in `seen`).
    pub fn expect(&mut self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(event) => {
                    self.seen.push(event.clone());
                    if pred(&event) {
                        return event;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no matching event within {timeout:?}; seen: {:#?}",
                    self.seen
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("helper output ended; seen: {:#?}", self.seen)
                }
            }
        }
    }

    /// Sends `prompt <text>` and returns the events up to its `prompt_done` or `error`.
    pub fn turn(&mut self, text: &str, timeout: Duration) -> Vec<Value> {
        let start = self.seen.len();
        self.send(&format!("prompt {text}"));
        self.expect(timeout, |e| {
            e["event"] == "prompt_done" || e["event"] == "error"
        });
        self.seen[start..].to_vec()
    }

    /// Texts of the agent_message_chunk updates among `events`.
    pub fn chunks(events: &[Value]) -> Vec<String> {
        events
            .iter()
            .filter(|e| {
                e["event"] == "update" && e["update"]["sessionUpdate"] == "agent_message_chunk"
            })
            .filter_map(|e| e["update"]["content"]["text"].as_str().map(str::to_owned))
            .collect()
    }

    /// The test agent's pid, via the `pid` script.
    pub fn agent_pid(&mut self) -> i32 {
        let events = self.turn("pid", Duration::from_secs(10));
        let text = Self::chunks(&events).join("");
        text.trim_start_matches("pid ")
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("no pid in {events:?}"))
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }
}

pub fn process_exists(pid: i32) -> bool {
    // A zombie still has /proc/<pid>; count it as existing (it was not reaped).
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Pids of the processes in group `pgid` (from `/proc/*/stat`, field 5), with
/// their command lines.
pub fn group_members(pgid: i32) -> Vec<(i32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parens.
        let after = &stat[stat.rfind(')')? + 1..];
        let pgrp: i32 = after.split_whitespace().nth(2)?.parse().ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        (pgrp == pgid).then_some((pid, cmdline))
    })
    .collect()
}

pub fn group_exists(pgid: i32) -> bool {
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), None).is_ok()
}
