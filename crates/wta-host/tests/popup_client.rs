//! A stashed pane shown in a tmux popup, on a private server with a real
//! terminal attached (a client running in a pane of a second private
//! server, whose screen is what the user's terminal shows):
//!
//! - while the popup is up the pane is visible (a popup's client counts),
//!   takes the popup's inner size, reads what is typed in the terminal,
//!   and stays out of every listing (its private session too);
//! - `close_popup` ends it, `show_popup` returns, and the pane is back in
//!   the stash at the size it had, unseen, with no session left behind;
//! - a top-left cell places the popup; a popup session left by a caller
//!   that never cleaned up is replaced; a terminal that does not exist is
//!   named in the error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use wta_host::{
    ClientName, HostError, PaneCommand, Popup, ServerLocation, Split, SplitDirection, TerminalHost,
    TmuxHost,
};
use wta_protocol::PaneId;
use wta_testkit::{TmuxServer, wait_until};

const T: Duration = Duration::from_secs(20);

struct World {
    server: TmuxServer,
    viewer: TmuxServer,
    /// The viewer's pane, where the terminal attached to `server` runs.
    screen: String,
    host: TmuxHost,
    shell: PaneId,
    agent: PaneId,
}

/// A shell and a stashed "agent" (`cat` after a banner) on a server a
/// 160x40 terminal shows.
fn world() -> World {
    let server = TmuxServer::start();
    let host = TmuxHost::new(ServerLocation::Socket(server.socket().to_path_buf()), None);
    let shell = PaneId::parse(server.first_pane()).unwrap();
    let agent = host
        .split(&Split {
            target: shell.clone(),
            direction: SplitDirection::Right,
            percent: Some(40),
            command: Some(PaneCommand::Argv(vec![
                "sh".into(),
                "-c".into(),
                "echo agent-banner; exec cat".into(),
            ])),
            cwd: None,
            env: Vec::new(),
            full: true,
            focus: false,
        })
        .unwrap()
        .id;
    server.wait_for_text(agent.as_str(), "agent-banner", T);
    let viewer = TmuxServer::start_with(&format!(
        "env -u TMUX tmux -S '{}' attach -t main",
        server.socket().display()
    ));
    let screen = viewer.first_pane().to_owned();
    wait_until("the terminal to attach", T, || {
        server.display("main:", "#{session_attached}") == "1"
    })
    .unwrap();
    assert!(host.visible(&agent).unwrap(), "beside the shell, seen");
    host.stash(&agent, &shell).unwrap();
    World {
        server,
        viewer,
        screen,
        host,
        shell,
        agent,
    }
}

fn popup(w: &World) -> Popup {
    Popup {
        client: None,
        over: w.shell.clone(),
        width_percent: 80,
        height_percent: 80,
        column: None,
        row: None,
    }
}

