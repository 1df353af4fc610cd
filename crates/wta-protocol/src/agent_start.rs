//! Why an agent process did not get through `initialize`: what the master
//! attaches to an `agent_start_failed` error (`error.data.wta.start`, next
//! to the [`crate::helper_master::FailureData`] fields) so the pane can say
//! it in the user's language: the command that ran, how it ended, and the
//! last lines it wrote to stderr.
//!
//! The master bounds and cleans the lines ([`MAX_STDERR_LINES`],
//! [`MAX_STDERR_BYTES`], no escape or control characters); a reader keeps
//! them as they came but refuses a value past those bounds.

use serde::{Deserialize, Serialize};

/// Stderr lines a start failure carries at most (the newest).
pub const MAX_STDERR_LINES: usize = 20;
/// Bytes of stderr lines a start failure carries at most.
pub const MAX_STDERR_BYTES: usize = 4096;

/// An agent that did not start, as the user is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartFailure {
    /// The command that was run, word by word, exactly as started.
    pub argv: Vec<String>,
    pub outcome: StartOutcome,
    /// The agent's last lines on stderr, oldest first (ANSI removed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
}

/// How the start ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum StartOutcome {
    /// The process exited with `code` before it answered `initialize`.
    Exited { code: i32 },
    /// A signal ended it before it answered.
    Killed { signal: String },
    /// It closed its output and kept running; the master stopped it.
    OutputClosed,
    /// No answer within `secs` seconds; the master stopped it.
    TimedOut { secs: u64 },
    /// It answered `initialize` with an error.
    Refused { message: String },
}

impl StartFailure {
    /// Puts `self` into a master error's `data` (made by
    /// [`crate::helper_master::MasterFailure::data`]).
    pub fn attach(&self, data: &mut serde_json::Value) {
        if let (Some(wta), Ok(start)) = (
            data.get_mut("wta")
                .and_then(serde_json::Value::as_object_mut),
            serde_json::to_value(self),
        ) {
            wta.insert("start".to_owned(), start);
        }
    }

    /// The failure in a master error's `data`, if it holds a well-formed one.
    pub fn from_data(data: Option<&serde_json::Value>) -> Option<Self> {
        let value = data?.get("wta")?.get("start")?;
        let start = Self::deserialize(value).ok()?;
        let bytes: usize = start.stderr.iter().map(String::len).sum();
        (start.stderr.len() <= MAX_STDERR_LINES && bytes <= MAX_STDERR_BYTES).then_some(start)
    }

    /// The command as one line a shell would read back to the same words.
    pub fn command_line(&self) -> String {
        self.argv
            .iter()
            .map(|word| shell_word(word))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `word` bare when a shell reads it so, else single-quoted.
fn shell_word(word: &str) -> String {
    let bare = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if bare {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::helper_master::{FailureKind, MasterFailure};
    use serde_json::json;

    fn failure() -> StartFailure {
        StartFailure {
            argv: vec!["/opt/my agent".into(), "--acp".into(), "it's".into()],
            outcome: StartOutcome::Exited { code: 3 },
            stderr: vec!["boom: missing API key".into()],
        }
    }

    #[test]
    fn it_rides_in_the_failure_data_beside_kind_and_agent() {
        let mut data = MasterFailure::data(FailureKind::AgentStartFailed, Some("custom:x"));
        failure().attach(&mut data);
        assert_eq!(data["wta"]["kind"], "agent_start_failed");
        assert_eq!(
            data["wta"]["start"],
            json!({"argv": ["/opt/my agent", "--acp", "it's"],
                "outcome": {"type": "exited", "code": 3}, "stderr": ["boom: missing API key"]})
        );
        assert_eq!(StartFailure::from_data(Some(&data)), Some(failure()));
        let plain = MasterFailure::data(FailureKind::AgentStartFailed, None);
        assert_eq!(StartFailure::from_data(Some(&plain)), None);
        assert_eq!(StartFailure::from_data(None), None);
        let classified = MasterFailure::classify(-32094, "m", Some(&data)).unwrap();
        assert_eq!(classified.agent_id.as_deref(), Some("custom:x"));
    }

    #[test]
    fn a_malformed_or_oversized_one_is_not_read() {
        let mut data = MasterFailure::data(FailureKind::AgentStartFailed, None);
        data["wta"]["start"] =
            json!({"argv": [], "outcome": {"type": "exited", "code": 1}, "cmd": "x"});
        assert_eq!(StartFailure::from_data(Some(&data)), None);
        let mut big = failure();
        big.stderr = vec!["x".into(); MAX_STDERR_LINES + 1];
        let mut data = MasterFailure::data(FailureKind::AgentStartFailed, None);
        big.attach(&mut data);
        assert_eq!(StartFailure::from_data(Some(&data)), None);
    }

    #[test]
    fn the_command_line_reads_back_to_the_same_words() {
        assert_eq!(failure().command_line(), r"'/opt/my agent' --acp 'it'\''s'");
        let plain = StartFailure {
            argv: vec![
                "npx".into(),
                "@zed-industries/claude-code-acp".into(),
                String::new(),
            ],
            outcome: StartOutcome::OutputClosed,
            stderr: Vec::new(),
        };
        assert_eq!(
            plain.command_line(),
            "npx @zed-industries/claude-code-acp ''"
        );
    }

    proptest::proptest! {
        /// Any failure within the bounds comes back as it went in; one
        /// line or byte past them is refused.
        #[test]
        fn failures_within_the_bounds_round_trip(
            argv in proptest::collection::vec(".{0,12}", 0..4),
            stderr in proptest::collection::vec(".{0,300}", 0..25),
            code in proptest::prelude::any::<i32>(),
        ) {
            let start = StartFailure { argv, outcome: StartOutcome::Exited { code }, stderr };
            let mut data = MasterFailure::data(FailureKind::AgentStartFailed, Some("x"));
            start.attach(&mut data);
            let bytes: usize = start.stderr.iter().map(String::len).sum();
            let fits = start.stderr.len() <= MAX_STDERR_LINES && bytes <= MAX_STDERR_BYTES;
            let back = StartFailure::from_data(Some(&data));
            proptest::prop_assert_eq!(back, fits.then_some(start));
        }
    }
}
