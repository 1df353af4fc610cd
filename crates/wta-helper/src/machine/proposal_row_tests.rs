//! Proposal rows: titles from the invocation, and the CLI's answer lines
//! as words, from the lines the real CLI prints (see
//! `crates/wta/tests/proposal_row_cli.rs` for the capture) to lines no CLI
//! would print.

use proptest::prelude::*;
use wta_protocol::{
    Channel, EndLine, ExecutionId, ExecutionLine, ExecutionStatus, FinalLine, FinalStatus,
    HelperId, NextLine, ProposalId, TurnNonce, ValidationLine, build_invocation,
};

use super::*;

const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Run the tests","actions":[{"type":"send","input":"cargo test"}]},{"choice":2,"title":"Build it's release","actions":[{"type":"send","input":"cargo build"}]}]}"#;

fn invocation() -> String {
    let channel = Channel::new(
        HelperId::from_bytes([1; 16]),
        TurnNonce::from_bytes([2; 16]),
    );
    build_invocation(&channel, PAYLOAD)
}

#[test]
fn a_canonical_invocation_reads_as_what_it_proposes() {
    let command = invocation();
    assert_eq!(
        title(&command).as_deref(),
        Some("Propose: Run the tests / Build it's release")
    );
    let wrapped = format!("/bin/bash -lc {command}");
    assert_eq!(
        title(&wrapped),
        title(&command),
        "codex wraps it in bash -lc"
    );
}

#[test]
fn other_commands_keep_their_title_and_bent_ones_say_so() {
    assert_eq!(title("cargo test"), None);
    let piped = format!("{} | cat", invocation());
    assert_eq!(
        title(&piped).as_deref(),
        Some("Proposal command not in the canonical form (refused)")
    );
}

#[test]
fn session_tool_calls_read_as_what_they_propose() {
    let name = |tool: &str| format!("mcp__wta_0123456789abcdef0123__{tool}");
    let args = serde_json::json!({"command": "cargo test\n--all", "target": "panel",
        "task": "fix the build", "question": "Deploy where?"});
    for (tool, title) in [
        ("run_command_in_current_shell", "Propose: Run `cargo test`"),
        ("create_workspace", "Propose: open a new panel"),
        (
            "delegate_task_in_new_workspace",
            "Propose: delegate `fix the build`",
        ),
        ("request_user_input", "Ask you: Deploy where?"),
        ("get_proposal_result", "Check what became of a proposal"),
    ] {
        assert_eq!(
            session_tool_title(&name(tool), Some(&args)).as_deref(),
            Some(title)
        );
    }
    assert_eq!(
        session_tool_title("mcp__github__create_workspace", Some(&args)),
        None
    );
    assert_eq!(
        session_tool_title(&name("run_command_in_current_shell"), None).as_deref(),
        Some("Propose: Run a command")
    );
}

/// What `wta propose-terminal-actions` printed for a confirmed run of one
/// action that exited 0, copied from the real CLI's stdout in
/// `crates/wta/tests/proposal_row_cli.rs`
/// (`a_confirmed_run_prints_four_lines_and_its_row_reads_each_as_words`,
/// which prints it with `--nocapture` and checks the same row).
const CLI_CONFIRMED: [&str; 4] = [
    r#"{"phase":"validation","status":"accepted","proposal_id":"513f238bb37a6925a3bafed8f01905b7","retryable":false}"#,
    r#"{"phase":"final","status":"confirmed","proposal_id":"513f238bb37a6925a3bafed8f01905b7","choice":1}"#,
    r#"{"phase":"execution","status":"completed","proposal_id":"513f238bb37a6925a3bafed8f01905b7","execution_id":"07070707070707070707070707070707","action":1,"exit_code":0,"output":"test result: ok. 3 passed","duration_ms":1200,"cwd":"/home/ada/src/wta"}"#,
    r#"{"phase":"next","channel":"v1.c1722c5cc989527d777c8e7b1c611401.86531d148541d235c2bdf6e4ba9a1ba4","invocation":"\"$WTA_CLI_PATH\" propose-terminal-actions --channel v1.c1722c5cc989527d777c8e7b1c611401.86531d148541d235c2bdf6e4ba9a1ba4 --payload-json '<compact-json-payload>'","remaining":9}"#,
];

