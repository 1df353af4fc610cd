//! Tests of the tracker state machine: the §8.2 table, row by row, and the
//! helpers that build its tokens; forged marks and the proptests are in
//! `tracker_props_tests.rs`.

use super::*;
use crate::parser::{MarkSource, Parser};
use proptest::prelude::*;

/// The nonce the test shells announce: `aid` repeated to 16 hex digits.
fn nonce(aid: &str) -> String {
    aid.repeat(16).chars().take(16).collect()
}
fn mk(kind: MarkKind, aid: &str) -> Token {
    Token::Mark(Mark {
        kind,
        source: MarkSource::Osc133,
        aid: Some(aid.to_owned()),
        cmdline: None,
        nonce: Some(nonce(aid)),
    })
}
fn a(aid: &str) -> Token {
    mk(MarkKind::PromptStart, aid)
}
fn b(aid: &str) -> Token {
    mk(MarkKind::InputStart, aid)
}
fn c(aid: &str, cmd: &str) -> Token {
    Token::Mark(Mark {
        kind: MarkKind::CommandStart,
        source: MarkSource::Osc133,
        aid: Some(aid.to_owned()),
        cmdline: Some(cmd.to_owned()),
        nonce: Some(nonce(aid)),
    })
}
fn d(aid: &str, exit: i32) -> Token {
    mk(MarkKind::CommandEnd { exit: Some(exit) }, aid)
}
fn text(s: &str) -> Token {
    Token::Text(s.as_bytes().to_vec())
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
fn toks(v: Vec<Token>) -> Vec<Event> {
    v.into_iter().map(Event::Token).collect()
}
/// A tracker that knows the nonces of the test shells 1 to 9.
fn fresh() -> Tracker {
    trusting(Tracker::new(80, TrackerConfig::default()))
}
fn trusting(mut t: Tracker) -> Tracker {
    for pid in 1..=9u32 {
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
    t
}

#[test]
fn full_cycle_with_exit_code_and_output() {
    let (t, fx) = run(
        fresh(),
        toks(vec![
            a("1"),
            b("1"),
            c("1", "ls /nope"),
            text("err\r\n"),
            d("1", 2),
            a("1"),
            b("1"),
        ]),
    );
    assert_eq!(t.state, State::Idle);
    assert_eq!(t.integration, Integration::Present);
    let last = t.last.as_ref().unwrap();
    assert_eq!(last.exit, Some(2));
    assert_eq!(last.end_reason, Some(EndReason::Mark));
    assert_eq!(last.cmdline.as_deref(), Some("ls /nope"));
    assert_eq!(last.render().text, "err");
    assert_eq!(last.duration_ms(), Some(20));
    assert!(fx.contains(&Effect::RunFinished { id: last.id }));
}

#[test]
fn a_finished_run_stays_findable_while_a_few_more_finish() {
    let mut events = vec![a("1"), b("1")];
    for i in 0..6 {
        events.extend([
            c("1", &format!("cmd{i}")),
            text(&format!("out{i}\r\n")),
            d("1", i),
            a("1"),
            b("1"),
        ]);
    }
    let (t, fx) = run(fresh(), toks(events));
    let ids: Vec<RunId> = fx
        .iter()
        .filter_map(|f| match f {
            Effect::RunFinished { id } => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 6);
    // The last one and EARLIER_RUNS before it, each with its own output.
    for (i, id) in ids.iter().enumerate().skip(6 - 1 - EARLIER_RUNS) {
        let r = t.finished(*id).unwrap_or_else(|| panic!("run {i} kept"));
        assert_eq!(r.render().text, format!("out{i}"));
        assert_eq!(r.exit, Some(i as i32));
    }
    assert!(
        t.finished(ids[0]).is_none(),
        "older runs are dropped (bounded)"
    );
    assert_eq!(t.earlier.len(), EARLIER_RUNS);
}

#[test]
fn prompt_without_d_closes_with_unknown_exit() {
    let (t, _) = run(
        fresh(),
        toks(vec![b("1"), c("1", "x"), text("partial"), a("1")]),
    );
    assert_eq!(t.state, State::Prompt);
    let last = t.last.unwrap();
    assert_eq!(
        (last.exit, last.end_reason),
        (None, Some(EndReason::PromptWithoutD))
    );
}

/// bash runs each line of one accepted multi-line buffer with its own `C`
/// and ends them with one `D` (measured: `C` line-one, `C` line-two, `D;1`):
/// one run, the joined command line, the last exit status, all the output.
#[test]
fn a_multi_line_command_is_one_run_until_its_d() {
    let (t, fx) = run(
        fresh(),
        vec![
            Event::Token(b("1")),
            Event::Submitted {
                text: "echo one\necho two; false".into(),
            },
            Event::Token(c("1", "echo one")),
            Event::Token(text("one\r\n")),
            Event::Token(c("1", "echo two; false")),
            Event::Token(text("two\r\n")),
            Event::Token(d("1", 1)),
        ],
    );
    let started = fx
        .iter()
        .filter(|e| matches!(e, Effect::RunStarted { .. }))
        .count();
    assert_eq!(started, 1, "{fx:?}");
    let last = t.last.unwrap();
    assert_eq!(last.cmdline.as_deref(), Some("echo one\necho two; false"));
    assert!(last.cmdline_matches);
    assert_eq!(
        (last.exit, last.end_reason),
        (Some(1), Some(EndReason::Mark))
    );
    assert_eq!(last.render().text, "one\ntwo");
}

#[test]
fn nested_shell_marks_belong_to_the_outer_run() {
    let (t, _) = run(
        fresh(),
        toks(vec![
            b("1"),
            c("1", "bash"),
            a("2"),
            b("2"),
            c("2", "echo inner"),
            text("inner\r\n"),
            d("2", 0),
            a("2"),
            c("2", "exit 5"),
            d("1", 5),
        ]),
    );
    let last = t.last.unwrap();
    assert_eq!(last.cmdline.as_deref(), Some("bash"));
    assert_eq!(last.exit, Some(5));
    assert_eq!(last.render().text, "inner");
    assert_eq!(t.state, State::Finished);
    assert_eq!(t.shell_aid.as_deref(), Some("1"));
}

#[test]
fn exec_into_another_shell_adopts_its_aid() {
    let (t, _) = run(
        fresh(),
        toks(vec![b("1"), c("1", "exec zsh"), d("1", 0), a("9"), b("9")]),
    );
    assert_eq!(t.shell_aid.as_deref(), Some("9"));
    assert_eq!(t.state, State::Idle);
}

#[test]
fn submit_is_ours_when_cmdline_matches_and_timer_decides_absent() {
    let (t, fx) = run(
        fresh(),
        vec![
            Event::Token(b("1")),
            Event::Submitted {
                text: "echo  hi".into(),
            },
            Event::Token(c("1", "echo hi")),
        ],
    );
    assert!(matches!(
        fx[..],
        [
            Effect::IntegrationChanged { .. },
            Effect::StartSubmitTimer {
                id: SubmitId(1),
                after_ms: 1000
            },
            Effect::RunStarted { .. }
        ]
    ));
    let cur = t.current.unwrap();
    assert_eq!(cur.submitted.as_deref(), Some("echo  hi"));
    assert!(cur.cmdline_matches);

    // Stale timer after C: ignored. Timer while Submitted: Absent or EnterLost.
    let idle = run(fresh(), toks(vec![b("1")])).0;
    let (s, _) = step(idle.clone(), Event::Submitted { text: "x".into() }, 0);
    let (gone, fx) = step(
        s.clone(),
        Event::SubmitTimerExpired {
            id: SubmitId(1),
            changed: true,
        },
        1000,
    );
    assert_eq!(
        (gone.state, gone.integration),
        (State::Absent, Integration::Absent)
    );
    assert!(fx.contains(&Effect::SubmitNotStarted {
        id: SubmitId(1),
        why: NotStarted::IntegrationAbsent
    }));
    let (lost, _) = step(
        s.clone(),
        Event::SubmitTimerExpired {
            id: SubmitId(1),
            changed: false,
        },
        1000,
    );
    assert_eq!(lost.state, State::Idle);
    let (same, fx) = step(
        s,
        Event::SubmitTimerExpired {
            id: SubmitId(7),
            changed: true,
        },
        1000,
    );
    assert!(fx.is_empty() && matches!(same.state, State::Submitted { .. }));
}

#[test]
fn a_redrawn_prompt_keeps_a_submission_pending_until_its_start() {
    // readline accepting a paste (or a `bind -x` function) redraws the
    // prompt, marks and all, before the command starts.
    let submitted = |t| {
        step(
            t,
            Event::Submitted {
                text: "a\nb".into(),
            },
            0,
        )
        .0
    };
    let idle = run(fresh(), toks(vec![a("1"), b("1")])).0;
    let (t, fx) = run(
        submitted(idle.clone()),
        toks(vec![
            a("1"),
            b("1"),
            a("1"),
            b("1"),
            c("1", "a\nb"),
            d("1", 0),
        ]),
    );
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::SubmitNotStarted { .. })),
        "{fx:?}"
    );
    let last = t.last.unwrap();
    assert_eq!(
        (last.submitted.as_deref(), last.exit),
        (Some("a\nb"), Some(0))
    );
    // A prompt and then nothing: the shell showed a prompt instead (not a
    // shell without integration, though the screen changed).
    let (redrawn, _) = run(submitted(idle), toks(vec![a("1"), b("1")]));
    let (t, fx) = step(
        redrawn,
        Event::SubmitTimerExpired {
            id: SubmitId(1),
            changed: true,
        },
        1000,
    );
    assert_eq!(
        (t.state, t.integration),
        (State::Idle, Integration::Present)
    );
    assert!(fx.contains(&Effect::SubmitNotStarted {
        id: SubmitId(1),
        why: NotStarted::PromptInstead
    }));
}

