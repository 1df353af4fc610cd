//! Snapshots of the status line while the target pane runs a plain `ssh`
//! (issue 29): the target segment says the pane is not followed
//! (`%3 ⚠ ssh: not followed`) at 80 columns and keeps a shorter form at
//! 40, ahead of yolo's off state; back at the local prompt the pane and
//! its cwd come back. Facts of another pane change nothing.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::Fixture;
use wta_state::*;

fn facts(program: Option<&str>) -> PaneFacts {
    PaneFacts {
        busy: program.map(|p| Busy::Running {
            command: format!("{p} build-box"),
        }),
        untracked: program.map(|p| Untracked {
            program: p.into(),
            rc_line: None,
        }),
        ..PaneFacts::default()
    }
}

fn told(f: &mut Fixture, pane: &str, program: Option<&str>) {
    f.domain(DomainEvent::PaneFacts {
        pane: pane.into(),
        facts: facts(program),
    });
}

fn status_line(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| l.contains("Ready"))
        .unwrap_or("")
        .to_owned()
}

#[test]
fn a_plain_ssh_in_the_target_pane_shows_on_the_status_line() {
    let mut f = Fixture::ready();
    told(&mut f, "%3", Some("ssh"));
    let wide = f.render(80, 8);
    insta::assert_snapshot!("ssh_status_80x8", wide);
    let line = status_line(&wide);
    assert!(line.contains("%3 ⚠ ssh: not followed"), "{wide}");
    assert!(
        !line.contains("/home/ada"),
        "the local cwd is not where commands run: {wide}"
    );
    let narrow = f.render(40, 8);
    insta::assert_snapshot!("ssh_status_40x8", narrow);
    let line = status_line(&narrow);
    assert!(line.contains("⚠ ssh"), "{narrow}");
    assert!(!line.contains("not followed"), "{narrow}");

    // Back at the local prompt: the pane and its cwd again.
    told(&mut f, "%3", None);
    let line = status_line(&f.render(80, 8));
    assert!(!line.contains('⚠'), "{line}");
    assert!(line.contains("%3 /home/ada/src/wta"), "{line}");
}

#[test]
fn mosh_is_named_and_other_untracked_shells_or_panes_are_not() {
    let mut f = Fixture::ready();
    told(&mut f, "%3", Some("mosh"));
    assert!(
        status_line(&f.render(80, 8)).contains("%3 ⚠ mosh: not followed"),
        "{}",
        f.render(80, 8)
    );
    // A shell without integration is the card's to say, not a remote login.
    told(&mut f, "%3", Some("dash"));
    assert!(!status_line(&f.render(80, 8)).contains('⚠'));
    // Another pane's ssh is not the target's.
    told(&mut f, "%3", None);
    told(&mut f, "%5", Some("ssh"));
    assert!(!status_line(&f.render(80, 8)).contains('⚠'));
}
