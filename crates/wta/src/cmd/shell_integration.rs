//! `wta shell-integration [bash|zsh|fish|pwsh]`: prints the integration script.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use wta_shell::Shell;

const AFTER_HELP: &str = "\
Add one line to your shell's rc file:
  bash  ~/.bashrc                   eval \"$(wta shell-integration bash)\"
  zsh   ~/.zshrc                    eval \"$(wta shell-integration zsh)\"
  fish  ~/.config/fish/config.fish  wta shell-integration fish | source
  pwsh  $PROFILE                    wta shell-integration pwsh | Out-String | Invoke-Expression   (untested)

The script marks prompts and commands (OSC 133 A/B/C/D with aid=<shell pid>),
reports the cwd (OSC 7) and sets the tmux pane option @wta_integration.
It is silent and safe to load twice; fish >= 4 keeps its own native marks.";

#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct ShellIntegrationArgs {
    /// The shell (default: the parent shell, else $SHELL).
    #[arg(value_name = "SHELL", value_parser = ["bash", "zsh", "fish", "pwsh"])]
    pub shell: Option<String>,
}

pub fn run(args: &ShellIntegrationArgs) -> anyhow::Result<ExitCode> {
    let shell = match &args.shell {
        Some(name) => name.parse::<Shell>()?,
        None => Shell::detect_current().context(wta_i18n::tr!("cli.shell.unknown"))?,
    };
    crate::output::line(shell.script().trim_end())?;
    Ok(ExitCode::SUCCESS)
}
