//! `wta ssh`'s remote side: the command ssh runs on the remote host, the
//! integration text sent to the remote shell over the session's terminal,
//! and the marks `wta ssh` reads or prints. Pure text, no I/O.
//!
//! How the integration gets there, writing nothing on the remote host and
//! never putting the nonce in a remote argv or environment:
//!
//! 1. ssh runs [`Bootstrap::command`], a one-line POSIX `sh` script that
//!    any login shell passes on unchanged (no `'`, `\\` or `!`): it names the
//!    login shell (`$SHELL`), turns the terminal's echo off for the shells
//!    WTA integrates, prints the ready mark `ESC ] 7766 ; <token> ; <shell>
//!    BEL` ([`ReadyFilter`] cuts it out of what the user sees) and `exec`s
//!    the shell so that it reads one file from the terminal: bash
//!    `--rcfile /dev/stdin -i`, fish `-l -C 'cat | source'`, zsh
//!    `-l -o no_rcs -o no_zle -o hist_ignore_space -i` with an empty `PS1`
//!    (zsh has no rc option: without zle it reads its first line from the
//!    terminal as a plain, unechoed line, which is ` eval "$(</dev/stdin)"`). Any
//!    other shell starts as a plain login shell.
//! 2. On the ready mark `wta ssh` types [`rc`] (the integration script with
//!    the nonce and `aid` baked in, for bash and zsh after the login files)
//!    and the terminal's end-of-file (Ctrl+D): the shell reads it as its rc
//!    file, echo off, and turns echo back on first thing. zsh's rc first
//!    undoes the bootstrap's options (zle back on, the leading-space line
//!    dropped from history, `PS1` unexported), then reads the startup files
//!    zsh would have, then the history file, as a native start does.
//!
//! The nonce lives only in that terminal stream and in the shell's memory
//! (a variable it does not export). The marks carry `aid=<wta ssh's local
//! pid>`, so the pane option `@wta_nonce_<pid>` that `wta ssh` sets vouches
//! for them (`crate::trust`), and a remote pid can never collide with a
//! local shell's. The script binds the private hand-off keys whatever the
//! remote key maps hold, and `wta ssh` announces
//! [`crate::handoff::BY_KEYS`] for them (no inbox file is
//! written there): a card's command follows the RunHex key as hex digits
//! the shell's function reads, so `!`, vi mode or a C locale change nothing.
//!
//! While the session lasts, a watcher following the remote shell names it
//! and its directory on the pane ([`REMOTE_SHELL_OPTION`]).

use serde::{Deserialize, Serialize};
use wta_host::TerminalHost;
use wta_protocol::PaneId;

use crate::bytes::{find, partial_suffix};
use crate::error::ShellError;
use crate::scripts::Shell;
use crate::tracker::{Tracker, valid_host_label};
use crate::watcher::Host;

/// The OSC number of `wta ssh`'s ready mark (not a mark any terminal knows).
const READY_OSC: &str = "7766";
/// Longest shell name the ready mark may carry.
const MAX_SHELL_NAME: usize = 32;
/// The terminal's end-of-file character (`stty eof`, Ctrl+D by default).
pub const EOF: u8 = 0x04;

/// The shells `wta ssh` integrates on the remote host.
pub const REMOTE_SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// What the remote host's login shell turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteLogin {
    /// One WTA integrates: the rc is to be sent now.
    Integrated(Shell),
    /// Any other (`sh`, `dash`, `tcsh`, none): it started as a plain login shell.
    Plain(String),
}

/// The remote command for one `wta ssh` session, and its ready mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bootstrap {
    token: String,
}

