//! `wta pipe-sink <SOCKET>` (hidden): the `pipe-pane -O` sink of a pane watcher.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct PipeSinkArgs {
    /// The watcher's Unix socket.
    pub socket: PathBuf,
}

pub fn run(args: &PipeSinkArgs) -> anyhow::Result<ExitCode> {
    wta_shell::run_pipe_sink(&args.socket)?;
    Ok(ExitCode::SUCCESS)
}
