//! The async face of the terminal host: what pane watchers and the card
//! executor do on a tokio runtime (probe a pane, keep pane options, attach
//! and detach `pipe-pane`, release a readiness gate, read the screen, press
//! keys, type text). [`crate::TmuxHost`] implements it on the same encoder
//! and runner as the blocking [`crate::TerminalHost`]; [`crate::FakeHost`]
//! implements it in memory, so watchers and the executor are unit-tested
//! without tmux.
//!
//! Typing is the only way text reaches a pane, and it refuses control
//! characters other than `\n` ([`check_typed_text`]): what a card showed is
//! what the shell reads.

use std::future::Future;
use std::pin::Pin;

use wta_protocol::PaneId;

use crate::HostError;

/// A boxed future of a host operation.
pub type HostFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, HostError>> + Send + 'a>>;

/// One pane as a watcher needs it, read in one round trip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneProbe {
    pub pane: PaneId,
    pub width: u16,
    /// The pane's process (a gated pane's wrapper; the shell is its child).
    pub pid: u32,
    /// The foreground command's name.
    pub command: String,
    pub dead: bool,
    pub dead_status: Option<i32>,
    pub in_mode: bool,
    pub alternate_screen: bool,
    pub pipe_open: bool,
    /// The user options asked for, in the order asked; empty when unset.
    pub options: Vec<String>,
}

impl PaneProbe {
    /// The value of the `i`-th option asked for (empty when unset).
    pub fn option(&self, i: usize) -> &str {
        self.options.get(i).map_or("", String::as_str)
    }
}

/// A named key ([`AsyncHost::press`]); never a string a caller builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Enter,
    /// End of line (with [`Key::CtrlU`]: clear the shell's line).
    CtrlE,
    CtrlU,
    /// Redraw: shells re-emit their prompt marks.
    CtrlL,
    /// One of the private keys WTA's shell integration binds in every key
    /// map (the hand-off of a confirmed command: `wta_shell::handoff`).
    Private(PrivateKey),
}

/// The hand-off keys: sequences no terminal sends, bound by WTA's shell
/// integration scripts to functions that take a confirmed command from the
/// shell's private inbox file (never from the keys themselves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivateKey {
    /// Put the waiting command on the line and run it.
    Run,
    /// Put the waiting command on the line.
    Insert,
    /// Put back what the user had typed before a hand-off.
    Restore,
    /// Run the command that follows the key as hex digits ended by `.`
    /// ([`AsyncHost::press_with_payload`]): the hand-off for a shell WTA
    /// cannot write a file for (over `wta ssh`). The shell's function reads
    /// the digits itself, so no key map, locale or `!` changes the line.
    RunHex,
    /// Put the command that follows the key (as for [`PrivateKey::RunHex`])
    /// on the line.
    InsertHex,
}

impl PrivateKey {
    /// Every private key.
    pub const ALL: [PrivateKey; 5] = [
        PrivateKey::Run,
        PrivateKey::Insert,
        PrivateKey::Restore,
        PrivateKey::RunHex,
        PrivateKey::InsertHex,
    ];

    /// The bytes the key sends (`ESC [ 1777n ~`).
    pub const fn sequence(self) -> &'static str {
        match self {
            PrivateKey::Run => "\x1b[17777~",
            PrivateKey::Insert => "\x1b[17776~",
            PrivateKey::Restore => "\x1b[17775~",
            PrivateKey::RunHex => "\x1b[17774~",
            PrivateKey::InsertHex => "\x1b[17779~",
        }
    }
}

impl Key {
    /// tmux's name for the key; `None` for a private key, which is sent as
    /// its bytes.
    pub fn tmux_name(self) -> Option<&'static str> {
        Some(match self {
            Key::Enter => "Enter",
            Key::CtrlE => "C-e",
            Key::CtrlU => "C-u",
            Key::CtrlL => "C-l",
            Key::Private(_) => return None,
        })
    }

    /// How the key is written in logs and fakes.
    pub fn label(self) -> &'static str {
        match self {
            Key::Private(PrivateKey::Run) => "handoff-run",
            Key::Private(PrivateKey::Insert) => "handoff-insert",
            Key::Private(PrivateKey::Restore) => "handoff-restore",
            Key::Private(PrivateKey::RunHex) => "handoff-run-hex",
            Key::Private(PrivateKey::InsertHex) => "handoff-insert-hex",
            named => named.tmux_name().unwrap_or_default(),
        }
    }
}

/// How [`AsyncHost::type_text`] types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Typing {
    /// Clear the shell's line first (`C-e C-u`): fish keeps a failed line.
    pub clear_line: bool,
    /// Press Enter after the text.
    pub enter: bool,
}

