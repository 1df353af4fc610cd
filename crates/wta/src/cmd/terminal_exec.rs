//! `wta terminal-exec --gate G [--keep] -- ARGV…` (hidden): the process of
//! an agent terminal's pane (see `wta_helper::terminals::exec`).

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct TerminalExecArgs {
    /// The tmux channel to wait on before running the command.
    #[arg(long, value_name = "CHANNEL")]
    pub gate: String,
    /// Keep the pane open after the command, until Enter.
    #[arg(long)]
    pub keep: bool,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "ARGV")]
    pub argv: Vec<String>,
}

pub fn run(args: &TerminalExecArgs) -> ExitCode {
    wta_helper::terminals::exec::run(&args.gate, args.keep, &args.argv)
}
