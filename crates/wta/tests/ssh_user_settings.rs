//! `wta ssh` in the settings users have on their servers: a remote bash
//! with vi mode, `HISTCONTROL=ignoreboth` and `LANG=C`, the local pane 40
//! columns wide. A card's command with quotes, `$(…)` and Japanese text
//! runs there as shown and its output comes back whole (real tmux, real
//! sshd on loopback, real shells). Not yet here (issue 29's note): a `!`
//! (over `wta ssh` a card's command is typed as keys, and bash and zsh
//! history-expand it), and a remote zsh without a UTF-8 locale (it reports
//! Japanese in the command line as `?`).

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;
mod ssh_common;
#[path = "ssh_common/remote.rs"]
mod ssh_session;

use pane_tui_common::Env;
use ssh_common::Sshd;
use ssh_session::Remote;

/// The card's command: quotes, a substitution and Japanese.
const COMMAND: &str = "echo \"a b 日本語\" 'c  d' $(echo e)";
const OUTCOME: &str = r#""exit_code":0,"output":"a b 日本語 c  d e""#;

/// A session to a remote `shell` whose startup files are `files` (name,
/// text) in the remote home, with the local shell pane 40 columns wide.
fn session(shell: &str, files: &[(&str, &str)]) -> Remote {
    let sshd = Sshd::start(shell);
    let home = sshd.dir.path().join("remote-home");
    for (name, text) in files {
        std::fs::write(home.join(name), text).unwrap();
    }
    let remote = Remote::local_with(Env::new(), "bash", sshd);
    remote
        .pane
        .tmux
        .tmux(&["resize-pane", "-t", &remote.pane.shell, "-x", "40"]);
    remote.ssh("");
    remote.wait_remote_prompt();
    remote
}

#[test]
fn a_remote_bash_in_vi_mode_with_ignoreboth_and_lang_c_runs_the_card_as_shown() {
    let rc = "set -o vi\nHISTCONTROL=ignoreboth\nexport LANG=C LC_ALL=C\n";
    let remote = session(
        "/bin/bash",
        &[(".bash_profile", ". ~/.bashrc\n"), (".bashrc", rc)],
    );
    remote.run_card(COMMAND, OUTCOME);
    // And again: the shell is still followed after the first card.
    remote.run_card(
        "echo again-$((6*7))",
        r#""exit_code":0,"output":"again-42""#,
    );
}
