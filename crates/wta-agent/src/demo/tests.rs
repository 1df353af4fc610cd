//! Unit tests of the demo's pure parts: the reply chosen, the payload and
//! the report.

use super::*;
use crate::scripted::Ran;
use wta_protocol::prompt::channel_in;
use wta_protocol::{Channel, build_invocation};

#[test]
fn chooses_reply_from_prompt() {
    assert_eq!(choose("plan please"), DemoReply::Plan);
    assert_eq!(choose("Permission"), DemoReply::Permission);
    assert_eq!(
        choose("run  echo hi "),
        DemoReply::Propose("echo hi".into())
    );
    assert_eq!(choose("Run ls"), DemoReply::Propose("ls".into()));
    assert_eq!(choose("run"), DemoReply::Echo("run".into()));
    assert_eq!(choose("runner x"), DemoReply::Echo("runner x".into()));
    assert_eq!(choose(" hi "), DemoReply::Echo("hi".into()));
}

const ID: &str = "0123456789abcdef0123456789abcdef";

fn cli(lines: &[String]) -> Ran {
    Ran {
        stdout: lines.join("\n"),
        stderr: String::new(),
        exit: Some(0),
    }
}

#[test]
fn the_payload_is_valid_v1_and_the_invocation_canonical() {
    let payload = payload_for("echo 'hi'");
    let parsed = wta_protocol::parse_payload(payload.as_bytes()).unwrap();
    assert_eq!(parsed.choices.len(), 1);
    let channel = Channel::parse(&format!("v1.{ID}.{ID}")).unwrap();
    let context = format!("## ctx\n```sh\n{}\n```", build_invocation(&channel, "<p>"));
    assert_eq!(channel_in(&context), Some(channel));
    assert_eq!(channel_in("nothing"), None);
}

#[test]
fn reports_follow_the_execution_line() {
    let accepted = format!(
        r#"{{"phase":"validation","status":"accepted","proposal_id":"{ID}","retryable":false}}"#
    );
    let confirmed =
        format!(r#"{{"phase":"final","status":"confirmed","proposal_id":"{ID}","choice":1}}"#);
    let exec = |status: &str, code: i32, output: &str| {
        format!(
            r#"{{"phase":"execution","status":"{status}","proposal_id":"{ID}","execution_id":"{ID}","action":1,"exit_code":{code},"output":{output:?}}}"#
        )
    };
    let ok = report(
        "echo hi",
        &cli(&[
            accepted.clone(),
            confirmed.clone(),
            exec("completed", 0, "hi"),
        ]),
    );
    assert!(
        ok.starts_with("`echo hi` completed with exit code 0."),
        "{ok}"
    );
    assert!(ok.contains("```\nhi\n```"), "{ok}");
    let long: String = (1..=9).map(|n| format!("l{n}\n")).collect();
    let bad = report(
        "make",
        &cli(&[accepted.clone(), confirmed, exec("failed", 2, &long)]),
    );
    assert!(bad.starts_with("`make` failed with exit code 2."), "{bad}");
    assert!(bad.contains("```\nl5\nl6\nl7\nl8\nl9\n```"), "{bad}");
    let cancelled = format!(r#"{{"phase":"final","status":"cancelled","proposal_id":"{ID}"}}"#);
    assert_eq!(
        report("x", &cli(&[accepted, cancelled])),
        "You cancelled the proposal; nothing ran.\n"
    );
    let broken = Ran {
        stdout: String::new(),
        stderr: "wta: cannot connect\n".into(),
        exit: Some(1),
    };
    assert_eq!(
        report("x", &broken),
        "The proposal command failed (exit 1): wta: cannot connect\n"
    );
}
