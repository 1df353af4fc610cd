//! Execution-result settings from the `[execution]` table of
//! `~/.config/wta/config.toml`: the per-proposal execution timeout (one
//! deadline for all the actions of a confirmed choice), how much of each
//! command's output goes back to the agent, and how soon a program
//! waiting on the terminal is reported as interactive. Pure parsing; a bad
//! value is an error naming the key, and the caller keeps the defaults.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use wta_protocol::limits::{
    DEFAULT_EXECUTION_OUTPUT_BYTES, DEFAULT_EXECUTION_TIMEOUT, MAX_EXECUTION_OUTPUT_BYTES,
};

/// Default quiet time before a program blocked on the terminal (or showing
/// a full-screen UI) is reported as interactive.
pub const DEFAULT_INTERACTIVE_AFTER: Duration = Duration::from_secs(3);
/// Smallest output cap accepted (room for head, marker and tail).
pub const MIN_OUTPUT_BYTES: usize = 256;
/// Longest execution timeout accepted (one day).
pub const MAX_TIMEOUT_SECS: u64 = 24 * 3600;

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
        Self {
            timeout: DEFAULT_EXECUTION_TIMEOUT,
            output_cap: DEFAULT_EXECUTION_OUTPUT_BYTES,
            interactive_after: DEFAULT_INTERACTIVE_AFTER,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    timeout_secs: Option<u64>,
    output_max_bytes: Option<usize>,
    interactive_after_secs: Option<u64>,
}

impl ExecutionSettings {
    /// Parses a whole config file's text (other tables are ignored).
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let t: Table = crate::config_file::table(text, "execution")?;
        let mut s = Self::default();
        if let Some(secs) = t.timeout_secs {
            if !(1..=MAX_TIMEOUT_SECS).contains(&secs) {
                return Err(format!(
                    "execution.timeout_secs must be between 1 and {MAX_TIMEOUT_SECS}, not {secs}"
                ));
            }
            s.timeout = Duration::from_secs(secs);
        }
        if let Some(bytes) = t.output_max_bytes {
            if !(MIN_OUTPUT_BYTES..=MAX_EXECUTION_OUTPUT_BYTES).contains(&bytes) {
                return Err(format!(
                    "execution.output_max_bytes must be between {MIN_OUTPUT_BYTES} and \
                     {MAX_EXECUTION_OUTPUT_BYTES}, not {bytes}"
                ));
            }
            s.output_cap = bytes;
        }
        if let Some(secs) = t.interactive_after_secs {
            if !(1..=MAX_TIMEOUT_SECS).contains(&secs) {
                return Err(format!(
                    "execution.interactive_after_secs must be between 1 and {MAX_TIMEOUT_SECS}, not {secs}"
                ));
            }
            s.interactive_after = Duration::from_secs(secs);
        }
        Ok(s)
    }

    /// Reads `path`; a missing file gives the defaults. On a bad file the
    /// defaults come back with the message to show the user.
    pub fn load(path: &Path) -> (Self, Option<String>) {
        crate::config_file::load(path, Self::from_toml)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_keys_and_errors() {
        assert_eq!(
            ExecutionSettings::from_toml("default_agent = \"claude\"\n"),
            Ok(ExecutionSettings::default())
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
                err.as_deref().is_some_and(|e| e.contains("execution")),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn load_missing_and_bad_files() {
        let dir = std::env::temp_dir().join(format!("wta-settings-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        assert_eq!(
            ExecutionSettings::load(&dir.join("none.toml")),
            (ExecutionSettings::default(), None)
        );
        let bad = dir.join("bad.toml");
        let _ = std::fs::write(&bad, "[execution]\ntimeout_secs = -1\n");
        let (s, warning) = ExecutionSettings::load(&bad);
        assert_eq!(s, ExecutionSettings::default());
        assert!(warning.is_some_and(|w| w.contains("bad.toml")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