#[test]
fn typed_text_comes_back_once_the_handed_off_command_ran() {
    let idle = run(fresh(), toks(vec![a("1"), b("1")])).0;
    assert!(!idle.typed_text);
    let (typing, _) = run(idle, toks(vec![text("git commit -m \"half")]));
    assert!(typing.typed_text, "echo at the prompt is typed text");
    let (s, _) = step(typing, Event::Submitted { text: "ls".into() }, 0);
    let (s, _) = step(s, Event::HandedOff, 0);
    let (s, fx) = run(s, toks(vec![c("1", "ls"), text("out"), d("1", 0), a("1")]));
    assert!(
        !fx.contains(&Effect::RestoreTyped),
        "not before the prompt takes input"
    );
    assert!(!s.typed_text);
    let (s, fx) = run(s, toks(vec![b("1")]));
    assert_eq!(
        fx.iter().filter(|e| **e == Effect::RestoreTyped).count(),
        1,
        "{fx:?}"
    );
    // Once: the next command and prompt ask for nothing.
    let (_, fx) = run(s, toks(vec![c("1", "pwd"), d("1", 0), a("1"), b("1")]));
    assert!(!fx.contains(&Effect::RestoreTyped));
}

#[test]
fn submit_outside_idle_is_not_recorded() {
    let (t, fx) = run(
        fresh(),
        vec![
            Event::Token(b("1")),
            Event::Token(c("1", "sleep 9")),
            Event::Submitted {
                text: "typed".into(),
            },
        ],
    );
    assert_eq!(t.state, State::Running);
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::StartSubmitTimer { .. }))
    );
}

