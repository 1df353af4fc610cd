//! The hand-off: how a confirmed command reaches a shell that has WTA's
//! integration, without travelling as editing keys.
//!
//! Each sourced script announces, beside its nonce, the path of its inbox in
//! the pane option `@wta_inbox_<pid>`: a file `line-<nonce>` in WTA's
//! private runtime dir. To hand a command over, WTA writes it there (the dir
//! checked private, the file 0600, written whole and renamed into place) and
//! sends one private key ([`wta_host::PrivateKey`]); the shell's function for
//! that key, bound in every key map, reads the file, removes it, puts the
//! command on the line (keeping what was typed) and, for Run, accepts it
//! with history expansion off for that line. No key map, half-typed text or
//! `!` can change what runs, and the command never shows on the screen
//! before the shell echoes it.
//!
//! A remote shell over `wta ssh` has no file WTA can write: `wta ssh`
//! announces [`BY_KEYS`] for it instead, and the command follows the
//! RunHex (or InsertHex) key as hex digits ([`hex_payload`]) that the
//! shell's function reads itself, so the line editor never sees the
//! command's own bytes (no key map, `!` or C-locale line editor changes
//! them).
//!
//! A shell that announces neither (an older script, no integration, its
//! private keys taken by the user's bindings) gets the command typed as
//! keys, and the card says so.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use wta_host::PrivateKey;

use crate::error::ShellError;

/// The pane option in which the shell with pid `pid` announces its inbox.
pub fn inbox_option(pid: u32) -> String {
    format!("@wta_inbox_{pid}")
}

/// What `@wta_inbox_<pid>` says for a shell that takes the command after
/// [`PrivateKey::RunHex`] or [`PrivateKey::InsertHex`] (no inbox file:
/// over `wta ssh`).
pub const BY_KEYS: &str = "keys";

/// How a confirmed command reaches a shell without travelling as editing keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// Written to the shell's inbox file; the Run and Insert keys take it.
    Inbox(PathBuf),
    /// Sent after the RunHex or InsertHex key as [`hex_payload`].
    Keys,
}

impl Delivery {
    /// The delivery a shell announced ([`inbox_for`], or [`BY_KEYS`]);
    /// `None`: its command is typed.
    pub fn announced(announced: &str, nonce: &str) -> Option<Delivery> {
        if announced.trim() == BY_KEYS {
            return Some(Delivery::Keys);
        }
        inbox_for(announced, nonce).map(Delivery::Inbox)
    }

    /// The private key that hands a command over this way, to `intent`.
    pub fn key(&self, intent: Intent) -> PrivateKey {
        match (self, intent) {
            (Delivery::Inbox(_), Intent::Run) => PrivateKey::Run,
            (Delivery::Inbox(_), Intent::Insert) => PrivateKey::Insert,
            (Delivery::Keys, Intent::Run) => PrivateKey::RunHex,
            (Delivery::Keys, Intent::Insert) => PrivateKey::InsertHex,
        }
    }
}

/// What a hand-off does with the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Run it (with history expansion off for that line).
    Run,
    /// Put it on the line only.
    Insert,
}

/// `text` as the RunHex (InsertHex) key's payload: the count of digits that follow, in
/// 8 lowercase hex digits, then two hex digits a byte, then `.`. bash and
/// zsh read up to the `.` and check the count; fish reads the count, then
/// that many bytes more (its `read` cannot read a binding's input quietly).
pub fn hex_payload(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len() * 2 + 9);
    let _ = write!(out, "{:08x}", text.len() * 2);
    for b in text.bytes() {
        let _ = write!(out, "{b:02x}");
    }
    out.push('.');
    out
}

/// The inbox a shell announced, when it is one WTA will write to: an
/// absolute path whose file name is `line-<nonce>` for that shell's own
/// announced nonce (so an option that names anything else is never written).
pub fn inbox_for(announced: &str, nonce: &str) -> Option<PathBuf> {
    let path = Path::new(announced.trim());
    let named = path.file_name()?.to_str()? == format!("line-{nonce}");
    let plain = path.is_absolute()
        && !nonce.is_empty()
        && nonce.bytes().all(|b| b.is_ascii_hexdigit())
        && path
            .components()
            .all(|c| !matches!(c, std::path::Component::ParentDir));
    (named && plain).then(|| path.to_path_buf())
}

