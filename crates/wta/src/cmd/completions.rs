//! Shell completion: `wta completions bash|zsh|fish` prints a script that
//! asks `wta` itself at each Tab (clap_complete's env-driven completion,
//! `WTA_COMPLETE=<shell> wta -- <words>`), so completions always match the
//! installed binary and can name the running server's panes, tabs and
//! windows. The id candidates below cost one tmux call each; a server that
//! cannot be reached gives no candidates, never an error on the prompt.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use clap_complete::CompletionCandidate;
use clap_complete::env::{Bash, EnvCompleter, Fish, Zsh};
use wta_host::{TerminalHost, TmuxHost};

/// The environment variable that puts `wta` in completion mode.
pub const COMPLETE_VAR: &str = "WTA_COMPLETE";

const AFTER_HELP: &str = "\
Load them once per shell (the script calls `wta` on PATH at each Tab):
  bash  wta completions bash > ~/.local/share/bash-completion/completions/wta
  zsh   echo 'source <(wta completions zsh)' >> ~/.zshrc      (after compinit)
  fish  wta completions fish > ~/.config/fish/completions/wta.fish

Pane (-t %N), tab (@N or name) and window ($N or name) arguments complete from
the running tmux server (the one -L/--socket on the line or $TMUX names).";

#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct CompletionsArgs {
    /// The shell to print the completion script for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// The registration script for `shell`.
pub fn script(shell: CompletionShell) -> std::io::Result<Vec<u8>> {
    let completer: &dyn EnvCompleter = match shell {
        CompletionShell::Bash => &Bash,
        CompletionShell::Zsh => &Zsh,
        CompletionShell::Fish => &Fish,
    };
    let mut buf = Vec::new();
    completer.write_registration(COMPLETE_VAR, "wta", "wta", "wta", &mut buf)?;
    Ok(buf)
}

pub fn run(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    out.write_all(&script(args.shell)?)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Answers a completion request from one of the scripts and exits; returns
/// at once otherwise (one environment lookup).
pub fn answer_if_asked() {
    clap_complete::CompleteEnv::with_factory(<crate::cli::Cli as clap::CommandFactory>::command)
        .var(COMPLETE_VAR)
        .bin("wta")
        .completer("wta")
        .complete();
}

/// `-L NAME` / `-S PATH` / `--socket PATH` among the words being completed
/// (those after `--`), the last one winning, as clap would take them.
fn server_flags(words: &[OsString]) -> (Option<PathBuf>, Option<String>) {
    let words: Vec<String> = words
        .iter()
        .skip_while(|w| *w != "--")
        .skip(1)
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let (mut socket, mut name) = (None, None);
    for (i, word) in words.iter().enumerate() {
        let next = || words.get(i + 1).cloned();
        let attached = |flag: &str| word.strip_prefix(flag).filter(|v| !v.is_empty());
        if word == "-L" {
            name = next();
        } else if word == "-S" || word == "--socket" {
            socket = next().map(PathBuf::from);
        } else if let Some(path) = attached("--socket=") {
            socket = Some(PathBuf::from(path));
        } else if let Some(value) = attached("-L") {
            name = Some(value.to_owned());
        } else if let Some(path) = attached("-S") {
            socket = Some(PathBuf::from(path));
        }
    }
    (socket, name)
}

/// The server the command line being completed talks to.
fn host() -> Option<TmuxHost> {
    let words: Vec<OsString> = std::env::args_os().collect();
    let (socket, name) = server_flags(&words);
    TmuxHost::discover(socket, name).ok()
}

fn candidate(value: &str, help: String) -> CompletionCandidate {
    CompletionCandidate::new(value).help(Some(help.into()))
}

/// `%N` of every pane, with its command and place.
pub fn panes() -> Vec<CompletionCandidate> {
    let Some(panes) = host().and_then(|h| h.list_panes().ok()) else {
        return Vec::new();
    };
    panes
        .iter()
        .map(|p| {
            candidate(
                p.id.as_str(),
                format!(
                    "{} in {}:{} {}",
                    p.command, p.session_name, p.window_index, p.window_name
                ),
            )
        })
        .collect()
}

/// `@N` and the name of every tab, then the panes (a pane stands for its tab).
pub fn tabs() -> Vec<CompletionCandidate> {
    let Some(host) = host() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for w in host.list_windows(None).unwrap_or_default() {
        if seen.insert(w.id.clone()) {
            out.push(candidate(w.id.as_str(), format!("tab {}", w.name)));
            out.push(candidate(&w.name, format!("tab {}", w.id)));
        }
    }
    out.extend(panes());
    out
}

/// `$N` and the name of every window (tmux session).
pub fn windows() -> Vec<CompletionCandidate> {
    let Some(sessions) = host().and_then(|h| h.list_sessions().ok()) else {
        return Vec::new();
    };
    sessions
        .iter()
        .flat_map(|s| {
            [
                candidate(s.id.as_str(), format!("window {}", s.name)),
                candidate(&s.name, format!("window {}", s.id)),
            ]
        })
        .collect()
}

/// The names of tmux servers in tmux's socket directory (for `-L`).
pub fn servers() -> Vec<CompletionCandidate> {
    let Ok(dir) = std::fs::read_dir(wta_host::tmux::socket_dir()) else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .map(|e| CompletionCandidate::new(e.file_name()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn the_server_comes_from_the_words_being_completed() {
        assert_eq!(
            server_flags(&words("wta -- wta -L dev kill-pane -t ")),
            (None, Some("dev".into()))
        );
        assert_eq!(
            server_flags(&words("wta -- wta --socket /s lsp -t")),
            (Some("/s".into()), None)
        );
        assert_eq!(
            server_flags(&words("wta -- wta -S/x -Lname lsp")),
            (Some("/x".into()), Some("name".into()))
        );
        assert_eq!(
            server_flags(&words("wta -- wta --socket=/y lsp")),
            (Some("/y".into()), None)
        );
        // Words before `--` are the completer's own, not the line's.
        assert_eq!(server_flags(&words("wta -L x -- wta lsp")), (None, None));
        assert_eq!(server_flags(&words("wta -- wta lsp -L")), (None, None));
    }

    #[test]
    fn every_script_names_the_variable_and_the_binary() {
        for shell in [
            CompletionShell::Bash,
            CompletionShell::Zsh,
            CompletionShell::Fish,
        ] {
            let text = String::from_utf8(script(shell).unwrap_or_default()).unwrap_or_default();
            assert!(text.contains(COMPLETE_VAR), "{shell:?}: {text}");
            assert!(text.contains("wta"), "{shell:?}: {text}");
        }
    }
}
