//! Agent-terminal settings from the `[terminals]` table of
//! `~/.config/wta/config.toml`, read at each `terminal/create`:
//!
//! ```toml
//! [terminals]
//! placement = "split"     # a pane below the shell the agent works on; or "window"
//! keep_after_exit = false # true: the pane stays after the command for you to read
//! ```
//!
//! Pure parsing; a bad value is an error naming the key, and the caller
//! keeps the defaults.

use serde::Deserialize;

/// Where an agent terminal's pane opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Split below the pane the agent works on (a window when it has none).
    #[default]
    Split,
    /// A tmux window of its own, in the background.
    Window,
}

/// The effective settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TerminalSettings {
    pub placement: Placement,
    /// Leave the pane open after the command ends (until Enter), and after
    /// `terminal/release`; else it closes when the agent releases it.
    pub keep_after_exit: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    placement: Option<Placement>,
    keep_after_exit: Option<bool>,
}

impl TerminalSettings {
    /// Parses a whole config file's text (other tables are ignored).
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let table: Table = crate::config_file::table(text, "terminals")?;
        Ok(Self {
            placement: table.placement.unwrap_or_default(),
            keep_after_exit: table.keep_after_exit.unwrap_or(false),
        })
    }

    /// The settings in `config_file` (a missing file is the defaults), and a
    /// warning when the table was unusable.
    pub fn load(config_file: &std::path::Path) -> (Self, Option<String>) {
        crate::config_file::load(config_file, Self::from_toml)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_values_and_clear_errors() {
        assert_eq!(
            TerminalSettings::from_toml(""),
            Ok(TerminalSettings::default())
        );
        let s = TerminalSettings::from_toml(
            "[execution]\ntimeout_secs = 5\n[terminals]\nplacement = \"window\"\nkeep_after_exit = true\n",
        )
        .unwrap();
        assert_eq!(s.placement, Placement::Window);
        assert!(s.keep_after_exit);
        let bad = TerminalSettings::from_toml("[terminals]\nplacement = \"tab\"\n").unwrap_err();
        assert!(bad.contains("[terminals]") && bad.contains("tab"), "{bad}");
        let unknown = TerminalSettings::from_toml("[terminals]\nsize = 3\n").unwrap_err();
        assert!(unknown.contains("size"), "{unknown}");
    }
}
