//! `wta ssh` to a host whose login shell is zsh (issue 29), against a real
//! OpenSSH server on loopback (`ssh_common`): zsh gets WTA's integration
//! with nothing written on the remote host (its rc is read from the
//! terminal before zle starts, `wta_shell::remote`), after the user's own
//! startup files; cards run there with their exit codes and output coming
//! back; the line that read the rc is in no history; forged marks printed
//! by a remote program change nothing; the nonce is in no remote argv or
//! environment.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;
mod ssh_common;
#[path = "ssh_common/remote.rs"]
mod ssh_session;

use pane_tui_common::{Env, T};
use ssh_common::Sshd;
use ssh_session::Remote;
use wta_testkit::{squeezed, wait_until};

const ZSH: &str = "/usr/bin/zsh";

/// A session to a remote zsh whose startup files are a user's: `~/.zshenv`
/// moves `ZDOTDIR`, whose `.zprofile` exports a variable and whose `.zshrc`
/// sets an alias, a history file and a prompt.
fn remote_zsh() -> Remote {
    let sshd = Sshd::start(ZSH);
    let home = sshd.dir.path().join("remote-home");
    std::fs::create_dir_all(home.join("zdot")).unwrap();
    std::fs::write(home.join(".zshenv"), "ZDOTDIR=~/zdot\n").unwrap();
    std::fs::write(home.join("zdot/.zprofile"), "export FROM_ZPROFILE=login\n").unwrap();
    std::fs::write(
        home.join("zdot/.zshrc"),
        "alias greet='echo hello-from-zshrc'\n\
         HISTFILE=~/.zsh_history\nSAVEHIST=100\nHISTSIZE=100\n\
         PROMPT='remote-zsh%# '\n",
    )
    .unwrap();
    let remote = Remote::local_with(Env::new(), "bash", sshd);
    remote.ssh("");
    remote.wait_remote_prompt();
    remote
}

#[test]
fn cards_run_in_the_remote_zsh_with_exit_codes_and_output() {
    let remote = remote_zsh();
    let aid = remote.aid();
    assert_eq!(remote.option("@wta_integration"), format!("zsh {aid}"));
    // The user's prompt, from their ~/.zshrc, is the one shown.
    remote
        .pane
        .tmux
        .wait_for_text(&remote.pane.shell, "remote-zsh#", T);
    let screen = remote.run_card(
        "echo zsh-$((40+2)) ${ZSH_VERSION%%.*} $FROM_ZPROFILE",
        "action 1: the command succeeded",
    );
    assert!(
        squeezed(&screen).contains(&squeezed(r#""exit_code":0,"output":"zsh-42 5 login""#)),
        "{screen}"
    );
    let screen = remote.run_card(
        "(echo boom-$((1+1)) >&2; exit 2)",
        "action 1: it failed with exit 2: boom-2.",
    );
    assert!(
        squeezed(&screen).contains(&squeezed(r#""exit_code":2,"output":"boom-2""#)),
        "{screen}"
    );
    // The user's alias, from their .zshrc (in their ZDOTDIR).
    // (The outcome line is the first card's too: wait for this one's output.)
    remote.run_card("greet", r#""exit_code":0,"output":"hello-from-zshrc""#);
    // zsh's directory report, nonce'd, names the host.
    let place = remote.option("@wta_remote_shell");
    assert!(place.contains("\"cwd\":\"/"), "{place}");

    // The nonce reached zsh through the terminal only.
    remote.nonce_in_no_argv_or_environment("zsh -l -o no_rcs -o no_zle");

    // At exit zsh saves the commands it ran, and not the line that read
    // its rc; the local shell has the pane again.
    remote.pane.tmux.type_line(&remote.pane.shell, "exit");
    wait_until("the local shell's announcement is back", T, || {
        remote.option("@wta_remote_shell").is_empty()
            && remote.option(&format!("@wta_nonce_{aid}")).is_empty()
    })
    .unwrap_or_else(|e| panic!("{e}; shell pane:\n{}", remote.pane.shell_screen()));
    assert_eq!(remote.option("@wta_integration"), remote.local);
    let history = std::fs::read_to_string(remote.sshd.dir.path().join("remote-home/.zsh_history"))
        .unwrap_or_default();
    assert!(history.contains("greet"), "{history:?}");
    assert!(!history.contains("/dev/stdin"), "{history:?}");
}

#[test]
fn forged_marks_printed_by_a_remote_program_under_zsh_change_nothing() {
    let remote = remote_zsh();
    remote.forged_marks_change_nothing();
    // And zsh is still followed: the next card ends with its own result.
    remote.run_card("echo after-$((3*3))", r#""exit_code":0,"output":"after-9""#);
}
