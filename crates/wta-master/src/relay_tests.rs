//! What the relay copies (a trust boundary: agent output), and its fences.

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn update(session: &str) -> Peek<'_> {
    Peek::Update(Cow::Borrowed(session))
}

#[test]
fn only_a_plain_session_update_notification_is_copied() {
    let rows: &[(&str, Peek<'_>)] = &[
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk"}}}"#,
            update("s1"),
        ),
        (
            r#" { "params" : { "update" : {}, "sessionId" : "s2" }, "method" : "session/update", "jsonrpc" : "2.0" } "#,
            update("s2"),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s\u0033"}}"#,
            Peek::Update(Cow::Owned("s3".into())),
        ),
        // A request (any id, even null) is answered by the crate's machinery.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"session/update","params":{"sessionId":"s"}}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"session/update","params":{"sessionId":"s"}}"#,
            Peek::Other,
        ),
        // Other methods, other versions, extra members, odd shapes.
        (
            r#"{"jsonrpc":"2.0","method":"session/request_permission","params":{"sessionId":"s"}}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"1.0","method":"session/update","params":{"sessionId":"s"}}"#,
            Peek::Other,
        ),
        (
            r#"{"method":"session/update","params":{"sessionId":"s"}}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"},"extra":1}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{}}}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":7}}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":["s"]}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update"}"#,
            Peek::Other,
        ),
        // Two session ids: which one a reader would take is not for us to guess.
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","sessionId":"b"}}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","method":"x","params":{"sessionId":"a"}}"#,
            Peek::Other,
        ),
        // Not JSON, or more than one value.
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}"#,
            Peek::Other,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}} {}"#,
            Peek::Other,
        ),
        ("", Peek::Other),
        ("[]", Peek::Other),
    ];
    for (line, want) in rows {
        assert_eq!(&peek(line), want, "{line}");
    }
}

/// What a full parse says the line is, when it is a copyable update.
fn full_parse(line: &str) -> Option<String> {
    let value: Value = serde_json::from_str(line).ok()?;
    let obj = value.as_object()?;
    let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    if sorted != ["jsonrpc", "method", "params"] || obj["jsonrpc"] != "2.0" {
        return None;
    }
    if obj["method"] != "session/update" {
        return None;
    }
    Some(obj["params"].get("sessionId")?.as_str()?.to_owned())
}

/// Noise, or a plain update line with up to three bytes inserted, removed
/// or replaced.
fn changed_update() -> impl Strategy<Value = Vec<u8>> {
    let line = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"content":{"text":"\u00e9\n\"q\""}}}}"#;
    let edits = prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 0..4);
    let changed = edits.prop_map(move |edits| {
        let mut bytes = line.to_vec();
        for (at, op, byte) in edits {
            let i = at.index(bytes.len() + 1);
            match op {
                0 => bytes.insert(i, byte),
                1 if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ if i < bytes.len() => bytes[i] = byte,
                _ => {}
            }
        }
        bytes
    });
    prop_oneof![prop::collection::vec(any::<u8>(), 0..200), changed]
}

fn arb_line() -> impl Strategy<Value = String> {
    let session = prop_oneof![Just("s1".to_owned()), "[a-z\\\\\"u0-9]{0,6}"];
    let key = prop_oneof![
        Just("jsonrpc"),
        Just("method"),
        Just("params"),
        Just("id"),
        Just("sessionId"),
        Just("update"),
    ];
    let value = prop_oneof![
        Just("\"2.0\"".to_owned()),
        Just("\"session/update\"".to_owned()),
        Just("null".to_owned()),
        Just("1".to_owned()),
        session.prop_map(|s| format!("{{\"sessionId\":\"{s}\",\"update\":{{}}}}")),
        Just("[]".to_owned()),
    ];
    prop::collection::vec((key, value), 0..5).prop_map(|members| {
        let body: Vec<String> = members
            .into_iter()
            .map(|(k, v)| format!("\"{k}\":{v}"))
            .collect();
        format!("{{{}}}", body.join(","))
    })
}