#[test]
fn pane_death_closes_the_run_and_freezes() {
    let (t, fx) = run(
        fresh(),
        vec![
            Event::Token(b("1")),
            Event::Token(c("1", "exit 4")),
            Event::PipeClosed {
                fate: PaneFate::Dead { status: Some(4) },
            },
            Event::Token(a("1")),
        ],
    );
    assert_eq!(t.state, State::Dead { status: Some(4) });
    assert_eq!(
        t.last.unwrap().end_reason,
        Some(EndReason::PaneDied { status: Some(4) })
    );
    assert!(fx.contains(&Effect::PaneDied { status: Some(4) }));
}

#[test]
fn alt_screen_flags_the_run_and_d_outside_running_is_ignored() {
    let (t, fx) = run(
        fresh(),
        toks(vec![
            d("1", 3),
            b("1"),
            c("1", "less"),
            Token::AltScreen(true),
            Token::AltScreen(false),
            d("1", 0),
            d("1", 9),
        ]),
    );
    assert!(t.last.as_ref().unwrap().alt_screen);
    assert_eq!(t.last.unwrap().exit, Some(0));
    assert_eq!(
        fx.iter()
            .filter(|e| matches!(e, Effect::RunFinished { .. }))
            .count(),
        1
    );
}

#[test]
fn announced_integration_is_present_and_cwd_changes_once() {
    let (t, fx) = run(
        fresh(),
        vec![
            Event::IntegrationAnnounced,
            Event::Token(mk(MarkKind::Cwd("/a b".into()), "1")),
            Event::Token(mk(MarkKind::Cwd("/a b".into()), "1")),
        ],
    );
    assert_eq!(t.integration, Integration::Present);
    assert_eq!(t.cwd.as_ref().map(|c| c.path.as_str()), Some("/a b"));
    assert_eq!(fx.iter().filter(|e| **e == Effect::CwdChanged).count(), 1);
}

