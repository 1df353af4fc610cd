//! `wta-helper-test-sink <SOCKET>`: the `pipe-pane -O` sink the executor
//! tests give tmux, as `wta pipe-sink` is in a real session (this crate's
//! tests cannot build the `wta` binary). A helper program, not a test: it
//! forwards its stdin to the pane watcher at `SOCKET` until EOF.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(socket) = std::env::args_os().nth(1) else {
        eprintln!("usage: wta-helper-test-sink <SOCKET>");
        return ExitCode::from(2);
    };
    match wta_shell::run_pipe_sink(Path::new(&socket)) {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("wta-helper-test-sink: {err}");
            ExitCode::FAILURE
        }
    }
}
