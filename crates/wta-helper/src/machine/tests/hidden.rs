//! A pane nobody sees: it links again on its own when a master is
//! announced (a seen one waits for the user's Enter), its waiting card
//! raises the tab's indicator and rings once until it is answered or the
//! pane is seen, and `wta fix` hears what became of its request.

use super::*;
use crate::autofix::request::{FixAnswer, ReplyToken};
use crate::machine::hidden_card::CardKind;

fn probe(visible: bool) -> Input {
    Input::Status(Probe {
        cwd: Some("/src".into()),
        visible,
        owner_gone: false,
    })
}

fn hosted() -> PaneConfig {
    PaneConfig {
        has_host: true,
        target_pane: Some(wta_protocol::PaneId::from_number(3)),
        ..config()
    }
}

/// Linked with session `s1`, then found off screen by the probe.
fn unseen() -> Machine {
    let mut m = Machine::new(hosted());
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, opened("s1", json!({})), t0());
    step(&mut m, probe(false), t0());
    assert!(!m.pane.visible);
    m
}

fn lose_master(m: &mut Machine) -> Vec<Command> {
    let mut commands = step(m, Input::MasterClosed, t0());
    let why = "the wta master (pid 7) is gone without shutting down".to_owned();
    commands.extend(step(m, Input::MasterExplained { why }, t0()));
    commands
}

fn awaits(commands: &[Command]) -> Vec<bool> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::AwaitMaster { now } => Some(*now),
            _ => None,
        })
        .collect()
}

fn connects(commands: &[Command]) -> bool {
    commands
        .iter()
        .any(|c| matches!(c, Command::Connect { .. }))
}

#[test]
fn an_unseen_pane_links_again_when_a_master_is_announced() {
    let mut m = unseen();
    let commands = lose_master(&mut m);
    // Waiting starts once the pane said why the master went, not before.
    let closed_at = commands
        .iter()
        .position(|c| *c == Command::ExplainMasterGone)
        .unwrap();
    let waits_at = commands
        .iter()
        .position(|c| matches!(c, Command::AwaitMaster { .. }))
        .unwrap();
    assert!(closed_at < waits_at, "{commands:?}");
    assert_eq!(awaits(&commands), [true], "a master may run already");
    assert_eq!(m.pane.link, Link::Down);
    let commands = step(&mut m, Input::MasterAnnounced, t0());
    assert!(connects(&commands), "{commands:?}");
    assert_eq!(m.pane.link, Link::Connecting { reconnect: true });
    // Linked: the divider, a new session, as after Enter.
    let again = Linked {
        agent_id: Some("custom:test".into()),
        auth: Vec::new(),
        master_pid: Some(8),
        loads_sessions: false,
    };
    let commands = step(&mut m, Input::Linked(Box::new(Ok(again))), t0());
    assert!(
        commands
            .iter()
            .any(|c| matches!(c, Command::OpenSession { .. })),
        "{commands:?}"
    );
    assert_eq!(m.pane.link, Link::Up);
    assert!(!m.app.master_lost());
    // A second announcement changes nothing.
    assert!(!connects(&step(&mut m, Input::MasterAnnounced, t0())));
}

#[test]
fn a_seen_pane_waits_for_the_users_enter() {
    let (mut m, _) = ready();
    let commands = lose_master(&mut m);
    assert!(awaits(&commands).is_empty(), "{commands:?}");
    let commands = step(&mut m, Input::MasterAnnounced, t0());
    assert!(!connects(&commands), "{commands:?}");
    assert_eq!(m.pane.link, Link::Down);
}

#[test]
fn a_failed_attempt_waits_for_the_next_announcement_only() {
    let mut m = unseen();
    lose_master(&mut m);
    step(&mut m, Input::MasterAnnounced, t0());
    let refused = Input::Linked(Box::new(Err(ConnectionError::MasterClosed)));
    let commands = step(&mut m, refused, t0());
    assert_eq!(m.pane.link, Link::Down);
    assert_eq!(awaits(&commands), [false], "{commands:?}");
    // An agent the master refuses is no master problem: no waiting.
    let mut m = unseen();
    lose_master(&mut m);
    step(&mut m, Input::MasterAnnounced, t0());
    let bad = Input::Linked(Box::new(Err(ConnectionError::BadReply("x".into()))));
    assert!(awaits(&step(&mut m, bad, t0())).is_empty());
}

#[test]
fn a_pane_hidden_after_its_master_went_starts_waiting() {
    let mut m = Machine::new(hosted());
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, opened("s1", json!({})), t0());
    step(&mut m, probe(true), t0());
    assert!(awaits(&lose_master(&mut m)).is_empty(), "seen: no wait");
    // The user stashes it: the probe finds it off screen.
    let commands = step(&mut m, probe(false), t0());
    assert_eq!(awaits(&commands), [true], "{commands:?}");
    // Only the change starts a wait, not each probe.
    assert!(awaits(&step(&mut m, probe(false), t0())).is_empty());
    // Linked already: hiding it waits for nothing.
    let mut m = unseen();
    step(&mut m, probe(true), t0());
    assert!(awaits(&step(&mut m, probe(false), t0())).is_empty());
}

