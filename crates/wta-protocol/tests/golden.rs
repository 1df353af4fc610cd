//! Golden JSON for every wire type: each fixture under `tests/golden/` must
//! be exactly what we serialize (byte for byte) and must parse back to the
//! same value. Changing a fixture is changing the protocol.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;
use wta_protocol::lines::encode_line;
use wta_protocol::{
    Action, Channel, EndLine, ExecutionId, ExecutionLine, ExecutionStatus, FinalLine, FinalStatus,
    NextLine, OpenTarget, Origin, ProposalId, ProposalPayload, ProposalRequest, ProtocolError,
    ResponseLine, ValidationLine, ValidationStatus, parse_payload,
};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.strip_suffix('\n').unwrap_or(&text).to_owned()
}

/// `value` serializes to exactly `json`, and `json` parses to `value`.
fn assert_golden<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    value: &T,
    json: &str,
) {
    assert_eq!(serde_json::to_string(value).unwrap(), json);
    assert_eq!(&serde_json::from_str::<T>(json).unwrap(), value);
}

fn pid() -> ProposalId {
    ProposalId::from_bytes([0x11; 16])
}
fn eid() -> ExecutionId {
    ExecutionId::from_bytes([0x22; 16])
}
fn channel() -> Channel {
    Channel::parse("v1.0123456789abcdef0123456789abcdef.fedcba9876543210fedcba9876543210").unwrap()
}

