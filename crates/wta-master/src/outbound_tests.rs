//! The outbound queue: admission and lag reports, fences, and the writer.

use super::*;

const QUEUED: Relayed = Relayed::Done { dropped: 0 };

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
    // Golden: the line as it goes into the helper's queue.
    assert_eq!(
        lagged_line(5),
        r#"{"jsonrpc":"2.0","method":"_wta/lagged","params":{"dropped":5}}"#
    );
    let fence = fence_message(3).unwrap();
    assert_eq!(fence.method, "_wta/relay_fence");
    assert_eq!(fence.params.to_string(), r#"{"seq":3}"#);
}

#[test]
fn relayed_lines_are_counted_dropped_over_cap_and_lagged_before_the_next() {
    let out = Outbound::new(1, 4, None);
    for i in 0..4 {
        assert_eq!(out.relay(format!("u{i}\n").as_bytes()), QUEUED);
    }
    assert_eq!(out.relay(b"u4\n"), Relayed::Done { dropped: 1 });
    assert_eq!(out.relay(b"u5\n"), Relayed::Done { dropped: 1 });
    assert!(
        !out.admit_notification(),
        "a slow-path notification is dropped too"
    );
    // As if the writer wrote three lines without looking: down to half.
    out.lock().pending = 1;
    assert_eq!(out.relay(b"u6\n"), QUEUED);
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
    assert_eq!(out.relay(b"update\n"), QUEUED);
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
    let (ours, theirs) = UnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    theirs.set_nonblocking(true).unwrap();
    let theirs = tokio::net::UnixStream::from_std(theirs).unwrap();
    let out = Outbound::new(1, 4, None);
    let sink = out.attach(ours);
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

#[test]
fn a_batch_is_admitted_line_by_line_when_it_cannot_be_written_at_once() {
    // No socket yet: everything is queued, against the cap.
    let out = Outbound::new(1, 4, None);
    assert_eq!(out.relay(b"a\nb\nc\n"), QUEUED);
    assert_eq!(out.relay(b"d\ne\nf\n"), Relayed::Done { dropped: 2 });
    assert_eq!(drain(&out), ["a", "b", "c", "d"]);
}

#[tokio::test]
async fn a_batch_bigger_than_the_socket_takes_is_cut_only_between_lines() {
    const LINES: usize = 2_000;
    let (ours, theirs) = UnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    let out = Outbound::new(1, 16, None);
    let sink = out.attach(ours);
    // About 2 MB in one batch: far more than a socket buffer holds, so the
    // first `write` stops inside some line.
    let pad = "x".repeat(1_000);
    let batch: String = (0..LINES).map(|i| format!("n{i} {pad}\n")).collect();
    let Relayed::Done { dropped } = out.relay(batch.as_bytes()) else {
        panic!("no fence is open");
    };
    assert!(dropped > 0, "the queue behind the socket is capped");
    drop(sink);
    let text = tokio::task::spawn_blocking(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut &theirs, &mut text).unwrap();
        text
    })
    .await
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (delivered, rest) = lines.split_at(LINES - dropped);
    for (i, line) in delivered.iter().enumerate() {
        assert_eq!(
            *line,
            format!("n{i} {pad}"),
            "line {i} arrived whole, in order"
        );
    }
    assert_eq!(rest.len(), 1, "then one lag report: {rest:?}");
    let lagged: serde_json::Value = serde_json::from_str(rest[0]).unwrap();
    assert_eq!(lagged["params"]["dropped"], dropped);
}