/// Writes `text` as the shell's waiting command: the inbox's dir is WTA's
/// private dir (created 0700 if missing, refused if anyone else could get
/// in), the file is 0600 and appears whole (written aside, then renamed).
pub fn deliver(inbox: &Path, text: &str) -> Result<(), ShellError> {
    let dir = inbox
        .parent()
        .ok_or_else(|| ShellError::Handoff(format!("{} has no directory", inbox.display())))?;
    wta_env::private_dir::ensure_private_dir(dir)
        .map_err(|e| ShellError::Handoff(e.to_string()))?;
    let aside = inbox.with_extension("new");
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&aside)?;
        file.write_all(text.as_bytes())?;
        file.sync_data()?;
        std::fs::rename(&aside, inbox)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&aside);
        ShellError::Handoff(format!("cannot write {}: {e}", inbox.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_shell_announces_an_inbox_keys_or_nothing_wta_uses() {
        let ok = format!("/run/user/1/wta/line-{NONCE}");
        assert_eq!(
            Delivery::announced(&ok, NONCE),
            Some(Delivery::Inbox(PathBuf::from(&ok)))
        );
        assert_eq!(Delivery::announced("keys", NONCE), Some(Delivery::Keys));
        assert_eq!(Delivery::announced(" keys\n", NONCE), Some(Delivery::Keys));
        for other in ["taken", "", "key", "keys2", "/tmp/line-0"] {
            assert_eq!(Delivery::announced(other, NONCE), None, "{other}");
        }
        let inbox = Delivery::Inbox(PathBuf::from(&ok));
        assert_eq!(inbox.key(Intent::Run), PrivateKey::Run);
        assert_eq!(inbox.key(Intent::Insert), PrivateKey::Insert);
        assert_eq!(Delivery::Keys.key(Intent::Run), PrivateKey::RunHex);
        assert_eq!(Delivery::Keys.key(Intent::Insert), PrivateKey::InsertHex);
        assert_eq!(hex_payload("ls -l"), "0000000a6c73202d6c.");
        assert_eq!(hex_payload("a!b 日"), "0000000e61216220e697a5.");
        assert_eq!(hex_payload(""), "00000000.");
    }

    proptest! {
        /// Any command is printable ASCII as a payload and decodes back
        /// byte for byte (as the scripts' functions decode it).
        #[test]
        fn a_hex_payload_is_printable_and_decodes_back(text in "\\PC{0,64}") {
            let payload = hex_payload(&text);
            prop_assert!(wta_host::check_payload(&payload).is_ok());
            let digits = payload.strip_suffix('.').unwrap();
            prop_assert!(!digits.contains('.'));
            let (count, digits) = digits.split_at(8);
            prop_assert_eq!(usize::from_str_radix(count, 16).unwrap(), digits.len());
            let bytes: Vec<u8> = (0..digits.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap())
                .collect();
            prop_assert_eq!(bytes, text.as_bytes());
        }
    }

    const NONCE: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn only_this_shells_own_inbox_is_written_to() {
        let ok = format!("/run/user/1000/wta/line-{NONCE}");
        assert_eq!(inbox_for(&ok, NONCE), Some(PathBuf::from(&ok)));
        for bad in [
            format!("relative/line-{NONCE}"),
            format!("/run/user/1000/wta/line-{NONCE}x"),
            "/run/user/1000/wta/line-ffff".to_owned(),
            format!("/run/../etc/line-{NONCE}"),
            "/etc/passwd".to_owned(),
            String::new(),
        ] {
            assert_eq!(inbox_for(&bad, NONCE), None, "{bad}");
        }
        assert_eq!(inbox_for("/tmp/line-", ""), None, "no nonce, no inbox");
    }

    #[test]
    fn the_command_lands_whole_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("wta");
        let inbox = private.join(format!("line-{NONCE}"));
        let text = "echo 'it''s' !! $HOME\ncat <<EOF\nx\nEOF";
        deliver(&inbox, text).unwrap();
        assert_eq!(std::fs::read_to_string(&inbox).unwrap(), text);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&private), mode(&inbox)), (0o700, 0o600));
        // A second hand-off replaces the first.
        deliver(&inbox, "ls").unwrap();
        assert_eq!(std::fs::read_to_string(&inbox).unwrap(), "ls");
    }

    #[test]
    fn a_dir_others_can_enter_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        let inbox = open.join(format!("line-{NONCE}"));
        assert!(matches!(deliver(&inbox, "ls"), Err(ShellError::Handoff(_))));
        assert!(!inbox.exists());
    }
}
