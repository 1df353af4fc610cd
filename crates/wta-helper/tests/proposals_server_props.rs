//! The proposal server as a whole, fuzzed over its real socket: a bound
//! `ProposalServer` with a live turn of a session whose agent asks
//! permission (so only an armed request may become a card).
//!
//! - Random byte streams (junk, truncated and over-long lines, wrong types,
//!   deep nesting, non-UTF-8, several lines at once): never a panic, never a
//!   card, and exactly one validation line for any non-empty input.
//! - Well-formed request envelopes with random channels, random payloads
//!   and random arming: a card exactly when the request is valid, on the
//!   live channel and armed with these very bytes.
//!
//! After all of it the server still answers, and still shows a card for a
//! valid armed request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;
use wta_helper::proposals::{
    Preflight, ProposalEvent, ProposalServer, ProposalService, TurnContext,
};
use wta_protocol::limits::MAX_REQUEST_LINE_BYTES;
use wta_protocol::{
    Channel, HelperId, PaneId, ProposalRequest, ResponseLine, TurnNonce, ValidationStatus,
    build_invocation,
};

const T: Duration = Duration::from_secs(10);

static PANICKED: AtomicBool = AtomicBool::new(false);

/// Records a panic on any thread (the server's tasks included).
fn watch_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICKED.store(true, Ordering::SeqCst);
        default(info);
    }));
}

struct Fixture {
    service: ProposalService,
    events: RefCell<UnboundedReceiver<ProposalEvent>>,
    server: ProposalServer,
    /// Serves the socket on its own threads while the test drives it.
    _runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let service = ProposalService::with_random_id().unwrap();
        let events = RefCell::new(service.attach_ui());
        let server = {
            let _entered = runtime.enter();
            ProposalServer::bind(service.clone(), &dir.path().join("wta")).unwrap()
        };
        let fixture = Self {
            service,
            events,
            server,
            _runtime: runtime,
            _dir: dir,
        };
        // This session's agent asks permission: from now on an unarmed
        // request is `not_armed`, never a card.
        let channel = fixture.turn();
        assert!(fixture.arm(&channel, "{}"));
        fixture
    }

    fn turn(&self) -> Channel {
        self.service
            .issue_turn(TurnContext::agent_turn(Some(PaneId::from_number(1)), None))
            .unwrap()
    }

    /// The permission preflight for the canonical command of `payload`;
    /// whether it armed.
    fn arm(&self, channel: &Channel, payload: &str) -> bool {
        let call = json!({"kind": "execute",
            "rawInput": {"command": build_invocation(channel, payload)}});
        matches!(
            self.service.preflight(None, &call),
            Preflight::AllowAndArm { .. }
        )
    }

    /// Sends `chunks`, closes the write side and reads everything until the
    /// server closes the connection.
    fn exchange(&self, chunks: &[Vec<u8>]) -> Vec<u8> {
        let mut stream = UnixStream::connect(self.server.path()).unwrap();
        for chunk in chunks {
            // The server may close early (a line over the cap): keep reading.
            if stream.write_all(chunk).is_err() {
                break;
            }
        }
        let _ = stream.shutdown(std::net::Shutdown::Write);
        read_to_close(&mut stream)
    }

    /// Cards shown since the last call (ends of cards are not counted).
    fn cards(&self) -> Vec<ProposalEvent> {
        let mut events = self.events.borrow_mut();
        std::iter::from_fn(|| events.try_recv().ok())
            .filter(|e| matches!(e, ProposalEvent::Accepted(_)))
            .collect()
    }
}

fn read_to_close(stream: &mut UnixStream) -> Vec<u8> {
    stream.set_read_timeout(Some(T)).unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return seen,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return seen,
            Err(e) => panic!("the server neither answered nor closed: {e}"),
        }
    }
}

/// The response lines, each parsed strictly.
fn lines(bytes: &[u8]) -> Vec<ResponseLine> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            ResponseLine::from_frame(l)
                .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(l)))
        })
        .collect()
}

fn validation_status(lines: &[ResponseLine]) -> Option<ValidationStatus> {
    match lines.first() {
        Some(ResponseLine::Validation(v)) => Some(v.status),
        _ => None,
    }
}

/// A valid payload (one `send` into the turn's pane), compact or spaced.
fn valid_payload() -> impl Strategy<Value = String> {
    (
        "[A-Za-z0-9][A-Za-z0-9 ]{0,30}",
        "[a-z0-9][a-z0-9 ./-]{0,40}",
        any::<bool>(),
    )
        .prop_map(|(title, input, spaced)| {
            let value = json!({"schema_version": 1, "origin": "terminal_agent",
                "recommended_choice": 1,
                "choices": [{"choice": 1, "title": title,
                    "actions": [{"type": "send", "input": input}]}]});
            if spaced {
                serde_json::to_string_pretty(&value)
                    .unwrap()
                    .replace('\n', " ")
            } else {
                value.to_string()
            }
        })
}

