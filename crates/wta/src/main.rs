//! `wta`: the one binary. Parsing lives in `cli`, each command in `cmd/`.

mod cli;
mod cmd;
mod language;
mod launch;
mod output;

fn main() -> std::process::ExitCode {
    cli::main()
}
