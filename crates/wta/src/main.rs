//! `wta`: the one binary. Parsing lives in `cli`, each command in `cmd/`.

mod cli;
mod cli_help;
mod cmd;
mod config;
mod json;
mod language;
mod launch;
mod output;

// `--help` in every language (`locales/help`), apart from wta-i18n's texts:
// only a command that prints help or a usage error loads it.
rust_i18n::i18n!("locales", fallback = "en");

fn main() -> std::process::ExitCode {
    cli::main()
}
