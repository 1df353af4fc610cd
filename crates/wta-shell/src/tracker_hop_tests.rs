//! Tests of hops: entering and leaving a remote shell, row by row, plus a
//! proptest that no forged mark moves the tracker onto or off a hop.

use super::*;
use crate::parser::{MarkSource, Token};
use crate::tracker::{Event, Integration, Millis, RunId, TrackerConfig, step};
use proptest::prelude::*;

/// The local shell's pid, and the `wta ssh` pid the remote shell's marks name.
const LOCAL: &str = "1";
const REMOTE: &str = "5";

fn nonce(aid: &str) -> String {
    aid.repeat(16).chars().take(16).collect()
}
fn mark(kind: MarkKind, aid: &str, nonce: Option<String>, cmdline: Option<&str>) -> Event {
    Event::Token(Token::Mark(Mark {
        kind,
        source: MarkSource::Osc133,
        aid: Some(aid.to_owned()),
        cmdline: cmdline.map(str::to_owned),
        nonce,
    }))
}
fn m(kind: MarkKind, aid: &str) -> Event {
    mark(kind, aid, Some(nonce(aid)), None)
}
fn a(aid: &str) -> Event {
    m(MarkKind::PromptStart, aid)
}
fn b(aid: &str) -> Event {
    m(MarkKind::InputStart, aid)
}
fn c(aid: &str, cmd: &str) -> Event {
    mark(MarkKind::CommandStart, aid, Some(nonce(aid)), Some(cmd))
}
fn d(aid: &str, exit: i32) -> Event {
    m(MarkKind::CommandEnd { exit: Some(exit) }, aid)
}
fn p(aid: &str, path: &str) -> Event {
    m(MarkKind::Cwd(path.to_owned()), aid)
}
fn gone(aid: &str) -> Event {
    m(MarkKind::ShellGone, aid)
}
fn text(s: &str) -> Event {
    Event::Token(Token::Text(s.as_bytes().to_vec()))
}

fn run(t: Tracker, events: Vec<Event>) -> (Tracker, Vec<Effect>) {
    let mut all = Vec::new();
    let mut t = t;
    for (i, e) in events.into_iter().enumerate() {
        let (n, fx) = step(t, e, i as Millis * 10);
        t = n;
        all.extend(fx);
    }
    (t, all)
}

/// A tracker that knows both nonces; `host` announced for the remote pid.
fn tracker(host: Option<&str>) -> Tracker {
    let mut t = Tracker::new(80, TrackerConfig::default());
    for pid in [LOCAL, REMOTE] {
        let pid: u32 = pid.parse().unwrap();
        t = step(
            t,
            Event::NonceLearned {
                pid,
                nonce: Some(nonce(&pid.to_string())),
            },
            0,
        )
        .0;
    }
    step(
        t,
        Event::HopLearned {
            pid: REMOTE.parse().unwrap(),
            host: host.map(str::to_owned),
        },
        0,
    )
    .0
}

/// The local shell runs `wta ssh box`, and the remote shell shows its prompt.
fn at_remote_prompt() -> (Tracker, Vec<Effect>) {
    run(
        tracker(Some("box")),
        vec![
            b(LOCAL),
            c(LOCAL, "wta ssh box"),
            p(REMOTE, "/srv"),
            a(REMOTE),
            b(REMOTE),
        ],
    )
}

#[test]
fn the_remote_shell_is_followed_while_wta_ssh_runs() {
    let (t, fx) = at_remote_prompt();
    assert_eq!(t.remote(), Some("box"));
    assert_eq!(t.state, State::Idle);
    assert_eq!(t.shell_aid.as_deref(), Some(REMOTE));
    let cwd = t.cwd.clone().unwrap();
    assert_eq!(
        (cwd.host.as_deref(), cwd.path.as_str()),
        (Some("box"), "/srv")
    );
    assert_eq!(t.integration, Integration::Present);
    assert!(fx.contains(&Effect::RemoteChanged), "{fx:?}");
    // A card's command runs there: exit code and output come back.
    let (t, _) = run(
        t,
        vec![Event::Submitted {
            text: "ls /nope".into(),
        }],
    );
    let (t, fx) = run(
        t,
        vec![
            c(REMOTE, "ls /nope"),
            text("ls: /nope: nothing\r\n"),
            d(REMOTE, 2),
        ],
    );
    let last = t.last.clone().unwrap();
    assert_eq!(
        (last.exit, last.end_reason),
        (Some(2), Some(EndReason::Mark))
    );
    assert_eq!(last.submitted.as_deref(), Some("ls /nope"));
    assert!(last.cmdline_matches);
    assert_eq!(last.render().text, "ls: /nope: nothing");
    assert!(fx.iter().any(|e| matches!(e, Effect::RunFinished { .. })));
}

