//! The card side on the machine: the proposal engine's news becomes the
//! card (its cwd, its approval), an ended proposal resolves it, and every
//! typed report of the runtime (executor, CLI runs, tmux calls, calls
//! nobody waits on, the pane's start) is said by the machine, with the
//! level it deserves; none needs the runtime to word it.

use wta_protocol::{FinalStatus, Origin, PaneId, ProposalId, ProposalRequest};
use wta_state::proposal_card::CardSight;
use wta_state::{Key, KeyCode, SessionVerb};

use super::*;
use crate::executor::ActionOutcome;
use crate::machine::news::{CliFailure, Delegated, TerminalNews};
use crate::machine::{ExecutorNews, PreflightAnswer};
use crate::proposals::service::CLIENT_GONE_REASON;
use crate::proposals::types::{ClaimError, ProposalEvent};
use crate::proposals::{ProposalService, TurnContext};

const GOOD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","actions":[{"type":"send","input":"ls"}]}]}"#;

fn payload() -> serde_json::Value {
    serde_json::from_str(GOOD).unwrap()
}

/// Every event the engine sent so far, into the machine.
fn feed(
    m: &mut Machine,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<ProposalEvent>,
    now: Instant,
) -> Vec<Command> {
    let mut commands = Vec::new();
    while let Ok(event) = rx.try_recv() {
        commands.extend(step(m, Input::Proposal(event), now));
    }
    commands
}

/// The front card read in full at `t`.
fn read_card(m: &mut Machine, id: ProposalId, t: Instant) {
    let sight = CardSight {
        id,
        width: 40,
        total: 1,
        first: 0,
        shown: 1,
        full_view: None,
    };
    step(m, Input::App(Event::CardShown(sight)), t);
}

/// A real engine's card: the CLI that sent it hangs up before the user
/// decides, and the card says why and confirms nothing; while its CLI
/// waits, the same card confirms on Enter.
#[test]
fn a_card_whose_cli_hung_up_shows_why_and_runs_nothing() {
    for hung_up in [false, true] {
        let service = ProposalService::with_random_id().unwrap();
        let mut rx = service.attach_ui();
        let channel = service
            .issue_turn(TurnContext::agent_turn(Some(PaneId::from_number(1)), None))
            .unwrap();
        let (mut m, _) = ready();
        let t0 = Instant::now();
        let (line, _lines) = service
            .validate(ProposalRequest::new(channel, GOOD), t0)
            .unwrap();
        let id = line.proposal_id.expect("accepted");
        feed(&mut m, &mut rx, t0);
        assert!(m.app.proposals.front().is_some_and(|c| c.stale.is_none()));
        read_card(&mut m, id, t0);

        if hung_up {
            service.client_gone(id);
            feed(&mut m, &mut rx, t0);
            let stale = m
                .app
                .proposals
                .front()
                .and_then(|c| c.stale.clone())
                .expect("the card stays, stale");
            assert_eq!(stale.status, FinalStatus::Cancelled);
            assert!(
                stale.describe().contains(CLIENT_GONE_REASON),
                "{}",
                stale.describe()
            );
        }
        let later = t0 + Duration::from_secs(1);
        let commands = step(
            &mut m,
            Input::App(Event::Key(Key::plain(KeyCode::Enter))),
            later,
        );
        let confirms = commands
            .iter()
            .any(|c| matches!(c, Command::ConfirmCard { id: c, .. } if *c == id));
        assert_eq!(confirms, !hung_up, "hung up {hung_up}: {commands:?}");
        if hung_up {
            assert!(service.confirm(id, 1).is_err());
        }
    }
}

/// The card the app gets: the target's last probed cwd, its pane, and
/// whether the agent's permission flow armed it.
#[test]
fn a_card_says_where_it_runs_and_whether_it_was_pre_approved() {
    let (mut m, _) = ready();
    m.pane.probed_cwd = Some(Some("/src".into()));
    let id = ProposalId::from_bytes([3; 16]);
    step(
        &mut m,
        card_input(id, payload(), "%4", Origin::TerminalAgent, false),
        t0(),
    );
    let card = m.app.proposals.front().expect("a card");
    assert_eq!(card.proposal.target_pane, "%4");
    assert_eq!(card.proposal.target_cwd.as_deref(), Some("/src"));
    assert!(!card.proposal.armed, "not pre-approved");
    // Its end resolves it.
    let ended = ProposalEvent::Ended {
        id,
        status: FinalStatus::Superseded,
        reason: None,
    };
    step(&mut m, Input::Proposal(ended), t0());
    let card = m.app.proposals.front().expect("kept, stale");
    assert_eq!(
        card.stale.as_ref().map(|s| s.status),
        Some(FinalStatus::Superseded)
    );
}