fn card_news(commands: &[Command]) -> Vec<Command> {
    commands
        .iter()
        .filter(|c| matches!(c, Command::CardWaiting { .. } | Command::Bell))
        .cloned()
        .collect()
}

#[test]
fn a_card_nobody_sees_raises_the_indicator_and_rings_once() {
    let mut m = unseen();
    assert!(!m.wants_status(), "unseen and nothing waits: no refresh");
    submit(&mut m, "touch x");
    let commands = ask(&mut m, 1, Preflighted::Card);
    assert_eq!(
        card_news(&commands),
        [
            Command::CardWaiting {
                kind: Some(CardKind::Permission)
            },
            Command::Bell
        ]
    );
    assert!(m.wants_status(), "a waiting card keeps the probe looking");
    // Nothing new: nothing said again, however often the probe looks.
    assert!(card_news(&step(&mut m, probe(false), t0())).is_empty());
    assert!(card_news(&step(&mut m, Input::App(Event::Tick), t0())).is_empty());
    // Shown (`prefix a`): cleared without a key; hidden again: back, no bell.
    let shown = step(&mut m, probe(true), t0());
    assert_eq!(card_news(&shown), [Command::CardWaiting { kind: None }]);
    let hidden = step(&mut m, probe(false), t0());
    assert_eq!(
        card_news(&hidden),
        [Command::CardWaiting {
            kind: Some(CardKind::Permission)
        }]
    );
    // Answered (the agent withdrew it with its turn): cleared.
    let ended = step(&mut m, finished("s1", AcpStop::Cancelled), t0());
    assert_eq!(card_news(&ended), [Command::CardWaiting { kind: None }]);
    assert!(!m.wants_status());
    // The next card rings again.
    submit(&mut m, "touch y");
    let again = ask(&mut m, 2, Preflighted::Card);
    assert!(card_news(&again).contains(&Command::Bell), "{again:?}");
}

#[test]
fn a_card_in_a_seen_pane_raises_nothing() {
    let mut m = Machine::new(hosted());
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, opened("s1", json!({})), t0());
    step(&mut m, probe(true), t0());
    submit(&mut m, "touch x");
    let commands = ask(&mut m, 1, Preflighted::Card);
    assert!(card_news(&commands).is_empty(), "{commands:?}");
}

fn fix(m: &mut Machine, pane: Option<&str>) -> Option<FixAnswer> {
    let reply = ReplyToken::try_from("0123456789abcdef".to_owned()).unwrap();
    let input = Input::FixRequested {
        pane: pane.map(|p| wta_protocol::PaneId::parse(p).unwrap()),
        hint: None,
        reply: Some(reply.clone()),
    };
    step(m, input, t0()).into_iter().find_map(|c| match c {
        Command::AnswerFix { reply: r, answer } if r == reply => Some(answer),
        _ => None,
    })
}

fn failed_in_5() -> Input {
    Input::CommandFinished {
        pane: wta_protocol::PaneId::parse("%5").unwrap(),
        finished: Box::new(wta_shell::Finished {
            record: wta_shell::LastCommand {
                pane: "%5".into(),
                cmdline: Some("false".into()),
                exit_code: Some(1),
                end_reason: "exited".into(),
                duration_ms: Some(3),
                output: String::new(),
                truncated: false,
                interactive: false,
                output_bytes: 0,
            },
            dispatched: false,
            cwd: None,
        }),
    }
}

#[test]
fn wta_fix_hears_what_became_of_its_request() {
    let pane5 = || wta_protocol::PaneId::parse("%5").unwrap();
    let (mut m, _) = ready();
    assert_eq!(fix(&mut m, Some("%5")), Some(FixAnswer::NothingToFix));
    step(&mut m, failed_in_5(), t0());
    assert_eq!(
        fix(&mut m, Some("%9")),
        Some(FixAnswer::OtherPane { last: pane5() })
    );
    assert_eq!(
        fix(&mut m, Some("%5")),
        Some(FixAnswer::Started { pane: pane5() })
    );
    // The fix turn runs: a new failure cannot start another one now.
    step(&mut m, failed_in_5(), t0());
    assert_eq!(fix(&mut m, None), Some(FixAnswer::TurnRunning));
    // The master gone: it says so, whatever failed.
    lose_master(&mut m);
    assert_eq!(fix(&mut m, Some("%5")), Some(FixAnswer::NoMaster));
    // Linked but its session not open yet.
    let mut m = Machine::new(config());
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, failed_in_5(), t0());
    assert_eq!(fix(&mut m, None), Some(FixAnswer::NotReady));
    // Without a token nobody waits: no answer is sent.
    let quiet = Input::FixRequested {
        pane: None,
        hint: None,
        reply: None,
    };
    assert!(
        !step(&mut m, quiet, t0())
            .iter()
            .any(|c| matches!(c, Command::AnswerFix { .. }))
    );
}
