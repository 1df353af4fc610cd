//! A plain `ssh` in the agent's target pane shows on the status line
//! (issue 29): while it runs, the target segment says the pane is not
//! followed (`%0 ⚠ ssh: not followed` at 100 columns, shorter at 40); once it
//! exits, the pane and its cwd come back. The `ssh` here is a small
//! program of that name that waits for a line and exits: what the status
//! line reacts to is the program the integrated shell reports running,
//! not what ssh does on the network (a real plain ssh to the loopback
//! sshd is `ssh_remote`'s card test).
//! Real tmux, master, helper and bash with WTA's integration.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;

use std::os::unix::fs::PermissionsExt;

use pane_tui_common::{T, integrated_pane_in};
use wta_testkit::{wait_for_value, wait_until};

#[test]
fn the_status_line_says_while_a_plain_ssh_runs_in_the_target_pane() {
    let pane = integrated_pane_in("bash");
    wait_until("the agent pane follows the shell", T, || {
        pane.tmux.display(&pane.shell, "#{pane_pipe}") == "1"
    })
    .unwrap();
    let before = pane.status_line();
    assert!(!before.contains('⚠'), "{before}");

    let bin = pane.env.path("fake-ssh-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let ssh = bin.join("ssh");
    std::fs::write(
        &ssh,
        "#!/bin/sh\necho \"connected to $1\"\nread -r _line\necho \"connection to $1 closed\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();

    pane.tmux
        .type_line(&pane.shell, &format!("{} build-box", ssh.display()));
    pane.tmux
        .wait_for_text(&pane.shell, "connected to build-box", T);
    // Wide: the whole form, the pane named.
    pane.tmux
        .tmux(&["resize-pane", "-t", &pane.pane, "-x", "100"]);
    let long = format!("{} ⚠ ssh: not followed", pane.shell);
    wait_for_value("the status line names the plain ssh", T, || {
        let line = pane.status_line();
        line.contains(&long).then_some(line)
    })
    .unwrap_or_else(|e| panic!("{e}; agent pane:\n{}", pane.screen()));
    // Narrow: a shorter form, still there.
    pane.tmux
        .tmux(&["resize-pane", "-t", &pane.pane, "-x", "40"]);
    wait_for_value("a shorter form in a narrow pane", T, || {
        let line = pane.status_line();
        (line.contains("⚠ ssh") && !line.contains("not followed")).then_some(line)
    })
    .unwrap_or_else(|e| panic!("{e}; agent pane:\n{}", pane.screen()));
    pane.tmux
        .tmux(&["resize-pane", "-t", &pane.pane, "-x", "100"]);

    // The session ends: the warning goes, the pane is the target as before.
    pane.tmux.type_line(&pane.shell, "bye");
    pane.tmux
        .wait_for_text(&pane.shell, "connection to build-box closed", T);
    // (Back at 100 columns: the pane and its cwd fit again.)
    wait_for_value("the warning leaves the status line", T, || {
        let line = pane.status_line();
        (!line.contains('⚠') && line.contains(&format!("{} /", pane.shell))).then_some(line)
    })
    .unwrap_or_else(|e| panic!("{e}; agent pane:\n{}", pane.screen()));
}