#[test]
fn only_the_shells_nonced_cwd_counts_never_one_printed_by_output() {
    let forged_osc7 = Token::Cwd(Cwd {
        host: Some("vm".into()),
        path: "/etc/evil-dir".into(),
    });
    let no_nonce = Token::Mark(Mark {
        kind: MarkKind::Cwd("/etc/evil-dir".into()),
        source: MarkSource::Osc133,
        aid: Some("1".into()),
        cmdline: None,
        nonce: None,
    });
    let wrong_nonce = Token::Mark(Mark {
        nonce: Some("0000".into()),
        ..match mk(MarkKind::Cwd("/etc/evil-dir".into()), "1") {
            Token::Mark(m) => m,
            _ => unreachable!(),
        }
    });
    let (t, fx) = run(
        fresh(),
        toks(vec![
            mk(MarkKind::Cwd("/home/ada".into()), "1"),
            a("1"),
            b("1"),
            forged_osc7,
            no_nonce,
            wrong_nonce,
        ]),
    );
    assert_eq!(t.cwd.as_ref().map(|c| c.path.as_str()), Some("/home/ada"));
    assert_eq!(fx.iter().filter(|e| **e == Effect::CwdChanged).count(), 1);
    // A nested shell's report (another aid, during a run) is that run's output.
    let (t, _) = run(
        t,
        toks(vec![
            c("1", "bash"),
            mk(MarkKind::Cwd("/nested".into()), "2"),
        ]),
    );
    assert_eq!(t.cwd.as_ref().map(|c| c.path.as_str()), Some("/home/ada"));
}

#[test]
fn quiet_gated_start_means_absent_unless_marks_or_announced() {
    let (t, fx) = run(fresh(), vec![Event::StartQuiet { changed: true }]);
    assert_eq!(
        (t.state, t.integration),
        (State::Absent, Integration::Absent)
    );
    assert!(fx.contains(&Effect::IntegrationChanged {
        integration: Integration::Absent
    }));
    let (t, _) = run(fresh(), vec![Event::StartQuiet { changed: false }]);
    assert_eq!(t.integration, Integration::Unknown);
    let (t, _) = run(
        fresh(),
        vec![Event::Token(b("1")), Event::StartQuiet { changed: true }],
    );
    assert_eq!(
        (t.state, t.integration),
        (State::Idle, Integration::Present)
    );
    // A later mark revives an Absent pane.
    let (t, _) = run(
        fresh(),
        vec![
            Event::StartQuiet { changed: true },
            Event::Token(a("1")),
            Event::Token(b("1")),
        ],
    );
    assert_eq!(
        (t.state, t.integration),
        (State::Idle, Integration::Present)
    );
}

#[test]
fn cmdline_normalisation() {
    assert!(cmdline_matches(
        "for i in 1 2\ndo echo $i\ndone",
        "for i in 1 2; do echo $i; done"
    ));
    assert!(!cmdline_matches("ls", "ls -l"));
}

