//! The master socket as JSON-RPC lines, and the tap that shows them.
//!
//! [`transport`] turns the socket into the ACP crate's `Lines` transport:
//! incoming lines are capped at [`MAX_HELPER_LINE_BYTES`] (a longer line ends
//! the connection instead of growing this process), outgoing lines get their
//! `\n`. Every line, both ways, is also offered to a [`WireTap`]: that is
//! what the F12 panel shows, the JSON exactly as it crossed the socket.
//! The tap never slows the connection: it keeps at most [`TAP_LINE_BYTES`]
//! of a line and drops lines (counting them) when its reader falls behind.

use futures::{Sink, Stream};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;
use wta_protocol::limits::MAX_HELPER_LINE_BYTES;
use wta_state::Direction;

use crate::machine::WireLine;

/// Bytes of one line the tap keeps (the F12 panel shows fewer still).
pub const TAP_LINE_BYTES: usize = 4096;
/// Lines the tap holds for its reader before it drops new ones.
pub const TAP_QUEUE: usize = 1024;

/// Where tapped lines go: a bounded queue that never blocks the sender.
#[derive(Debug, Clone)]
pub struct WireTap {
    tx: mpsc::Sender<WireLine>,
    dropped: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl WireTap {
    /// A tap and the receiver of its lines.
    pub fn new() -> (Self, mpsc::Receiver<WireLine>) {
        let (tx, rx) = mpsc::channel(TAP_QUEUE);
        let tap = Self {
            tx,
            dropped: std::sync::Arc::default(),
        };
        (tap, rx)
    }

    /// Offers `line` (without its newline) to the reader.
    pub fn offer(&self, direction: Direction, line: &str) {
        use std::sync::atomic::Ordering;
        let text = cut(line, TAP_LINE_BYTES);
        let dropped_before = self.dropped.swap(0, Ordering::Relaxed);
        let wire = WireLine {
            direction,
            text,
            dropped_before,
        };
        if self.tx.try_send(wire).is_err() {
            self.dropped
                .fetch_add(dropped_before + 1, Ordering::Relaxed);
        }
    }
}

/// `line` cut to at most `max` bytes on a character boundary, with `…` when cut.
fn cut(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_owned();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

/// The socket halves as the ACP crate's line transport, tapped.
pub fn transport(
    read: OwnedReadHalf,
    write: OwnedWriteHalf,
    tap: Option<WireTap>,
) -> agent_client_protocol::Lines<
    impl Sink<String, Error = std::io::Error> + Send + 'static,
    impl Stream<Item = std::io::Result<String>> + Send + 'static,
> {
    let in_tap = tap.clone();
    let incoming = futures::stream::unfold(
        (BufReader::new(read), in_tap),
        |(mut reader, tap)| async move {
            let line = read_line(&mut reader, MAX_HELPER_LINE_BYTES).await;
            match line {
                Ok(Some(line)) => {
                    if let Some(tap) = &tap {
                        tap.offer(Direction::In, &line);
                    }
                    Some((Ok(line), (reader, tap)))
                }
                Ok(None) => None,
                Err(err) => Some((Err(err), (reader, None))),
            }
        },
    );
    let outgoing =
        futures::sink::unfold((write, tap), |(mut write, tap), line: String| async move {
            if let Some(tap) = &tap {
                tap.offer(Direction::Out, &line);
            }
            let mut bytes = line.into_bytes();
            bytes.push(b'\n');
            write.write_all(&bytes).await?;
            write.flush().await?;
            Ok::<_, std::io::Error>((write, tap))
        });
    agent_client_protocol::Lines::new(outgoing, Box::pin(incoming))
}

/// The next line (without `\n` or `\r\n`); `None` at EOF. A line longer than
/// `max` bytes, or one that is not UTF-8, is an error (the master only
/// sends JSON-RPC lines under the shared cap).
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return (!line.is_empty()).then(|| lossless(line)).transpose();
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        line.extend_from_slice(&chunk[..used]);
        reader.consume(used);
        if line.len() > max + 2 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the master sent a line over {max} bytes"),
            ));
        }
        if done {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return lossless(line).map(Some);
        }
    }
}

fn lossless(bytes: Vec<u8>) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the master sent a line that is not UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn lines_are_split_capped_and_crlf_tolerant() {
        let data: &[u8] = b"{\"a\":1}\n{\"b\":2}\r\nlast";
        let mut reader = BufReader::new(data);
        assert_eq!(
            read_line(&mut reader, 64).await.unwrap().unwrap(),
            "{\"a\":1}"
        );
        assert_eq!(
            read_line(&mut reader, 64).await.unwrap().unwrap(),
            "{\"b\":2}"
        );
        assert_eq!(read_line(&mut reader, 64).await.unwrap().unwrap(), "last");
        assert!(read_line(&mut reader, 64).await.unwrap().is_none());

        let long = format!("{}\n", "x".repeat(100));
        let mut reader = BufReader::new(long.as_bytes());
        assert!(read_line(&mut reader, 64).await.is_err());
        let mut reader = BufReader::new(&b"\xff\xfe\n"[..]);
        assert!(read_line(&mut reader, 64).await.is_err());
    }

    #[test]
    fn the_tap_cuts_long_lines_and_counts_what_it_drops() {
        let (tap, mut rx) = WireTap::new();
        tap.offer(Direction::Out, &"é".repeat(TAP_LINE_BYTES));
        let first = rx.try_recv().unwrap();
        assert!(first.text.len() <= TAP_LINE_BYTES + '…'.len_utf8());
        assert!(first.text.ends_with('…'));
        for i in 0..TAP_QUEUE + 5 {
            tap.offer(Direction::In, &format!("line {i}"));
        }
        let kept: Vec<WireLine> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert_eq!(kept.len(), TAP_QUEUE);
        tap.offer(Direction::In, "after");
        let after = rx.try_recv().unwrap();
        assert_eq!((after.text.as_str(), after.dropped_before), ("after", 5));
    }
}
