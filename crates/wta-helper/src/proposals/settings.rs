//! `[proposals]` settings from `~/.config/wta/config.toml`:
//!
//! ```toml
//! [proposals]
//! per_turn = 10   # proposals one turn may make, one after the other (1–50)
//! ```

use serde::Deserialize;
use wta_protocol::limits::{DEFAULT_PROPOSALS_PER_TURN, MAX_PROPOSALS_PER_TURN};

/// The effective settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProposalSettings {
    pub per_turn: u32,
}

impl Default for ProposalSettings {
    fn default() -> Self {
        Self {
            per_turn: DEFAULT_PROPOSALS_PER_TURN,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    per_turn: Option<u32>,
}

impl ProposalSettings {
    /// Parses a whole config file's text (other tables are ignored).
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let table: Table = crate::config_file::table(text, "proposals")?;
        let per_turn = table.per_turn.unwrap_or(DEFAULT_PROPOSALS_PER_TURN);
        if !(1..=MAX_PROPOSALS_PER_TURN).contains(&per_turn) {
            return Err(format!(
                "[proposals] per_turn must be 1 to {MAX_PROPOSALS_PER_TURN} (got {per_turn})"
            ));
        }
        Ok(Self { per_turn })
    }

    /// The settings in `config_file`, and a warning when unusable.
    pub fn load(config_file: &std::path::Path) -> (Self, Option<String>) {
        crate::config_file::load(config_file, Self::from_toml)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_values_and_clear_errors() {
        assert_eq!(ProposalSettings::from_toml("").unwrap().per_turn, 10);
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
            assert!(
                ProposalSettings::from_toml(bad)
                    .unwrap_err()
                    .contains("1 to 50")
            );
        }
        assert!(
            ProposalSettings::from_toml("[proposals]\nturns = 3\n")
                .unwrap_err()
                .contains("[proposals]")
        );
    }
}
