//! An agent pane beside a shell without WTA's integration (issue 27): the
//! pane says so when it starts following that shell, with the exact line
//! that adds it; the card says before Run that no exit status will come
//! back; the command still runs when confirmed, and is reported as such.
//! Real tmux, master, helper and bash; the scripted agent decides.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;

use pane_tui_common::{Env, Pane, T};
use wta_testkit::{TmuxServer, squeezed, wait_until};

#[test]
fn a_plain_shell_is_named_with_the_line_that_integrates_it() {
    let pane = Pane::open_on(
        Env::new(),
        "custom:test",
        TmuxServer::start_with("bash --norc --noprofile -i"),
    );
    pane.wait_ready();
    let screen = pane.wait_squeezed(&format!(
        "{} runs bash without WTA's shell integration",
        pane.shell
    ));
    assert!(
        squeezed(&screen).contains(&squeezed(
            r#"eval "$(wta shell-integration bash)"   # in ~/.bashrc"#
        )),
        "{screen}"
    );
    pane.submit("propose-run echo plain-$((40+2))");
    let card = pane.wait_armed_card(" Run ");
    assert!(
        squeezed(&card).contains(&squeezed("no exit status")),
        "the card says it before Run: {card}"
    );
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "plain-42", T);
    let screen = pane.wait_squeezed("execution completion_unavailable");
    assert!(!screen.contains("the command succeeded"), "{screen}");
}

#[test]
fn a_shell_with_integration_is_not_warned_about() {
    let pane = pane_tui_common::integrated_pane_in("bash");
    wait_until("the agent pane follows the shell", T, || {
        pane.tmux.display(&pane.shell, "#{pane_pipe}") == "1"
    })
    .unwrap();
    pane.submit("propose-run echo tracked-$((40+2))");
    let card = pane.wait_armed_card(" Run ");
    assert!(
        !squeezed(&card).contains(&squeezed("no exit status")),
        "{card}"
    );
    assert!(
        !squeezed(&pane.screen()).contains(&squeezed("without WTA's shell integration")),
        "{}",
        pane.screen()
    );
    pane.keys(&["Enter"]);
    pane.wait_squeezed("action 1: the command succeeded");
}
