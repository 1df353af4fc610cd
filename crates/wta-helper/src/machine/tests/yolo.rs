//! Yolo on the machine (DESIGN §5): it decides, the policy included, and
//! tells the app its state and its answer to the user's `/yolo`; layer 2
//! approves after the preflight and says so; layer 1 reconciles the
//! agent's `allow_all` and fails closed.

use wta_agent::yolo::YoloPolicy;
use wta_state::{YoloAnswer, YoloBlock, YoloState};

use super::*;

/// The user's `/yolo on|off` under each policy: the machine's answer, the
/// state the app shows, and what goes out (the master's report, the
/// proposal engine's news) — nothing at all for a refusal.
#[test]
fn the_machine_answers_yolo_on_and_off_under_each_policy() {
    let cases = [
        (YoloPolicy::Allowed, "/yolo on", YoloAnswer::TurnedOn, true),
        (
            YoloPolicy::Allowed,
            "/yolo off",
            YoloAnswer::TurnedOff,
            false,
        ),
        (
            YoloPolicy::Blocked,
            "/yolo on",
            YoloAnswer::Refused(YoloBlock::Policy),
            false,
        ),
        (
            YoloPolicy::Blocked,
            "/yolo off",
            YoloAnswer::TurnedOff,
            false,
        ),
    ];
    for (policy, line, answer, on) in cases {
        let mut config = config();
        config.yolo_policy = policy;
        let mut m = Machine::new(config);
        m.start(t0());
        step(&mut m, linked(), t0());
        step(&mut m, opened("s1", json!({})), t0());
        let blocked = (policy == YoloPolicy::Blocked).then_some(YoloBlock::Policy);
        assert_eq!(m.app.yolo, YoloState { on: false, blocked }, "{policy:?}");
        let before = m.app.transcript.entries().len();
        let commands = submit(&mut m, line);
        let name = format!("{policy:?} {line}");
        assert_eq!(m.app.yolo, YoloState { on, blocked }, "{name}");
        assert_eq!(m.pane.yolo.effective(), on, "{name}");
        let refused = matches!(answer, YoloAnswer::Refused(_));
        assert_eq!(
            m.pane.yolo.session_override,
            (!refused).then_some(line.ends_with("on")),
            "{name}"
        );
        let reported = commands
            .iter()
            .any(|c| matches!(c, Command::ReportYolo { .. }));
        assert_eq!(reported, !refused, "{name}: {commands:?}");
        assert_eq!(
            commands.contains(&Command::Proposals(ProposalNews::AgentMayRunUnasked)),
            on,
            "{name}: {commands:?}"
        );
        // One line, in the app's words for the machine's answer.
        let lines: Vec<_> = m.app.transcript.entries()[before..]
            .iter()
            .filter_map(|e| match &e.item {
                Item::System { level, text } => Some((*level, text.clone())),
                _ => None,
            })
            .collect();
        let says = match answer {
            YoloAnswer::TurnedOn => "Yolo on:",
            YoloAnswer::TurnedOff => "Yolo off:",
            YoloAnswer::Refused(_) => "disabled by your organization's policy",
        };
        assert_eq!(lines.len(), 1, "{name}: {lines:?}");
        assert!(lines[0].1.contains(says), "{name}: {lines:?}");
    }
}

#[test]
fn yolo_approves_after_the_preflight_and_says_so() {
    let mut config = config();
    config.auto_approve_tools = true;
    let mut m = Machine::new(config);
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, opened("s1", json!({})), t0());
    submit(&mut m, "go");
    let key = PermissionRequestId(1);
    let commands = ask(&mut m, 1, Preflighted::Card);
    assert_eq!(
        answers(&commands),
        [(key, PermissionAnswer::Selected("ok".into()))]
    );
    assert!(m.app.permissions.is_empty(), "no card");
    assert!(
        system(&m, SystemLevel::Info)
            .iter()
            .any(|t| t == "Yolo approved: touch x")
    );
    // A proposal the preflight answered is never yolo's.
    let answered = Preflighted::Answered {
        how: PreflightAnswer::Allowed,
        sent: Ok(()),
    };
    let commands = ask(&mut m, 2, answered);
    assert!(answers(&commands).is_empty());
}

#[test]
fn a_session_with_allow_all_on_is_turned_off_when_yolo_is_off() {
    let (mut m, _) = ready();
    let options = json!({"configOptions": [{"id": "allow_all", "name": "Allow all",
        "type": "select", "currentValue": "on",
        "options": [{"value": "on", "name": "On"}, {"value": "off", "name": "Off"}]}]});
    submit(&mut m, "/new");
    let commands = step(&mut m, opened("s2", options), t0());
    assert!(
        commands.contains(&Command::SetConfigOption {
            call: Call::SetYolo(false),
            session: sid("s2"),
            option: "allow_all".into(),
            value: "off".into(),
        }),
        "{commands:?}"
    );
    // The agent refuses: fail closed, restart on a fresh agent process.
    let refused = Input::Replied {
        call: Call::SetYolo(false),
        result: Box::new(Err(ConnectionError::BadReply("no".into()))),
    };
    let commands = step(&mut m, refused, t0());
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
}

/// An agent that cannot turn `allow_all` off gets its stack restarted, and
/// until the fresh session opens the app is told the pane is connecting,
/// not Ready (a prompt typed meanwhile waited for the new session instead
/// of going to the one that ends).
#[test]
fn a_failed_disable_says_connecting_until_the_fresh_session() {
    let mut m = Machine::new(config());
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, opened("s1", json!({})), t0());
    assert_eq!(m.app.connection, wta_state::ConnectionState::Ready);
    let mut out = Out::default();
    m.yolo_disable_failed("refused", &mut out);
    assert!(
        out.events
            .iter()
            .any(|e| *e == DomainEvent::Connection(wta_state::ConnectionState::Connecting)),
        "{:?}",
        out.events
    );
    assert!(
        out.commands.iter().any(|c| matches!(
            c,
            Command::OpenSession {
                fresh_agent: true,
                ..
            }
        )),
        "{:?}",
        out.commands
    );
}
