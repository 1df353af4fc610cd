//! Black-box tests of `wta propose-terminal-actions` against a real proposal
//! socket served by `wta_helper::proposals`: line framing, a flush per line,
//! exit codes, nothing on stdout on errors, payload limits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod proposal_server_common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use proposal_server_common::{Fixture, cli};
use serde_json::Value;
use wta_protocol::{Channel, ExecutionId, ExecutionLine, ExecutionStatus};

const GOOD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","rationale":"see files","actions":[{"type":"send","input":"ls -la"}]}]}"#;

impl Fixture {
    fn cli(&self, channel: &str, payload: &str) -> Command {
        cli(self.xdg.path(), channel, payload)
    }
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Reads one stdout line of a still-running child.
fn read_line(
    child: &mut Child,
    reader: &mut Option<BufReader<std::process::ChildStdout>>,
) -> String {
    let r = reader.get_or_insert_with(|| BufReader::new(child.stdout.take().unwrap()));
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    line
}

#[test]
fn accepted_then_confirmed_then_execution_line_each_printed_as_it_arrives() {
    let mut fx = Fixture::new();
    let channel = fx.turn().to_string();
    let mut child = fx.cli(&channel, GOOD).spawn().unwrap();
    let mut reader = None;
    // The validation line is on stdout while the card is still undecided:
    // the CLI flushed it.
    let validation = read_line(&mut child, &mut reader);
    let v: Value = serde_json::from_str(&validation).unwrap();
    assert_eq!(v["phase"], "validation");
    assert_eq!(v["status"], "accepted");
    assert!(
        child.try_wait().unwrap().is_none(),
        "CLI must wait for the final line"
    );
    let card = fx.accepted();
    assert_eq!(v["proposal_id"], card.id.to_string());

    let confirmed = fx.service.confirm(card.id, 1).unwrap();
    let fin: Value = serde_json::from_str(&read_line(&mut child, &mut reader)).unwrap();
    assert_eq!(fin["phase"], "final");
    assert_eq!(fin["status"], "confirmed");
    assert_eq!(fin["choice"], 1);
    assert!(
        child.try_wait().unwrap().is_none(),
        "CLI must wait for execution lines"
    );

    let mut exec = ExecutionLine::new(
        ExecutionStatus::Failed,
        card.id,
        ExecutionId::from_bytes([7; 16]),
        1,
    );
    exec.exit_code = Some(2);
    exec.output = Some("ls: cannot access 'x'".into());
    assert!(confirmed.executions.send(exec));
    let line = read_line(&mut child, &mut reader);
    let e: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(e["phase"], "execution");
    assert_eq!(e["exit_code"], 2);
    assert!(!line.trim_end().contains('\n') && line.ends_with('\n'));
    confirmed.executions.finish();
    let status = child.wait().unwrap();
    assert!(status.success());
    let mut rest = String::new();
    reader.unwrap().read_to_string(&mut rest).unwrap();
    // The exchange is complete: last comes the turn's next channel.
    let next: Value =
        serde_json::from_str(rest.trim_end()).unwrap_or_else(|e| panic!("{e}: {rest:?}"));
    assert_eq!(next["phase"], "next", "{rest}");
    assert_eq!(
        rest.lines().count(),
        1,
        "nothing after the next line: {rest:?}"
    );
}

#[test]
fn dismissed_card_prints_cancelled_and_exits_zero() {
    let mut fx = Fixture::new();
    let channel = fx.turn().to_string();
    let child = fx.cli(&channel, GOOD).spawn().unwrap();
    let card = fx.accepted();
    fx.service.cancel_card(card.id);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let l = lines(&out);
    assert_eq!(l.len(), 2);
    assert_eq!(l[1]["status"], "cancelled");
    assert_eq!(l[1]["proposal_id"], card.id.to_string());
}

#[test]
fn new_turn_gives_superseded_final_and_late_client_superseded_validation() {
    let mut fx = Fixture::new();
    let channel = fx.turn().to_string();
    let child = fx.cli(&channel, GOOD).spawn().unwrap();
    fx.accepted();
    fx.turn();
    let out = child.wait_with_output().unwrap();
    assert_eq!(lines(&out)[1]["status"], "superseded");
    let late = fx.cli(&channel, GOOD).output().unwrap();
    assert!(late.status.success());
    let l = lines(&late);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0]["status"], "superseded");
    assert_eq!(l[0]["retryable"], false);
}

#[test]
fn protocol_refusals_exit_zero_with_one_line() {
    let fx = Fixture::new();
    let channel = fx.turn();
    let unknown = Channel::new(
        channel.helper(),
        wta_protocol::TurnNonce::from_bytes([9; 16]),
    );
    let out = fx.cli(&unknown.to_string(), GOOD).output().unwrap();
    assert!(out.status.success());
    assert_eq!(lines(&out)[0]["status"], "unknown_channel");
    assert!(out.stderr.is_empty());
}