/// Lines a confused or hostile client might send.
fn hostile_line() -> impl Strategy<Value = Vec<u8>> {
    let channel = (any::<[u8; 16]>(), any::<[u8; 16]>())
        .prop_map(|(h, n)| Channel::new(HelperId::from_bytes(h), TurnNonce::from_bytes(n)));
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..600),
        "\\PC{0,200}".prop_map(String::into_bytes),
        (channel.clone(), valid_payload()).prop_map(|(c, p)| {
            let line = ProposalRequest::new(c, p).to_line().unwrap();
            line[..line.len() / 2].to_vec()
        }),
        (0usize..400).prop_map(|depth| {
            format!(
                "{{\"version\":1,\"channel\":{}0{}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            )
            .into_bytes()
        }),
        proptest::sample::select(vec![
            r#"{"version":"1","channel":"v1.x","payload":"{}"}"#,
            r#"{"version":1,"channel":123,"payload":"{}"}"#,
            r#"{"version":1,"channel":null,"payload":{}}"#,
            r#"{"version":18446744073709551616,"channel":"v1","payload":""}"#,
            r#"{"version":1e999,"channel":"","payload":""}"#,
            r#"{"version":1,"channel":"v1.00000000000000000000000000000000.00000000000000000000000000000000","payload":"{}","extra":1}"#,
            r#"[{"version":1}]"#,
            "{}",
            "null",
            "",
            "\r",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        (channel, proptest::collection::vec(any::<u8>(), 1..40)).prop_map(|(c, junk)| {
            // Not UTF-8 inside the payload string.
            let mut line = format!("{{\"version\":1,\"channel\":\"{c}\",\"payload\":\"").into_bytes();
            line.extend(junk.iter().map(|b| b | 0x80));
            line.extend_from_slice(b"\"}");
            line
        }),
        (1usize..4096).prop_map(|extra| vec![b'{'; MAX_REQUEST_LINE_BYTES + extra]),
    ]
}

/// A byte stream: hostile lines joined by `\n`, `\r\n` or nothing, cut into
/// random chunks.
fn byte_stream() -> impl Strategy<Value = Vec<Vec<u8>>> {
    (
        proptest::collection::vec(
            (
                hostile_line(),
                prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b""[..])],
            ),
            1..4,
        ),
        proptest::collection::vec(1usize..3000, 1..8),
    )
        .prop_map(|(parts, cuts)| {
            let mut bytes = Vec::new();
            for (line, end) in parts {
                bytes.extend_from_slice(&line);
                bytes.extend_from_slice(end);
            }
            let mut chunks = Vec::new();
            let mut rest = &bytes[..];
            for cut in cuts.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (head, tail) = rest.split_at((*cut).min(rest.len()));
                chunks.push(head.to_vec());
                rest = tail;
            }
            chunks
        })
}

#[derive(Debug, Clone)]
enum Target {
    Live,
    /// The turn before this one (superseded).
    Previous,
    OtherHelper([u8; 16]),
    OtherNonce([u8; 16]),
}

#[derive(Debug, Clone)]
enum Sent {
    /// Exactly the armed payload (or a valid one when nothing was armed).
    TheArmed,
    /// The armed payload with one more space: same JSON, other bytes.
    Respaced,
    Valid(String),
    Junk(String),
}

#[derive(Debug, Clone)]
struct Envelope {
    armed: Option<String>,
    target: Target,
    sent: Sent,
    version: u64,
}

fn envelope() -> impl Strategy<Value = Envelope> {
    let armed = prop_oneof![
        1 => Just(None),
        3 => valid_payload().prop_map(Some),
        1 => "\\PC{1,60}".prop_map(Some),
    ];
    let target = prop_oneof![
        4 => Just(Target::Live),
        1 => Just(Target::Previous),
        1 => any::<[u8; 16]>().prop_map(Target::OtherHelper),
        1 => any::<[u8; 16]>().prop_map(Target::OtherNonce),
    ];
    let sent = prop_oneof![
        4 => Just(Sent::TheArmed),
        1 => Just(Sent::Respaced),
        1 => valid_payload().prop_map(Sent::Valid),
        1 => "\\PC{0,300}".prop_map(Sent::Junk),
    ];
    let version = prop_oneof![8 => Just(1u64), 1 => any::<u64>()];
    (armed, target, sent, version).prop_map(|(armed, target, sent, version)| Envelope {
        armed,
        target,
        sent,
        version,
    })
}

#[test]
fn random_byte_streams_never_make_a_card_and_are_answered_once() {
    watch_panics();
    let f = Fixture::new();
    let mut runner = TestRunner::new(Config::with_cases(200));
    runner
        .run(&byte_stream(), |chunks| {
            let sent: usize = chunks.iter().map(Vec::len).sum();
            let answer = f.exchange(&chunks);
            let lines = lines(&answer);
            let expected = usize::from(sent > 0);
            prop_assert_eq!(
                lines.len(),
                expected,
                "{:?}",
                String::from_utf8_lossy(&answer)
            );
            if let Some(status) = validation_status(&lines) {
                prop_assert_ne!(status, ValidationStatus::Accepted);
            }
            prop_assert!(f.cards().is_empty());
            prop_assert!(!PANICKED.load(Ordering::SeqCst));
            Ok(())
        })
        .unwrap();
    still_serves_a_valid_armed_request(&f);
}

