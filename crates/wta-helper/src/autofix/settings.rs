//! Autofix settings from the `[autofix]` table of `~/.config/wta/config.toml`:
//!
//! ```toml
//! [autofix]
//! mode = "suggest"   # a failed command offers a fix (Ctrl+F, /fix); "auto" asks at once; "off"
//! prewarm = false    # keep a stashed agent pane per tab so autofix works before you open one
//! ```
//!
//! Pure parsing; a bad value is an error naming the key, and the caller
//! keeps the defaults.

use serde::Deserialize;

/// What a failed command in the tab does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AutofixMode {
    /// Nothing.
    Off,
    /// A pill offers the fix; the user starts it.
    #[default]
    Suggest,
    /// The fix turn starts at once (its card still waits for the user).
    Auto,
}

/// The effective settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AutofixSettings {
    pub mode: AutofixMode,
    pub prewarm: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    mode: Option<AutofixMode>,
    prewarm: Option<bool>,
}

impl AutofixSettings {
    /// Parses a whole config file's text (other tables are ignored).
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let table: Table = crate::config_file::table(text, "autofix")?;
        Ok(Self {
            mode: table.mode.unwrap_or_default(),
            prewarm: table.prewarm.unwrap_or(false),
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
            AutofixSettings::from_toml(""),
            Ok(AutofixSettings::default())
        );
        assert_eq!(AutofixSettings::default().mode, AutofixMode::Suggest);
        let s = AutofixSettings::from_toml("[autofix]\nmode = \"auto\"\nprewarm = true\n").unwrap();
        assert_eq!((s.mode, s.prewarm), (AutofixMode::Auto, true));
        let off = AutofixSettings::from_toml("[autofix]\nmode = \"off\"\n").unwrap();
        assert_eq!(off.mode, AutofixMode::Off);
        let bad = AutofixSettings::from_toml("[autofix]\nmode = \"always\"\n").unwrap_err();
        assert!(bad.contains("[autofix]") && bad.contains("always"), "{bad}");
    }
}