#[test]
fn oversize_payload_is_a_retryable_invalid_schema_answer() {
    let fx = Fixture::new();
    let channel = fx.turn().to_string();
    let payload = GOOD.replace("see files", &"x".repeat(8192));
    let out = fx.cli(&channel, &payload).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = lines(&out);
    assert_eq!(l[0]["status"], "invalid_schema");
    assert_eq!(l[0]["retryable"], true);
    assert!(l[0]["reason"].as_str().unwrap().contains("8192"));
}

#[test]
fn exactly_8192_payload_bytes_pass_the_size_check() {
    let mut fx = Fixture::new();
    let channel = fx.turn().to_string();
    let pad = 8192 - GOOD.len();
    // Spread the padding so no field is over its own character limit.
    let payload = GOOD
        .replace("see files", &format!("see files{}", "y".repeat(1000)))
        .replace("ls -la", &format!("ls -la #{}", "z".repeat(pad - 1002)));
    assert_eq!(payload.len(), 8192);
    let child = fx.cli(&channel, &payload).spawn().unwrap();
    let card = fx.accepted();
    fx.service.cancel_card(card.id);
    let out = child.wait_with_output().unwrap();
    assert_eq!(lines(&out)[0]["status"], "accepted");
}

#[test]
fn usage_errors_exit_2_with_stderr_and_no_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let good_channel = format!("v1.{}.{}", "a".repeat(32), "b".repeat(32));
    let huge = "z".repeat(60_000);
    for (channel, payload) in [("v1.ABC.def", GOOD), (good_channel.as_str(), huge.as_str())] {
        let out = cli(dir.path(), channel, payload).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{channel}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("wta propose-terminal-actions: "), "{err}");
        assert!(
            !err.contains(&"b".repeat(32)),
            "the nonce must not be echoed: {err}"
        );
    }
    let missing = wta_testkit::Sandbox::new()
        .command(env!("CARGO_BIN_EXE_wta"))
        .args(["propose-terminal-actions", "--channel", &good_channel])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(missing.stdout.is_empty());
}

#[test]
fn transport_error_exits_1_after_the_whole_backoff() {
    let dir = tempfile::tempdir().unwrap();
    let channel = format!("v1.{}.{}", "c".repeat(32), "d".repeat(32));
    let start = Instant::now();
    let out = cli(dir.path(), &channel, GOOD).output().unwrap();
    let elapsed = start.elapsed();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot reach the agent pane"));
    let backoff: u64 = wta_protocol::limits::CONNECT_BACKOFF_MS.iter().sum();
    // Every backoff was waited out: a load can only make this later.
    assert!(elapsed >= Duration::from_millis(backoff), "{elapsed:?}");
    // Not a performance claim: this only catches retrying without end. A
    // tighter bound (no sleep after the last attempt, ~1 s more) is a
    // timing a loaded 2-core machine breaks; that belongs to a bench.
    assert!(
        elapsed < Duration::from_millis(backoff) + Duration::from_secs(15),
        "still retrying? {elapsed:?}"
    );
}

#[test]
fn helper_socket_dir_is_the_master_runtime_dir() {
    // The helper binds where the CLI looks: both read the same environment.
    assert_eq!(
        wta_helper::proposals::runtime_dir(),
        wta_env::dirs::runtime_dir()
    );
}

/// `SO_PEERCRED`: a client of another uid is dropped before its request is
/// read, even with the directory and socket opened up to it. Nothing is
/// answered, no card shows, and the channel stays usable by its owner.
#[test]
fn a_client_of_another_user_is_refused_and_consumes_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let Some(mut as_nobody) = wta_testkit::as_nobody(env!("CARGO_BIN_EXE_wta")) else {
        return;
    };
    let mut fx = Fixture::new();
    let channel = fx.turn().to_string();
    // Open the path up so only the peer-uid check stands between `nobody`
    // and the helper.
    let dir = fx.xdg.path().join("wta");
    for d in [fx.xdg.path(), dir.as_path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o711)).unwrap();
    }
    let socket = fx.server.path().to_path_buf();
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = as_nobody
        .args(["propose-terminal-actions", "--channel", &channel])
        .args(["--payload-json", GOOD])
        .env("XDG_RUNTIME_DIR", fx.xdg.path())
        .env("HOME", "/nonexistent")
        .env_remove("TMUX")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing answered to another user");
    // Connected, then dropped: before or after its request was written.
    assert!(
        [
            "cannot send the proposal",
            "closed the connection without answering",
            "lost the agent pane's answer",
        ]
        .iter()
        .any(|m| stderr.contains(m)),
        "reached the socket and was dropped: {stderr}"
    );
    // The owner's request on the same channel is the first and only card:
    // the refused one neither consumed the channel nor showed a card.
    let mut child = fx.cli(&channel, GOOD).spawn().unwrap();
    let mut reader = None;
    let v: Value = serde_json::from_str(&read_line(&mut child, &mut reader)).unwrap();
    assert_eq!(v["status"], "accepted", "{v}");
    let card = fx.accepted();
    assert_eq!(v["proposal_id"], card.id.to_string());
    fx.service.cancel_card(card.id);
    assert!(child.wait().unwrap().success());
}
