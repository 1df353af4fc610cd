//! Bounded outbound notifications toward one helper.
//!
//! Every line for a helper passes through an in-memory queue drained by a writer
//! task. `pending` counts lines queued and not yet written to the socket. Before a
//! *notification* is admitted, the router asks [`Gate::admit`]: over the cap it is
//! dropped (one log line per stall). The stall ends as soon as the queue is down
//! to half, whichever notices first: the writer after a write ([`Gate::drained`]),
//! even when nothing else follows, or the next admission. Either way the helper
//! is told exactly once with one `_wta/lagged` carrying the number dropped.
//! Responses and requests are never dropped: an agent waiting on an answer must
//! get one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;

/// What the router should do with one notification for this helper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Send it.
    Send,
    /// The helper lagged and has caught up: send `_wta/lagged{dropped}` first, then it.
    SendAfterLagged { dropped: u64 },
    /// Drop it (the helper is stalled).
    Drop { first_of_stall: bool },
}

/// Per-helper admission state.
#[derive(Debug)]
pub(crate) struct Gate {
    cap: usize,
    pending: AtomicUsize,
    /// `Some(dropped so far)` during a stall. A mutex, not two atomics, so the
    /// stall ends exactly once and no drop is counted after it was reported.
    stall: Mutex<Option<u64>>,
}

impl Gate {
    pub(crate) fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            cap: cap.max(2),
            pending: AtomicUsize::new(0),
            stall: Mutex::new(None),
        })
    }

    fn stall(&self) -> std::sync::MutexGuard<'_, Option<u64>> {
        self.stall.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Decides for one notification. A stall ends once the queue is down to half.
    pub(crate) fn admit(&self) -> Admission {
        let pending = self.pending.load(Ordering::Acquire);
        let mut stall = self.stall();
        match stall.as_mut() {
            Some(_) if pending <= self.cap / 2 => {
                let dropped = stall.take().unwrap_or(0);
                Admission::SendAfterLagged { dropped }
            }
            Some(dropped) => {
                *dropped += 1;
                Admission::Drop {
                    first_of_stall: false,
                }
            }
            None if pending >= self.cap => {
                *stall = Some(1);
                Admission::Drop {
                    first_of_stall: true,
                }
            }
            None => Admission::Send,
        }
    }

    /// After a write: ends a stall once the queue is down to half and returns
    /// how many notifications it dropped (the writer then sends `_wta/lagged`).
    pub(crate) fn drained(&self) -> Option<u64> {
        let pending = self.pending.load(Ordering::Acquire);
        let mut stall = self.stall();
        if stall.is_some() && pending <= self.cap / 2 {
            stall.take()
        } else {
            None
        }
    }
}

/// The `_wta/lagged` line for `dropped` notifications.
pub(crate) fn lagged_line(dropped: u64) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "method": wta_protocol::helper_master::METHOD_LAGGED,
        "params": wta_protocol::helper_master::LaggedNotification { dropped },
    })
    .to_string()
}

/// The outgoing half of a helper connection: a sink of JSON-RPC lines for the ACP
/// crate's `Lines` transport, and the task that writes them to the socket.
pub(crate) fn line_sink<W>(
    gate: Arc<Gate>,
    mut writer: W,
) -> impl futures::Sink<String, Error = std::io::Error> + Send + Unpin + 'static
where
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (tx, mut rx) = futures::channel::mpsc::unbounded::<String>();
    let writer_gate = gate.clone();
    tokio::spawn(async move {
        let mut buf = Vec::with_capacity(64 * 1024);
        while let Some(first) = rx.next().await {
            buf.clear();
            let mut n = 1;
            buf.extend_from_slice(first.as_bytes());
            buf.push(b'\n');
            // Batch whatever is already queued into one write.
            while buf.len() < 256 * 1024 {
                match rx.try_recv() {
                    Ok(line) => {
                        buf.extend_from_slice(line.as_bytes());
                        buf.push(b'\n');
                        n += 1;
                    }
                    _ => break,
                }
            }
            if writer.write_all(&buf).await.is_err() || writer.flush().await.is_err() {
                break;
            }
            writer_gate.pending.fetch_sub(n, Ordering::AcqRel);
            if let Some(dropped) = writer_gate.drained() {
                // The helper caught up: tell it now, even if no notification follows.
                tracing::warn!(dropped, "helper caught up after a stall");
                let mut line = lagged_line(dropped);
                line.push('\n');
                if writer.write_all(line.as_bytes()).await.is_err() || writer.flush().await.is_err()
                {
                    break;
                }
            }
        }
        let _ = writer.shutdown().await;
    });
    tx.sink_map_err(|_| std::io::Error::other("helper socket writer stopped"))
        .with(move |line: String| {
            gate.pending.fetch_add(1, Ordering::AcqRel);
            futures::future::ready(Ok::<_, std::io::Error>(line))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_over_cap_and_reports_lag_once_drained() {
        let gate = Gate::new(4);
        assert_eq!(gate.admit(), Admission::Send);
        gate.pending.store(4, Ordering::Release);
        assert_eq!(
            gate.admit(),
            Admission::Drop {
                first_of_stall: true
            }
        );
        assert_eq!(
            gate.admit(),
            Admission::Drop {
                first_of_stall: false
            }
        );
        gate.pending.store(3, Ordering::Release);
        assert_eq!(
            gate.admit(),
            Admission::Drop {
                first_of_stall: false
            }
        );
        gate.pending.store(2, Ordering::Release);
        assert_eq!(gate.admit(), Admission::SendAfterLagged { dropped: 3 });
        assert_eq!(gate.admit(), Admission::Send);
        assert_eq!(gate.drained(), None, "no stall, nothing to report");
    }

    #[test]
    fn the_writer_ends_a_stall_once_drained_even_if_nothing_follows() {
        let gate = Gate::new(4);
        gate.pending.store(4, Ordering::Release);
        for _ in 0..5 {
            assert!(matches!(gate.admit(), Admission::Drop { .. }));
        }
        gate.pending.store(3, Ordering::Release);
        assert_eq!(gate.drained(), None, "still over half the cap");
        gate.pending.store(2, Ordering::Release);
        assert_eq!(gate.drained(), Some(5));
        assert_eq!(gate.drained(), None, "reported once");
        assert_eq!(gate.admit(), Admission::Send, "no second report");
        let line: serde_json::Value = serde_json::from_str(&lagged_line(5)).unwrap();
        assert_eq!(line["method"], "_wta/lagged");
        assert_eq!(line["params"]["dropped"], 5);
    }
}
