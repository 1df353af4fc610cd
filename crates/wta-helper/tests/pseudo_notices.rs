//! The helper's notices and errors go through wta-i18n: with the
//! pseudo-locale on, what the machine tells the user (not connected, a
//! stale fix dropped, a lagging pane, the `/sessions` picker's words, an
//! action's result under its card, why the master went away) is bracketed
//! pseudo-text, while what it tells the agent is not touched.
//!
//! The language is process-wide: this file is its own test binary, and its
//! one test sets `pseudo` and puts `en` back at the end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Instant;

use serde_json::json;
use wta_helper::connection::lost::describe;
use wta_helper::executor::{ActionOutcome, RunReport};
use wta_helper::machine::SessionOpened;
use wta_helper::machine::{Command, Input, Linked, Machine, PaneConfig, step};
use wta_helper::proposals::{Approval, ProposalAccepted, ProposalEvent, TurnContext};
use wta_protocol::agent_sessions::{
    AgentSessionRow, AgentSessionsResponse, AgentStatus, SessionSource,
};
use wta_protocol::{ExecutionId, Origin, PaneId, ProposalId};
use wta_shell::EndReason;
use wta_state::{Event, Item, Scripted};

fn config() -> PaneConfig {
    PaneConfig {
        agent: Some("custom:test".into()),
        own_pid: 42,
        ..PaneConfig::default()
    }
}

fn submit(m: &mut Machine, text: &str) -> Vec<Command> {
    step(
        m,
        Input::App(Event::Script(Scripted::Submit(text.into()))),
        Instant::now(),
    )
}

/// A machine with a live link and session `s1`.
fn ready() -> Machine {
    let mut m = Machine::new(config());
    m.start(Instant::now());
    let linked = Input::Linked(Box::new(Ok(Linked {
        agent_id: Some("custom:test".into()),
        auth: Vec::new(),
        master_pid: Some(7),
        loads_sessions: false,
    })));
    step(&mut m, linked, Instant::now());
    let reply: SessionOpened = serde_json::from_value(json!({"sessionId": "s1"})).unwrap();
    let opened = Input::SessionOpened {
        agent: "custom:test".into(),
        result: Box::new(Ok(reply)),
    };
    step(&mut m, opened, Instant::now());
    m
}

fn failed(cmd: &str, exit: i32) -> Input {
    Input::CommandFinished {
        pane: PaneId::parse("%5").unwrap(),
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
            dispatched: false,
            cwd: Some("/src".into()),
        }),
    }
}

fn fix_card() -> Input {
    Input::Proposal(ProposalEvent::Accepted(ProposalAccepted {
        id: ProposalId::from_bytes([7; 16]),
        payload: serde_json::from_value(json!({"schema_version": 1,
            "origin": "autofix", "recommended_choice": 1, "choices": [{"choice": 1,
            "title": "Run git", "actions": [{"type": "send", "input": "git status"}]}]}))
        .unwrap(),
        dropped_choices: Vec::new(),
        turn: TurnContext {
            origin: Origin::Autofix,
            target_pane: Some(PaneId::parse("%5").unwrap()),
            agent_pane: None,
            delegate_agent: None,
        },
        approval: Approval::NotPreApproved,
    }))
}

