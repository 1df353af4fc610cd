//! `wta-shell-test-sink`: the `pipe-pane -O` sinks the real-shell tests give
//! tmux (this crate's tests cannot build the `wta` binary, whose
//! `wta pipe-sink` is the sink in a real session). A helper program, not a
//! test; the pane watcher appends its socket to the argv:
//!
//! - `pipe <SOCKET>`: the real sink, `wta_shell::run_pipe_sink`;
//! - `gap <NONCE> <SOCKET>`: a sink that reports a gap (as the real sink
//!   does when the watcher falls behind) inside one command of the shell
//!   with pid 7 announcing `NONCE`, then drains the pane like a sink.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use wta_shell::sink_wire::{Frame, encode};

/// Bytes the gap sink says were lost.
const GAP_BYTES: u64 = 123_456;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [mode, socket] if mode == "pipe" => wta_shell::run_pipe_sink(Path::new(socket))
            .map(drop)
            .map_err(|e| e.to_string()),
        [mode, nonce, socket] if mode == "gap" => gap_sink(nonce, Path::new(socket)),
        _ => Err("usage: wta-shell-test-sink pipe <SOCKET> | gap <NONCE> <SOCKET>".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("wta-shell-test-sink: {err}");
            ExitCode::FAILURE
        }
    }
}

/// One command, `first`, a gap of [`GAP_BYTES`], `last`, exit 0; then the
/// pane's own bytes are read and dropped until EOF.
fn gap_sink(nonce: &str, socket: &Path) -> Result<(), String> {
    let mut stream = std::os::unix::net::UnixStream::connect(socket)
        .map_err(|e| format!("{}: {e}", socket.display()))?;
    let frames = [
        Frame::Data(
            format!("\x1b]133;A;aid=7;wta={nonce}\x07$ \x1b]133;B;aid=7;wta={nonce}\x07")
                .into_bytes(),
        ),
        Frame::Data(
            format!("\x1b]133;C;aid=7;wta={nonce};cmdline_url=seq\x07first\r\n").into_bytes(),
        ),
        Frame::Gap(GAP_BYTES),
        Frame::Data(format!("last\r\n\x1b]133;D;0;aid=7;wta={nonce}\x07").into_bytes()),
    ];
    for frame in &frames {
        stream
            .write_all(&encode(frame))
            .map_err(|e| format!("writing to the watcher: {e}"))?;
    }
    std::io::copy(&mut std::io::stdin(), &mut std::io::sink())
        .map(drop)
        .map_err(|e| format!("reading the pane: {e}"))
}
