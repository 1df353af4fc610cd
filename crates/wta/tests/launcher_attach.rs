//! `wta up` from a real terminal attaches to the session it made: run it in
//! a pane of an outer private tmux server (a tty, `$TMUX` unset) against an
//! inner private server, and read what the outer pane shows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::time::Duration;

use launch_common::{Env, WTA, stop_master, user_env};
use wta_testkit::{TmuxServer, wait_until};

const T: Duration = Duration::from_secs(20);

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The inner server `wta up` starts, and its master: ended on drop, also
/// when an assertion fails.
struct Started<'a> {
    inner: String,
    env: &'a Env,
}

impl Drop for Started<'_> {
    fn drop(&mut self) {
        let socket = wta_testkit::env::clean("tmux")
            .args(["-L", &self.inner, "display", "-p", "#{socket_path}"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default();
        let _ = wta_testkit::env::clean("tmux")
            .args(["-L", &self.inner, "kill-server"])
            .status();
        // tmux leaves the socket file behind; it is ours to remove.
        if !socket.is_empty() {
            let _ = std::fs::remove_file(&socket);
        }
        let locks = std::fs::read_dir(self.env.path("runtime/wta"))
            .into_iter()
            .flatten()
            .flatten();
        for lock in locks
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "lock"))
        {
            stop_master(&lock);
        }
    }
}

#[test]
fn up_in_a_terminal_attaches_to_the_new_session() {
    let env = Env::new();
    let inner = format!("wta-attach-inner-{}", std::process::id());
    let started = Started {
        inner: inner.clone(),
        env: &env,
    };
    let vars: Vec<String> = user_env(&env)
        .iter()
        .map(|(k, v)| format!("{k}={}", quote(&v.to_string_lossy())))
        .collect();
    let command = format!(
        "env -u TMUX -u TMUX_PANE {} {} -L {} up --agent demo; echo up-exited $?; sleep 600",
        vars.join(" "),
        quote(WTA),
        quote(&inner)
    );
    let outer = TmuxServer::start_with(&command);
    let pane = outer.first_pane().to_owned();
    // The outer pane now shows the inner session: the demo agent's pane and its status line.
    let screen = outer.wait_for_text(&pane, "Ask demo anything", T);
    assert!(
        !screen.contains("up-exited"),
        "wta up must hand the terminal to tmux:\n{screen}"
    );
    let attached = || {
        wta_testkit::env::clean("tmux")
            .args(["-L", &inner, "list-clients", "-F", "#{client_session}"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).contains("wta"))
            .unwrap_or(false)
    };
    wait_until("a client attached to the inner session", T, attached).unwrap();
    drop(started);
}
