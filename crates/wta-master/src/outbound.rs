//! Bounded outbound notifications toward one helper.
//!
//! Every line for a helper passes through an in-memory queue drained by a writer
//! task. `pending` counts lines queued and not yet written to the socket. Before a
//! *notification* is admitted, the router asks [`Gate::admit`]: over the cap it is
//! dropped (one log line per stall) and, once the helper catches up, the helper is
//! told with one `_wta/lagged` carrying the number dropped. Responses and requests
//! are never dropped: an agent waiting on an answer must get one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

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
    stalled: AtomicBool,
    dropped: AtomicU64,
}

impl Gate {
    pub(crate) fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            cap: cap.max(2),
            pending: AtomicUsize::new(0),
            stalled: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
        })
    }

    /// Decides for one notification. A stall ends once the queue is down to half.
    pub(crate) fn admit(&self) -> Admission {
        let pending = self.pending.load(Ordering::Acquire);
        if self.stalled.load(Ordering::Acquire) {
            if pending <= self.cap / 2 {
                self.stalled.store(false, Ordering::Release);
                let dropped = self.dropped.swap(0, Ordering::AcqRel);
                return Admission::SendAfterLagged { dropped };
            }
            self.dropped.fetch_add(1, Ordering::AcqRel);
            return Admission::Drop {
                first_of_stall: false,
            };
        }
        if pending >= self.cap {
            self.stalled.store(true, Ordering::Release);
            self.dropped.fetch_add(1, Ordering::AcqRel);
            return Admission::Drop {
                first_of_stall: true,
            };
        }
        Admission::Send
    }
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
    }
}