proptest! {
    /// Whatever an agent writes, the relay copies a line only when a full
    /// parse agrees it is a plain update for exactly that session.
    #[test]
    fn a_copied_line_is_what_a_full_parse_says(line in arb_line()) {
        if let Peek::Update(session) = peek(&line) {
            let full = full_parse(&line);
            prop_assert_eq!(full.as_deref(), Some(&*session));
        }
    }

    /// The same for a real update line with a few bytes changed, or noise
    /// (bytes as an agent could write them, read as lossy UTF-8): a line
    /// is copied only when a full parse agrees on its session.
    #[test]
    fn a_changed_or_noisy_line_is_copied_only_when_a_full_parse_agrees(
        bytes in changed_update(),
    ) {
        let line = String::from_utf8_lossy(&bytes).into_owned();
        if let Peek::Update(session) = peek(&line) {
            let full = full_parse(&line);
            prop_assert_eq!(full.as_deref(), Some(&*session));
        }
    }
}

#[test]
fn a_plain_update_of_a_full_parse_is_copied() {
    let line = json!({"jsonrpc": "2.0", "method": "session/update",
        "params": {"sessionId": "x-1", "update": {"content": {"text": "é\n\"q\""}}}})
    .to_string();
    assert_eq!(peek(&line), update("x-1"));
}

#[test]
fn only_this_relays_fences_are_acknowledged() {
    let relay = AgentRelay::new();
    let other = AgentRelay::new();
    assert_ne!(relay.nonce, other.nonce);
    assert_eq!(
        relay.fence_line(3),
        format!(
            r#"{{"jsonrpc":"2.0","method":"_wta/relay_fence","params":{{"seq":3,"nonce":{}}}}}"#,
            relay.nonce
        )
    );
    let line: Value = serde_json::from_str(&relay.fence_line(3)).unwrap();
    assert!(is_fence(line["method"].as_str().unwrap()));
    assert!(is_fence("wta/relay_fence"));
    assert!(!is_fence("_wta/lagged"));
    other.acknowledge(&line["params"]);
    assert_eq!(*other.acked.lock().unwrap(), 0, "another relay's fence");
    relay.acknowledge(&json!({"seq": 9}));
    assert_eq!(*relay.acked.lock().unwrap(), 0, "no nonce");
    relay.acknowledge(&line["params"]);
    assert_eq!(*relay.acked.lock().unwrap(), 3);
    relay.acknowledge(&json!({"seq": 1, "nonce": relay.nonce}));
    assert_eq!(*relay.acked.lock().unwrap(), 3, "never goes back");
}

#[test]
fn only_a_run_of_small_update_reads_close_together_pauses() {
    let t0 = Instant::now();
    let at = |us: u64| t0 + Duration::from_micros(us);
    let small = SMALL_READ - 1;
    let mut streak = Streak::default();
    // Four small update-only reads within 1 ms of each other: pause on the fourth.
    let pauses: Vec<bool> = (0..5)
        .map(|i| streak.pause_after(at(i * 100), true, small))
        .collect();
    assert_eq!(pauses, [false, false, false, true, true]);
    // A read with a request or an answer in it breaks the run.
    assert!(!streak.pause_after(at(600), false, small));
    assert!(!streak.pause_after(at(700), true, small));
    // A gap of 1 ms or more starts it over.
    let mut streak = Streak::default();
    for i in 0..3 {
        assert!(!streak.pause_after(at(i * 100), true, small));
    }
    assert!(!streak.pause_after(at(200 + 1000), true, small));
    // A big read (a fast agent) is never paused for.
    let mut streak = Streak::default();
    for i in 0..8 {
        assert!(!streak.pause_after(at(i * 100), true, SMALL_READ));
    }
}