/// Every system line of the transcript.
fn said(m: &Machine) -> Vec<String> {
    m.app
        .transcript
        .entries()
        .iter()
        .filter_map(|e| match &e.item {
            Item::System { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// `english`'s pseudo-text without its padding, which is measured on the
/// text before its values went in.
fn pseudo(english: &str) -> String {
    wta_i18n::pseudo(english)
        .trim_end_matches(']')
        .trim_end_matches('~')
        .to_owned()
}

fn assert_said(m: &Machine, english: &str) {
    let want = pseudo(english);
    let lines = said(m);
    assert!(
        lines.iter().any(|l| l.contains(&want)),
        "{want:?} not among {lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains(english)),
        "{english:?} bypassed translation: {lines:#?}"
    );
}

fn row(key: &str, session: &str, pane: &str, resumable: bool) -> AgentSessionRow {
    AgentSessionRow {
        key: key.into(),
        source: SessionSource::ShellPane,
        agent: "claude".into(),
        session_id: Some(session.into()),
        pane: Some(PaneId::parse(pane).unwrap()),
        tab: None,
        cwd: Some("/src".into()),
        title: None,
        status: AgentStatus::Idle,
        last_activity_ms: None,
        current_tool: None,
        resumable,
    }
}

#[test]
fn the_helpers_notices_are_translated() {
    wta_i18n::set_language("pseudo");

    // Not connected: `/sessions` before the master answered.
    let mut m = Machine::new(config());
    m.start(Instant::now());
    let commands = submit(&mut m, "/sessions");
    assert!(
        !commands.contains(&Command::ListAgentSessions),
        "{commands:?}"
    );
    assert_said(&m, "Not connected to an agent. Type /restart to try again.");

    // A lagging pane.
    let mut m = ready();
    step(&mut m, Input::Lagged { dropped: 3 }, Instant::now());
    assert_said(
        &m,
        "3 updates from the agent were dropped because this pane fell behind; the transcript may miss text.",
    );

    // A stale fix: a newer failure came while the fix ran.
    step(&mut m, failed("gti status", 127), Instant::now());
    let commands = submit(&mut m, "/fix");
    assert!(
        matches!(commands.first(), Some(Command::FixPrompt { .. })),
        "{commands:?}"
    );
    // The fix turn tells the agent about the failure: not translated.
    let Some(Command::FixPrompt { turn, .. }) = commands.first() else {
        unreachable!()
    };
    assert_eq!(turn.pane.as_str(), "%5");
    step(&mut m, failed("make", 2), Instant::now());
    step(&mut m, fix_card(), Instant::now());
    assert_said(
        &m,
        "A fix for an older failure arrived after a newer one; it was dropped.",
    );

    // `/sessions` with this pane's own row.
    let commands = submit(&mut m, "/sessions");
    assert!(
        commands.contains(&Command::ListAgentSessions),
        "{commands:?}"
    );
    let list = AgentSessionsResponse {
        sessions: vec![
            row("claude:s1", "s1", "%3", true),
            row("claude:s9", "s9", "%4", false),
        ],
    };
    step(
        &mut m,
        Input::AgentSessions(Box::new(Ok(list))),
        Instant::now(),
    );
    let picker = m.app.picker.as_ref().expect("the sessions picker");
    let ours = picker
        .items
        .iter()
        .find(|i| i.id == "claude:s1")
        .expect("this pane's row");
    for word in ["idle", "in %3", "resumable", "(this pane)"] {
        let want = pseudo(word);
        assert!(ours.label.contains(&want), "{want:?} in {:?}", ours.label);
        assert!(!ours.label.contains(word), "{word:?} in {:?}", ours.label);
    }
    let other = picker.items.iter().find(|i| i.id == "claude:s9").unwrap();
    assert!(
        !other.label.contains(&wta_i18n::pseudo("(this pane)")),
        "{:?}",
        other.label
    );
    // The ids and the agent's name are not text to translate.
    assert!(ours.label.starts_with("claude · "), "{:?}", ours.label);

    // An action's result: the user's line is translated, the agent's
    // execution line keeps its English reason.
    let run = RunReport {
        pane: "%3".into(),
        exit: None,
        output: String::new(),
        truncated: false,
        duration_ms: None,
        cwd: None,
        cmdline: None,
        cmdline_matches: true,
        interactive: false,
        end: Some(EndReason::PaneDied { status: None }),
        note: None,
    };
    let outcome = ActionOutcome::Finished(run);
    let closed = "the pane closed while the command ran";
    let shown = outcome.display(1);
    assert!(shown.contains(&pseudo(closed)), "{shown:?}");
    assert!(
        !shown.contains(closed) && !shown.contains("Action 1"),
        "{shown:?}"
    );
    let line = outcome
        .execution_line(
            ProposalId::from_bytes([1; 16]),
            ExecutionId::from_bytes([2; 16]),
            1,
        )
        .unwrap();
    assert_eq!(line.reason.as_deref(), Some(closed));
    let shown = ActionOutcome::Inserted { pane: "%3".into() }.display(2);
    let typed = pseudo("typed into %3 without Enter (nothing ran)");
    assert!(shown.contains(&typed), "{shown:?}");

    // Why the master went away.
    let why = describe(None, false, false, Path::new("/x/master.sock"));
    assert!(why.starts_with('[') && why.ends_with(']'), "{why:?}");
    assert!(!why.contains("shut down"), "{why:?}");

    wta_i18n::set_language("en");
    assert_eq!(
        wta_i18n::tr!("helper.not_connected"),
        "Not connected to an agent. Type /restart to try again."
    );
}