#[test]
fn golden_request() {
    let payload = fixture("payload_autofix.json").replace("autofix", "terminal_agent");
    let payload = payload
        .replace("Install the missing crate", "Run tests")
        .replace(r#""rationale":"""#, r#""rationale":"It's quick.""#)
        .replace("cargo add serde", "cargo test");
    let request = ProposalRequest::new(channel(), payload);
    let json = fixture("request.json");
    assert_golden(&request, &json);
    assert_eq!(request.to_line().unwrap(), format!("{json}\n").into_bytes());
    assert_eq!(
        ProposalRequest::from_frame(json.as_bytes()).unwrap(),
        request
    );
    assert!(parse_payload(request.payload.as_bytes()).is_ok());
}

#[test]
fn golden_payloads() {
    let full = fixture("payload_v1.json");
    let parsed = parse_payload(full.as_bytes()).unwrap();
    assert_eq!(parsed.choices[1].actions.len(), 3);
    assert!(matches!(
        parsed.choices[1].actions[2],
        Action::OpenAndSend {
            target: OpenTarget::Tab,
            delegate: true,
            cwd: None,
            ..
        }
    ));
    assert_golden::<ProposalPayload>(&parsed, &full);

    let autofix = fixture("payload_autofix.json");
    let parsed = parse_payload(autofix.as_bytes()).unwrap();
    assert_eq!(parsed.origin, Origin::Autofix);
    assert_golden(&parsed, &autofix);
}

#[test]
fn golden_validation_lines() {
    let accepted = ResponseLine::Validation(ValidationLine::accepted(pid()));
    assert_golden(&accepted, &fixture("validation_accepted.json"));

    let lines = fixture("validation_refusals.jsonl");
    let refusals: Vec<_> = ValidationStatus::ALL
        .into_iter()
        .filter(|s| *s != ValidationStatus::Accepted)
        .collect();
    assert_eq!(
        lines.lines().count(),
        refusals.len(),
        "one line per refusal status"
    );
    for (status, json) in refusals.into_iter().zip(lines.lines()) {
        let line = ResponseLine::Validation(ValidationLine::refused(status, "r", true));
        assert_golden(&line, json);
    }

    let oversize = ProtocolError::PayloadTooLarge {
        len: 9000,
        max: 8192,
    };
    let line = ResponseLine::Validation(ValidationLine::from_error(&oversize, true));
    assert_golden(&line, &fixture("validation_oversize.json"));
}

#[test]
fn golden_final_lines() {
    let confirmed = ResponseLine::Final(FinalLine {
        status: FinalStatus::Confirmed,
        proposal_id: pid(),
        choice: Some(2),
        reason: None,
    });
    assert_golden(&confirmed, &fixture("final_confirmed.json"));

    let lines = fixture("final_statuses.jsonl");
    assert_eq!(lines.lines().count(), FinalStatus::ALL.len());
    for (status, json) in FinalStatus::ALL.into_iter().zip(lines.lines()) {
        let reason =
            (status == FinalStatus::Unavailable).then(|| "helper is shutting down".to_owned());
        let line = ResponseLine::Final(FinalLine {
            status,
            proposal_id: pid(),
            choice: None,
            reason,
        });
        assert_golden(&line, json);
    }
}

#[test]
fn golden_execution_lines() {
    let mut failed = ExecutionLine::new(ExecutionStatus::Failed, pid(), eid(), 1);
    failed.exit_code = Some(1);
    failed.output = Some("error: could not find `Cargo.toml`\n".into());
    failed.truncated = Some(false);
    failed.duration_ms = Some(412);
    failed.cwd = Some("/home/u/app".into());
    assert_golden(
        &ResponseLine::Execution(failed),
        &fixture("execution_failed.json"),
    );

    let mut timed_out = ExecutionLine::new(ExecutionStatus::TimedOut, pid(), eid(), 2);
    timed_out.output = Some("partial tail".into());
    timed_out.truncated = Some(true);
    timed_out.duration_ms = Some(120_000);
    timed_out.still_running = Some(true);
    timed_out.interactive = Some(true);
    assert_golden(
        &ResponseLine::Execution(timed_out),
        &fixture("execution_timed_out.json"),
    );

    let mut interrupted = ExecutionLine::new(ExecutionStatus::from_exit_code(130), pid(), eid(), 1);
    interrupted.exit_code = Some(130);
    interrupted.output = Some("^C".into());
    interrupted.truncated = Some(false);
    interrupted.duration_ms = Some(3001);
    interrupted.interrupted = Some(true);
    assert_golden(
        &ResponseLine::Execution(interrupted),
        &fixture("execution_interrupted.json"),
    );

    let lines = fixture("execution_statuses.jsonl");
    assert_eq!(lines.lines().count(), ExecutionStatus::ALL.len());
    for (status, json) in ExecutionStatus::ALL.into_iter().zip(lines.lines()) {
        let mut line = ExecutionLine::new(status, pid(), eid(), 1);
        match status {
            ExecutionStatus::Completed => line.exit_code = Some(0),
            ExecutionStatus::Failed => line.exit_code = Some(2),
            ExecutionStatus::TimedOut => line.still_running = Some(true),
            ExecutionStatus::Unavailable => line.reason = Some("pane %3 was closed".into()),
            ExecutionStatus::CompletionUnavailable => {
                line.reason = Some("pane has no shell integration".into());
            }
            ExecutionStatus::Cancelled => {
                line.reason = Some("not run because action 1 failed: exit code 2".into());
            }
            ExecutionStatus::Inserted => {}
        }
        assert_golden(&ResponseLine::Execution(line), json);
    }
}

#[test]
fn golden_next_and_end_lines() {
    let next = ResponseLine::Next(NextLine {
        channel: channel(),
        invocation: wta_protocol::invocation::invocation_template(&channel()),
        remaining: 9,
    });
    assert_golden(&next, &fixture("next.json"));
    let end = ResponseLine::End(EndLine {
        reason: "this turn's 10 proposals are spent; end your turn and tell the user what is left"
            .into(),
    });
    assert_golden(&end, &fixture("end.json"));
}

#[test]
fn response_lines_deny_unknown_fields_and_unknown_phases() {
    let accepted = fixture("validation_accepted.json");
    let extra = accepted.replace(r#""retryable":false"#, r#""retryable":false,"pane":"%1""#);
    assert!(ResponseLine::from_frame(extra.as_bytes()).is_err());
    let phase = accepted.replace(r#""phase":"validation""#, r#""phase":"verdict""#);
    assert!(ResponseLine::from_frame(phase.as_bytes()).is_err());
    let failed = fixture("execution_failed.json");
    let extra = failed.replace(r#""action":1"#, r#""action":1,"pid":7"#);
    assert!(ResponseLine::from_frame(extra.as_bytes()).is_err());
    let extra = fixture("final_confirmed.json").replace(r#""choice":2"#, r#""choice":2,"x":0"#);
    assert!(ResponseLine::from_frame(extra.as_bytes()).is_err());
}

#[test]
fn validation_line_invariants_are_checked_when_read() {
    let bad = [
        // accepted without a proposal id, or retryable
        r#"{"phase":"validation","status":"accepted","retryable":false}"#,
        r#"{"phase":"validation","status":"accepted","proposal_id":"11111111111111111111111111111111","retryable":true}"#,
        // a refusal carrying a proposal id
        r#"{"phase":"validation","status":"stale","proposal_id":"11111111111111111111111111111111","retryable":false}"#,
        // a status that can never be retried, marked retryable
        r#"{"phase":"validation","status":"rejected","reason":"r","retryable":true}"#,
    ];
    for json in bad {
        assert!(ResponseLine::from_frame(json.as_bytes()).is_err(), "{json}");
    }
    // The retry budget turns a retryable status into a final refusal.
    let spent = ValidationLine::refused(ValidationStatus::DigestMismatch, "r", false);
    assert!(!spent.retryable);
}

#[test]
fn request_lines_are_strict() {
    let json = fixture("request.json");
    for bad in [
        json.replace(r#""version":1"#, r#""version":2"#),
        json.replace(r#"{"version":1,"#, r#"{"version":1,"session":"x","#),
        json.replace("v1.0123", "v1.O123"),
        json.replace(r#","payload":"#, r#","payload_b64":"#),
    ] {
        assert!(
            ProposalRequest::from_frame(bad.as_bytes()).is_err(),
            "{bad}"
        );
    }
    let err =
        ProposalRequest::from_frame(json.replace(r#""version":1"#, r#""version":2"#).as_bytes())
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "request version 2 is not supported; this helper speaks version 1"
    );
}

#[test]
fn encode_line_refuses_what_the_reader_would_refuse() {
    let big = "x".repeat(100);
    assert!(
        encode_line(&big, 101).is_err(),
        "102 bytes of JSON with quotes"
    );
    assert_eq!(encode_line(&big, 102).unwrap().len(), 103);
    let oversize = ProposalRequest::new(channel(), "x".repeat(8193));
    assert_eq!(
        oversize.to_line().unwrap_err(),
        ProtocolError::PayloadTooLarge {
            len: 8193,
            max: 8192
        }
    );
}

#[test]
fn maximal_worst_case_request_fits_the_frame_limit() {
    // 8192 payload bytes that all escape to \u00XX: the line must still fit.
    let payload = "\u{1}".repeat(8192);
    let line = ProposalRequest::new(channel(), payload).to_line().unwrap();
    assert!(line.len() - 1 <= wta_protocol::limits::MAX_REQUEST_LINE_BYTES);
}

// Helper ↔ master (`_wta/*` and `_meta.wta`, DESIGN §4.1).

mod helper_master {
    use super::{assert_golden, fixture};
    use wta_protocol::helper_master::{
        AgentExitedNotification, ClientKind, FailureKind, LaggedNotification, MasterFailure,
        SessionState, SessionStateParams, SessionsListResponse, WtaMeta, WtaSessionInfo,
        YoloReport,
    };
    use wta_protocol::{PaneId, WindowId};

    #[test]
    fn meta_on_initialize_and_session_new() {
        let helper = WtaMeta {
            agent_id: Some("copilot".into()),
            owner_tab: Some(WindowId::parse("@3").unwrap()),
            target_pane: Some(PaneId::parse("%7").unwrap()),
            client: ClientKind::Helper,
            proposal_mcp: Some("http-v1".into()),
            fresh_agent: false,
            mcp_server: None,
        };
        assert_golden(&helper, &fixture("meta_initialize.json"));
        let cli = WtaMeta {
            client: ClientKind::Cli,
            ..WtaMeta::default()
        };
        assert_golden(&cli, &fixture("meta_initialize_cli.json"));
        let restart = WtaMeta {
            agent_id: Some("custom:test".into()),
            fresh_agent: true,
            ..WtaMeta::default()
        };
        assert_golden(&restart, &fixture("meta_session_new_restart.json"));
    }

    #[test]
    fn meta_on_a_session_reply_names_its_mcp_server() {
        let reply = WtaMeta {
            mcp_server: Some("wta_0123456789abcdef0123".into()),
            ..WtaMeta::default()
        };
        assert_golden(&reply, &fixture("meta_session_reply.json"));
        let mut meta = serde_json::Map::new();
        meta.insert("wta".into(), serde_json::to_value(&reply).unwrap());
        assert_eq!(WtaMeta::from_meta(&meta), Some(reply));
    }

    #[test]
    fn sessions_list_result() {
        let list = SessionsListResponse {
            sessions: vec![
                WtaSessionInfo {
                    session_id: "sess-1".into(),
                    agent_id: "copilot".into(),
                    helper: 2,
                    helper_pid: Some(4242),
                    owner_tab: Some(WindowId::parse("@1").unwrap()),
                    target_pane: Some(PaneId::parse("%3").unwrap()),
                    state: SessionState::Active,
                    yolo: Some(YoloReport {
                        on: true,
                        blocked_by_policy: false,
                    }),
                },
                WtaSessionInfo {
                    session_id: "sess-2".into(),
                    agent_id: "custom:test".into(),
                    helper: 3,
                    helper_pid: None,
                    owner_tab: None,
                    target_pane: None,
                    state: SessionState::AgentExited,
                    yolo: None,
                },
            ],
        };
        assert_golden(&list, &fixture("wta_sessions_result.json"));
    }

    #[test]
    fn method_names() {
        use wta_protocol::helper_master::*;
        assert_eq!(
            [
                METHOD_SESSIONS,
                METHOD_LAGGED,
                METHOD_AGENT_EXITED,
                METHOD_SESSION_STATE
            ],
            [
                "_wta/sessions",
                "_wta/lagged",
                "_wta/agent_exited",
                "_wta/session_state"
            ]
        );
    }

    #[test]
    fn notifications_both_ways() {
        assert_golden(
            &LaggedNotification { dropped: 17 },
            &fixture("wta_lagged.json"),
        );
        assert_golden(
            &AgentExitedNotification {
                agent_id: "copilot".into(),
                session_ids: vec!["sess-1".into(), "sess-2".into()],
                reason: "exited with status 1".into(),
            },
            &fixture("wta_agent_exited.json"),
        );
        assert_golden(
            &SessionStateParams {
                session_id: "sess-1".into(),
                yolo: YoloReport {
                    on: false,
                    blocked_by_policy: true,
                },
            },
            &fixture("wta_session_state.json"),
        );
    }

    #[test]
    fn master_error_data_by_kind() {
        let kinds = [
            (FailureKind::AgentExited, -32090),
            (FailureKind::UnknownSession, -32091),
            (FailureKind::AgentNotAllowed, -32092),
            (FailureKind::AgentUnavailable, -32093),
            (FailureKind::AgentStartFailed, -32094),
            (FailureKind::BadMeta, -32095),
            (FailureKind::NoAgent, -32096),
        ];
        // `data` is a JSON value, whose key order depends on serde_json's
        // features in the build: compared as values, line by line.
        let fixture = fixture("wta_error_data.jsonl");
        let golden: Vec<serde_json::Value> = fixture
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(golden.len(), kinds.len());
        for ((kind, code), want) in kinds.iter().zip(&golden) {
            assert_eq!(kind.code(), *code);
            let data = MasterFailure::data(*kind, Some("copilot"));
            assert_eq!(&serde_json::json!({"code": code, "data": data}), want);
            let back = MasterFailure::classify(*code, "m", Some(&data)).unwrap();
            assert_eq!(
                (back.kind, back.agent_id.as_deref()),
                (*kind, Some("copilot"))
            );
        }
    }
}

mod agent_start {
    use super::*;
    use wta_protocol::agent_start::{StartFailure, StartOutcome};

    /// Every way a start ends, one failure per line.
    #[test]
    fn start_failures_by_outcome() {
        let outcomes = [
            StartOutcome::Exited { code: 3 },
            StartOutcome::Killed {
                signal: "SIGSEGV".into(),
            },
            StartOutcome::OutputClosed,
            StartOutcome::TimedOut { secs: 60 },
            StartOutcome::Refused {
                message: "unsupported protocol version".into(),
            },
        ];
        let fixture = fixture("wta_start_failures.jsonl");
        let lines: Vec<&str> = fixture.lines().collect();
        assert_eq!(lines.len(), outcomes.len());
        for (outcome, line) in outcomes.into_iter().zip(lines) {
            let failure = StartFailure {
                argv: vec!["/opt/agent".into(), "--acp".into()],
                outcome,
                stderr: vec!["boom: missing API key".into()],
            };
            assert_golden(&failure, line);
        }
    }
}
