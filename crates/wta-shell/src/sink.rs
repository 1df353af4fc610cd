//! The pipe-pane sink (`wta pipe-sink <socket>`) and the readiness gate helper.
//!
//! tmux writes a pane's output into the sink's stdin and buffers without
//! limit when the reader stalls, so the sink reads stdin continuously and
//! hands chunks to a writer thread through a bounded queue; when the watcher
//! is slow the sink drops chunks on its own side and counts them.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

use crate::error::ShellError;

/// Chunks the sink may queue before it starts dropping (× 64 KiB).
const QUEUE_CHUNKS: usize = 256;

/// What the sink did, returned when stdin ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkStats {
    pub forwarded: u64,
    pub dropped_bytes: u64,
    pub dropped_chunks: u64,
}

/// Reads `input` until EOF and forwards it to the watcher at `socket`.
pub fn run_pipe_sink_from(socket: &Path, mut input: impl Read) -> Result<SinkStats, ShellError> {
    let mut stream = UnixStream::connect(socket).map_err(|source| ShellError::Socket {
        path: socket.to_path_buf(),
        source,
    })?;
    let (tx, rx) = sync_channel::<Vec<u8>>(QUEUE_CHUNKS);
    let writer = std::thread::spawn(move || {
        let mut forwarded = 0u64;
        let mut broken = false;
        for chunk in rx {
            // After a write error keep draining the queue so the reader never blocks.
            if !broken && stream.write_all(&chunk).is_err() {
                broken = true;
            }
            if !broken {
                forwarded += chunk.len() as u64;
            }
        }
        forwarded
    });
    let mut stats = pump(&mut input, &tx)?;
    drop(tx);
    stats.forwarded = writer.join().unwrap_or(0);
    Ok(stats)
}

/// Reads `input` to EOF, queueing chunks on `tx`; a full queue drops the chunk.
fn pump(input: &mut impl Read, tx: &SyncSender<Vec<u8>>) -> Result<SinkStats, ShellError> {
    let mut stats = SinkStats::default();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ShellError::Io(e)),
        };
        match tx.try_send(buf[..n].to_vec()) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                stats.dropped_bytes += n as u64;
                stats.dropped_chunks += 1;
            }
            Err(TrySendError::Disconnected(_)) => break,
        }
    }
    Ok(stats)
}

/// `wta pipe-sink <socket>`: forwards this process's stdin to the watcher.
pub fn run_pipe_sink(socket: &Path) -> Result<SinkStats, ShellError> {
    run_pipe_sink_from(socket, std::io::stdin().lock())
}

/// Quotes one word for POSIX `sh`.
pub fn sh_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"%+,-./:=@_".contains(&b))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

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
        assert_eq!(sh_quote("%3"), "%3");
        assert_eq!(sh_quote("a b'c"), r"'a b'\''c'");
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
        assert_eq!(reader.join().unwrap(), data);
        assert_eq!(stats.forwarded, data.len() as u64);
        assert_eq!(stats.dropped_bytes, 0);
    }

    #[test]
    fn a_stalled_writer_makes_the_sink_drop_not_block() {
        // The queue is never drained (the watcher stalls): reading stdin must
        // still finish, dropping what does not fit.
        let (tx, _rx) = sync_channel::<Vec<u8>>(QUEUE_CHUNKS);
        let data = vec![b'x'; 64 * 1024 * (QUEUE_CHUNKS + 10)];
        let stats = pump(&mut &data[..], &tx).unwrap();
        assert_eq!(stats.dropped_chunks, 10);
        assert_eq!(stats.dropped_bytes, 64 * 1024 * 10);
    }
}
