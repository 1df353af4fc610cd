//! `[proposals]` settings from `~/.config/wta/config.toml` (the key, its
//! range and default are the config schema's, `wta_agent::config`):
//!
//! ```toml
//! [proposals]
//! per_turn = 10   # proposals one turn may make, one after the other (1–50)
//! ```

use wta_agent::config::Config;

use crate::config_file::SettingsTable;

/// The effective settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProposalSettings {
    pub per_turn: u32,
}

impl Default for ProposalSettings {
    fn default() -> Self {
        Self::from_config(&Config::default())
    }
}

impl SettingsTable for ProposalSettings {
    const TABLE: &'static str = "proposals";

    /// The `[proposals]` settings of a checked config.
    fn from_config(config: &Config) -> Self {
        Self {
            per_turn: config.proposals.per_turn,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_values_and_clear_errors() {
        assert_eq!(ProposalSettings::from_toml("").unwrap().per_turn, 10);
        assert_eq!(ProposalSettings::default().per_turn, 10);
        assert_eq!(
            ProposalSettings::from_toml("[proposals]\nper_turn = 3\n")
                .unwrap()
                .per_turn,
            3
        );
        for bad in [
            "[proposals]\nper_turn = 0\n",
            "[proposals]\nper_turn = 99\n",
        ] {
            let err = ProposalSettings::from_toml(bad).unwrap_err();
            assert!(err.contains("from 1 to 50"), "{err}");
        }
        assert!(
            ProposalSettings::from_toml("[proposals]\nturns = 3\n")
                .unwrap_err()
                .contains("[proposals]")
        );
    }
}
