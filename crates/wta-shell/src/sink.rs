//! The pipe-pane sink (`wta pipe-sink <socket>`) and the readiness gate helper.
//!
//! tmux writes a pane's output into the sink's stdin and buffers without
//! limit when the reader stalls, so the sink reads stdin continuously and
//! hands chunks to a writer thread through a bounded queue; when the watcher
//! is slow the sink drops chunks on its own side, counts them, and tells the
//! watcher where with a gap frame ([`crate::sink_wire`]) queued before the
//! next chunk it forwards, so the tracker can flag the run it hit.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use crate::error::ShellError;
use crate::sink_wire::{Frame, encode_data_header, encode_gap};

/// Chunks the sink may queue before it starts dropping (× 64 KiB).
const QUEUE_CHUNKS: usize = 256;

/// What the sink did, returned when stdin ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkStats {
    pub forwarded: u64,
    pub dropped_bytes: u64,
    pub dropped_chunks: u64,
}

/// How long the sink, at EOF, keeps trying to queue its last gap frame.
const LAST_GAP_PATIENCE: Duration = Duration::from_secs(2);

/// Reads `input` until EOF and forwards it to the watcher at `socket`.
pub fn run_pipe_sink_from(socket: &Path, mut input: impl Read) -> Result<SinkStats, ShellError> {
    let mut stream = UnixStream::connect(socket).map_err(|source| ShellError::Socket {
        path: socket.to_path_buf(),
        source,
    })?;
    let (tx, rx) = sync_channel::<Frame>(QUEUE_CHUNKS);
    let writer = std::thread::spawn(move || {
        let mut forwarded = 0u64;
        let mut broken = false;
        for frame in rx {
            // After a write error keep draining the queue so the reader never blocks.
            if broken {
                continue;
            }
            let written = match &frame {
                Frame::Data(chunk) => stream
                    .write_all(&encode_data_header(chunk.len()))
                    .and_then(|()| stream.write_all(chunk))
                    .map(|()| chunk.len() as u64),
                Frame::Gap(n) => stream.write_all(&encode_gap(*n)).map(|()| 0),
            };
            match written {
                Ok(n) => forwarded += n,
                Err(_) => broken = true,
            }
        }
        forwarded
    });
    let mut stats = pump(&mut input, &tx)?;
    drop(tx);
    stats.forwarded = writer.join().unwrap_or(0);
    Ok(stats)
}

/// Reads `input` to EOF, queueing chunks on `tx`. A full queue drops the
/// chunk; the dropped byte count is queued as a gap frame before the next
/// chunk that fits, so the watcher learns where output is missing.
fn pump(input: &mut impl Read, tx: &SyncSender<Frame>) -> Result<SinkStats, ShellError> {
    let mut stats = SinkStats::default();
    let mut gap = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ShellError::Io(e)),
        };
        if gap > 0 {
            match tx.try_send(Frame::Gap(gap)) {
                Ok(()) => gap = 0,
                Err(TrySendError::Full(_)) => {}
                Err(TrySendError::Disconnected(_)) => break,
            }
        }
        let sent = if gap > 0 {
            Err(TrySendError::Full(Frame::Gap(0)))
        } else {
            tx.try_send(Frame::Data(buf[..n].to_vec()))
        };
        match sent {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                gap += n as u64;
                stats.dropped_bytes += n as u64;
                stats.dropped_chunks += 1;
            }
            Err(TrySendError::Disconnected(_)) => break,
        }
    }
    // The pane's output ended: the last gap still has to reach the watcher.
    let deadline = Instant::now() + LAST_GAP_PATIENCE;
    while gap > 0 && Instant::now() < deadline {
        match tx.try_send(Frame::Gap(gap)) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => break,
            Err(TrySendError::Full(_)) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    Ok(stats)
}

/// `wta pipe-sink <socket>`: forwards this process's stdin to the watcher.
pub fn run_pipe_sink(socket: &Path) -> Result<SinkStats, ShellError> {
    run_pipe_sink_from(socket, std::io::stdin().lock())
}

pub use wta_host::sh_quote;

/// Pane option where a gated command's wrapper records its exit status.
///
/// tmux 3.3a sometimes marks a pane dead without ever recording
/// `pane_dead_status` (its pty EOF races the child's exit), so the wrapper
/// writes the status itself before it exits; readers fall back to it.
pub const EXIT_STATUS_OPTION: &str = "@wta_exit_status";

