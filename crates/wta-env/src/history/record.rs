//! One line of the action history, and the digest it keeps of a command's
//! output. Field names are stable: `wta history --json` prints these
//! records as they are, and scripts read them.
//!
//! The output is not kept whole (it can be the agent's business only, and
//! a history of whole outputs would rotate away within a day): a digest
//! says how big it was (`bytes`, `lines`), whether WTA's capture was cut
//! (`truncated`: the execution line keeps head and tail of a long output),
//! a SHA-256 of what was captured, and short excerpts of its first and last
//! lines ([`EXCERPT_LINES`] lines, [`EXCERPT_CHARS`] characters each).

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The record layout written today.
pub const RECORD_VERSION: u32 = 1;
/// Lines kept at each end of an output.
pub const EXCERPT_LINES: usize = 3;
/// Characters kept of each excerpt.
pub const EXCERPT_CHARS: usize = 300;

/// What the user did with a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run (or Open): the choice was carried out.
    Confirmed,
    /// Insert: the command was typed without Enter.
    Inserted,
    /// Esc, `/stop`, or the agent's CLI went away before a decision.
    Cancelled,
    /// Nobody decided within the card's lifetime.
    TimedOut,
}

impl Decision {
    /// The name used in the file and in `--json`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Confirmed => "confirmed",
            Self::Inserted => "inserted",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed_out",
        }
    }
}

/// A digest of one action's captured output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputDigest {
    pub bytes: u64,
    pub lines: u64,
    /// Lowercase hex SHA-256 of the captured bytes.
    pub sha256: String,
    /// WTA's capture was already cut (head and tail kept).
    #[serde(default)]
    pub truncated: bool,
    /// The first lines, bounded.
    pub head: String,
    /// The last lines, bounded; empty when `head` holds all of it.
    #[serde(default)]
    pub tail: String,
}

impl OutputDigest {
    /// The digest of `output` as WTA captured it.
    pub fn of(output: &str, truncated: bool) -> Self {
        let lines: Vec<&str> = output.lines().collect();
        let bound =
            |part: &[&str]| -> String { part.join("\n").chars().take(EXCERPT_CHARS).collect() };
        let (head, tail) = if lines.len() <= EXCERPT_LINES * 2 {
            let all: String = output.chars().take(EXCERPT_CHARS * 2).collect();
            (all, String::new())
        } else {
            (
                bound(&lines[..EXCERPT_LINES]),
                bound(&lines[lines.len() - EXCERPT_LINES..]),
            )
        };
        Self {
            bytes: output.len() as u64,
            lines: lines.len() as u64,
            sha256: hex::encode(Sha256::digest(output.as_bytes())),
            truncated,
            head,
            tail,
        }
    }
}

/// One action of the decided choice, and how it ended (for a confirmed or
/// inserted choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ActionRecord {
    /// `send`, `open` or `open_and_send` (the payload's action type).
    #[serde(rename = "type")]
    pub kind: String,
    /// What is typed (`send`, `open_and_send`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// `tab` or `panel` (`open`, `open_and_send`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegate: Option<bool>,
    /// How it ended once carried out: the execution line's status
    /// (DESIGN §4.4: `completed`, `failed`, `timed_out`, `inserted`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The command's exit code, when its shell reported one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputDigest>,
    /// The command was still running at the proposal's execution time
    /// limit (the agent got `timed_out`) and was followed to its end:
    /// `result`, `exit_status`, `duration_ms` and `output` are its final
    /// ones, from the record that superseded the first
    /// ([`super::merge`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ended_after_limit: bool,
}

/// One decision, one line of `history.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryRecord {
    /// [`RECORD_VERSION`] when written.
    pub version: u32,
    /// When the decision was made (or the card timed out), RFC 3339 UTC.
    pub time: String,
    /// The agent's name as the pane showed it.
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    /// The tmux window (`@N`) and the target pane (`%N`).
    #[serde(default)]
    pub tab: Option<String>,
    #[serde(default)]
    pub pane: Option<String>,
    /// This machine's name, or the remote host of a `wta ssh` pane.
    #[serde(default)]
    pub host: Option<String>,
    /// `host` is a `wta ssh` destination.
    #[serde(default)]
    pub remote: bool,
    pub proposal_id: String,
    /// `terminal_agent` or `autofix`.
    #[serde(default)]
    pub origin: Option<String>,
    /// The choice's number on the card and its title.
    pub choice: u64,
    pub title: String,
    pub decision: Decision,
    /// Why a card ended without the user (e.g. the CLI went away).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub actions: Vec<ActionRecord>,
}

impl HistoryRecord {
    /// Whether `needle` (already lowercase) is in the title, a command,
    /// the agent, the host, the pane or the decision, ignoring case.
    pub fn matches(&self, needle: &str) -> bool {
        let hit = |s: &str| s.to_lowercase().contains(needle);
        hit(&self.title)
            || hit(self.decision.as_str())
            || [&self.agent, &self.host, &self.pane, &self.session_id]
                .into_iter()
                .flatten()
                .any(|s| hit(s))
            || self
                .actions
                .iter()
                .filter_map(|a| a.command.as_deref())
                .any(hit)
    }

    /// The commands of its actions, joined for one line of a table.
    pub fn commands(&self) -> String {
        let parts: Vec<String> = self
            .actions
            .iter()
            .map(|a| match (&a.command, &a.target) {
                (Some(c), _) => c.clone(),
                (None, Some(t)) => format!("open {t}"),
                (None, None) => a.kind.clone(),
            })
            .collect();
        parts.join(" ; ")
    }

    /// The first exit code among its actions.
    pub fn exit_status(&self) -> Option<i32> {
        self.actions.iter().find_map(|a| a.exit_status)
    }

    /// The sum of its actions' durations, when any was timed.
    pub fn duration_ms(&self) -> Option<u64> {
        self.actions
            .iter()
            .filter_map(|a| a.duration_ms)
            .reduce(|a, b| a.saturating_add(b))
    }
}

/// `at` as RFC 3339 in UTC, to the second (`2026-12-02T04:30:00Z`).
pub fn rfc3339(at: SystemTime) -> String {
    let secs = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let at = UNIX_EPOCH + Duration::from_secs(1_796_185_800);
        assert_eq!(rfc3339(at), "2026-12-02T04:30:00Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn a_digest_keeps_size_hash_and_both_ends() {
        let short = OutputDigest::of("one\ntwo", false);
        assert_eq!((short.bytes, short.lines), (7, 2));
        assert_eq!(short.head, "one\ntwo");
        assert!(short.tail.is_empty());
        assert_eq!(short.sha256, hex::encode(Sha256::digest(b"one\ntwo")));
        assert_eq!(short.sha256.len(), 64);
        let long: String = (1..=50).map(|i| format!("line {i}\n")).collect();
        let d = OutputDigest::of(&long, true);
        assert_eq!(d.lines, 50);
        assert_eq!(d.head, "line 1\nline 2\nline 3");
        assert_eq!(d.tail, "line 48\nline 49\nline 50");
        assert!(d.truncated);
        let wide = "x".repeat(10_000);
        assert!(OutputDigest::of(&wide, false).head.chars().count() <= EXCERPT_CHARS * 2);
    }
}