/// The async terminal-host operations.
pub trait AsyncHost: Send + Sync + 'static {
    /// Facts about `pane` and the values of the user `options` (names like
    /// `@wta_gate`); [`HostError::PaneNotFound`] when it does not exist.
    fn probe<'a>(&'a self, pane: &'a PaneId, options: &'a [&'a str]) -> HostFuture<'a, PaneProbe>;

    /// Sets the pane user option `name` (an `@name`).
    fn set_option<'a>(
        &'a self,
        pane: &'a PaneId,
        name: &'a str,
        value: &'a str,
    ) -> HostFuture<'a, ()>;

    /// Unsets the pane user option `name`.
    fn unset_option<'a>(&'a self, pane: &'a PaneId, name: &'a str) -> HostFuture<'a, ()>;

    /// Marks the pane's pipe as ours (`owner` = option name and value), then
    /// pipes its output into the program `sink` (argv; no shell parsing of
    /// its words), replacing any pipe already open.
    fn open_pipe<'a>(
        &'a self,
        pane: &'a PaneId,
        sink: &'a [String],
        owner: (&'a str, &'a str),
    ) -> HostFuture<'a, ()>;

    /// Closes the pane's pipe and unsets the owner option.
    fn close_pipe<'a>(&'a self, pane: &'a PaneId, owner_option: &'a str) -> HostFuture<'a, ()>;

    /// Wakes whoever waits on `channel` (a readiness gate).
    fn signal<'a>(&'a self, channel: &'a str) -> HostFuture<'a, ()>;

    /// The visible screen's text.
    fn screen<'a>(&'a self, pane: &'a PaneId) -> HostFuture<'a, String>;

    /// Presses named keys in the pane.
    fn press<'a>(&'a self, pane: &'a PaneId, keys: &'a [Key]) -> HostFuture<'a, ()>;

    /// Leaves copy mode, then types `text` as the shell will read it (one
    /// line as keys, several as one bracketed paste, so no partial line
    /// runs). Refuses text [`check_typed_text`] refuses, typing nothing.
    fn type_text<'a>(
        &'a self,
        pane: &'a PaneId,
        text: &'a str,
        typing: Typing,
    ) -> HostFuture<'a, ()>;

    /// Presses the private `key` and then types `payload` as plain keys
    /// (never pasted: a bracketed paste would wrap it in its own marks), in
    /// one host call. The payload is what the shell's function for the key
    /// reads ([`PrivateKey::RunHex`]): printable ASCII only
    /// ([`check_payload`]).
    fn press_with_payload<'a>(
        &'a self,
        pane: &'a PaneId,
        key: PrivateKey,
        payload: &'a str,
    ) -> HostFuture<'a, ()>;
}

/// A private key's payload is printable ASCII, so it reaches the shell's
/// function byte for byte, whatever the terminal's encoding.
pub fn check_payload(payload: &str) -> Result<(), HostError> {
    match payload.bytes().position(|b| !b.is_ascii_graphic()) {
        Some(at) => Err(HostError::InvalidArgument(format!(
            "refusing a key payload with byte {:#04x} at {at}: only printable ASCII is sent after a private key",
            payload.as_bytes()[at]
        ))),
        None => Ok(()),
    }
}

/// Text may be typed only when every character shows as itself: no control
/// character but `\n`.
pub fn check_typed_text(text: &str) -> Result<(), HostError> {
    match text
        .char_indices()
        .find(|(_, c)| c.is_control() && *c != '\n')
    {
        Some((at, c)) => Err(HostError::InvalidArgument(format!(
            "refusing to type text with the control character U+{:04X} at byte {at}: \
             it would not show as itself",
            u32::from(c)
        ))),
        None => Ok(()),
    }
}

/// A pane user option name: `@` and then letters, digits, `_` or `-`.
pub(crate) fn check_option_name(name: &str) -> Result<(), HostError> {
    let ok = name.strip_prefix('@').is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    });
    if ok {
        Ok(())
    } else {
        Err(HostError::InvalidArgument(format!(
            "{name:?} is not a pane user option name (@ and letters, digits, _ or -)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_refuses_invisible_controls_only() {
        assert!(check_typed_text("ls -l\nmake").is_ok());
        assert!(check_typed_text("ünï 日本 $(x) `y` #(z);").is_ok());
        for bad in ["a\tb", "a\rb", "\u{1b}[31m", "x\u{7f}", "\u{85}"] {
            let err = check_typed_text(bad).unwrap_err().to_string();
            assert!(err.contains("U+"), "{err}");
        }
    }

    #[test]
    fn option_names_are_checked() {
        for good in ["@wta_gate", "@a-b", "@x1"] {
            assert!(check_option_name(good).is_ok(), "{good}");
        }
        for bad in ["", "@", "wta", "@a}", "@a b", "@#{x}"] {
            assert!(check_option_name(bad).is_err(), "{bad}");
        }
    }
}
