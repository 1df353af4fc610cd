//! The master going away and the user's reconnect, through `update`: what
//! the state keeps, what it drops, and which effects come out.

use std::time::Duration;

use super::test_pane::*;
use super::*;

const WHY: &str = "the wta master (pid 42) is gone without shutting down: it was killed or crashed";

impl Pane {
    fn gone(&mut self) -> Vec<Effect> {
        self.domain(DomainEvent::MasterGone { why: WHY.into() })
    }

    fn items(&self) -> Vec<Item> {
        self.state
            .transcript
            .entries()
            .iter()
            .map(|e| e.item.clone())
            .collect()
    }
}

/// The master going away mid-turn: the turn closes, its card is answered
/// `cancelled` once, the queued message returns to the editor, and the
/// pane says what happened.
#[test]
fn the_master_going_away_keeps_the_pane_and_says_why() {
    let mut p = Pane::on_model(None);
    p.typed("first question");
    p.enter();
    p.domain(DomainEvent::AgentMessageChunk("half an answ".into()));
    p.domain(DomainEvent::PermissionRequest(permission(7)));
    p.typed("wait");
    p.enter(); // the card is not armed yet: nothing, the draft stays
    p.state.queued = Some("queued one".into());
    let fx = p.gone();
    assert_eq!(
        fx,
        [Effect::AnswerPermission {
            request: PermissionRequestId(7),
            answer: PermissionAnswer::Cancelled,
        }]
    );
    assert!(!p.state.transcript.turn_running());
    assert!(p.state.permissions.is_empty());
    assert_eq!(p.state.input.text(), "queued one\nwait");
    assert_eq!(
        p.state.connection,
        ConnectionState::MasterLost {
            reconnecting: false
        }
    );
    assert_eq!(p.state.activity(), Activity::MasterLost);
    assert!(!p.state.needs_tick(), "waiting for Enter costs nothing");
    let Some(Item::System { level, text }) = p.items().pop() else {
        panic!("a system line last: {:?}", p.items());
    };
    assert_eq!(level, SystemLevel::Error);
    assert_eq!(text, format!("The wta master went away: {WHY}"));
    assert!(
        p.items()
            .iter()
            .any(|i| *i == Item::User("first question".into())),
        "the transcript stays"
    );
    // A second notice of the same loss changes nothing.
    let before = p.items().len();
    assert_eq!(p.gone(), []);
    assert_eq!(p.items().len(), before + 1, "only a line");
}

/// What the session machine says once Enter had it start a master.
const RECONNECTING: DomainEvent =
    DomainEvent::Connection(ConnectionState::MasterLost { reconnecting: true });

/// Nothing reconnects on its own: Enter asks (with or without a draft,
/// which stays), and the machine says a reconnect is under way; a failed
/// attempt can be retried; once a master answers, a divider separates the
/// old transcript from the new session.
#[test]
fn enter_reconnects_once_and_a_divider_marks_the_new_master() {
    let mut p = Pane::on_model(None);
    p.gone();
    p.typed("keep me");
    assert_eq!(p.at(1_000).enter(), [Effect::Reconnect]);
    assert_eq!(p.state.input.text(), "keep me", "not sent, not lost");
    assert_eq!(
        p.state.activity(),
        Activity::MasterLost,
        "asked, not under way until the machine says"
    );
    assert_eq!(p.domain(RECONNECTING), []);
    // The status line waits for the connection, counting from the Enter.
    assert_eq!(
        p.state.activity(),
        Activity::Connecting {
            elapsed: Duration::ZERO,
            reconnect: true
        }
    );
    p.at(3_500).send(Event::Tick);
    assert_eq!(
        p.state.activity(),
        Activity::Connecting {
            elapsed: Duration::from_millis(2_500),
            reconnect: true
        }
    );
    assert!(p.state.needs_tick(), "the spinner turns while reconnecting");
    assert_eq!(p.enter(), [], "one attempt at a time");
    // The new master could not be started: say so, allow another try.
    p.domain(DomainEvent::MasterGone {
        why: "cannot start a new wta master: no space left".into(),
    });
    assert_eq!(p.state.activity(), Activity::MasterLost);
    let Some(Item::System { text, .. }) = p.items().pop() else {
        panic!()
    };
    assert_eq!(
        text,
        "Reconnecting failed: cannot start a new wta master: no space left"
    );
    assert_eq!(p.state.connecting_since, None, "no wait while none runs");
    assert_eq!(p.at(10_000).enter(), [Effect::Reconnect]);
    p.domain(RECONNECTING);
    assert_eq!(
        p.at(11_000)
            .domain(DomainEvent::Reconnected { new_master: true }),
        []
    );
    assert!(!p.state.master_lost());
    // Opening the session on the new master is the same wait, still
    // counted from the Enter.
    assert_eq!(
        p.state.activity(),
        Activity::Connecting {
            elapsed: Duration::from_secs(1),
            reconnect: false
        }
    );
    assert_eq!(
        p.items().pop(),
        Some(Item::Divider("reconnected to a new master".into()))
    );
    p.domain(DomainEvent::SessionStarted {
        agent: "demo".into(),
        model: None,
    });
    assert_eq!(p.state.activity(), Activity::Ready);
    let Some(Item::System { text, .. }) = p.items().pop() else {
        panic!()
    };
    assert_eq!(text, "A new session with demo is ready.");
    // Back to normal: Enter sends the draft.
    assert_eq!(p.enter(), [Effect::SendPrompt("keep me".into())]);
}

/// Ctrl+C twice still closes the pane while the master is gone, and the
/// setup screen and any picker give way to the transcript.
#[test]
fn ctrl_c_twice_closes_a_pane_whose_master_is_gone() {
    let mut p = Pane::on_model(None);
    p.domain(DomainEvent::AgentMissing {
        agent: "claude".into(),
        install_hint: "npm i".into(),
    });
    p.gone();
    assert_eq!(p.state.setup, None);
    assert_eq!(p.state.picker, None);
    assert_eq!(p.at(100).key(Key::ctrl('c')), []);
    assert_eq!(p.at(600).key(Key::ctrl('c')), [Effect::Quit]);
}