impl Bootstrap {
    /// A bootstrap whose ready mark carries `token` (hex, drawn per session).
    pub fn new(token: &str) -> Result<Self, ShellError> {
        if token.len() < 8 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ShellError::Remote("the ready token must be hex".into()));
        }
        Ok(Bootstrap {
            token: token.to_owned(),
        })
    }

    /// The command line ssh runs on the remote host (through the user's
    /// login shell, as ssh always does).
    pub fn command(&self) -> String {
        let integrated: Vec<&str> = REMOTE_SHELLS.iter().map(|s| s.name()).collect();
        let mut execs = String::new();
        for shell in REMOTE_SHELLS {
            let how = match shell {
                Shell::Bash => "exec \"$SHELL\" --rcfile /dev/stdin -i",
                Shell::Fish => "exec \"$SHELL\" -l -C \"cat | source\"",
                Shell::Zsh => ZSH_START,
                Shell::Pwsh => continue,
            };
            execs.push_str(&format!("{}) {how};; ", shell.name()));
        }
        let script = format!(
            "s=${{SHELL##*/}}; case $s in {list}) stty -echo;; esac; \
             printf \"\\033]{READY_OSC};{token};%s\\007\" \"$s\"; \
             case $s in {execs}esac; exec \"${{SHELL:-/bin/sh}}\" -l",
            list = integrated.join("|"),
            token = self.token,
        );
        format!("exec /bin/sh -c '{script}'")
    }

    fn ready_prefix(&self) -> Vec<u8> {
        format!("\x1b]{READY_OSC};{};", self.token).into_bytes()
    }
}

