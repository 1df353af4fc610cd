//! A pane that starts out stashed (autofix's warm helpers): created out of
//! sight in the stash session at the size it will have, never shown in the
//! user's window, and joined at its side with that size on restore.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use wta_host::{PaneCommand, ServerLocation, Split, SplitDirection, TerminalHost, TmuxHost};
use wta_protocol::PaneId;
use wta_testkit::TmuxServer;

#[test]
fn a_stashed_spawn_is_unseen_until_restored_at_its_side_and_size() {
    let server = TmuxServer::start();
    let host = TmuxHost::new(ServerLocation::Socket(server.socket().to_path_buf()), None);
    let shell = PaneId::parse(server.first_pane()).unwrap();
    server.tmux(&[
        "resize-window",
        "-t",
        shell.as_str(),
        "-x",
        "100",
        "-y",
        "30",
    ]);
    let window = host.pane(&shell).unwrap().window;

    let pane = host
        .spawn_stashed(&Split {
            target: shell.clone(),
            direction: SplitDirection::Right,
            percent: Some(40),
            command: Some(PaneCommand::Argv(vec!["sleep".into(), "600".into()])),
            cwd: None,
            env: Vec::new(),
            full: true,
            focus: false,
        })
        .unwrap();
    assert_ne!(pane.window, window, "out of sight");
    assert_eq!(
        host.window_panes(&window).unwrap().len(),
        1,
        "the window is untouched"
    );
    assert_eq!(
        server.display(pane.id.as_str(), "#{pane_width}x#{pane_height}"),
        "40x30"
    );
    assert!(
        host.list_panes().unwrap().iter().all(|p| p.id != pane.id),
        "the stash is hidden from listings"
    );

    let record = host.restore(&pane.id).unwrap();
    assert_eq!(
        (record.window, record.neighbour),
        (window.clone(), shell.clone())
    );
    let panes = host.window_panes(&window).unwrap();
    assert_eq!(panes.len(), 2);
    let restored = panes.iter().find(|p| p.id == pane.id).unwrap();
    assert_eq!(
        server.display(restored.id.as_str(), "#{pane_at_right} #{pane_width}"),
        "1 40"
    );
}
