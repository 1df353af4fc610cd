//! The CLIs' own commands that register, unregister and list WTA's bundle,
//! and how their output is read. Config files are never edited: claude,
//! copilot and codex get a local marketplace and a plugin from it, gemini an
//! extension; OpenCode has no such command, so its plugin file is copied (by
//! `wta hooks`, see [`Registration::CopyFile`]).
//!
//! Output is read leniently (words, not layouts): CLIs change their tables.

use std::path::Path;

use wta_protocol::agent_sessions::HookCli;

use super::{MARKETPLACE_NAME, PLUGIN_NAME, PLUGIN_REF};

/// What a CLI's list command (or a file check) says: yes, no, or it cannot tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tri {
    Yes,
    No,
    Unknown,
}

impl Tri {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Yes => "yes",
            Self::No => "no",
            Self::Unknown => "unknown",
        }
    }
}

/// Installed = the bundle is on disk and the CLI has it registered.
pub fn installed(bundle_present: bool, registered: Tri) -> Tri {
    match (bundle_present, registered) {
        (true, Tri::Yes) => Tri::Yes,
        (false, _) | (_, Tri::No) => Tri::No,
        (true, Tri::Unknown) => Tri::Unknown,
    }
}

/// How a CLI gets the bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// Run these argv tails after the CLI's program, in order.
    Commands(Vec<Vec<String>>),
    /// Copy the bundle's plugin file into the CLI's plugin directory.
    CopyFile,
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// What `install` runs; `path` is [`super::bundle::registration_path`].
pub fn install(cli: HookCli, path: &Path) -> Registration {
    let path = path.to_string_lossy();
    match cli {
        HookCli::Claude | HookCli::Copilot | HookCli::Codex => Registration::Commands(vec![
            args(&["plugin", "marketplace", "add", &path]),
            args(&["plugin", "install", PLUGIN_REF]),
        ]),
        HookCli::Gemini => {
            Registration::Commands(vec![args(&["extensions", "install", &path, "--consent"])])
        }
        HookCli::Opencode => Registration::CopyFile,
    }
}

/// What `uninstall` runs.
pub fn uninstall(cli: HookCli) -> Registration {
    match cli {
        HookCli::Claude | HookCli::Copilot | HookCli::Codex => Registration::Commands(vec![
            args(&["plugin", "uninstall", PLUGIN_REF]),
            args(&["plugin", "marketplace", "remove", MARKETPLACE_NAME]),
        ]),
        HookCli::Gemini => {
            Registration::Commands(vec![args(&["extensions", "uninstall", PLUGIN_NAME])])
        }
        HookCli::Opencode => Registration::CopyFile,
    }
}

/// The command that lists what the CLI has installed, if it has one.
pub fn list(cli: HookCli) -> Option<Vec<String>> {
    match cli {
        HookCli::Claude | HookCli::Copilot | HookCli::Codex => Some(args(&["plugin", "list"])),
        HookCli::Gemini => Some(args(&["extensions", "list"])),
        HookCli::Opencode => None,
    }
}

/// Whether a list command's output names WTA's plugin (as a word: a plugin
/// called `wta-agent-hooks-old` is not ours).
pub fn lists_plugin(output: &str) -> bool {
    output.match_indices(PLUGIN_NAME).any(|(at, _)| {
        let after = output[at + PLUGIN_NAME.len()..].chars().next();
        let before = output[..at].chars().next_back();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
        !word(before) && !word(after)
    })
}

fn mentions(output: &str, words: &[&str]) -> bool {
    let lower = output.to_lowercase();
    words.iter().any(|w| lower.contains(w))
}

/// A failed install step that says it was done before (re-installing).
pub fn already_done(output: &str) -> bool {
    mentions(output, &["already"])
}

/// A failed uninstall step that says there was nothing to remove.
pub fn already_gone(output: &str) -> bool {
    mentions(
        output,
        &[
            "not found",
            "not installed",
            "no such",
            "does not exist",
            "unknown plugin",
            "unknown marketplace",
        ],
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_plugin_clis_add_a_marketplace_then_install_from_it() {
        let dir = PathBuf::from("/d/claude");
        assert_eq!(
            install(HookCli::Claude, &dir),
            Registration::Commands(vec![
                args(&["plugin", "marketplace", "add", "/d/claude"]),
                args(&["plugin", "install", "wta-agent-hooks@wta-local"]),
            ])
        );
        assert_eq!(
            uninstall(HookCli::Codex),
            Registration::Commands(vec![
                args(&["plugin", "uninstall", "wta-agent-hooks@wta-local"]),
                args(&["plugin", "marketplace", "remove", "wta-local"]),
            ])
        );
        assert_eq!(
            install(HookCli::Gemini, Path::new("/d/gemini/wta-agent-hooks")),
            Registration::Commands(vec![args(&[
                "extensions",
                "install",
                "/d/gemini/wta-agent-hooks",
                "--consent"
            ])])
        );
        assert_eq!(install(HookCli::Opencode, &dir), Registration::CopyFile);
        assert_eq!(list(HookCli::Opencode), None);
        assert_eq!(list(HookCli::Gemini), Some(args(&["extensions", "list"])));
    }

    #[test]
    fn list_output_is_read_as_words() {
        assert!(lists_plugin(
            "Installed plugins:\n  ❯ wta-agent-hooks@wta-local\n    Version: 0.1.0"
        ));
        assert!(lists_plugin("✓ wta-agent-hooks (0.1.0)"));
        assert!(!lists_plugin("wta-agent-hooks-old@x"));
        assert!(!lists_plugin("No plugins installed"));
        assert!(already_done(
            "Error: Marketplace 'wta-local' is already installed"
        ));
        assert!(already_gone(
            "Plugin \"wta-agent-hooks@wta-local\" not found"
        ));
        assert!(!already_gone("permission denied"));
        assert_eq!(installed(true, Tri::Yes), Tri::Yes);
        assert_eq!(installed(true, Tri::Unknown), Tri::Unknown);
        assert_eq!(installed(false, Tri::Yes), Tri::No);
        assert_eq!(installed(false, Tri::Unknown), Tri::No);
        assert_eq!(installed(true, Tri::No), Tri::No);
    }
}
