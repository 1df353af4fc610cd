//! A tab opened "after" a pane lands in that pane's session, right after its
//! tab, whatever session the caller's own pane is in: an agent pane hidden
//! in the stash session opens its cards' tabs beside the shell it works on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use wta_host::{NewTab, ServerLocation, TerminalHost, TmuxHost};
use wta_protocol::PaneId;
use wta_testkit::TmuxServer;

#[test]
fn a_tab_after_a_pane_opens_in_that_panes_session_not_the_callers() {
    let server = TmuxServer::start();
    let shell = PaneId::parse(server.first_pane()).unwrap();
    // The caller's pane, in another session (as the stash would be).
    let elsewhere = server
        .tmux(&[
            "new-session",
            "-d",
            "-s",
            "elsewhere",
            "-P",
            "-F",
            "#{pane_id}",
        ])
        .trim()
        .to_owned();
    let caller = PaneId::parse(&elsewhere).unwrap();
    let host = TmuxHost::new(
        ServerLocation::Socket(server.socket().to_path_buf()),
        Some(caller.clone()),
    );
    let tab = |after| NewTab {
        after,
        session: None,
        command: None,
        cwd: None,
        title: None,
        env: Vec::new(),
        focus: false,
    };
    let opened = host.new_tab(&tab(Some(shell.clone()))).unwrap();
    let home = host.pane(&shell).unwrap();
    assert_eq!(opened.session, home.session);
    assert_eq!(
        opened.window_index,
        home.window_index + 1,
        "right after its tab"
    );
    // Without `after`, the caller's session, as before.
    let theirs = host.new_tab(&tab(None)).unwrap();
    assert_eq!(theirs.session, host.pane(&caller).unwrap().session);
}