#[test]
fn envelopes_make_a_card_only_when_valid_live_and_armed_with_these_bytes() {
    watch_panics();
    let f = Fixture::new();
    let previous = RefCell::new(f.turn());
    let mut runner = TestRunner::new(Config::with_cases(200));
    runner
        .run(&envelope(), |e| {
            let live = f.turn();
            let before = previous.replace(live);
            let armed = e.armed.as_ref().is_some_and(|p| f.arm(&live, p));
            let channel = match e.target {
                Target::Live => live,
                Target::Previous => before,
                Target::OtherHelper(h) => {
                    Channel::new(HelperId::from_bytes(h), TurnNonce::from_bytes([1; 16]))
                }
                Target::OtherNonce(n) => Channel::new(live.helper(), TurnNonce::from_bytes(n)),
            };
            let (payload, valid) = match (&e.sent, &e.armed) {
                (Sent::TheArmed, Some(p)) => {
                    let valid = wta_protocol::parse_payload(p.as_bytes()).is_ok();
                    (p.clone(), valid)
                }
                (Sent::TheArmed, None) => ("{}".to_owned(), false),
                (Sent::Respaced, Some(p)) => (format!(" {p}"), false),
                (Sent::Respaced, None) => (" {}".to_owned(), false),
                (Sent::Valid(p), _) => (p.clone(), true),
                (Sent::Junk(p), _) => (p.clone(), false),
            };
            let mut request = ProposalRequest::new(channel, payload.clone());
            request.version = e.version;
            let line = format!("{}\n", serde_json::to_string(&request).unwrap());
            let bytes_match = e.armed.as_deref() == Some(payload.as_str());
            let card_expected = channel == live && armed && bytes_match && valid && e.version == 1;

            let mut stream = UnixStream::connect(f.server.path()).unwrap();
            stream.write_all(line.as_bytes()).unwrap();
            if card_expected {
                let first = read_line(&mut stream);
                prop_assert_eq!(
                    validation_status(&lines(&first)),
                    Some(ValidationStatus::Accepted)
                );
                let cards = f.cards();
                prop_assert_eq!(cards.len(), 1);
                let ProposalEvent::Accepted(card) = &cards[0] else {
                    unreachable!()
                };
                f.service.cancel_card(card.id);
                let rest = read_to_close(&mut stream);
                let rest = lines(&rest);
                prop_assert!(
                    matches!(rest.as_slice(), [ResponseLine::Final(_)]),
                    "{:?}",
                    rest
                );
            } else {
                let _ = stream.shutdown(std::net::Shutdown::Write);
                let answer = lines(&read_to_close(&mut stream));
                prop_assert_eq!(answer.len(), 1, "{:?}", e);
                let status = validation_status(&answer);
                prop_assert!(
                    status.is_some() && status != Some(ValidationStatus::Accepted),
                    "{:?}",
                    e
                );
                prop_assert!(f.cards().is_empty(), "{:?}", e);
            }
            prop_assert!(!PANICKED.load(Ordering::SeqCst));
            Ok(())
        })
        .unwrap();
    still_serves_a_valid_armed_request(&f);
}

/// Reads one line (the validation line) without waiting for the close.
fn read_line(stream: &mut UnixStream) -> Vec<u8> {
    stream.set_read_timeout(Some(T)).unwrap();
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.last() != Some(&b'\n') {
        match stream.read(&mut byte) {
            Ok(1) => line.push(byte[0]),
            other => panic!("the line ended early: {other:?} after {line:?}"),
        }
    }
    line
}

/// The positive control: after everything, a valid armed request on the
/// live channel still becomes a card, and a stranger still gets an answer.
fn still_serves_a_valid_armed_request(f: &Fixture) {
    let live = f.turn();
    let payload = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","actions":[{"type":"send","input":"ls"}]}]}"#;
    assert!(f.arm(&live, payload));
    let mut stream = UnixStream::connect(f.server.path()).unwrap();
    stream
        .write_all(&ProposalRequest::new(live, payload).to_line().unwrap())
        .unwrap();
    let first = read_line(&mut stream);
    assert_eq!(
        validation_status(&lines(&first)),
        Some(ValidationStatus::Accepted)
    );
    assert_eq!(f.cards().len(), 1);
    let stranger = Channel::new(
        HelperId::from_bytes([9; 16]),
        TurnNonce::from_bytes([9; 16]),
    );
    let answer = f.exchange(&[ProposalRequest::new(stranger, "{}").to_line().unwrap()]);
    assert_eq!(
        validation_status(&lines(&answer)),
        Some(ValidationStatus::HelperMismatch)
    );
    assert!(!PANICKED.load(Ordering::SeqCst));
}
