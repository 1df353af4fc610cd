//! The session endpoint's requests on the machine: a tool call for this
//! pane's session runs, another session's is refused; a question is shown
//! once, answered exactly once, refused while another is up or for another
//! session, and withdrawn (answered cancelled) when the turn stops, the
//! session goes or its caller leaves.

use wta_protocol::session_tools::{UserInputArgs, UserInputOutcome};
use wta_state::{Effect, QuestionAnswer, Scripted};

use super::*;

fn tool_call(m: &mut Machine, key: u64, session: &str) -> Vec<Command> {
    let input = Input::ClientRequest {
        key: RequestKey(key),
        call: ClientCall::SessionTool {
            session: session.into(),
        },
    };
    step(m, input, t0())
}

fn question(m: &mut Machine, key: u64, session: &str, request: u64) -> Vec<Command> {
    let input = Input::Question {
        key: RequestKey(key),
        session: session.into(),
        request,
        input: UserInputArgs {
            question: "Deploy where?".into(),
            choices: vec!["staging".into(), "prod".into()],
            allow_freeform: false,
        },
    };
    step(m, input, t0())
}

fn answered(commands: &[Command]) -> Vec<(u64, UserInputOutcome)> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::AnswerQuestion { key, outcome } => Some((key.0, outcome.clone())),
            _ => None,
        })
        .collect()
}

fn unavailable(commands: &[Command]) -> bool {
    matches!(
        answered(commands).as_slice(),
        [(_, UserInputOutcome::Unavailable { .. })]
    )
}

#[test]
fn a_tool_call_runs_only_for_this_panes_session() {
    let (mut m, _) = ready();
    assert_eq!(
        tool_call(&mut m, 5, "s1"),
        [Command::RunSessionTool { key: RequestKey(5) }]
    );
    let other = tool_call(&mut m, 6, "s2");
    assert!(
        matches!(&other[..], [Command::Refuse { key: RequestKey(6), message }] if message.contains("s2")),
        "{other:?}"
    );
}

#[test]
fn a_question_is_shown_and_answered_once() {
    let (mut m, _) = ready();
    submit(&mut m, "deploy");
    assert!(question(&mut m, 7, "s1", 70).is_empty());
    assert!(m.app.question.is_some());
    // Another while it is up, or for another session: unavailable at once.
    assert!(unavailable(&question(&mut m, 8, "s1", 80)));
    assert!(unavailable(&question(&mut m, 9, "s2", 90)));

    let answer = Effect::AnswerQuestion {
        id: 7,
        answer: QuestionAnswer::Answered {
            text: "prod".into(),
            index: Some(1),
        },
    };
    let mut out = Out::default();
    m.effect(answer.clone(), &mut out);
    assert_eq!(
        answered(&out.commands),
        [(
            7,
            UserInputOutcome::Answered {
                answer: "prod".into(),
                selected_index: Some(1)
            }
        )]
    );
    let mut again = Out::default();
    m.effect(answer, &mut again);
    assert!(answered(&again.commands).is_empty(), "answered once");
}

#[test]
fn a_bad_question_is_unavailable_with_the_rule() {
    let (mut m, _) = ready();
    let input = Input::Question {
        key: RequestKey(3),
        session: "s1".into(),
        request: 1,
        input: UserInputArgs {
            question: "pick".into(),
            choices: vec![],
            allow_freeform: false,
        },
    };
    let commands = step(&mut m, input, t0());
    assert!(
        matches!(&answered(&commands)[..], [(3, UserInputOutcome::Unavailable { reason })] if reason.contains("allow_freeform")),
        "{commands:?}"
    );
    assert!(m.app.question.is_none());
}

#[test]
fn stopping_the_turn_or_the_caller_leaving_withdraws_it() {
    let (mut m, _) = ready();
    submit(&mut m, "deploy");
    question(&mut m, 7, "s1", 70);
    let stopped = step(&mut m, Input::App(Event::Script(Scripted::Cancel)), t0());
    assert_eq!(answered(&stopped), [(7, UserInputOutcome::Cancelled)]);
    assert!(m.app.question.is_none());

    submit(&mut m, "again");
    question(&mut m, 8, "s1", 80);
    let other = step(
        &mut m,
        Input::QuestionGone {
            session: "s1".into(),
            request: 81,
        },
        t0(),
    );
    assert!(answered(&other).is_empty(), "another request: left up");
    let gone = step(
        &mut m,
        Input::QuestionGone {
            session: "s1".into(),
            request: 80,
        },
        t0(),
    );
    assert_eq!(answered(&gone), [(8, UserInputOutcome::Cancelled)]);
    assert!(m.app.question.is_none());

    question(&mut m, 9, "s1", 90);
    let replaced = submit(&mut m, "/new");
    assert_eq!(answered(&replaced), [(9, UserInputOutcome::Cancelled)]);
}
