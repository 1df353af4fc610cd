//! `wta ssh` end to end (issue 29), against a real OpenSSH server on
//! loopback (`ssh_common`): a private tmux server whose first pane is an
//! integrated local shell with the real master and helper beside it; the
//! user runs `wta ssh -F <config> lab` in that pane, and the agent pane's
//! cards run in the remote shell with their exit codes and output coming
//! back; the session's end hands the pane back to the local shell; killing
//! the session's sshd mid-command ends the card at once; forged marks from
//! the remote side change nothing; the nonce is in no remote argv or
//! environment.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;
mod ssh_common;
#[path = "ssh_common/remote.rs"]
mod ssh_session;

use std::time::{Duration, Instant};

use pane_tui_common::{Env, T, WTA};
use ssh_common::{HOST, cmdline};
use ssh_session::{Remote, quote};
use wta_testkit::{squeezed, wait_for_value, wait_until};

#[test]
fn cards_run_in_the_remote_bash_with_exit_codes_and_output() {
    let remote = Remote::open("bash", "/bin/bash");
    // The remote bash takes the command after its Run key (no file is
    // written there, and nothing is typed as editing keys): no keys note.
    remote.pane.submit("propose-run echo remote-$((40+2))");
    let card = remote.pane.wait_armed_card(" Run ");
    assert!(
        !squeezed(&card).contains(&squeezed("has no WTA key binding")),
        "{card}"
    );
    let inbox = format!("@wta_inbox_{}", remote.aid());
    assert_eq!(remote.option(&inbox), "keys", "announced by wta ssh");
    remote.pane.keys(&["Enter"]);
    remote
        .pane
        .wait_squeezed("[CLI: validation accepted, final confirmed, execution completed; exit 0]");
    let screen = remote.pane.wait_squeezed("action 1: the command succeeded");
    assert!(
        squeezed(&screen).contains(&squeezed(r#""exit_code":0,"output":"remote-42""#)),
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
    // The pane's last command is the remote one, for capture-pane too.
    let last = remote
        .pane
        .env
        .command()
        .args(["-S"])
        .arg(remote.pane.tmux.socket())
        .args(["capture-pane", "--last-command", "-t", &remote.pane.shell])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&last.stdout);
    assert!(
        text.contains("(echo boom-$((1+1)) >&2; exit 2)"),
        "{last:?}"
    );
    assert!(text.contains("exit 2") && text.contains("boom-2"), "{text}");
    // The remote shell's directory, nonce'd, names the host.
    let place = remote.option("@wta_remote_shell");
    assert!(place.contains("\"cwd\":\"/"), "{place}");

    remote.nonce_in_no_argv_or_environment("--rcfile /dev/stdin");
}

/// `wta resolve-command -t PANE` for the pane of a `wta ssh` session:
/// `indeterminate`, with the host in the reason; after the session, the
/// local answer again.
#[test]
fn resolve_command_is_indeterminate_for_the_remote_shell() {
    let remote = Remote::open("bash", "/bin/bash");
    let ask = || {
        let out = remote
            .pane
            .env
            .command()
            .arg("-L")
            .arg(remote.pane.tmux.name())
            .args(["resolve-command", "--json", "-t", &remote.pane.shell, "sh"])
            .output()
            .unwrap();
        let value: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
        (out.status.code(), value)
    };
    let (code, value) = ask();
    assert_eq!(
        (code, value["verdict"].as_str()),
        (Some(3), Some("indeterminate")),
        "{value:#}"
    );
    let reason = value["sources"][0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("lab") && reason.contains("wta ssh"),
        "{value:#}"
    );
    remote.pane.tmux.type_line(&remote.pane.shell, "exit");
    wait_until("the local shell has the pane again", T, || {
        remote.option("@wta_remote_shell").is_empty()
    })
    .unwrap();
    let (code, value) = ask();
    assert_eq!(
        (code, value["verdict"].as_str()),
        (Some(0), Some("exists")),
        "{value:#}"
    );
}

#[test]
fn the_end_of_the_session_hands_the_pane_back_to_the_local_shell() {
    let remote = Remote::open("bash", "/bin/bash");
    let aid = remote.aid();
    assert_eq!(remote.option("@wta_integration"), format!("bash {aid}"));
    remote.pane.tmux.type_line(&remote.pane.shell, "exit");
    wait_until("the local shell's announcement is back", T, || {
        remote.option("@wta_remote_shell").is_empty()
            && remote.option(&format!("@wta_nonce_{aid}")).is_empty()
    })
    .unwrap_or_else(|e| panic!("{e}; shell pane:\n{}", remote.pane.shell_screen()));
    assert_eq!(remote.option("@wta_integration"), remote.local);
    // The next card runs in the local shell, with its result.
    let screen = remote.run_card(
        "echo local-$((6*7)) $SSH_CONNECTION.",
        "action 1: the command succeeded",
    );
    assert!(
        squeezed(&screen).contains(&squeezed(r#""exit_code":0,"output":"local-42 .""#)),
        "{screen}"
    );
}

#[test]
fn killing_the_sessions_sshd_mid_command_ends_the_card_within_a_second() {
    let remote = Remote::open("bash", "/bin/bash");
    remote.pane.submit("propose-run sleep 30; echo slept");
    remote.pane.wait_armed_card(" Run ");
    remote.pane.keys(&["Enter"]);
    // The command runs on the remote host.
    wait_until("the remote sleep runs", T, || {
        remote
            .sshd
            .remote_processes()
            .iter()
            .any(|p| cmdline(*p) == "sleep 30")
    })
    .unwrap();
    let sessions = remote.sshd.sessions();
    assert!(!sessions.is_empty());
    let killed = Instant::now();
    for pid in sessions {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
    }
    let screen = remote.pane.wait_squeezed("execution unavailable");
    let took = killed.elapsed();
    assert!(
        took <= Duration::from_secs(1),
        "the card ended {took:?} after the session's sshd was killed:\n{screen}"
    );
    assert!(
        squeezed(&screen).contains(&squeezed(
            "the ssh session of the remote shell ended mid-command; exit status unknown"
        )),
        "{screen}"
    );
    // The local shell has the pane again.
    wait_until("the local shell's prompt", T, || {
        remote.option("@wta_remote_shell").is_empty()
    })
    .unwrap();
}

#[test]
fn forged_marks_from_the_remote_side_change_nothing() {
    let remote = Remote::open("bash", "/bin/bash");
    remote.forged_marks_change_nothing();
}

#[test]
fn a_remote_fish_gets_the_integration_too() {
    let remote = Remote::open("bash", "/usr/bin/fish");
    assert!(remote.option("@wta_integration").starts_with("fish "));
    let inbox = format!("@wta_inbox_{}", remote.aid());
    assert_eq!(
        remote.option(&inbox),
        "keys",
        "fish takes the RunHex key too"
    );
    let screen = remote.run_card(
        "echo fish-(math 40+2); false",
        "action 1: it failed with exit 1: fish-42.",
    );
    assert!(
        squeezed(&screen).contains(&squeezed(r#""exit_code":1,"output":"fish-42""#)),
        "{screen}"
    );
}

#[test]
fn a_remote_login_shell_without_integration_says_so() {
    let remote = Remote::local("bash", "/bin/sh");
    remote.ssh("");
    let note = "the login shell on lab is sh; WTA's integration there is for bash, zsh and fish";
    let screen = wait_for_value("the note in the shell pane", T, || {
        let screen = remote.pane.shell_screen();
        squeezed(&screen)
            .contains(&squeezed(note))
            .then_some(screen)
    })
    .unwrap_or_else(|e| panic!("{e}; shell pane:\n{}", remote.pane.shell_screen()));
    assert!(
        !screen.contains("7766"),
        "the ready mark is not shown:\n{screen}"
    );
    // A plain login shell runs there, untracked.
    remote
        .pane
        .tmux
        .type_line(&remote.pane.shell, "echo plain-$((2+3))");
    remote
        .pane
        .tmux
        .wait_for_text(&remote.pane.shell, "plain-5", T);
    assert!(remote.option("@wta_remote_shell").is_empty());
}

#[test]
fn a_plain_ssh_session_is_named_on_the_card_with_wta_ssh_suggested() {
    let remote = Remote::local("bash", "/bin/bash");
    let config = remote.sshd.client_config();
    let line = format!("ssh -F {} {HOST}", quote(&config.to_string_lossy()));
    remote.pane.tmux.type_line(&remote.pane.shell, &line);
    wait_until("the remote login runs", T, || {
        remote
            .sshd
            .remote_processes()
            .iter()
            .any(|p| cmdline(*p).contains("bash"))
    })
    .unwrap();
    remote.pane.submit("propose-run hostname");
    let card = remote.pane.wait_card(" Run ");
    // The long note, or the short one on a card short of room.
    let long = format!("{} is in a plain ssh session", remote.pane.shell);
    let short = format!("{}: ssh is not followed (use `wta ssh`)", remote.pane.shell);
    assert!(
        [long, short]
            .iter()
            .any(|note| squeezed(&card).contains(&squeezed(note))),
        "{card}"
    );
    remote
        .pane
        .wait_squeezed("Start the session with `wta ssh` (same options and host)");
}

/// A quiet remote command is not taken for one waiting for input: the
/// pane's terminal is read by `wta ssh`'s key copier all along, which must
/// not count as the command reading it.
#[test]
fn a_quiet_remote_command_is_followed_to_its_end() {
    let env = Env::with_config("[execution]\ninteractive_after_secs = 1\n");
    let remote = Remote::open_in(env, "bash", "/bin/bash");
    let screen = remote.run_card("sleep 2.5; echo slept", "action 1: the command succeeded");
    assert!(
        squeezed(&screen).contains(&squeezed(r#""exit_code":0,"output":"slept""#)),
        "{screen}"
    );
}

/// `prefix H` (`wta tmux-config`) hands the destination over in a tmux
/// buffer, split into words: options, host, `--` and a first command for
/// the remote shell; nothing runs through a local shell.
#[test]
fn the_destination_can_come_from_a_tmux_buffer() {
    let remote = Remote::local("bash", "/bin/bash");
    let config = remote.sshd.client_config();
    // With a first command for the remote shell after `--`.
    let typed = format!("-F {} {HOST} -- echo first-$((40+2))", config.display());
    remote
        .pane
        .tmux
        .tmux(&["set-buffer", "-b", "wta-ssh", "--", &typed]);
    let line = format!("{} ssh --host-buffer wta-ssh", quote(WTA));
    remote.pane.tmux.type_line(&remote.pane.shell, &line);
    remote.wait_remote_prompt();
    remote
        .pane
        .tmux
        .wait_for_text(&remote.pane.shell, "\nfirst-42", T);
    let last = remote.option("@wta_last_command");
    assert!(
        last.contains("echo first-$((40+2))"),
        "the first command is tracked: {last}"
    );
    assert!(
        remote
            .pane
            .tmux
            .try_tmux(&["show-buffer", "-b", "wta-ssh"])
            .is_none(),
        "the buffer is taken"
    );
}

/// A command that fails on the remote host raises autofix's pill, and the
/// fix's card runs there.
#[test]
fn a_remote_failure_offers_a_fix_that_runs_there() {
    let remote = Remote::open("bash", "/bin/bash");
    let (pane, shell) = (&remote.pane, remote.pane.shell.as_str());
    // The tab knows its agent pane (as `wta pane open` records it).
    pane.tmux.tmux(&[
        "set-option",
        "-w",
        "-t",
        shell,
        "@wta_agent_pane",
        &pane.pane,
    ]);
    pane.tmux.type_line(shell, "ls /nope-on-the-remote");
    pane.wait_squeezed(&format!("✗ exit 2 in {shell} · Ctrl+F fix"));
    let out = pane
        .env
        .command()
        .arg("-L")
        .arg(pane.tmux.name())
        .args([
            "fix",
            "-t",
            shell,
            "--hint",
            "propose-run echo fixed-on-$HOSTNAME-4\"\"2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.wait_squeezed("[CLI: validation accepted, final confirmed, execution completed; exit 0]");
    assert!(
        remote.option("@wta_remote_shell").contains("lab"),
        "still remote"
    );
}

/// `wta listen` reports the commands of the remote shell as it does a
/// local shell's.
#[test]
fn wta_listen_follows_the_remote_commands() {
    let remote = Remote::open("bash", "/bin/bash");
    let (pane, shell) = (&remote.pane, remote.pane.shell.as_str());
    let log = pane.env.path("listen.out");
    let listen = format!(
        "{} -L {} listen -t {shell} > {} 2>&1",
        quote(WTA),
        pane.tmux.name(),
        quote(&log.to_string_lossy())
    );
    pane.tmux.new_window(&listen);
    wait_until("the listen joins", T, || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.contains("listening"))
    })
    .unwrap();
    pane.tmux
        .type_line(shell, "echo listened-$((2*21)); (exit 3)");
    let text = wait_for_value("the remote command in the listen", T, || {
        let text = std::fs::read_to_string(&log).ok()?;
        text.contains("→ exit 3").then_some(text)
    })
    .unwrap_or_else(|e| panic!("{e}: {:?}", std::fs::read_to_string(&log)));
    assert!(
        text.contains("▶ echo listened-$((2*21)); (exit 3)"),
        "{text}"
    );
    assert!(text.contains("listened-42"), "{text}");
}
