//! The session machine without a runtime: exhaustive over the link's states
//! and the inputs that move it, and scenarios for turns, permissions, yolo
//! and sessions that die with their agent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, SessionId, SessionNotification, StopReason as AcpStop,
};
use serde_json::json;
use wta_protocol::helper_master::AgentExitedNotification;
use wta_state::{
    Event, Item, PermissionAnswer, PermissionRequestId, Scripted, StopReason, SystemLevel,
};

use super::*;
use super::{ConnectionError, SessionOpened};

fn t0() -> Instant {
    Instant::now()
}

fn config() -> PaneConfig {
    PaneConfig {
        agent: Some("custom:test".into()),
        own_pid: 42,
        ..PaneConfig::default()
    }
}

fn linked() -> Input {
    Input::Linked(Box::new(Ok(Linked {
        agent_id: Some("custom:test".into()),
        auth: Vec::new(),
        master_pid: Some(7),
        loads_sessions: false,
    })))
}

fn opened(session: &str, extra: serde_json::Value) -> Input {
    let mut reply = json!({"sessionId": session});
    if let (Some(reply), Some(extra)) = (reply.as_object_mut(), extra.as_object()) {
        reply.extend(extra.clone());
    }
    let reply: SessionOpened = serde_json::from_value(reply).unwrap();
    Input::SessionOpened {
        agent: "custom:test".into(),
        result: Box::new(Ok(reply)),
    }
}

fn sid(s: &str) -> SessionId {
    SessionId::new(s)
}

/// A machine with a live link and session `s1`; the commands so far.
fn ready() -> (Machine, Vec<Command>) {
    let mut m = Machine::new(config());
    let mut commands = m.start(t0());
    commands.extend(step(&mut m, linked(), t0()));
    commands.extend(step(&mut m, opened("s1", json!({})), t0()));
    assert_eq!(m.pane.session, Some(sid("s1")));
    (m, commands)
}

fn submit(m: &mut Machine, text: &str) -> Vec<Command> {
    let input = Input::App(Event::Script(Scripted::Submit(text.into())));
    step(m, input, t0())
}

fn update(session: &str, update: serde_json::Value) -> Input {
    let n: SessionNotification =
        serde_json::from_value(json!({"sessionId": session, "update": update})).unwrap();
    Input::Update(Box::new(n))
}