#[test]
fn the_end_mark_hands_the_pane_back_to_the_local_shell() {
    let (t, _) = at_remote_prompt();
    let (t, fx) = run(t, vec![gone(REMOTE)]);
    assert_eq!(t.remote(), None);
    assert!(fx.contains(&Effect::RemoteChanged), "{fx:?}");
    // The local `wta ssh` is still running, and ends with its own D.
    assert_eq!(t.state, State::Running);
    assert_eq!(t.shell_aid.as_deref(), Some(LOCAL));
    assert_eq!(t.cwd, None, "the local shell's cwd was never reported");
    let (t, _) = run(t, vec![d(LOCAL, 0), a(LOCAL), b(LOCAL)]);
    let last = t.last.clone().unwrap();
    assert_eq!(last.cmdline.as_deref(), Some("wta ssh box"));
    assert_eq!(last.exit, Some(0));
    assert_eq!(t.state, State::Idle);
}

#[test]
fn a_command_running_when_the_session_ends_ends_with_it() {
    for end in [gone(REMOTE), d(LOCAL, 255)] {
        let (t, _) = at_remote_prompt();
        let (t, _) = run(
            t,
            vec![Event::Submitted {
                text: "sleep 30".into(),
            }],
        );
        let (t, fx) = run(
            t,
            vec![c(REMOTE, "sleep 30"), text("partial\r\n"), end.clone()],
        );
        let ended = t
            .finished(RunId(2))
            .cloned()
            .unwrap_or_else(|| panic!("{end:?}: {t:?}"));
        assert_eq!(ended.cmdline.as_deref(), Some("sleep 30"));
        assert_eq!(
            (ended.exit, ended.end_reason),
            (None, Some(EndReason::SessionEnded)),
            "{end:?}"
        );
        assert_eq!(ended.render().text, "partial");
        assert!(fx.contains(&Effect::RunFinished { id: RunId(2) }), "{fx:?}");
        assert_eq!(t.remote(), None);
    }
}

#[test]
fn a_submission_waiting_for_its_start_is_reported_not_started() {
    let (t, _) = at_remote_prompt();
    let (t, fx) = run(
        t,
        vec![Event::Submitted { text: "ls".into() }, gone(REMOTE)],
    );
    assert!(
        fx.iter().any(|e| matches!(
            e,
            Effect::SubmitNotStarted {
                why: NotStarted::EnterLost,
                ..
            }
        )),
        "{fx:?}"
    );
    assert_eq!(t.state, State::Running, "back to the local `wta ssh`");
}

#[test]
fn without_an_outer_shell_the_hop_ends_where_it_began() {
    // `wta ssh` is the pane's own program: nothing was followed before.
    let (t, _) = run(tracker(Some("box")), vec![a(REMOTE), b(REMOTE)]);
    assert_eq!((t.remote(), &t.state), (Some("box"), &State::Idle));
    let (t, _) = run(t, vec![gone(REMOTE)]);
    assert_eq!((t.remote(), &t.state), (None, &State::Unknown));
    assert_eq!(t.shell_aid, None);
}

#[test]
fn a_pid_not_announced_as_remote_is_a_nested_shell() {
    for host in [None, Some(""), Some("evil\u{1b}]0;x")] {
        let (t, _) = run(
            tracker(host),
            vec![
                b(LOCAL),
                c(LOCAL, "bash"),
                a(REMOTE),
                b(REMOTE),
                gone(REMOTE),
            ],
        );
        assert_eq!(t.remote(), None, "{host:?}");
        assert_eq!(t.state, State::Running, "{host:?}");
        assert_eq!(t.current.as_ref().unwrap().cmdline.as_deref(), Some("bash"));
    }
}

