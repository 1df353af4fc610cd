//! Autofix settings from the `[autofix]` table of `~/.config/wta/config.toml`
//! (the keys, choices and defaults are the config schema's,
//! `wta_agent::config`):
//!
//! ```toml
//! [autofix]
//! mode = "suggest"   # a failed command offers a fix (Ctrl+F, /fix); "auto" asks at once; "off"
//! prewarm = false    # keep a stashed agent pane per tab so autofix works before you open one
//! ```
//!
//! A bad value is at its default and named in the warning.

pub use wta_agent::config::AutofixMode;
use wta_agent::config::Config;

use crate::config_file::SettingsTable;

/// The effective settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutofixSettings {
    pub mode: AutofixMode,
    pub prewarm: bool,
}

impl Default for AutofixSettings {
    fn default() -> Self {
        Self::from_config(&Config::default())
    }
}

impl SettingsTable for AutofixSettings {
    const TABLE: &'static str = "autofix";

    /// The `[autofix]` settings of a checked config.
    fn from_config(config: &Config) -> Self {
        Self {
            mode: config.autofix.mode,
            prewarm: config.autofix.prewarm,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_values_and_clear_errors() {
        assert_eq!(
            AutofixSettings::from_toml(""),
            Ok(AutofixSettings::default())
        );
        assert_eq!(AutofixSettings::default().mode, AutofixMode::Suggest);
        let s = AutofixSettings::from_toml("[autofix]\nmode = \"auto\"\nprewarm = true\n").unwrap();
        assert_eq!((s.mode, s.prewarm), (AutofixMode::Auto, true));
        let off = AutofixSettings::from_toml("[autofix]\nmode = \"off\"\n").unwrap();
        assert_eq!(off.mode, AutofixMode::Off);
        let bad = AutofixSettings::from_toml("[autofix]\nmode = \"always\"\n").unwrap_err();
        assert!(bad.contains("`mode`") && bad.contains("always"), "{bad}");
    }
}
