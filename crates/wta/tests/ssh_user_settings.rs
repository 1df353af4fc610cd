//! `wta ssh` in the settings users have on their servers: a remote bash
//! with vi mode, `HISTCONTROL=ignoreboth` and `LANG=C`, a remote zsh with
//! vi key bindings and a remote fish in vi mode, both in the C locale, the
//! local pane 40 columns wide. A
//! card's command with quotes, `$(…)`, `!` and Japanese text runs there as
//! shown, the shell reports that command line, and its output comes back
//! whole (real tmux, real sshd on loopback, real shells). Typed as keys
//! the `!` was history-expanded and zsh's line editor turned Japanese into
//! `?` in the C locale, and a fish left in vi normal mode read typed keys
//! as motions: the command follows the RunHex key as hex digits the
//! shell's own function reads (`wta_shell::handoff::Delivery::Keys`).

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;
mod ssh_common;
#[path = "ssh_common/remote.rs"]
mod ssh_session;

use pane_tui_common::Env;
use ssh_common::Sshd;
use ssh_session::Remote;

/// The card's command: quotes, a substitution, `!` (in double quotes too,
/// where bash expands it) and Japanese.
const COMMAND: &str = "echo \"a b 日本語\" 'c  d' $(echo e) \"x!y\" !z";
const OUTCOME: &str = r#""exit_code":0,"output":"a b 日本語 c  d e x!y !z""#;
/// What the card says when the shell ran something else.
const OTHER_COMMAND: &str = "the shell reported a different command";

/// Runs [`COMMAND`] and checks that the shell reported it as shown, then
/// a second card: the shell is still followed after the first.
fn runs_as_shown(remote: &Remote) {
    let screen = remote.run_card(COMMAND, OUTCOME);
    assert!(!screen.contains(OTHER_COMMAND), "{screen}");
    remote.run_card(
        "echo again-$((6*7))",
        r#""exit_code":0,"output":"again-42""#,
    );
}

/// A session to a remote `shell` whose startup files are `files` (name,
/// text) in the remote home, with the local shell pane 40 columns wide.
fn session(shell: &str, files: &[(&str, &str)]) -> Remote {
    let sshd = Sshd::start(shell);
    let home = sshd.dir.path().join("remote-home");
    for (name, text) in files {
        let file = home.join(name);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
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
    runs_as_shown(&remote);
    // History expansion is back for what the user types.
    let (tmux, shell) = (&remote.pane.tmux, &remote.pane.shell);
    for line in ["true hist-one", "echo !!"] {
        tmux.type_line(shell, line);
    }
    // bash prints the line `!!` expanded to.
    tmux.wait_for_text(shell, "echo true hist-one", pane_tui_common::T);
}

#[test]
fn a_remote_zsh_with_vi_keys_in_the_c_locale_runs_the_card_as_shown() {
    let rc = "bindkey -v\nsetopt hist_ignore_space\nexport LANG=C LC_ALL=C\n";
    let remote = session("/usr/bin/zsh", &[(".zshrc", rc)]);
    runs_as_shown(&remote);
    // An Insert goes by the same route (InsertHex): the line holds the
    // command as the card showed it (typed as keys, zle made `?` of the
    // Japanese), and the user's own Enter runs it.
    remote
        .pane
        .submit("propose-run echo \"日本語\" ins-$((5+5))");
    remote.pane.wait_armed_card(" Insert ");
    remote.pane.keys(&["Right"]);
    remote.pane.keys(&["Enter"]);
    remote
        .pane
        .wait_squeezed("action 1: inserted; nothing ran.");
    let (tmux, shell) = (&remote.pane.tmux, &remote.pane.shell);
    tmux.wait_for_text(shell, "ins-$((5+5))", pane_tui_common::T);
    tmux.tmux(&["send-keys", "-t", shell, "Enter"]);
    tmux.wait_for_text(shell, "日本語 ins-10", pane_tui_common::T);
}

#[test]
fn a_remote_fish_in_vi_mode_in_the_c_locale_runs_the_card_as_shown() {
    let config = "fish_vi_key_bindings\nset -gx LANG C\nset -gx LC_ALL C\n";
    let remote = session("/usr/bin/fish", &[(".config/fish/config.fish", config)]);
    // The user left the line in vi normal mode, where typed keys would be
    // motions and commands.
    remote
        .pane
        .tmux
        .tmux(&["send-keys", "-t", &remote.pane.shell, "Escape"]);
    // fish's mode prompt says `[N]` there.
    remote
        .pane
        .tmux
        .wait_for_text(&remote.pane.shell, "[N]", pane_tui_common::T);
    // fish has no history expansion: quotes, a substitution, `!` and
    // Japanese.
    let screen = remote.run_card(
        "echo \"a b 日本語\" 'c  d' (echo e) \"x!y\" !z",
        r#""exit_code":0,"output":"a b 日本語 c  d e x!y !z""#,
    );
    assert!(!screen.contains(OTHER_COMMAND), "{screen}");
}