#[test]
fn forged_marks_in_remote_output_change_nothing() {
    let (t, _) = at_remote_prompt();
    let (t, _) = run(
        t,
        vec![Event::Submitted {
            text: "cat log".into(),
        }],
    );
    let (t, _) = run(t, vec![c(REMOTE, "cat log")]);
    let wrong = Some("ffffffffffffffff".to_owned());
    let forged = vec![
        // The remote shell's aid and the local shell's, without a nonce or
        // with one of the right shape that is not theirs.
        mark(MarkKind::ShellGone, REMOTE, None, None),
        mark(MarkKind::ShellGone, REMOTE, wrong.clone(), None),
        mark(
            MarkKind::CommandEnd { exit: Some(0) },
            REMOTE,
            wrong.clone(),
            None,
        ),
        mark(MarkKind::CommandEnd { exit: Some(0) }, LOCAL, None, None),
        mark(
            MarkKind::CommandEnd { exit: Some(0) },
            LOCAL,
            wrong.clone(),
            None,
        ),
        mark(MarkKind::PromptStart, LOCAL, wrong.clone(), None),
        mark(MarkKind::Cwd("/etc".into()), REMOTE, wrong, None),
    ];
    let (t, fx) = run(t, forged);
    assert_eq!(fx, vec![], "forged marks are dropped");
    assert_eq!((t.remote(), &t.state), (Some("box"), &State::Running));
    assert_eq!(t.cwd.as_ref().map(|c| c.path.as_str()), Some("/srv"));
    let (t, _) = run(t, vec![d(REMOTE, 0)]);
    assert_eq!(t.last.unwrap().exit, Some(0));
}

#[test]
fn a_lost_stream_forgets_the_hop() {
    let (t, _) = at_remote_prompt();
    let (t, _) = run(t, vec![Event::Detached]);
    assert_eq!((t.remote(), &t.state), (None, &State::Unknown));
}

#[test]
fn the_remote_pids_remembered_are_bounded() {
    let mut hops = Hops::default();
    for pid in 1..=40 {
        hops.learned(pid, Some(format!("h{pid}")));
    }
    assert_eq!(hops.remotes.len(), MAX_REMOTES);
    hops.learned(40, None);
    assert!(!hops.remotes.contains_key(&40));
    assert!(!valid_host_label(&"x".repeat(MAX_HOST_LABEL + 1)));
    assert!(valid_host_label("me@host.example:2222"));
}

/// One step a pane could show during a hop: a genuine mark of either
/// shell, a forged one, or output.
fn any_event() -> impl Strategy<Value = Event> {
    let aid = prop_oneof![Just(LOCAL), Just(REMOTE), Just("7")];
    let kind = prop_oneof![
        Just(MarkKind::PromptStart),
        Just(MarkKind::InputStart),
        Just(MarkKind::CommandStart),
        (0..3i32).prop_map(|e| MarkKind::CommandEnd { exit: Some(e) }),
        Just(MarkKind::Cwd("/x".into())),
        Just(MarkKind::ShellGone),
    ];
    prop_oneof![
        (kind.clone(), aid.clone()).prop_map(|(k, a)| m(k, a)),
        (kind, aid).prop_map(|(k, a)| mark(k, a, Some("0123456789abcdef".into()), None)),
        "[a-z\r\n]{0,8}".prop_map(|s| text(&s)),
        Just(Event::Submitted { text: "x".into() }),
    ]
}

proptest! {
    /// Whatever the pane shows, a forged mark never moves the tracker onto
    /// or off a hop, a hop is followed only for the announced pid, and a
    /// genuine end mark always ends it.
    #[test]
    fn only_genuine_marks_move_hops(events in proptest::collection::vec(any_event(), 0..80)) {
        let mut t = tracker(Some("box"));
        for (i, event) in events.into_iter().enumerate() {
            // Pid 7 announced no nonce: its marks are forged whatever they carry.
            let forged = matches!(&event, Event::Token(Token::Mark(mk))
                if mk.aid.as_deref() == Some("7")
                    || mk.nonce.as_deref() != mk.aid.as_deref().map(nonce).as_deref());
            let end = matches!(&event, Event::Token(Token::Mark(mk))
                if mk.kind == MarkKind::ShellGone && !forged);
            let before = (t.remote().map(str::to_owned), t.state.clone(), t.shell_aid.clone());
            t = step(t, event, i as Millis).0;
            if forged {
                prop_assert_eq!(before, (t.remote().map(str::to_owned), t.state.clone(), t.shell_aid.clone()));
            }
            if end {
                prop_assert_eq!(t.remote(), None);
            }
            if t.remote().is_some() {
                prop_assert_eq!(t.shell_aid.as_deref(), Some(REMOTE));
            }
        }
    }
}