#[test]
fn an_unverified_submit_without_c_on_a_changed_pane_means_absent() {
    // A plain shell opened outside WTA: no mark ever. WTA typed a command blind.
    let t = fresh();
    let (t, fx) = run(t, vec![Event::SubmittedUnverified { text: "ls".into() }]);
    let id = match &t.state {
        State::Submitted { id, text, .. } if text == "ls" => *id,
        other => panic!("{other:?}"),
    };
    assert_eq!(fx, [Effect::StartSubmitTimer { id, after_ms: 1000 }]);
    let (t, fx) = run(t, vec![Event::SubmitTimerExpired { id, changed: true }]);
    assert_eq!(t.state, State::Absent);
    assert_eq!(t.integration, Integration::Absent);
    assert!(fx.contains(&Effect::IntegrationChanged {
        integration: Integration::Absent
    }));
    assert!(fx.contains(&Effect::SubmitNotStarted {
        id,
        why: NotStarted::IntegrationAbsent
    }));
}

#[test]
fn an_unverified_submit_without_change_restores_what_was_known() {
    let (t, _) = run(
        fresh(),
        vec![Event::SubmittedUnverified { text: "x".into() }],
    );
    let State::Submitted { id, .. } = t.state else {
        panic!("{:?}", t.state)
    };
    let (t, fx) = run(t, vec![Event::SubmitTimerExpired { id, changed: false }]);
    assert_eq!(t.state, State::Unknown, "never claimed Idle");
    assert_eq!(t.integration, Integration::Unknown);
    assert_eq!(
        fx,
        [Effect::SubmitNotStarted {
            id,
            why: NotStarted::EnterLost
        }]
    );
}

#[test]
fn an_unverified_submit_answered_by_c_is_a_normal_run() {
    let (t, _) = run(
        fresh(),
        vec![Event::SubmittedUnverified {
            text: "make".into(),
        }],
    );
    let State::Submitted { id, .. } = t.state else {
        panic!("{:?}", t.state)
    };
    let (t, _) = run(t, toks(vec![c("9", "make"), d("9", 0)]));
    let last = t.last.as_ref().unwrap();
    assert_eq!(last.submitted.as_deref(), Some("make"));
    assert!(last.cmdline_matches);
    assert_eq!(t.integration, Integration::Present);
    // The late timer changes nothing.
    let (t2, fx) = run(
        t.clone(),
        vec![Event::SubmitTimerExpired { id, changed: true }],
    );
    assert_eq!((t2.state, fx), (t.state, vec![]));
}

#[test]
fn an_unverified_submit_is_ignored_while_a_command_runs() {
    let (t, _) = run(fresh(), toks(vec![a("1"), b("1"), c("1", "sleep 9")]));
    let (t, fx) = run(t, vec![Event::SubmittedUnverified { text: "ls".into() }]);
    assert_eq!(t.state, State::Running);
    assert!(fx.is_empty());
}

#[test]
fn lost_output_flags_the_running_command_and_unsettles_a_prompt() {
    let (t, _) = run(
        fresh(),
        toks(vec![a("1"), b("1"), c("1", "seq 1 9999999"), text("1\r\n")]),
    );
    let (t, _) = run(
        t,
        vec![
            Event::OutputLost { bytes: 4096 },
            Event::Token(text("9999999\r\n")),
            Event::Token(d("1", 0)),
        ],
    );
    let last = t.last.as_ref().unwrap();
    assert_eq!(last.exit, Some(0));
    assert_eq!(last.output.lost(), 4096);
    let rendered = last.render();
    assert!(rendered.truncated);
    assert!(
        rendered.text.contains("4096 bytes of output lost"),
        "{}",
        rendered.text
    );
    assert!(rendered.text.ends_with("9999999"), "{}", rendered.text);
    // At a prompt, lost bytes may hold the next C: the state is unknown.
    let (t, _) = run(t, toks(vec![a("1"), b("1")]));
    assert_eq!(t.state, State::Idle);
    let (t, _) = run(t, vec![Event::OutputLost { bytes: 10 }]);
    assert_eq!(t.state, State::Unknown);
    assert!(crate::submit::decide_submit(&t.state, t.integration).is_err());
    // A verdict of no integration is not undone by a gap.
    let absent = Tracker {
        state: State::Absent,
        ..fresh()
    };
    let (t, _) = run(absent, vec![Event::OutputLost { bytes: 10 }]);
    assert_eq!(t.state, State::Absent);
}

#[path = "tracker_props_tests.rs"]
mod props;
