//! Agent-terminal settings from the `[terminals]` table of
//! `~/.config/wta/config.toml`, read at each `terminal/create` (the keys,
//! choices and defaults are the config schema's, `wta_agent::config`):
//!
//! ```toml
//! [terminals]
//! placement = "split"     # a pane below the shell the agent works on; or "window"
//! keep_after_exit = false # true: the pane stays after the command for you to read
//! ```
//!
//! A bad value is at its default and named in the warning.

use wta_agent::config::Config;

use crate::config_file::SettingsTable;
pub use wta_agent::config::Placement;

/// The effective settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalSettings {
    pub placement: Placement,
    /// Leave the pane open after the command ends (until Enter), and after
    /// `terminal/release`; else it closes when the agent releases it.
    pub keep_after_exit: bool,
}

impl Default for TerminalSettings {
    fn default() -> Self {
        Self::from_config(&Config::default())
    }
}

impl SettingsTable for TerminalSettings {
    const TABLE: &'static str = "terminals";

    /// The `[terminals]` settings of a checked config.
    fn from_config(config: &Config) -> Self {
        Self {
            placement: config.terminals.placement,
            keep_after_exit: config.terminals.keep_after_exit,
        }
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
        assert_eq!(TerminalSettings::default().placement, Placement::Split);
        let s = TerminalSettings::from_toml(
            "[execution]\ntimeout_secs = 5\n[terminals]\nplacement = \"window\"\nkeep_after_exit = true\n",
        )
        .unwrap();
        assert_eq!(s.placement, Placement::Window);
        assert!(s.keep_after_exit);
        let bad = TerminalSettings::from_toml("[terminals]\nplacement = \"tab\"\n").unwrap_err();
        assert!(bad.contains("`placement`") && bad.contains("tab"), "{bad}");
        let unknown = TerminalSettings::from_toml("[terminals]\nsize = 3\n").unwrap_err();
        assert!(unknown.contains("size"), "{unknown}");
    }
}