#[test]
fn the_clis_four_lines_of_a_confirmed_run_read_as_words() {
    let row = output(&CLI_CONFIRMED.join("\n")).unwrap();
    assert_eq!(
        row,
        "accepted: the card is on screen\n\
         the user's decision: confirmed, choice 1\n\
         action 1: completed, exit 0\n\
         the agent may propose again this turn (9 left)"
    );
    assert!(!row.contains('{') && !row.contains("phase"), "{row}");
    // As the agent's tool reports it: a trailing newline, CRLF, a fence.
    let crlf = format!("{}\r\n", CLI_CONFIRMED.join("\r\n"));
    assert_eq!(output(&crlf).unwrap(), row);
    let fenced = format!("```console\n{}\n```", CLI_CONFIRMED.join("\n"));
    assert_eq!(output(&fenced).unwrap(), row);
}

fn encoded(lines: &[ResponseLine]) -> String {
    lines
        .iter()
        .map(|l| String::from_utf8(l.to_line().unwrap()).unwrap())
        .collect()
}

const ID: ProposalId = ProposalId::from_bytes([1; 16]);

fn execution(action: u64, status: ExecutionStatus, exit: Option<i32>) -> ResponseLine {
    let mut line = ExecutionLine::new(status, ID, ExecutionId::from_bytes([2; 16]), action);
    line.exit_code = exit;
    ResponseLine::Execution(line)
}

fn confirmed() -> [ResponseLine; 2] {
    [
        ResponseLine::Validation(ValidationLine::accepted(ID)),
        ResponseLine::Final(FinalLine {
            status: FinalStatus::Confirmed,
            proposal_id: ID,
            choice: Some(2),
            reason: None,
        }),
    ]
}

#[test]
fn every_phase_has_words_and_reasons_stay_on_their_line() {
    let mut cancelled = execution(3, ExecutionStatus::Cancelled, None);
    if let ResponseLine::Execution(e) = &mut cancelled {
        e.reason = Some("action 2 failed\nso this one was not run".into());
    }
    let mut lines = confirmed().to_vec();
    lines.extend([
        execution(1, ExecutionStatus::Completed, Some(0)),
        execution(2, ExecutionStatus::Failed, Some(2)),
        cancelled,
        ResponseLine::End(EndLine {
            reason: "this turn's 10 proposals are spent".into(),
        }),
    ]);
    assert_eq!(
        output(&encoded(&lines)).unwrap(),
        "accepted: the card is on screen\n\
         the user's decision: confirmed, choice 2\n\
         action 1: completed, exit 0\n\
         action 2: failed, exit 2\n\
         action 3: cancelled: action 2 failed so this one was not run\n\
         no more proposals this turn: this turn's 10 proposals are spent"
    );
    let refused = ResponseLine::Validation(ValidationLine::refused(
        ValidationStatus::InvalidSchema,
        "choices: 1 to 3",
        true,
    ));
    assert_eq!(
        output(&encoded(&[refused])).as_deref(),
        Some("refused (invalid schema): choices: 1 to 3")
    );
    let dismissed = ResponseLine::Final(FinalLine {
        status: FinalStatus::SessionReplaced,
        proposal_id: ID,
        choice: None,
        reason: Some("/new".into()),
    });
    assert_eq!(
        output(&encoded(&[dismissed])).as_deref(),
        Some("the user's decision: session replaced: /new")
    );
    let next = ResponseLine::Next(NextLine {
        channel: Channel::new(
            HelperId::from_bytes([1; 16]),
            TurnNonce::from_bytes([2; 16]),
        ),
        invocation: "…".into(),
        remaining: 1,
    });
    assert_eq!(
        output(&encoded(&[next])).as_deref(),
        Some("the agent may propose again this turn (1 left)")
    );
}

