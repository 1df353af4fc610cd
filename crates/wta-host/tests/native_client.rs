//! WTA talks to a running tmux server over its socket, without the `tmux`
//! binary: with the binary made unreachable, every operation on a live
//! server still works, output and errors read as tmux's own; with no server
//! the binary is asked (it starts one, or says why not).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use wta_host::{
    AsyncHost, HostError, NewTab, PaneCommand, ServerLocation, TerminalHost, TmuxHost, Typing,
};
use wta_protocol::PaneId;
use wta_testkit::TmuxServer;

fn host_without_binary(server: &TmuxServer) -> TmuxHost {
    TmuxHost::new(
        ServerLocation::Socket(server.socket().to_path_buf()),
        Some(PaneId::parse(server.first_pane()).unwrap()),
    )
    .with_binary("/nonexistent/tmux")
}

#[test]
fn a_live_server_is_driven_without_the_binary() {
    let server = TmuxServer::start();
    let host = host_without_binary(&server);
    let info = host.server_info().unwrap();
    assert_eq!(
        info.pane.as_ref().map(PaneId::as_str),
        Some(server.first_pane())
    );
    let tab = host
        .new_tab(&NewTab {
            after: None,
            title: Some("ünï #(x) ;".into()),
            command: Some(PaneCommand::Argv(vec!["cat".into()])),
            ..NewTab::default()
        })
        .unwrap();
    let listed = host.list_panes().unwrap();
    assert!(listed.iter().any(|p| p.id == tab.id));
    host.send_text(&tab.id, "typed through the socket", true)
        .unwrap();
    wta_testkit::wait_until("the echo", std::time::Duration::from_secs(10), || {
        host.capture(&tab.id, None)
            .is_ok_and(|t| t.contains("typed through the socket"))
    })
    .unwrap();
    // tmux's own errors come back typed.
    let missing = PaneId::from_number(999);
    assert!(matches!(
        host.kill_pane(&missing),
        Err(HostError::PaneNotFound(p)) if p.contains("%999")
    ));
    assert!(
        !host
            .window_exists(&wta_protocol::WindowId::from_number(999))
            .unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_async_face_runs_without_the_binary_too() {
    let server = TmuxServer::start();
    let host = host_without_binary(&server);
    let pane = PaneId::parse(server.first_pane()).unwrap();
    let probe = host.probe(&pane, &["@wta_test"]).await.unwrap();
    assert_eq!(probe.option(0), "");
    AsyncHost::set_option(&host, &pane, "@wta_test", "v#(x);")
        .await
        .unwrap();
    assert_eq!(
        host.probe(&pane, &["@wta_test"]).await.unwrap().option(0),
        "v#(x);"
    );
    let typing = Typing {
        clear_line: true,
        enter: true,
    };
    host.type_text(&pane, "echo async-native", typing)
        .await
        .unwrap();
    let screen =
        wta_testkit::wait_for_value("the output", std::time::Duration::from_secs(10), || {
            let screen = server.capture(server.first_pane());
            screen.contains("async-native\n").then_some(screen)
        });
    assert!(screen.is_ok());
}

#[test]
fn without_a_server_the_binary_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let host = TmuxHost::new(ServerLocation::Socket(dir.path().join("none")), None)
        .with_binary("/nonexistent/tmux");
    assert!(matches!(host.list_sessions(), Err(HostError::TmuxMissing)));
    let started = host.new_session(&wta_host::NewSession {
        name: "s".into(),
        size: wta_host::PaneSize { cols: 80, rows: 24 },
        cwd: None,
        env: vec![],
        argv: vec!["true".into()],
    });
    assert!(
        matches!(started, Err(HostError::TmuxMissing)),
        "{started:?}"
    );
}
