//! `wta listen` on a pane someone else already follows: one watcher per
//! pane, many listeners. Real binary, private tmux server, real bash with
//! WTA's integration; for the agent pane, the real helper beside the shell
//! with the scripted test agent and a real master.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pane_tui_common;
mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use pane_tui_common::{Env, Pane, integrated_shell};
use serde_json::Value;
use support::integrated_bash_window;
use wta_testkit::{TmuxServer, wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);

/// A running `wta listen`, its stdout read line by line.
struct Listen {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Listen {
    /// `cmd` (a `wta` with its server flag) listening to `pane`.
    fn start(mut cmd: Command, pane: &str, json: bool) -> Self {
        cmd.args(["listen", "-t", pane]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Listen {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    fn pid(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32)
    }

    /// The first line read since the last match that `want` accepts (the
    /// lines before it are dropped, the ones after it kept).
    fn wait_line(&mut self, what: &str, want: impl Fn(&str) -> bool) -> String {
        wait_for_value(what, T, || {
            while let Ok(line) = self.lines.try_recv() {
                self.seen.push(line);
            }
            let at = self.seen.iter().position(|l| want(l))?;
            self.seen.drain(..=at).next_back()
        })
        .unwrap_or_else(|e| panic!("{e}: {:?}", self.seen))
    }

    /// The next JSON event that `want` accepts.
    fn wait_json(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let line = self.wait_line(what, |l| {
            serde_json::from_str::<Value>(l).is_ok_and(|v| want(&v))
        });
        serde_json::from_str(&line).unwrap()
    }

    fn finished(&mut self, cmdline: &str) -> Value {
        let what = format!("{cmdline} finished");
        self.wait_json(&what, |v| {
            v["event"] == "finished" && v["cmdline"] == cmdline
        })
    }

    fn wait_exit(&mut self) -> ExitStatus {
        wait_for_value("listen exits", T, || self.child.try_wait().ok().flatten()).unwrap()
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn option(server: &TmuxServer, pane: &str, name: &str) -> String {
    server
        .try_tmux(&["show-options", "-p", "-v", "-t", pane, name])
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Listeners connected to the socket the pane's watcher names: accepted
/// connections on that path (state 03 in `/proc/net/unix`).
fn listeners(server: &TmuxServer, pane: &str) -> usize {
    let socket = option(server, pane, "@wta_listeners");
    if socket.is_empty() {
        return 0;
    }
    let table = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    table
        .lines()
        .filter(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            fields.get(5) == Some(&"03") && fields.get(7) == Some(&socket.as_str())
        })
        .count()
}

/// Waits until a watcher owns `pane`'s pipe and names its listeners socket;
/// returns the owner's sink socket.
fn owned(server: &TmuxServer, pane: &str, what: &str) -> String {
    wait_for_value(what, T, || {
        let on = server.display(pane, "#{pane_pipe}") == "1";
        let owner = option(server, pane, "@wta_pipe");
        let named = !option(server, pane, "@wta_listeners").is_empty();
        (on && named && !owner.is_empty()).then_some(owner)
    })
    .unwrap()
}

/// An integrated bash behind a gate on a private server, released once a
/// first `wta listen` owns it; returns that listen.
fn shell_with_owner(server: &TmuxServer, dir: &std::path::Path, gate: &str) -> (String, Listen) {
    let pane = integrated_bash_window(server, dir, gate);
    let owner = Listen::start(wta(server), &pane, true);
    owned(server, &pane, "the first listen owns the pipe");
    server.tmux(&["wait-for", "-S", gate]);
    server.wait_for_text(&pane, "$", T);
    (pane, owner)
}

fn wta(server: &TmuxServer) -> Command {
    let mut c = server.sandbox().command(support::wta_bin());
    c.args(["-S", &server.socket().to_string_lossy()]);
    c
}

/// (a) Two listens on one pane, one owning the pipe and one listening, plus
/// a text one: every one prints the same finished command with its exit
/// code, the JSON ones the very same lines; one pipe serves them all.
#[test]
fn two_listens_on_one_pane_print_the_same_command() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (pane, mut first) = shell_with_owner(&server, dir.path(), "wta-shared-gate");
    let owner = option(&server, &pane, "@wta_pipe");
    let mut second = Listen::start(wta(&server), &pane, true);
    let mut text = Listen::start(wta(&server), &pane, false);
    wait_until("both join as listeners", T, || {
        listeners(&server, &pane) == 2
    })
    .unwrap();

    server.type_line(&pane, "ls /nope");
    let started = first.wait_json("started", |v| v["event"] == "started");
    assert_eq!(started["cmdline"], "ls /nope");
    assert_eq!(
        second.wait_json("started", |v| v["event"] == "started"),
        started
    );
    let finished = first.finished("ls /nope");
    assert_eq!(finished["exit_code"], 2, "{finished}");
    assert_eq!(
        finished["output"],
        "ls: cannot access '/nope': No such file or directory"
    );
    assert_eq!(second.finished("ls /nope"), finished);
    let ms = finished["duration_ms"].as_u64().unwrap();
    let line = text.wait_line("the text listen's finish", |l| l.starts_with("■ "));
    assert_eq!(line, format!("■ ls /nope → exit 2 in {ms} ms"));
    let output = text.wait_line("its output", |l| l.starts_with("ls: "));
    assert_eq!(
        output,
        "ls: cannot access '/nope': No such file or directory"
    );
    assert_eq!(
        option(&server, &pane, "@wta_pipe"),
        owner,
        "one pipe, one owner"
    );

    for listen in [&mut second, &mut text] {
        kill(listen.pid(), Signal::SIGTERM).unwrap();
        assert_eq!(listen.wait_exit().code(), Some(0));
    }
    assert_eq!(
        option(&server, &pane, "@wta_pipe"),
        owner,
        "listeners leave the pipe"
    );
    kill(first.pid(), Signal::SIGTERM).unwrap();
    assert_eq!(first.wait_exit().code(), Some(0));
    assert_eq!(server.display(&pane, "#{pane_pipe}"), "0");
}

/// (c) Killing the pane ends the owner and the listener alike: exit 1, the
/// end said.
#[test]
fn a_killed_pane_ends_every_listen_with_1() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (pane, mut first) = shell_with_owner(&server, dir.path(), "wta-killed-gate");
    let mut second = Listen::start(wta(&server), &pane, true);
    wait_until("the second joins", T, || listeners(&server, &pane) == 1).unwrap();
    server.tmux(&["kill-pane", "-t", &pane]);
    for listen in [&mut first, &mut second] {
        let ended = listen.wait_json("ended", |v| v["event"] == "ended");
        assert_eq!(ended["reason"], format!("pane {pane} is gone"), "{ended}");
        assert_eq!(listen.wait_exit().code(), Some(1));
    }
}

/// (d) The owner stops while a listener is attached: the listener takes the
/// pipe over and goes on reporting; then the pane's death ends it with 1.
#[test]
fn a_listener_follows_on_when_the_owner_stops() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (pane, mut first) = shell_with_owner(&server, dir.path(), "wta-handover-gate");
    let old = option(&server, &pane, "@wta_pipe");
    let mut second = Listen::start(wta(&server), &pane, true);
    wait_until("the second joins", T, || listeners(&server, &pane) == 1).unwrap();
    kill(first.pid(), Signal::SIGTERM).unwrap();
    assert_eq!(first.wait_exit().code(), Some(0));
    wait_until("the listener owns the pipe", T, || {
        let now = option(&server, &pane, "@wta_pipe");
        !now.is_empty() && now != old && server.display(&pane, "#{pane_pipe}") == "1"
    })
    .unwrap();

    server.type_line(&pane, "(exit 4)");
    let finished = second.finished("(exit 4)");
    assert_eq!(finished["exit_code"], 4, "{finished}");
    server.type_line(&pane, "exit 3");
    let ended = second.wait_json("ended", |v| v["event"] == "ended");
    assert!(
        ended["reason"]
            .as_str()
            .unwrap()
            .contains("died (status 3)"),
        "{ended}"
    );
    assert_eq!(second.wait_exit().code(), Some(1));
}

/// `wta` on the agent pane's tmux server, as its user.
fn wta_on(pane: &Pane) -> Command {
    let mut c = pane.env.command();
    c.args(["-L", pane.tmux.name()]);
    c
}

fn helper_owns(pipe: &str) -> bool {
    pipe.contains("/watch/helper-")
}

/// (b) An agent pane follows its shell: `wta listen` on that shell listens to
/// the agent pane's watcher instead of refusing, and when the agent pane is
/// closed it follows the shell itself, still reporting.
#[test]
fn listen_beside_an_agent_pane_and_after_it_closes() {
    let pane = pane_tui_common::integrated_pane_in("bash");
    let shell = pane.shell.clone();
    let helper = owned(&pane.tmux, &shell, "the agent pane follows its shell");
    assert!(helper_owns(&helper), "{helper}");
    let mut listen = Listen::start(wta_on(&pane), &shell, true);
    wait_until("listen joins", T, || listeners(&pane.tmux, &shell) == 1).unwrap();

    pane.tmux.type_line(&shell, "ls /nope");
    let finished = listen.finished("ls /nope");
    assert_eq!(finished["exit_code"], 2, "{finished}");
    assert_eq!(option(&pane.tmux, &shell, "@wta_pipe"), helper);

    pane.tmux.tmux(&["kill-pane", "-t", &pane.pane]);
    wait_until("listen owns the shell's pipe", T, || {
        let now = option(&pane.tmux, &shell, "@wta_pipe");
        now.contains("/listen/") && pane.tmux.display(&shell, "#{pane_pipe}") == "1"
    })
    .unwrap();
    pane.tmux.type_line(&shell, "(exit 4)");
    assert_eq!(listen.finished("(exit 4)")["exit_code"], 4);
    assert!(listen.child.try_wait().unwrap().is_none(), "listen goes on");
}

/// The other order: a listen owns the shell's pipe when an agent pane opens
/// beside it. The agent pane's watcher takes the pipe (it types cards'
/// commands), and the listen goes on as its listener.
#[test]
fn an_agent_pane_opened_beside_a_listen_takes_the_pipe_and_the_listen_goes_on() {
    let env = Env::new();
    let command = integrated_shell(&env, "bash");
    let home = env.path("shell-home");
    let tmux = TmuxServer::start_with_env(&command, &[("HOME", home.as_os_str())]);
    let shell = tmux.first_pane().to_owned();
    wait_until("the shell announces its integration", T, || {
        !option(&tmux, &shell, "@wta_integration").is_empty()
    })
    .unwrap();
    let mut cmd = env.command();
    cmd.args(["-L", tmux.name()]);
    let mut listen = Listen::start(cmd, &shell, true);
    let mine = owned(&tmux, &shell, "listen owns the shell's pipe");
    assert!(!helper_owns(&mine), "{mine}");

    let pane = Pane::open_on(env, "custom:test", tmux);
    pane.wait_ready();
    wait_until(
        "the agent pane owns the pipe, the listen listens",
        T,
        || {
            helper_owns(&option(&pane.tmux, &shell, "@wta_pipe"))
                && listeners(&pane.tmux, &shell) == 1
        },
    )
    .unwrap();
    pane.tmux.type_line(&shell, "ls /nope");
    assert_eq!(listen.finished("ls /nope")["exit_code"], 2);
}
