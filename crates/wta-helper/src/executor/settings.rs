//! Execution-result settings from the `[execution]` table of
//! `~/.config/wta/config.toml`: the per-proposal execution timeout (one
//! deadline for all the actions of a confirmed choice), how much of each
//! command's output goes back to the agent, and how soon a program
//! waiting on the terminal is reported as interactive. The keys, ranges
//! and defaults are the config schema's (`wta_agent::config`); a bad value
//! is at its default and named in the warning.

use std::time::Duration;

use wta_agent::config::Config;

use crate::config_file::SettingsTable;
pub use wta_agent::config::{MAX_TIMEOUT_SECS, MIN_OUTPUT_BYTES};

/// Default quiet time before a program blocked on the terminal (or showing
/// a full-screen UI) is reported as interactive.
pub const DEFAULT_INTERACTIVE_AFTER: Duration =
    Duration::from_secs(wta_agent::config::DEFAULT_INTERACTIVE_AFTER_SECS);

/// The effective execution settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutionSettings {
    /// `timeout_secs`: the per-proposal execution timeout, counted from
    /// confirmation across all the choice's actions. A run still going then
    /// ends as `timed_out` with `still_running: true` (it is never killed);
    /// actions not started yet are `cancelled`.
    pub timeout: Duration,
    /// `output_max_bytes`: rendered output kept per run (head and tail).
    pub output_cap: usize,
    /// `interactive_after_secs`: see [`DEFAULT_INTERACTIVE_AFTER`].
    pub interactive_after: Duration,
}

impl Default for ExecutionSettings {
    fn default() -> Self {
        Self::from_config(&Config::default())
    }
}

impl SettingsTable for ExecutionSettings {
    const TABLE: &'static str = "execution";

    /// The `[execution]` settings of a checked config.
    fn from_config(config: &Config) -> Self {
        let e = config.execution;
        Self {
            timeout: Duration::from_secs(e.timeout_secs),
            output_cap: e.output_max_bytes,
            interactive_after: Duration::from_secs(e.interactive_after_secs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wta_protocol::limits::{DEFAULT_EXECUTION_OUTPUT_BYTES, DEFAULT_EXECUTION_TIMEOUT};

    #[test]
    fn defaults_keys_and_errors() {
        let defaults = ExecutionSettings::default();
        assert_eq!(defaults.timeout, DEFAULT_EXECUTION_TIMEOUT);
        assert_eq!(defaults.output_cap, DEFAULT_EXECUTION_OUTPUT_BYTES);
        assert_eq!(defaults.interactive_after, DEFAULT_INTERACTIVE_AFTER);
        assert_eq!(
            ExecutionSettings::from_toml("default_agent = \"claude\"\n"),
            Ok(defaults)
        );
        let s = ExecutionSettings::from_toml(
            "[execution]\ntimeout_secs = 5\noutput_max_bytes = 4096\ninteractive_after_secs = 1\n",
        )
        .unwrap_or_default();
        assert_eq!(
            s,
            ExecutionSettings {
                timeout: Duration::from_secs(5),
                output_cap: 4096,
                interactive_after: Duration::from_secs(1),
            }
        );
        for bad in [
            "[execution]\ntimeout_secs = 0\n",
            "[execution]\noutput_max_bytes = 10\n",
            "[execution]\noutput_max_bytes = 10000000\n",
            "[execution]\ntimout_secs = 3\n",
            "[execution]\ntimeout_secs = \"3\"\n",
        ] {
            let err = ExecutionSettings::from_toml(bad).err();
            assert!(
                err.as_deref().is_some_and(|e| e.contains("config.toml:2:")),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn a_bad_key_is_at_its_default_and_the_others_apply() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            ExecutionSettings::load(&dir.path().join("none.toml")),
            (ExecutionSettings::default(), None)
        );
        let bad = dir.path().join("bad.toml");
        std::fs::write(
            &bad,
            "[execution]\ntimeout_secs = -1\noutput_max_bytes = 4096\n",
        )
        .unwrap();
        let (s, warning) = ExecutionSettings::load(&bad);
        assert_eq!(s.timeout, DEFAULT_EXECUTION_TIMEOUT);
        assert_eq!(s.output_cap, 4096);
        assert!(warning.is_some_and(|w| w.contains("bad.toml:2:")));
    }
}
