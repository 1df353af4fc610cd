//! Autofix on the machine: which finished commands are failures, the fix
//! turn's target and generation, stale fix cards, and `wta fix`.

use super::*;

fn finished_cmd(cmd: &str, exit: i32, dispatched: bool) -> Input {
    Input::CommandFinished {
        pane: wta_protocol::PaneId::parse("%5").unwrap(),
        finished: Box::new(wta_shell::Finished {
            record: wta_shell::LastCommand {
                pane: "%5".into(),
                cmdline: Some(cmd.into()),
                exit_code: Some(exit),
                end_reason: "exited".into(),
                duration_ms: Some(3),
                output: format!("{cmd}: oops"),
                truncated: false,
                interactive: false,
                output_bytes: 10,
            },
            dispatched,
            cwd: Some("/src".into()),
        }),
    }
}

#[test]
fn only_a_real_failure_of_another_pane_shows_the_pill() {
    let mut own = config();
    own.own_pane = Some(wta_protocol::PaneId::parse("%5").unwrap());
    for (why, input, config) in [
        ("success", finished_cmd("true", 0, false), config()),
        ("ctrl+c", finished_cmd("sleep 9", 130, false), config()),
        (
            "a card's own command",
            finished_cmd("make", 2, true),
            config(),
        ),
        ("the agent pane itself", finished_cmd("x", 1, false), own),
        (
            "autofix off",
            finished_cmd("x", 1, false),
            PaneConfig {
                autofix: crate::autofix::AutofixMode::Off,
                ..config()
            },
        ),
    ] {
        let mut m = Machine::new(config);
        m.start(t0());
        step(&mut m, input, t0());
        assert!(m.app.failure.is_none(), "{why}");
    }
    let (mut m, _) = ready();
    step(&mut m, finished_cmd("cargo tset", 101, false), t0());
    let pill = m.app.failure.clone().expect("the pill");
    assert_eq!((pill.pane.as_str(), pill.exit_code), ("%5", 101));
    assert_eq!(pill.command.as_deref(), Some("cargo tset"));
}

#[test]
fn the_fix_turn_is_about_the_failing_pane_and_a_stale_card_is_dropped() {
    let (mut m, _) = ready();
    step(&mut m, finished_cmd("gti status", 127, false), t0());
    let commands = submit(&mut m, "/fix it is git");
    let Some(Command::FixPrompt { session, turn }) = commands.first() else {
        panic!("{commands:?}")
    };
    assert_eq!(*session, sid("s1"));
    assert_eq!((turn.generation, turn.pane.as_str()), (1, "%5"));
    assert_eq!(turn.hint.as_deref(), Some("it is git"));
    assert!(m.app.transcript.turn_running());
    assert!(m.app.failure.is_none(), "the pill is taken by the fix");
    // A newer failure while the fix runs: the fix's card is stale.
    step(&mut m, finished_cmd("make", 2, false), t0());
    let card = |origin| {
        let payload = json!({"schema_version": 1,
            "origin": "autofix", "recommended_choice": 1, "choices": [{"choice": 1,
            "title": "Run git", "actions": [{"type": "send", "input": "git status"}]}]});
        card_input(
            wta_protocol::ProposalId::from_bytes([7; 16]),
            payload,
            "%5",
            origin,
            false,
        )
    };
    let commands = step(&mut m, card(wta_protocol::Origin::Autofix), t0());
    assert_eq!(
        commands,
        [Command::CancelCard {
            id: wta_protocol::ProposalId::from_bytes([7; 16])
        }]
    );
    assert!(m.app.proposals.is_empty());
    // A normal turn's card is never taken for a stale fix.
    let commands = step(&mut m, card(wta_protocol::Origin::TerminalAgent), t0());
    assert!(commands.is_empty(), "{commands:?}");
}

#[test]
fn a_fix_card_for_the_newest_failure_is_shown_and_nothing_runs_unconfirmed() {
    let mut config = config();
    config.auto_approve_tools = true;
    let mut m = Machine::new(config);
    m.start(t0());
    step(&mut m, linked(), t0());
    step(&mut m, opened("s1", json!({})), t0());
    step(&mut m, finished_cmd("gti status", 127, false), t0());
    submit(&mut m, "/fix");
    let payload = json!({"schema_version": 1, "origin": "autofix",
        "recommended_choice": 1, "choices": [{"choice": 1, "title": "Run git",
        "actions": [{"type": "send", "input": "git status"}]}]});
    let card = card_input(
        wta_protocol::ProposalId::from_bytes([8; 16]),
        payload,
        "%5",
        wta_protocol::Origin::Autofix,
        true,
    );
    let commands = step(&mut m, card, t0());
    // Yolo on, card armed: still only a card, no ConfirmCard until the user.
    assert!(
        !commands
            .iter()
            .any(|c| matches!(c, Command::ConfirmCard { .. })),
        "{commands:?}"
    );
    assert_eq!(m.app.proposals.len(), 1);
}

#[test]
fn wta_fix_for_another_pane_than_the_failure_says_so() {
    let (mut m, _) = ready();
    step(&mut m, finished_cmd("false", 1, false), t0());
    let elsewhere = Input::FixRequested {
        pane: Some(wta_protocol::PaneId::parse("%9").unwrap()),
        hint: None,
        reply: None,
    };
    assert!(step(&mut m, elsewhere, t0()).is_empty());
    assert!(
        system(&m, SystemLevel::Error)
            .iter()
            .any(|t| t.contains("No failed command to fix in %9"))
    );
    let here = Input::FixRequested {
        pane: Some(wta_protocol::PaneId::parse("%5").unwrap()),
        hint: Some("try again".into()),
        reply: None,
    };
    let commands = step(&mut m, here, t0());
    assert!(
        matches!(commands.first(), Some(Command::FixPrompt { turn, .. }) if turn.hint.as_deref() == Some("try again")),
        "{commands:?}"
    );
}