fn permission(session: &str) -> Box<RequestPermissionRequest> {
    serde_json::from_value(json!({"sessionId": session,
        "toolCall": {"toolCallId": "tc", "title": "touch x", "kind": "execute",
                     "rawInput": {"command": "touch x"}},
        "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}))
    .unwrap()
}

/// The agent asks (request `n` of session `s1`); the preflight's `verdict`
/// follows. Returns what the verdict step asked for.
fn ask(m: &mut Machine, n: u64, verdict: Preflighted) -> Vec<Command> {
    let key = PermissionRequestId(n);
    let request = permission("s1");
    let first = step(m, Input::Permission { key, request }, t0());
    assert_eq!(
        first,
        [Command::Preflight {
            key,
            own_server: None
        }]
    );
    step(m, Input::Preflighted { key, verdict }, t0())
}

fn finished(session: &str, stop: AcpStop) -> Input {
    Input::PromptFinished {
        session: sid(session),
        result: Box::new(Ok(stop)),
    }
}

/// The proposal engine's news of an accepted proposal: a card with
/// `payload` for pane `target` (`%N`), of a turn of `origin`; `armed`: the
/// agent's permission flow pre-approved it.
fn card_input(
    id: wta_protocol::ProposalId,
    payload: serde_json::Value,
    target: &str,
    origin: wta_protocol::Origin,
    armed: bool,
) -> Input {
    use crate::proposals::types::{Approval, ProposalAccepted, ProposalEvent, TurnContext};
    Input::Proposal(ProposalEvent::Accepted(ProposalAccepted {
        id,
        payload: serde_json::from_value(payload).unwrap(),
        dropped_choices: Vec::new(),
        turn: TurnContext {
            origin,
            target_pane: Some(wta_protocol::PaneId::parse(target).unwrap()),
            agent_pane: None,
            delegate_agent: None,
        },
        approval: if armed {
            Approval::PreApproved
        } else {
            Approval::NotPreApproved
        },
    }))
}

fn agent_text(m: &Machine) -> String {
    m.app
        .transcript
        .entries()
        .iter()
        .filter_map(|e| match &e.item {
            Item::Agent(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn system(m: &Machine, level: SystemLevel) -> Vec<String> {
    m.app
        .transcript
        .entries()
        .iter()
        .filter_map(|e| match &e.item {
            Item::System { level: l, text } if *l == level => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn answers(commands: &[Command]) -> Vec<(PermissionRequestId, PermissionAnswer)> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::AnswerPermission { key, answer } => Some((*key, answer.clone())),
            _ => None,
        })
        .collect()
}

// The link, exhaustively -------------------------------------------------

const LINKS: [Link; 5] = [
    Link::Connecting { reconnect: false },
    Link::Connecting { reconnect: true },
    Link::StartingMaster,
    Link::Up,
    Link::Down,
];

/// An input, made fresh for each state it is tried in.
type MakeInput = fn() -> Input;

/// Every input that moves the link.
fn link_inputs() -> Vec<(&'static str, MakeInput)> {
    vec![
        ("linked", linked),
        ("unreachable", || {
            Input::Linked(Box::new(Err(ConnectionError::Unreachable {
                socket: "/run/wta/m.sock".into(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            })))
        }),
        ("refused", || {
            Input::Linked(Box::new(Err(ConnectionError::BadReply("x".into()))))
        }),
        ("closed", || Input::MasterClosed),
        ("started", || Input::MasterStarted(Ok(()))),
        ("start failed", || {
            Input::MasterStarted(Err("no tmux".into()))
        }),
        // Seen (as here), a pane ignores it: only Enter links again
        // (`hidden.rs` has the unseen pane).
        ("announced", || Input::MasterAnnounced),
    ]
}

fn in_link(link: Link) -> Machine {
    let (mut m, _) = ready();
    m.pane.link = link;
    if link != Link::Up {
        m.pane.session = None;
    }
    m
}

/// The link state after each (state, input): a table, checked whole.
#[test]
fn the_link_moves_only_as_the_table_says() {
    use Link::*;
    for link in LINKS {
        for (name, input) in link_inputs() {
            let mut m = in_link(link);
            let commands = step(&mut m, input(), t0());
            let after = m.pane.link;
            let expected = match (link, name) {
                (Connecting { .. }, "linked") => Up,
                (Connecting { .. }, "unreachable" | "refused") => Down,
                (Up, "closed") => Down,
                (StartingMaster, "started") => Connecting { reconnect: true },
                (StartingMaster, "start failed") => Down,
                (other, _) => other,
            };
            assert_eq!(after, expected, "{link:?} × {name}");
            // Linking always goes on to open a session; a late or unwanted
            // connection is dropped.
            let opens = commands
                .iter()
                .any(|c| matches!(c, Command::OpenSession { .. }));
            assert_eq!(
                opens,
                after == Up && link != Up,
                "{link:?} × {name}: {commands:?}"
            );
            if name == "linked" && !matches!(link, Connecting { .. }) {
                assert!(
                    commands.contains(&Command::Disconnect),
                    "{link:?}: {commands:?}"
                );
            }
            // Leaving Up forgets the session and its turn.
            if link == Up && after == Down {
                assert_eq!(m.pane.session, None);
                assert!(commands.contains(&Command::ExplainMasterGone));
            }
        }
    }
}

#[test]
fn only_a_lost_link_reconnects_and_only_when_asked() {
    for link in LINKS {
        let mut m = in_link(link);
        let mut out = Out::default();
        m.effect(wta_state::Effect::Reconnect, &mut out);
        let asked = out.commands.contains(&Command::StartMaster);
        assert_eq!(asked, link == Link::Down, "{link:?}: {:?}", out.commands);
    }
    // Nothing reconnects on its own: a lost link stays lost through any input.
    let mut m = in_link(Link::Down);
    for input in [
        Input::App(Event::Tick),
        Input::StatusDue,
        Input::MasterClosed,
        update(
            "s1",
            json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "late"}}),
        ),
    ] {
        let commands = step(&mut m, input, t0());
        assert!(
            !commands
                .iter()
                .any(|c| matches!(c, Command::Connect { .. } | Command::StartMaster)),
            "{commands:?}"
        );
    }
    assert_eq!(m.pane.link, Link::Down);
}

// Turns ---------------------------------------------------------------

#[test]
fn a_turn_runs_on_the_current_session_and_ends_once() {
    let (mut m, _) = ready();
    let commands = submit(&mut m, "hello");
    assert_eq!(
        commands,
        [Command::Prompt {
            session: sid("s1"),
            text: "hello".into()
        }]
    );
    assert!(m.app.transcript.turn_running());
    step(
        &mut m,
        update(
            "s1",
            json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hi"}}),
        ),
        t0(),
    );
    // Another session's update and reply change nothing.
    step(
        &mut m,
        update(
            "old",
            json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "stale"}}),
        ),
        t0(),
    );
    assert!(step(&mut m, finished("old", AcpStop::EndTurn), t0()).is_empty());
    assert!(m.app.transcript.turn_running());
    let commands = step(&mut m, finished("s1", AcpStop::EndTurn), t0());
    assert_eq!(commands, [Command::Proposals(ProposalNews::TurnEnded)]);
    assert!(!m.app.transcript.turn_running());
    assert_eq!(agent_text(&m), "hi");
    // A second answer for the same turn is not a second end.
    assert!(step(&mut m, finished("s1", AcpStop::EndTurn), t0()).is_empty());
}

#[test]
fn without_a_link_a_prompt_says_so_and_no_turn_is_left_running() {
    let (mut m, _) = ready();
    step(&mut m, Input::MasterClosed, t0());
    let mut out = Out::default();
    m.effect(wta_state::Effect::SendPrompt("x".into()), &mut out);
    assert!(out.commands.is_empty());
    assert!(
        out.events
            .contains(&DomainEvent::TurnEnded(StopReason::Cancelled))
    );
}

#[test]
fn cancel_asks_the_agent_and_the_turn_ends_with_its_answer() {
    let (mut m, _) = ready();
    submit(&mut m, "long");
    let commands = step(&mut m, Input::App(Event::Script(Scripted::Cancel)), t0());
    assert!(commands.contains(&Command::Proposals(ProposalNews::TurnCancelled)));
    assert!(commands.contains(&Command::Cancel { session: sid("s1") }));
    assert!(m.app.transcript.turn_running(), "until the agent answers");
    step(&mut m, finished("s1", AcpStop::Cancelled), t0());
    assert!(!m.app.transcript.turn_running());
}

#[test]
fn a_new_session_ends_the_turn_and_closes_the_old_session() {
    let (mut m, _) = ready();
    submit(&mut m, "long");
    let commands = submit(&mut m, "/new");
    assert!(commands.contains(&Command::Cancel { session: sid("s1") }));
    assert!(commands.contains(&Command::Proposals(ProposalNews::SessionReplaced)));
    assert!(commands.iter().any(|c| matches!(
        c,
        Command::OpenSession {
            fresh_agent: false,
            ..
        }
    )));
    let commands = step(&mut m, opened("s2", json!({})), t0());
    assert!(commands.contains(&Command::CloseSession { session: sid("s1") }));
    assert!(!m.app.transcript.turn_running());
    assert_eq!(m.pane.session, Some(sid("s2")));
    // The old session's late answer is not this session's turn.
    assert!(step(&mut m, finished("s1", AcpStop::Cancelled), t0()).is_empty());
}

/// A prompt typed while `/new` opens its session waits for it and goes
/// there: sent to the session that ends, its turn was cancelled unseen.
#[test]
fn a_prompt_typed_while_a_new_session_opens_goes_to_the_new_session() {
    let (mut m, _) = ready();
    submit(&mut m, "/new");
    let early = submit(&mut m, "after new");
    assert!(
        !early.iter().any(|c| matches!(c, Command::Prompt { .. })),
        "nothing goes to the old session: {early:?}"
    );
    let commands = step(&mut m, opened("s2", json!({})), t0());
    assert!(
        commands.contains(&Command::Prompt {
            session: sid("s2"),
            text: "after new".into()
        }),
        "{commands:?}"
    );
    assert!(m.app.transcript.turn_running());
}

// Sessions that die with their agent ------------------------------------

#[test]
fn after_the_agent_dies_the_next_prompt_opens_a_session_first() {
    let (mut m, _) = ready();
    let exited = AgentExitedNotification {
        agent_id: "custom:test".into(),
        session_ids: vec!["s1".into()],
        reason: "killed".into(),
    };
    let commands = step(&mut m, Input::AgentExited(exited), t0());
    assert!(commands.contains(&Command::Proposals(ProposalNews::TransportLost)));
    assert_eq!(m.pane.session, None);
    assert!(system(&m, SystemLevel::Error)[0].contains("next prompt"));

    let commands = submit(&mut m, "again");
    assert!(
        matches!(&commands[..], [.., Command::OpenSession { agent: Some(a), fresh_agent: false, .. }] if a == "custom:test"),
        "{commands:?}"
    );
    assert!(m.app.transcript.turn_running(), "the prompt waits");
    let commands = step(&mut m, opened("s2", json!({})), t0());
    assert!(
        commands.contains(&Command::Prompt {
            session: sid("s2"),
            text: "again".into()
        }),
        "{commands:?}"
    );
    assert!(m.app.transcript.turn_running(), "and runs");
    assert!(
        system(&m, SystemLevel::Info)
            .iter()
            .any(|t| t.contains("new session"))
    );
}

#[test]
fn a_prompt_waiting_for_a_new_session_is_dropped_by_cancel() {
    let (mut m, _) = ready();
    let exited = AgentExitedNotification {
        agent_id: "custom:test".into(),
        session_ids: vec!["s1".into()],
        reason: "killed".into(),
    };
    step(&mut m, Input::AgentExited(exited), t0());
    submit(&mut m, "again");
    step(&mut m, Input::App(Event::Script(Scripted::Cancel)), t0());
    assert!(!m.app.transcript.turn_running());
    let commands = step(&mut m, opened("s2", json!({})), t0());
    assert!(
        !commands.iter().any(|c| matches!(c, Command::Prompt { .. })),
        "a cancelled prompt is never sent: {commands:?}"
    );
}

// Permissions -------------------------------------------------------------

/// Every permission request is answered exactly once, whatever ends it.
#[test]
fn every_permission_request_is_answered_exactly_once() {
    type Ending = fn(&mut Machine, PermissionRequestId) -> Vec<Command>;
    let endings: [(&str, Ending); 5] = [
        ("allowed", |m, _| {
            step(
                m,
                Input::App(Event::Script(Scripted::Answer(Some("ok".into())))),
                t0(),
            )
        }),
        ("dismissed", |m, _| {
            step(m, Input::App(Event::Script(Scripted::Answer(None))), t0())
        }),
        ("turn ended", |m, _| {
            step(m, finished("s1", AcpStop::EndTurn), t0())
        }),
        ("new session", |m, _| submit(m, "/new")),
        ("agent exited", |m, _| {
            let n = AgentExitedNotification {
                agent_id: "custom:test".into(),
                session_ids: vec!["s1".into()],
                reason: "gone".into(),
            };
            step(m, Input::AgentExited(n), t0())
        }),
    ];
    for (name, end) in endings {
        let (mut m, _) = ready();
        submit(&mut m, "go");
        let key = PermissionRequestId(5);
        let commands = ask(&mut m, 5, Preflighted::Card);
        assert!(answers(&commands).is_empty(), "{name}: a card asks first");
        assert_eq!(m.app.permissions.len(), 1);
        let mut all = end(&mut m, key);
        // Whatever comes after cannot answer it again.
        all.extend(step(&mut m, finished("s1", AcpStop::EndTurn), t0()));
        all.extend(submit(&mut m, "/new"));
        let mine: Vec<_> = answers(&all)
            .into_iter()
            .filter(|(k, _)| *k == key)
            .collect();
        assert_eq!(mine.len(), 1, "{name}: {all:?}");
        let expected = match name {
            "allowed" => PermissionAnswer::Selected("ok".into()),
            _ => PermissionAnswer::Cancelled,
        };
        assert_eq!(mine[0].1, expected, "{name}");
    }
}

#[test]
fn a_stale_sessions_permission_is_cancelled_without_a_card() {
    let (mut m, _) = ready();
    let key = PermissionRequestId(9);
    let commands = step(
        &mut m,
        Input::Permission {
            key,
            request: permission("gone"),
        },
        t0(),
    );
    assert_eq!(
        commands,
        [Command::AnswerPermission {
            key,
            answer: PermissionAnswer::Cancelled
        }]
    );
    assert!(m.app.permissions.is_empty());
}

// Status ----------------------------------------------------------------

#[test]
fn the_status_probe_shows_the_target_and_ends_the_pane_with_its_tab() {
    let mut config = config();
    config.has_host = true;
    config.target_pane = Some(wta_protocol::PaneId::from_number(3));
    let mut m = Machine::new(config);
    let commands = m.start(t0());
    assert!(commands.contains(&Command::ProbeStatus));
    let probe = |cwd: &str, visible, owner_gone| Probe {
        cwd: Some(cwd.into()),
        visible,
        owner_gone,
    };
    step(&mut m, Input::Status(probe("/src", false, false)), t0());
    assert_eq!(
        m.app.target.as_ref().and_then(|t| t.cwd.as_deref()),
        Some("/src")
    );
    assert!(!m.wants_status(), "unseen: no refresh");
    assert!(step(&mut m, Input::StatusDue, t0()).is_empty());
    // A key makes it seen again.
    let key = wta_state::Key::plain(wta_state::KeyCode::Down);
    step(
        &mut m,
        Input::App(Event::Key(key)),
        t0() + Duration::from_millis(1),
    );
    assert!(m.wants_status());
    step(&mut m, Input::Status(probe("/src", true, true)), t0());
    assert!(m.quit_requested());
}

#[test]
fn the_preflight_hears_the_server_the_master_gave_this_session_only() {
    let mut m = Machine::new(config());
    m.start(t0());
    step(&mut m, linked(), t0());
    let server = "wta_0123456789abcdef0123";
    step(
        &mut m,
        opened("s1", json!({"_meta": {"wta": {"mcpServer": server}}})),
        t0(),
    );
    let ask = |m: &mut Machine, n, session| {
        let key = PermissionRequestId(n);
        step(
            m,
            Input::Permission {
                key,
                request: permission(session),
            },
            t0(),
        )
    };
    assert_eq!(
        ask(&mut m, 1, "s1"),
        [Command::Preflight {
            key: PermissionRequestId(1),
            own_server: Some(server.to_owned())
        }]
    );
    // A new session without a server of its own: no name goes with it.
    step(&mut m, opened("s2", json!({})), t0());
    let commands = ask(&mut m, 2, "s2");
    assert!(
        commands.contains(&Command::Preflight {
            key: PermissionRequestId(2),
            own_server: None
        }),
        "{commands:?}"
    );
}

mod autofix;
mod cards;
mod first_prompt;
mod hidden;
mod pane_facts;
mod reveal;
mod session_tools;
mod told;
mod yolo;