/// An input of the runtime and the line the pane shows for it.
struct Said {
    name: &'static str,
    input: fn() -> Input,
    level: Option<SystemLevel>,
    says: &'static str,
}

fn reports() -> Vec<Said> {
    vec![
        Said {
            name: "claim refused",
            input: || Input::Executor(ExecutorNews::NotRun(ClaimError::TimedOut)),
            level: Some(SystemLevel::Error),
            says: "Not run: this card timed out",
        },
        Said {
            name: "no terminal",
            input: || Input::Executor(ExecutorNews::NoTerminal),
            level: Some(SystemLevel::Error),
            says: "no terminal to act on",
        },
        Said {
            name: "cannot follow",
            input: || {
                Input::Executor(ExecutorNews::CannotFollow {
                    target: PaneId::from_number(3),
                    why: "no pipe".into(),
                })
            },
            level: Some(SystemLevel::Error),
            says: "Cannot follow %3; confirmed commands cannot report results: no pipe",
        },
        Said {
            name: "action ended",
            input: || {
                Input::Executor(ExecutorNews::ActionEnded {
                    action: 2,
                    outcome: Box::new(ActionOutcome::Inserted { pane: "%3".into() }),
                })
            },
            level: Some(SystemLevel::Info),
            says: "Action 2: typed into %3 without Enter",
        },
        Said {
            name: "delegated",
            input: || {
                Input::Delegated(Ok(Delegated::Started {
                    agent: "claude".into(),
                    window: "@4".into(),
                    pane: "%9".into(),
                    session: Some("s7".into()),
                }))
            },
            level: Some(SystemLevel::Info),
            says: "Delegated to claude in tab @4 (pane %9, session s7).",
        },
        Said {
            name: "delegate not installed",
            input: || {
                Input::Delegated(Ok(Delegated::NotInstalled {
                    agent: "claude".into(),
                    window: "@4".into(),
                }))
            },
            level: Some(SystemLevel::Error),
            says: "claude is not installed; tab @4 says how",
        },
        Said {
            name: "delegate failed",
            input: || Input::Delegated(Err(CliFailure::Failed("boom".into()))),
            level: Some(SystemLevel::Error),
            says: "Delegating failed: boom",
        },
        Said {
            name: "delegate unreadable",
            input: || Input::Delegated(Err(CliFailure::Unreadable("boom".into()))),
            level: Some(SystemLevel::Error),
            says: "wta delegate answered unreadably: boom",
        },
        Said {
            name: "session action",
            input: || Input::SessionActionDone {
                verb: SessionVerb::Focus,
                result: Ok("focused claude:s1".into()),
            },
            level: Some(SystemLevel::Info),
            says: "focused claude:s1",
        },
        Said {
            name: "session action refused",
            input: || Input::SessionActionDone {
                verb: SessionVerb::Resume,
                result: Err(CliFailure::Failed("no such session".into())),
            },
            level: Some(SystemLevel::Error),
            says: "no such session",
        },
        Said {
            name: "session action not started",
            input: || Input::SessionActionDone {
                verb: SessionVerb::Close,
                result: Err(CliFailure::CannotRun("denied".into())),
            },
            level: Some(SystemLevel::Error),
            says: "Cannot run wta sessions close: denied",
        },
        Said {
            name: "auth window",
            input: || Input::AuthWindow {
                agent: "claude".into(),
                method: "login".into(),
                result: Ok(wta_protocol::WindowId::parse("@5").unwrap()),
            },
            level: Some(SystemLevel::Info),
            says: "Signing in to claude (login) in tmux window @5.",
        },
        Said {
            name: "copy failed",
            input: || Input::CopyFailed { why: "no".into() },
            level: Some(SystemLevel::Error),
            says: "Copy failed: no",
        },
        Said {
            name: "not connected",
            input: || Input::NotConnected,
            level: Some(SystemLevel::Error),
            says: "Not connected to an agent.",
        },
        Said {
            name: "call failed",
            input: || Input::CallFailed(Box::new(ConnectionError::BadReply("x".into()))),
            level: Some(SystemLevel::Error),
            says: "cannot read: x",
        },
        // The link's end says that the master went away: not each call.
        Said {
            name: "call after the master went",
            input: || Input::CallFailed(Box::new(ConnectionError::MasterClosed)),
            level: None,
            says: "",
        },
        Said {
            name: "proposals off",
            input: || Input::ProposalsOff {
                why: "unsafe dir".into(),
            },
            level: Some(SystemLevel::Error),
            says: "Terminal-action proposals are off in this pane: unsafe dir",
        },
        Said {
            name: "config problems",
            input: || Input::ConfigProblems {
                notice: "config.toml:2: bad".into(),
            },
            level: Some(SystemLevel::Info),
            says: "config.toml:2: bad",
        },
    ]
}

