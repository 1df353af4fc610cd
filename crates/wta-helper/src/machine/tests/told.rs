//! One owner per fact: the link, the session and quitting are the
//! machine's, and the app only shows what it is told. Through a pane's
//! whole life (linking, a session, the master going, a reconnect that
//! fails and one that works, `/restart`, quitting) the app's connection
//! agrees with the machine's link and session after every step, and what
//! the user does (Enter, `/restart`, Ctrl+C twice) only asks.

use wta_state::{ConnectionState, Key, KeyCode};

use super::*;

/// Whether the app shows what the machine holds.
fn agrees(m: &Machine) -> bool {
    use ConnectionState::*;
    let shown = &m.app.connection;
    match m.pane.link {
        Link::Down => matches!(
            shown,
            MasterLost {
                reconnecting: false
            } | Failed(_)
        ),
        Link::StartingMaster => *shown == MasterLost { reconnecting: true },
        Link::Connecting { reconnect: true } => matches!(shown, MasterLost { .. }),
        Link::Connecting { reconnect: false } => *shown == Connecting,
        // Linked: ready once a session is open, else opening one.
        Link::Up if m.pane.session.is_some() && !m.pane.loading => *shown == Ready,
        Link::Up => matches!(shown, Connecting | Failed(_)),
    }
}

fn key(m: &mut Machine, key: Key, at: Instant) -> Vec<Command> {
    step(m, Input::App(Event::Key(key)), at)
}

#[test]
fn the_app_is_told_the_link_and_the_session_and_never_guesses() {
    let t = t0();
    let mut m = Machine::new(config());
    let mut all = m.start(t);
    let check = |m: &Machine, when: &str| {
        assert!(
            agrees(m),
            "{when}: link {:?}, session {:?}, app {:?}",
            m.pane.link,
            m.pane.session,
            m.app.connection
        );
    };
    check(&m, "started");
    all.extend(step(&mut m, linked(), t));
    check(&m, "linked");
    step(&mut m, opened("s1", json!({})), t);
    check(&m, "opened");
    assert_eq!(m.app.connection, ConnectionState::Ready);

    // The master goes: the app says so once the machine knows why.
    step(&mut m, Input::MasterClosed, t);
    assert_eq!(m.pane.link, Link::Down);
    let why = "the wta master (pid 7) is gone without shutting down".to_owned();
    step(&mut m, Input::MasterExplained { why }, t);
    check(&m, "master gone");
    assert!(m.app.master_lost() && !m.app.reconnecting());

    // Enter asks; the machine starts a master and the app shows it.
    let enter = Key::plain(KeyCode::Enter);
    let commands = key(&mut m, enter, t);
    assert_eq!(commands, [Command::StartMaster]);
    check(&m, "reconnecting");
    assert!(m.app.reconnecting());
    assert!(key(&mut m, enter, t).is_empty(), "one attempt at a time");
    step(&mut m, Input::MasterStarted(Err("no tmux".into())), t);
    check(&m, "reconnect failed");
    assert!(!m.app.reconnecting());
    assert!(
        system(&m, SystemLevel::Error)
            .iter()
            .any(|l| l.starts_with("Reconnecting failed:")),
        "{:?}",
        system(&m, SystemLevel::Error)
    );

    // Again, and this time a master answers.
    assert_eq!(key(&mut m, enter, t), [Command::StartMaster]);
    let commands = step(&mut m, Input::MasterStarted(Ok(())), t);
    assert!(
        commands
            .iter()
            .any(|c| matches!(c, Command::Connect { .. })),
        "{commands:?}"
    );
    check(&m, "linking again");
    step(&mut m, linked(), t);
    check(&m, "linked again");
    assert!(!m.app.master_lost());
    step(&mut m, opened("s2", json!({})), t);
    check(&m, "a new session");

    // `/restart` asks; the machine says the session is being opened.
    let commands = submit(&mut m, "/restart");
    assert!(
        commands.iter().any(|c| matches!(
            c,
            Command::OpenSession {
                fresh_agent: true,
                ..
            }
        )),
        "{commands:?}"
    );
    assert_eq!(m.app.connection, ConnectionState::Connecting);
    step(&mut m, opened("s3", json!({})), t);
    check(&m, "restarted");
    assert_eq!(m.app.connection, ConnectionState::Ready);

    // Quitting is the machine's too: Ctrl+C twice asks, and it quits.
    let ctrl_c = Key::ctrl('c');
    key(&mut m, ctrl_c, t);
    assert!(!m.quit_requested());
    key(&mut m, ctrl_c, t + Duration::from_millis(500));
    assert!(m.quit_requested());
}

/// A session that could not open leaves the app failed with the reason,
/// and the machine with no session.
#[test]
fn a_failed_open_is_the_machines_and_the_app_says_why() {
    let mut m = Machine::new(config());
    m.start(t0());
    step(&mut m, linked(), t0());
    let failed = Input::SessionOpened {
        agent: "custom:test".into(),
        result: Box::new(Err(ConnectionError::BadReply("no".into()))),
    };
    step(&mut m, failed, t0());
    assert_eq!(m.pane.session, None);
    assert!(agrees(&m));
    assert!(
        matches!(&m.app.connection, ConnectionState::Failed(why) if why.contains("no")),
        "{:?}",
        m.app.connection
    );
}