/// The rc text `wta ssh` types for `shell` (end-of-file not included):
/// its integration with `nonce` and `aid` baked in, the announcement to a
/// remote tmux taken out, echo turned back on first; bash reads the login
/// files first, as the login shell it stands for would.
pub fn rc(shell: Shell, nonce: &str, aid: u32) -> Result<String, ShellError> {
    if nonce.len() < 16 || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ShellError::Remote("the nonce must be hex".into()));
    }
    let script = shell.script();
    let aid = aid.to_string();
    let text = match shell {
        Shell::Bash => {
            let body = replace_once(
                script,
                "__wta_nonce=$(LC_ALL=C od -An -N16 -tx1 /dev/urandom 2>/dev/null)\n\
                 __wta_nonce=${__wta_nonce//[!0-9a-f]/}\n",
                &format!("__wta_nonce={nonce}\n"),
            )?;
            let body = replace_once(
                &body,
                "if [[ -n ${TMUX_PANE-} ]] && command -v tmux >/dev/null 2>&1; then",
                "if false; then",
            )?;
            // `wta ssh` announces the keys as bound: they are, always.
            let body = replace_once(&body, "if __wta_keys_taken; then", "if false; then")?;
            format!("{BASH_LOGIN}{}", body.replace("$$", &aid))
        }
        Shell::Fish => {
            let body = replace_once(
                script,
                "set -g __wta_nonce (od -An -N16 -tx1 /dev/urandom 2>/dev/null | string join '' | string replace -ar '[^0-9a-f]' '')",
                &format!("set -g __wta_nonce {nonce}"),
            )?;
            let body = replace_once(
                &body,
                "if set -q TMUX_PANE; and command -sq tmux",
                "if false",
            )?;
            let body = replace_once(&body, "test \"$__wta_inbox\" = taken; and return", "true")?;
            format!(
                "stty echo </dev/tty 2>/dev/null\n{}",
                body.replace("$fish_pid", &aid)
            )
        }
        Shell::Zsh => {
            let body = replace_once(
                script,
                "typeset -g __wta_nonce=${\"$(LC_ALL=C od -An -N16 -tx1 /dev/urandom 2>/dev/null)\"//[^0-9a-f]/}",
                &format!("typeset -g __wta_nonce={nonce}"),
            )?;
            let body = replace_once(
                &body,
                "if [[ -n ${TMUX_PANE-} ]] && (( ${+commands[tmux]} )); then",
                "if false; then",
            )?;
            let body = replace_once(
                &body,
                "if [[ $__wta_inbox != taken ]]; then",
                "if true; then",
            )?;
            format!("{ZSH_READ}{ZSH_LOGIN}{}", body.replace("$$", &aid))
        }
        Shell::Pwsh => {
            return Err(ShellError::Remote(format!(
                "{shell} is not integrated over wta ssh"
            )));
        }
    };
    if let Some(bad) = text
        .bytes()
        .find(|b| !(b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\t')))
    {
        // A control byte would be read by the terminal's line editing.
        return Err(ShellError::Remote(format!(
            "the {shell} rc holds byte {bad:#04x}, which a terminal would not pass as typed"
        )));
    }
    Ok(text)
}

/// What the bash rc does first: echo back on, then what a login shell
/// reads (`/etc/profile`, the first of `~/.bash_profile`, `~/.bash_login`,
/// `~/.profile`), as ssh's own session would.
const BASH_LOGIN: &str = "stty echo 2>/dev/null
if [ -r /etc/profile ]; then . /etc/profile; fi
for __wta_login in \"$HOME/.bash_profile\" \"$HOME/.bash_login\" \"$HOME/.profile\"; do
  if [ -r \"$__wta_login\" ]; then . \"$__wta_login\"; break; fi
done
unset __wta_login
";

/// How the bootstrap starts zsh: no startup files, no zle and lines with a
/// leading space kept out of history, for the one line it reads first
/// ([`ZSH_READ`]); an empty prompt, so that line's prompt shows nothing.
const ZSH_START: &str =
    "export PS1=; exec \"$SHELL\" -l -o no_rcs -o no_zle -o hist_ignore_space -i";

/// The line zsh reads first (unechoed, no zle): the rest is its rc, read
/// whole before any of it runs (as bash reads its rc file), so a startup
/// file that reads the terminal cannot take the rest, and aliases it
/// defines do not change the integration's words.
const ZSH_READ: &str = " eval \"$(</dev/stdin)\"\n";

/// What the zsh rc does first: echo back on, the bootstrap's options undone
/// (zle on again for the first prompt, zsh's defaults for `rcs` and
/// `hist_ignore_space`, `PS1` unexported with zsh's default), then the
/// startup files zsh reads after `/etc/zshenv` (which it read itself) in
/// its order, each global one while `global_rcs` holds and all while `rcs`
/// does (a file may unset them), `$ZDOTDIR` looked up again for each; then
/// the history file, which zsh reads after them. The global files are in
/// `/etc/zsh` where that exists (Debian, Arch), else in `/etc`.
const ZSH_LOGIN: &str = r#"stty echo 2>/dev/null
setopt zle rcs no_hist_ignore_space
typeset +x PS1
PS1='%m%# '
typeset -g __wta_etc=/etc
[[ -d /etc/zsh ]] && __wta_etc=/etc/zsh
if [[ -o rcs && -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then . "${ZDOTDIR:-$HOME}/.zshenv"; fi
if [[ -o login && -o rcs && -o global_rcs && -r $__wta_etc/zprofile ]]; then . "$__wta_etc/zprofile"; fi
if [[ -o login && -o rcs && -r ${ZDOTDIR:-$HOME}/.zprofile ]]; then . "${ZDOTDIR:-$HOME}/.zprofile"; fi
if [[ -o rcs && -o global_rcs && -r $__wta_etc/zshrc ]]; then . "$__wta_etc/zshrc"; fi
if [[ -o rcs && -r ${ZDOTDIR:-$HOME}/.zshrc ]]; then . "${ZDOTDIR:-$HOME}/.zshrc"; fi
if [[ -o login && -o rcs && -o global_rcs && -r $__wta_etc/zlogin ]]; then . "$__wta_etc/zlogin"; fi
if [[ -o login && -o rcs && -r ${ZDOTDIR:-$HOME}/.zlogin ]]; then . "${ZDOTDIR:-$HOME}/.zlogin"; fi
unset __wta_etc
if [[ -n ${HISTFILE-} && -r $HISTFILE ]]; then fc -R; fi
"#;

fn replace_once(text: &str, from: &str, to: &str) -> Result<String, ShellError> {
    match text.matches(from).count() {
        1 => Ok(text.replacen(from, to, 1)),
        n => Err(ShellError::Remote(format!(
            "the integration script has {n} places for the remote form, not one: {from:?}"
        ))),
    }
}

/// The mark `wta ssh` prints on the pane when its session ends: the
/// remote shell with `aid` is gone ([`crate::parser::MarkKind::ShellGone`]).
pub fn gone_mark(aid: u32, nonce: &str) -> String {
    format!("\x1b]133;X;aid={aid};wta={nonce}\x07")
}

/// Cuts the bootstrap's ready mark out of the session's output (the first
/// one only; after it, bytes pass untouched) and says which shell it named.
/// Bytes that might start the mark are held back until it is clear they do
/// not; a mark longer than a shell name allows is passed on as it came.
#[derive(Debug, Clone)]
pub struct ReadyFilter {
    prefix: Vec<u8>,
    held: Vec<u8>,
    done: bool,
}

impl ReadyFilter {
    pub fn new(bootstrap: &Bootstrap) -> Self {
        ReadyFilter {
            prefix: bootstrap.ready_prefix(),
            held: Vec::new(),
            done: false,
        }
    }

    /// Whether the ready mark has been seen.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Appends to `out` what the user should see of `bytes`; the login
    /// shell once the ready mark is complete.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<u8>) -> Option<RemoteLogin> {
        if self.done {
            out.extend_from_slice(bytes);
            return None;
        }
        self.held.extend_from_slice(bytes);
        loop {
            let data = std::mem::take(&mut self.held);
            match find(&data, &self.prefix) {
                Some(at) => {
                    out.extend_from_slice(&data[..at]);
                    let rest = &data[at + self.prefix.len()..];
                    match rest.iter().position(|b| *b == 0x07) {
                        Some(end) if end <= MAX_SHELL_NAME => {
                            let name = String::from_utf8_lossy(&rest[..end]).into_owned();
                            out.extend_from_slice(&rest[end + 1..]);
                            self.done = true;
                            return Some(login_of(&name));
                        }
                        None if rest.len() <= MAX_SHELL_NAME => {
                            self.held = data[at..].to_vec();
                            return None;
                        }
                        // Not a mark the bootstrap prints: pass its first byte on.
                        _ => {
                            out.push(data[at]);
                            self.held = data[at + 1..].to_vec();
                        }
                    }
                }
                None => {
                    let keep = partial_suffix(&data, &self.prefix);
                    out.extend_from_slice(&data[..data.len() - keep]);
                    self.held = data[data.len() - keep..].to_vec();
                    return None;
                }
            }
        }
    }

    /// What is still held back (the session ended).
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

fn login_of(name: &str) -> RemoteLogin {
    match REMOTE_SHELLS.into_iter().find(|s| s.name() == name) {
        Some(shell) => RemoteLogin::Integrated(shell),
        None => RemoteLogin::Plain(name.to_owned()),
    }
}

/// Pane option in which a watcher says which remote shell it follows and
/// its directory (JSON [`RemoteShell`]), while a `wta ssh` session lasts;
/// unset after. The host is what `wta ssh` was given, the directory the
/// remote shell's own nonce'd report: readers (the agent's context) may
/// trust both as much as the pane's local directory.
pub const REMOTE_SHELL_OPTION: &str = "@wta_remote_shell";

/// The remote shell a pane's tracker follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemoteShell {
    pub host: String,
    /// The remote shell's directory, once it reported one.
    pub cwd: Option<String>,
}

impl RemoteShell {
    /// What `tracker` follows, when it is a remote shell.
    pub fn of(tracker: &Tracker) -> Option<Self> {
        Some(RemoteShell {
            host: tracker.remote()?.to_owned(),
            cwd: tracker.cwd.as_ref().map(|c| c.path.clone()),
        })
    }
}

/// Records `place` on the pane, or clears it (best effort: the pane may be gone).
pub async fn publish(host: &Host, pane: &PaneId, place: Option<&RemoteShell>) {
    let _ = match place.map(serde_json::to_string) {
        Some(Ok(json)) => host.set_option(pane, REMOTE_SHELL_OPTION, &json).await,
        _ => host.unset_option(pane, REMOTE_SHELL_OPTION).await,
    };
}

/// The remote shell a watcher of `pane` follows now, if any.
pub fn read_remote_shell(host: &dyn TerminalHost, pane: &PaneId) -> Option<RemoteShell> {
    let value = host.option(pane, REMOTE_SHELL_OPTION).ok()?;
    let place: RemoteShell = serde_json::from_str(&value).ok()?;
    valid_host_label(&place.host).then_some(place)
}

#[cfg(test)]
#[path = "remote_tests.rs"]
mod tests;
