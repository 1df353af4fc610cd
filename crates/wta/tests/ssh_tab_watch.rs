//! A tab whose shell pane runs `wta ssh` from its start (issue 29): tmux
//! started the pane as `wta ssh -F <config> lab` (as `tmux new-window
//! 'wta ssh host'` does), so its current command is `wta`, not a shell,
//! and no local shell ever runs in it. The agent pane's tab watch still
//! follows it once the remote shell announced its integration there, so a
//! command the user types that fails on the remote host raises autofix's
//! pill in the agent pane. Real tmux, master, helper, `wta ssh` and an
//! OpenSSH server on loopback (`ssh_common`); the scripted agent decides.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;
mod ssh_common;

use pane_tui_common::{Env, Pane, T, WTA};
use ssh_common::{HOST, Sshd};
use wta_testkit::{TmuxServer, wait_until};

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn option(tmux: &TmuxServer, pane: &str, name: &str) -> String {
    tmux.try_tmux(&["show-options", "-p", "-v", "-t", pane, name])
        .unwrap_or_default()
        .trim()
        .to_owned()
}

#[test]
fn a_failure_in_a_pane_started_as_wta_ssh_raises_the_pill() {
    let env = Env::new();
    let sshd = Sshd::start("/bin/bash");
    let home = env.path("shell-home");
    std::fs::create_dir_all(&home).unwrap();
    let command = format!(
        "{} ssh -F {} {HOST}",
        quote(WTA),
        quote(&sshd.client_config().to_string_lossy())
    );
    let tmux = TmuxServer::start_with_env(&command, &[("HOME", home.as_os_str())]);
    let shell = tmux.first_pane().to_owned();
    wait_until("the remote shell announces its integration", T, || {
        option(&tmux, &shell, "@wta_integration").starts_with("bash ")
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}; pane:\n{}\nsshd log:\n{}",
            tmux.capture(&shell),
            sshd.log()
        )
    });
    assert_eq!(
        tmux.display(&shell, "#{pane_current_command}"),
        "wta",
        "no shell holds the pane: `wta ssh` does"
    );

    let pane = Pane::open_on(env, "custom:test", tmux);
    pane.wait_ready();
    wait_until("the tab watch follows the wta ssh pane", T, || {
        pane.tmux.display(&shell, "#{pane_pipe}") == "1"
    })
    .unwrap_or_else(|e| panic!("{e}; agent pane:\n{}", pane.screen()));
    // The agent pane itself is never followed.
    assert_eq!(pane.tmux.display(&pane.pane, "#{pane_pipe}"), "0");

    pane.tmux.type_line(&shell, "ls /nope-on-the-remote");
    pane.tmux.wait_for_text(&shell, "nope-on-the-remote", T);
    pane.wait_squeezed(&format!("✗ exit 2 in {shell} · Ctrl+F fix"));
    assert!(
        option(&pane.tmux, &shell, "@wta_remote_shell").contains("\"host\":\"lab\""),
        "the watcher names the remote shell it follows"
    );
}
