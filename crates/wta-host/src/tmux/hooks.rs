//! Session hooks that run a program of ours in the background when tmux
//! fires them (`set-hook -t SESSION HOOK[N] 'run-shell -b "…"'`), e.g. to
//! keep a warm agent pane in every new tab. The hook's command line passes
//! three parsers (tmux's command parser when the hook is set, format
//! expansion when it fires, then `sh`): [`run_shell_hook`] escapes each
//! word for all three, so a word arrives as given and only our own formats
//! expand.

use wta_protocol::TmuxSessionId;

use super::{Cmd, TmuxHost};
use crate::{HostError, sh_quote};

/// One word of a hook's program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookWord {
    /// Arrives exactly as given.
    Text(String),
    /// A format of ours, expanded when the hook fires (`#{window_id}`).
    Format(&'static str),
}

/// The hook's tmux command: `argv` run by `sh` in the background, its
/// standard output dropped (tmux would show it over the user's pane).
pub fn run_shell_hook(argv: &[HookWord]) -> String {
    let line: Vec<String> = argv
        .iter()
        .map(|word| match word {
            // sh quoting first; then every `#` doubled so format expansion
            // gives it back.
            HookWord::Text(text) => sh_quote(text).replace('#', "##"),
            HookWord::Format(format) => format!("'{format}'"),
        })
        .collect();
    let line = format!("{} >/dev/null", line.join(" "));
    // tmux's parser reads the line in double quotes: `\`, `"` and `$` are
    // its specials there.
    let quoted = line
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('$', r"\$");
    format!("run-shell -b \"{quoted}\"")
}

impl TmuxHost {
    /// Runs `argv` whenever `hook` fires for `session`, in slot `index` of
    /// the hook's array (setting it again replaces it).
    pub fn set_session_hook(
        &self,
        session: &TmuxSessionId,
        hook: &'static str,
        index: u16,
        argv: &[HookWord],
    ) -> Result<(), HostError> {
        let cmd = Cmd::new("set-hook")
            .opt("-t", session.as_str())
            .arg(&format!("{hook}[{index}]"))
            .arg(&run_shell_hook(argv));
        self.run(&cmd).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_survives_the_three_parsers() {
        let line = run_shell_hook(&[
            HookWord::Text("/opt/my wta/it's #1 $HOME \"x\" \\n/wta".into()),
            HookWord::Text("pane".into()),
            HookWord::Format("#{window_id}"),
        ]);
        assert_eq!(
            line,
            r#"run-shell -b "'/opt/my wta/it'\\''s ##1 \$HOME \"x\" \\n/wta' pane '#{window_id}' >/dev/null""#
        );
    }
}