/// Each report of the runtime gives exactly one line (or, for a call
/// after the master went, none), at its level, in the machine's words.
#[test]
fn every_report_of_the_runtime_is_worded_by_the_machine() {
    for said in reports() {
        let (mut m, _) = ready();
        let before = m.app.transcript.entries().len();
        let commands = step(&mut m, (said.input)(), t0());
        assert!(commands.is_empty(), "{}: {commands:?}", said.name);
        let new: Vec<_> = m.app.transcript.entries()[before..]
            .iter()
            .filter_map(|e| match &e.item {
                Item::System { level, text } => Some((*level, text.clone())),
                _ => None,
            })
            .collect();
        match said.level {
            None => assert!(new.is_empty(), "{}: {new:?}", said.name),
            Some(level) => {
                assert_eq!(new.len(), 1, "{}: {new:?}", said.name);
                assert_eq!(new[0].0, level, "{}: {new:?}", said.name);
                assert!(new[0].1.contains(said.says), "{}: {new:?}", said.name);
            }
        }
    }
}

/// A permission request the preflight answered: only a refusal or a
/// failed answer is said; an allowed or silently cancelled one is not, nor
/// an answer lost with the master (the link's end says that).
#[test]
fn the_preflights_own_answers_say_only_what_went_wrong() {
    type Sent = fn() -> Result<(), Box<ConnectionError>>;
    let ok: Sent = || Ok(());
    let lost: Sent = || Err(Box::new(ConnectionError::BadReply("lost".into())));
    let gone: Sent = || Err(Box::new(ConnectionError::MasterClosed));
    let unknown = || PreflightAnswer::UnknownShape {
        why: "no command field".into(),
    };
    let cases: [(PreflightAnswer, Sent, usize); 7] = [
        (PreflightAnswer::Allowed, ok, 0),
        (PreflightAnswer::CancelledSilently, ok, 0),
        (PreflightAnswer::NoAllowOnce, ok, 1),
        (unknown(), ok, 1),
        (PreflightAnswer::Allowed, lost, 1),
        (PreflightAnswer::NoAllowOnce, lost, 2),
        (PreflightAnswer::Allowed, gone, 0),
    ];
    for (n, (how, sent, lines)) in cases.into_iter().enumerate() {
        let (mut m, _) = ready();
        submit(&mut m, "go");
        let before = system(&m, SystemLevel::Error).len();
        let answered = Preflighted::Answered { how, sent: sent() };
        let commands = ask(&mut m, n as u64 + 1, answered);
        assert!(answers(&commands).is_empty(), "the engine answered it");
        assert!(m.app.permissions.is_empty(), "no card");
        let errors = system(&m, SystemLevel::Error);
        assert_eq!(errors.len() - before, lines, "{n}: {errors:?}");
    }
    let (mut m, _) = ready();
    submit(&mut m, "go");
    let how = PreflightAnswer::UnknownShape {
        why: "no command field".into(),
    };
    ask(&mut m, 9, Preflighted::Answered { how, sent: Ok(()) });
    assert!(
        system(&m, SystemLevel::Error)
            .iter()
            .any(|l| l.contains("(no command field)")),
        "{:?}",
        system(&m, SystemLevel::Error)
    );
}

/// An agent terminal reaches its tool call's row: how it ended, read back
/// from the words the machine gave it.
#[test]
fn an_agent_terminal_shows_in_the_transcript() {
    let (mut m, _) = ready();
    let news = TerminalNews {
        id: "term-1".into(),
        command: "cargo test".into(),
        exit: Some(agent_client_protocol::v1::schema::TerminalExitStatus::new().exit_code(Some(2))),
        last_lines: vec!["error: 1 failed".into()],
    };
    step(&mut m, Input::Terminal(news), t0());
    let view = m
        .app
        .terminals
        .get("term-1")
        .expect("kept for its tool call");
    assert_eq!(view.exit.as_deref(), Some("exit 2"));
    assert_eq!(view.last_lines, ["error: 1 failed"]);
}
