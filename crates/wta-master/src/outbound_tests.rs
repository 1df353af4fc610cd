//! The outbound queue: admission and lag reports, fences, and the writer.

use super::*;

fn drain(out: &Outbound) -> Vec<String> {
    let mut q = out.lock();
    let text = String::from_utf8(std::mem::take(&mut q.ready)).unwrap();
    q.ready_lines = 0;
    text.lines().map(str::to_owned).collect()
}

#[test]
fn drops_over_cap_and_reports_lag_once_drained() {
    let mut q = Queue::default();
    assert_eq!(q.admit(4), Admission::Send);
    q.pending = 4;
    assert_eq!(
        q.admit(4),
        Admission::Drop {
            first_of_stall: true
        }
    );
    assert_eq!(
        q.admit(4),
        Admission::Drop {
            first_of_stall: false
        }
    );
    q.pending = 3;
    assert_eq!(
        q.admit(4),
        Admission::Drop {
            first_of_stall: false
        }
    );
    q.pending = 2;
    assert_eq!(q.admit(4), Admission::SendAfterLagged { dropped: 3 });
    assert_eq!(q.admit(4), Admission::Send);
    assert_eq!(q.written(0, 4), None, "no stall, nothing to report");
}

#[test]
fn the_writer_ends_a_stall_once_drained_even_if_nothing_follows() {
    let mut q = Queue {
        pending: 4,
        ..Queue::default()
    };
    for _ in 0..5 {
        assert!(matches!(q.admit(4), Admission::Drop { .. }));
    }
    assert_eq!(q.written(1, 4), None, "still over half the cap");
    assert_eq!(q.written(1, 4), Some(5));
    assert_eq!(q.written(0, 4), None, "reported once");
    assert_eq!(q.admit(4), Admission::Send, "no second report");
    let line: serde_json::Value = serde_json::from_str(&lagged_line(5)).unwrap();
    assert_eq!(line["method"], "_wta/lagged");
    assert_eq!(line["params"]["dropped"], 5);
}

#[test]
fn relayed_lines_are_counted_dropped_over_cap_and_lagged_before_the_next() {
    let out = Outbound::new(1, 4, None);
    for i in 0..4 {
        assert_eq!(out.relay(format!("u{i}\n").as_bytes()), Relayed::Queued);
    }
    assert_eq!(out.relay(b"u4\n"), Relayed::Dropped);
    assert_eq!(out.relay(b"u5\n"), Relayed::Dropped);
    assert!(
        !out.admit_notification(),
        "a slow-path notification is dropped too"
    );
    // As if the writer wrote three lines without looking: down to half.
    out.lock().pending = 1;
    assert_eq!(out.relay(b"u6\n"), Relayed::Queued);
    let lines = drain(&out);
    assert_eq!(&lines[..4], ["u0", "u1", "u2", "u3"]);
    let lagged: serde_json::Value = serde_json::from_str(&lines[4]).unwrap();
    assert_eq!(lagged["params"]["dropped"], 3);
    assert_eq!(lines[5], "u6");
}

#[test]
fn fences_close_in_any_order_and_only_up_to_the_first_missing_one() {
    let mut q = Queue::default();
    let (a, b, c) = (q.open_fence(), q.open_fence(), q.open_fence());
    assert_eq!(q.fence_seen(b), 0, "fence a is still open");
    assert_eq!(q.fence_seen(c), 0);
    assert_eq!(q.fence_seen(a), 3, "a closes b and c with it");
    let d = q.open_fence();
    assert_eq!(q.give_up_fences(d), 4);
    assert!(q.early.is_empty());
}

#[test]
fn a_relayed_line_waits_for_a_message_still_in_the_connection() {
    let out = Outbound::new(1, 16, None);
    let fence = out.open_fence();
    // The message itself, then the relay asks: it must wait.
    assert_eq!(out.relay(b"update\n"), Relayed::Wait(fence));
    out.crate_line("answer");
    assert_eq!(out.relay(b"update\n"), Relayed::Wait(fence));
    out.crate_line(&fence_line(fence));
    assert_eq!(out.relay(b"update\n"), Relayed::Queued);
    assert_eq!(
        drain(&out),
        ["answer", "update"],
        "the fence never reaches the socket"
    );
}

/// What the ACP crate writes for [`fence_message`], checked against the crate below.
fn fence_line(n: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"_wta/relay_fence","params":{{"seq":{n}}}}}"#)
}

#[test]
fn only_a_fence_notification_is_a_fence() {
    assert_eq!(parse_fence(&fence_line(7)), Some(7));
    assert_eq!(
        parse_fence(r#"{"jsonrpc":"2.0","method":"wta/relay_fence","params":{"seq":2}}"#),
        Some(2),
        "the spelling without `_` too"
    );
    for line in [
        r#"{"jsonrpc":"2.0","id":3,"method":"_wta/relay_fence","params":{"seq":2}}"#,
        r#"{"jsonrpc":"2.0","method":"_wta/relay_fence","params":{"seq":2,"x":1}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"seq":2}}"#,
        r#"{"jsonrpc":"2.0","method":"_wta/relay_fence"}"#,
        "_wta/relay_fence",
    ] {
        assert_eq!(parse_fence(line), None, "{line}");
    }
}

#[tokio::test]
async fn the_crate_writes_fences_as_the_sink_reads_them() {
    // A real ACP connection (master side) writing into a CrateSink.
    use agent_client_protocol::{Agent, Client, Lines};
    let out = Outbound::new(1, 16, None);
    let sink = CrateSink { out: out.clone() };
    let (_tx, rx) = futures::channel::mpsc::unbounded::<std::io::Result<String>>();
    let sent = Agent
        .v1()
        .name("fence-test")
        .connect_with(Lines::new(sink, rx), async |cx| {
            cx.send_notification(fence_message(1)?)?;
            cx.send_notification(UntypedMessage::new("x/y", serde_json::json!({}))?)?;
            Ok(())
        });
    let _ = tokio::time::timeout(Duration::from_secs(5), sent).await;
    let _ = Client; // the role this connection talks to
    assert_eq!(out.lock().closed_up_to, 1, "the fence was recognised");
    let lines = drain(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("x/y"));
}

#[tokio::test]
async fn the_writer_writes_in_order_ends_stalls_and_shuts_down_when_closed() {
    let (ours, theirs) = tokio::net::UnixStream::pair().unwrap();
    let (_read, write) = ours.into_split();
    let out = Outbound::new(1, 4, None);
    let sink = out.attach(write);
    for i in 0..6 {
        out.relay(format!("n{i}\n").as_bytes());
    }
    drop(sink);
    let mut text = String::new();
    let mut theirs = tokio::io::BufReader::new(theirs);
    tokio::time::timeout(
        Duration::from_secs(5),
        tokio::io::AsyncReadExt::read_to_string(&mut theirs, &mut text),
    )
    .await
    .unwrap()
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Depending on when the writer ran, 0 to 2 were dropped; whatever was
    // dropped is reported once, after what was queued before it.
    let delivered: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with('n'))
        .collect();
    let lagged: u64 = lines
        .iter()
        .filter(|l| l.contains("_wta/lagged"))
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["params"]["dropped"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert_eq!(delivered.len() as u64 + lagged, 6, "{lines:?}");
    assert!(delivered.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
}