/// Shows the popup from another thread (the call returns once it closes)
/// and waits until the terminal shows it.
fn show(w: &World, popup: Popup) -> std::thread::JoinHandle<Result<(), HostError>> {
    let host = w.host.clone();
    let agent = w.agent.clone();
    let shown = std::thread::spawn(move || host.show_popup(&agent, &popup));
    wait_until("the popup", T, || {
        shown.is_finished()
            || (w.host.in_popup(&w.agent).unwrap()
                && w.viewer.capture(&w.screen).contains("agent-banner"))
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", w.viewer.capture(&w.screen)));
    assert!(
        !shown.is_finished(),
        "show_popup returned: {:?}",
        shown.join()
    );
    shown
}

fn size(w: &World) -> String {
    w.server
        .display(w.agent.as_str(), "#{pane_width}x#{pane_height}")
}

#[test]
fn a_popup_shows_the_stashed_pane_and_leaves_it_stashed() {
    let w = world();
    let stashed = size(&w);
    assert!(!w.host.visible(&w.agent).unwrap(), "stashed: unseen");
    assert!(!w.host.in_popup(&w.agent).unwrap());

    let shown = show(&w, popup(&w));
    assert!(w.host.visible(&w.agent).unwrap(), "a popup's client counts");
    // 80% of the 160x40 terminal, less the border.
    wait_until("the popup's size", T, || size(&w) == "126x30")
        .unwrap_or_else(|e| panic!("{e}: {}", size(&w)));
    let sessions = w.host.list_sessions().unwrap();
    assert!(
        sessions.iter().all(|s| s.name == "main"),
        "only the user's session is listed: {sessions:?}"
    );
    let panes = w.host.list_panes().unwrap();
    assert!(panes.iter().all(|p| p.id != w.agent), "{panes:?}");
    assert_eq!(
        w.host.recent_session().unwrap().unwrap().name,
        "main",
        "the popup's client attached last, its session is never chosen"
    );

    // What the user types in their terminal reaches the pane.
    w.viewer
        .tmux(&["send-keys", "-t", &w.screen, "-l", "typed-in-popup"]);
    w.viewer.tmux(&["send-keys", "-t", &w.screen, "Enter"]);
    w.server
        .wait_for_text(w.agent.as_str(), "typed-in-popup\ntyped-in-popup", T);

    assert!(w.host.close_popup(&w.agent).unwrap());
    shown.join().unwrap().unwrap();
    assert!(!w.host.in_popup(&w.agent).unwrap());
    assert!(!w.host.visible(&w.agent).unwrap(), "closed: unseen again");
    assert_eq!(size(&w), stashed, "the stashed size again");
    assert_eq!(
        w.server.display(w.agent.as_str(), "#{session_name}"),
        "_wta_stash"
    );
    let left = w.server.tmux(&["list-sessions", "-F", "#{session_name}"]);
    assert!(!left.contains("_wta_popup_"), "{left}");
    assert!(!w.host.close_popup(&w.agent).unwrap(), "nothing to close");
    wait_until("the popup to leave the terminal", T, || {
        !w.viewer.capture(&w.screen).contains("agent-banner")
    })
    .unwrap();

    // Back beside the shell, at the size it had there.
    w.host.restore(&w.agent).unwrap();
    assert_eq!(size(&w), stashed);
    assert!(w.host.visible(&w.agent).unwrap());
}

#[test]
fn a_popup_goes_where_asked_and_replaces_a_stale_session() {
    let w = world();
    // A popup session whose cleanup never ran (its caller was killed).
    let stale = format!("_wta_popup_{}", &w.agent.as_str()[1..]);
    w.server
        .tmux(&["new-session", "-d", "-s", &stale, "tail -f /dev/null"]);

    let placed = Popup {
        width_percent: 50,
        height_percent: 50,
        column: Some(3),
        row: Some(2),
        ..popup(&w)
    };
    let shown = show(&w, placed);
    let screen = w.viewer.capture(&w.screen);
    let rows: Vec<&str> = screen.lines().collect();
    assert!(
        rows[2].starts_with("   ┌") && rows[3].contains("agent-banner"),
        "the popup's top-left corner at column 3, row 2:\n{screen}"
    );
    wait_until("the popup's size", T, || size(&w) == "78x18")
        .unwrap_or_else(|e| panic!("{e}: {}", size(&w)));
    // tmux's own detach (prefix d in the popup) closes it too.
    w.viewer.tmux(&["send-keys", "-t", &w.screen, "C-b", "d"]);
    shown.join().unwrap().unwrap();
    assert!(!w.host.in_popup(&w.agent).unwrap());

    let elsewhere = Popup {
        client: Some(ClientName::parse("/dev/pts/nowhere").unwrap()),
        ..popup(&w)
    };
    let err = w.host.show_popup(&w.agent, &elsewhere).unwrap_err();
    assert!(
        matches!(&err, HostError::ClientNotFound(c) if c == "/dev/pts/nowhere"),
        "{err}"
    );
    let shell_popup = w.host.show_popup(&w.shell, &popup(&w)).unwrap_err();
    assert!(
        shell_popup.to_string().contains("not stashed"),
        "{shell_popup}"
    );
    let left = w.server.tmux(&["list-sessions", "-F", "#{session_name}"]);
    assert!(!left.contains("_wta_popup_"), "{left}");
}