#[test]
fn lines_that_are_not_answers_stay_as_they_came() {
    // Any other tool's output, and nothing at all, are left to the caller.
    assert_eq!(output("hello\nworld"), None);
    assert_eq!(output(""), None);
    assert_eq!(output("\n  \n"), None);
    // Protocol-looking lines that do not decode (an unknown status, a
    // field this version does not know, a cut line) are not answers.
    let not_answers = [
        r#"{"phase":"final","status":"x"}"#,
        r#"{"phase":"next","remaining":1}"#,
        r#"{"phase":"end","reason":"spent","extra":1}"#,
        &CLI_CONFIRMED[2][..60],
    ];
    assert_eq!(output(&not_answers.join("\n")), None);
    // Next to answer lines they are shown as they are, in their place: an
    // error the CLI printed on stderr, a line the agent cut.
    let mixed = format!(
        "{}\n{}\nwta propose-terminal-actions: the agent pane closed the connection before the card was decided",
        CLI_CONFIRMED[0], not_answers[0]
    );
    assert_eq!(
        output(&mixed).unwrap(),
        format!(
            "accepted: the card is on screen\n{}\nwta propose-terminal-actions: the agent pane closed the connection before the card was decided",
            not_answers[0]
        )
    );
}

/// A tool call's output: answer lines the CLI could print and other lines.
fn tool_output() -> impl Strategy<Value = Vec<(bool, String)>> {
    let answer = prop_oneof![
        Just(confirmed()[0].clone()),
        Just(confirmed()[1].clone()),
        (
            1u64..=3,
            proptest::sample::select(&ExecutionStatus::ALL[..]),
            proptest::option::of(any::<i32>())
        )
            .prop_map(|(a, s, e)| execution(a, s, e)),
        ".{0,40}".prop_map(|reason| ResponseLine::End(EndLine { reason })),
        ".{0,40}".prop_map(|reason| ResponseLine::Validation(ValidationLine::refused(
            ValidationStatus::Rejected,
            reason,
            false
        ))),
    ]
    .prop_map(|l| (true, encoded(&[l]).trim_end().to_owned()));
    let other = prop_oneof![
        "[^\n]{0,60}",
        Just(r#"{"phase":"end"}"#.to_owned()),
        Just("```".to_owned()),
    ]
    .prop_map(|l| (false, l));
    proptest::collection::vec(prop_oneof![answer, other], 0..8)
}

/// A line that ended `\r\r\n` is kept without the carriage return left
/// (found by the proptest below: the row's own lines read back differently).
#[test]
fn a_carriage_return_left_at_a_lines_end_is_dropped() {
    let accepted = r#"{"phase":"validation","status":"accepted","proposal_id":"01010101010101010101010101010101","retryable":false}"#;
    let row = output(&format!("¡\r\r\n{accepted}")).unwrap();
    assert!(row.starts_with("¡\n"), "{row:?}");
}

proptest! {
    /// The row has one line per answer line and keeps every other line as
    /// it came (a carriage return at its end dropped), in order; no answer
    /// line reaches it as JSON; output without an answer line is left
    /// alone. Never a panic.
    #[test]
    fn a_row_keeps_other_lines_and_shows_no_answer_json(lines in tool_output()) {
        let text: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
        let text = text.join("\n");
        let answers = text.lines().filter(|l| ResponseLine::from_frame(l.trim().as_bytes()).is_ok()).count();
        let Some(row) = output(&text) else {
            prop_assert_eq!(answers, 0);
            return Ok(());
        };
        prop_assert!(answers > 0);
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter(|l| ResponseLine::from_frame(l.trim().as_bytes()).is_err() && !is_fence(l))
            .map(|l| l.trim_end_matches('\r'))
            .collect();
        let row_lines: Vec<&str> = row.lines().collect();
        prop_assert_eq!(row_lines.len(), answers + kept.len());
        let mut rest = row_lines.iter();
        for line in &kept {
            prop_assert!(rest.any(|r| r == line), "{} not kept in order in {:?}", line, row);
        }
        for line in row.lines() {
            prop_assert!(ResponseLine::from_frame(line.trim().as_bytes()).is_err(), "{}", line);
        }
    }
}