/// The pane command that waits on tmux channel `gate` before running
/// `argv`, so a watcher can attach `pipe-pane` before the first prompt
/// (tmux-host.md §3.4). Release it with `tmux wait-for -S <gate>`.
/// `tmux` inside the pane reaches the pane's own server through `$TMUX`.
///
/// The wrapper `sh` stays the pane's process (no `exec`): after `argv` exits
/// it records the status in [`EXIT_STATUS_OPTION`] and exits with it. The
/// program is therefore a child of `pane_pid` (see [`crate::announced_for`]).
pub fn gated_command(gate: &str, argv: &[&str]) -> String {
    let cmd: Vec<String> = argv.iter().map(|a| sh_quote(a)).collect();
    format!(
        "tmux wait-for {}; {}; s=$?; tmux set-option -p -t \"$TMUX_PANE\" {EXIT_STATUS_OPTION} \"$s\" 2>/dev/null; exit \"$s\"",
        sh_quote(gate),
        cmd.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    #[test]
    fn quoting_and_gate() {
        assert_eq!(
            gated_command("wta-go-1", &["bash", "-l"]),
            "tmux wait-for wta-go-1; bash -l; s=$?; \
             tmux set-option -p -t \"$TMUX_PANE\" @wta_exit_status \"$s\" 2>/dev/null; exit \"$s\""
        );
    }

    #[test]
    fn forwards_everything_to_a_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let reader = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut v = Vec::new();
            s.read_to_end(&mut v).unwrap();
            v
        });
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let stats = run_pipe_sink_from(&path, &data[..]).unwrap();
        let mut frames = Vec::new();
        crate::sink_wire::FrameDecoder::new()
            .feed(&reader.join().unwrap(), &mut frames)
            .unwrap();
        let mut got = Vec::new();
        for frame in frames {
            match frame {
                Frame::Data(d) => got.extend(d),
                Frame::Gap(n) => panic!("unexpected gap of {n}"),
            }
        }
        assert_eq!(got, data);
        assert_eq!(stats.forwarded, data.len() as u64);
        assert_eq!(stats.dropped_bytes, 0);
    }

    #[test]
    fn a_stalled_writer_makes_the_sink_drop_not_block() {
        // The queue is never drained (the watcher stalls): reading stdin must
        // still finish, dropping what does not fit.
        let (tx, _rx) = sync_channel::<Frame>(QUEUE_CHUNKS);
        let data = vec![b'x'; 64 * 1024 * (QUEUE_CHUNKS + 10)];
        let stats = pump(&mut &data[..], &tx).unwrap();
        assert_eq!(stats.dropped_chunks, 10);
        assert_eq!(stats.dropped_bytes, 64 * 1024 * 10);
    }

    /// Input of 64 KiB chunks that lets the writer catch up (drains the queue)
    /// before the read numbered `catch_up_at`.
    struct Bursty {
        reads: usize,
        total: usize,
        catch_up_at: usize,
        rx: std::sync::mpsc::Receiver<Frame>,
        seen: Vec<Frame>,
    }

    impl Read for Bursty {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.reads += 1;
            if self.reads > self.total {
                return Ok(0);
            }
            if self.reads == self.catch_up_at {
                self.seen.extend(self.rx.try_iter());
            }
            let n = buf.len().min(64 * 1024);
            buf[..n].fill(b'0' + self.reads as u8);
            Ok(n)
        }
    }

    #[test]
    fn dropped_chunks_become_a_gap_frame_before_the_next_chunk() {
        let (tx, rx) = sync_channel::<Frame>(2);
        let mut input = Bursty {
            reads: 0,
            total: 5,
            catch_up_at: 5,
            rx,
            seen: Vec::new(),
        };
        // Reads 1 and 2 fit, 3 and 4 are dropped, then the writer catches up.
        let stats = pump(&mut input, &tx).unwrap();
        drop(tx);
        input.seen.extend(input.rx.try_iter());
        let kinds: Vec<String> = input
            .seen
            .iter()
            .map(|f| match f {
                Frame::Data(d) => format!("data{}", char::from(d[0])),
                Frame::Gap(n) => format!("gap{n}"),
            })
            .collect();
        assert_eq!(kinds, ["data1", "data2", "gap131072", "data5"]);
        assert_eq!(stats.dropped_chunks, 2);
    }

    /// Bytes, then a signal when the reader reaches their end.
    struct SignalAtEof<'a> {
        bytes: &'a [u8],
        done: std::sync::mpsc::Sender<()>,
    }

    impl Read for SignalAtEof<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.bytes.read(buf)?;
            if n == 0 {
                let _ = self.done.send(());
            }
            Ok(n)
        }
    }

    #[test]
    fn a_gap_at_the_end_of_the_output_is_still_sent() {
        let (tx, rx) = sync_channel::<Frame>(1);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let data = vec![b'y'; 64 * 1024 * 3];
        let drain = std::thread::spawn(move || {
            // A slow writer: takes frames only once the input has ended.
            done_rx.recv().unwrap();
            rx.iter().collect::<Vec<_>>()
        });
        let mut input = SignalAtEof {
            bytes: &data,
            done: done_tx,
        };
        let stats = pump(&mut input, &tx).unwrap();
        drop(tx);
        let frames = drain.join().unwrap();
        assert_eq!(stats.dropped_bytes, 2 * 64 * 1024);
        assert_eq!(frames.last(), Some(&Frame::Gap(2 * 64 * 1024)));
    }
}
