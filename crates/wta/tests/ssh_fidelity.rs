//! Typing fidelity over `wta ssh` (issue 29): the local shells' fidelity
//! corpus (`typing_corpus`, shared with `wta-shell`'s `typing_fidelity.rs`)
//! run as cards through a `wta ssh` session to a remote bash, and to a
//! remote zsh, on a real sshd on loopback. For each generated command, the
//! card shows it, and after Run the command line the remote shell reported
//! (its nonce'd `C` mark, as `capture-pane --last-command` keeps it) equals
//! it byte for byte, the command printed exactly its argument, and nothing
//! in the text ran on its own (no sentinel file appears, here or on the
//! remote side).

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;
mod ssh_common;
#[path = "ssh_common/remote.rs"]
mod ssh_session;
#[path = "../../wta-shell/tests/typing_corpus/mod.rs"]
mod typing_corpus;

use pane_tui_common::{Env, T};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use ssh_common::Sshd;
use ssh_session::Remote;
use typing_corpus::{printf_command, tricky};
use wta_shell::Shell;
use wta_shell::last_command::LastCommand;
use wta_testkit::{squeezed, wait_for_value};

/// Cases: each is a card round trip over ssh (under a second on loopback).
const CASES: u32 = 16;

/// The pane's last command as the watcher recorded it, if any.
fn last_command(remote: &Remote) -> Option<LastCommand> {
    serde_json::from_str(&remote.option("@wta_last_command")).ok()
}

/// The agent's proposal of `command` under a short title (a card's title
/// holds 200 characters; the corpus's commands may be longer).
fn payload(command: &str) -> String {
    serde_json::json!({
        "schema_version": 1, "origin": "terminal_agent", "recommended_choice": 1,
        "choices": [{"choice": 1, "title": "fidelity case", "rationale": "the corpus",
                     "actions": [{"type": "send", "input": command}]}]
    })
    .to_string()
}

#[test]
fn what_the_remote_bash_ran_is_what_the_card_showed() {
    fidelity_over_ssh("/bin/bash", Shell::Bash);
}

#[test]
fn what_the_remote_zsh_ran_is_what_the_card_showed() {
    fidelity_over_ssh("/usr/bin/zsh", Shell::Zsh);
}

/// The corpus as cards in a `wta ssh` session whose login shell is `login`.
fn fidelity_over_ssh(login: &str, shell: Shell) {
    // A remote session in a UTF-8 locale, as ssh's usual `SendEnv LANG`
    // gives one (line editors in the C locale would take the unicode apart).
    let sshd = Sshd::start_with_env(login, &[("LANG", "C.UTF-8")]);
    let remote = Remote::local_with(Env::new(), "bash", sshd);
    remote.ssh("");
    remote.wait_remote_prompt();
    let sentinel = remote.sshd.dir.path().join("pwned");
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        // A case is a card round trip: a failure is reported as it came
        // (each shrinking step would wait out the card's timeout).
        max_shrink_iters: 0,
        failure_persistence: None,
        ..Config::default()
    });
    let ran_cases = std::cell::Cell::new(0u32);
    let result = runner.run(&tricky(&sentinel), |text| {
        let input = printf_command(shell, &text);
        // The record of this run, not the last one (the corpus may give the
        // same command twice): the option is cleared first.
        remote.pane.tmux.tmux(&[
            "set-option",
            "-p",
            "-u",
            "-t",
            &remote.pane.shell,
            "@wta_last_command",
        ]);
        remote.pane.submit(&format!("propose {}", payload(&input)));
        let card = remote.pane.wait_armed_card(" Run ");
        prop_assert!(
            squeezed(&card).contains(&squeezed(&input)),
            "the card shows {input:?}:\n{card}"
        );
        remote.pane.keys(&["Enter"]);
        let ran = wait_for_value("the remote command's record", T, || last_command(&remote))
            .unwrap_or_else(|e| {
                panic!(
                    "{e}; shell pane:\n{}\nagent pane:\n{}",
                    remote.pane.shell_screen(),
                    remote.pane.screen()
                )
            });
        prop_assert_eq!(ran.cmdline.as_deref(), Some(input.as_str()));
        prop_assert_eq!((ran.exit_code, ran.end_reason.as_str()), (Some(0), "mark"));
        // The rendered screen text drops trailing blanks, as a terminal shows
        // it; the shell printed one line, so the output is one line, even
        // where a wide character wrapped early at the pane's last column.
        prop_assert_eq!(ran.output.as_str(), text.trim_end());
        // The turn is over before the next prompt is typed.
        wait_for_value("the agent's turn ends", T, || {
            (!remote.pane.screen().contains("Thinking")).then_some(())
        })
        .unwrap();
        ran_cases.set(ran_cases.get() + 1);
        Ok(())
    });
    result.unwrap_or_else(|e| panic!("{e}; shell pane:\n{}", remote.pane.shell_screen()));
    assert_eq!(ran_cases.get(), CASES, "every case ran a card");
    // A stray background job gets a moment (tmux runs its queue in order),
    // then none ran: not tmux's `#(…)`, not a substitution in either shell.
    remote.pane.tmux.tmux(&["run-shell", "true"]);
    assert!(!sentinel.exists(), "tmux ran a job from the typed text");
    assert!(
        !sentinel.with_extension("2").exists(),
        "a shell ran a substitution"
    );
    // Still the remote shell, followed.
    assert!(
        remote
            .option("@wta_remote_shell")
            .contains("\"host\":\"lab\"")
    );
}
