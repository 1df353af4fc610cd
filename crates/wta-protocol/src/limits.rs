//! Every numeric limit of the proposal contract, in one place.
//!
//! Both sides of each wire (CLI, helper, master) read these constants, so a
//! sender can never produce a line its receiver rejects for size.

use std::time::Duration;

/// `"version"` of a proposal socket request line.
pub const PROTOCOL_VERSION: u64 = 1;
/// `"schema_version"` of a proposal payload.
pub const SCHEMA_VERSION: u64 = 1;
/// First part of a channel string.
pub const CHANNEL_VERSION: &str = "v1";

/// Raw proposal payload size, in bytes of JSON text, checked before parsing.
pub const MAX_PAYLOAD_BYTES: usize = 8192;

/// Bytes of the request line's JSON outside the payload string:
/// `{"version":1,"channel":"<68 chars>","payload":""}` is 107 bytes; 1024
/// leaves room for any whitespace a hand-written client might add.
pub const REQUEST_ENVELOPE_HEADROOM: usize = 1024;

/// Worst-case growth of a string when written as a JSON string literal: a
/// control character becomes `\u00XX`, 6 bytes for 1.
pub const JSON_ESCAPE_FACTOR: usize = 6;

/// Longest request line, in bytes of JSON **without** the terminating `\n`
/// (and without an optional `\r` before it): a maximal payload with every
/// byte escaped at the worst case, plus the envelope. This is the original's
/// 8192 × 6 + 1024 = 50 176 (its "49 KiB"), now applied to the line content
/// only, which fixes its off-by-one (it counted the newline on one side and
/// not on the other).
pub const MAX_REQUEST_LINE_BYTES: usize =
    MAX_PAYLOAD_BYTES * JSON_ESCAPE_FACTOR + REQUEST_ENVELOPE_HEADROOM;

/// Choices per proposal, and actions per choice.
pub const MAX_CHOICES: usize = 3;
pub const MAX_ACTIONS_PER_CHOICE: usize = 3;

/// Text limits, in Unicode scalar values (what a user perceives as
/// characters; not bytes, not UTF-16 units).
pub const MAX_TITLE_CHARS: usize = 200;
pub const MAX_RATIONALE_CHARS: usize = 2000;
pub const MAX_INPUT_CHARS: usize = 8000;
/// `cwd` of an open action; PATH_MAX on Linux.
pub const MAX_CWD_CHARS: usize = 4096;

/// Hard ceiling of the (configurable) execution output cap, in bytes of
/// UTF-8 text. The default cap is [`DEFAULT_EXECUTION_OUTPUT_BYTES`].
pub const MAX_EXECUTION_OUTPUT_BYTES: usize = 64 * 1024;
/// Longest JSON-RPC line a helper may send the master, without its newline
/// (the master ends a connection that sends more). What a helper sends:
/// prompts (typed or pasted text, pane context capped at a few thousand
/// characters per buffer), permission outcomes, `terminal/output` (capped at
/// 64 KiB of output) and `fs/read_text_file` answers (checked against
/// [`MAX_FS_ANSWER_BYTES`]). 4 MiB holds a pasted document or a source file
/// many times over and far more than an agent takes in at once.
pub const MAX_HELPER_LINE_BYTES: usize = 4 * 1024 * 1024;
/// Longest JSON-encoded text an `fs/read_text_file` answer may carry: the
/// helper line cap less room for the JSON-RPC envelope.
pub const MAX_FS_ANSWER_BYTES: usize = MAX_HELPER_LINE_BYTES - 64 * 1024;
pub const DEFAULT_EXECUTION_OUTPUT_BYTES: usize = 16 * 1024;
/// `reason` strings on response lines, in bytes.
pub const MAX_REASON_BYTES: usize = 2048;

/// Longest response line (validation, final or execution), without the
/// newline: an execution line whose output, cwd and reason are all at their
/// ceilings and escaped at the worst case, plus 4 KiB for the other fields.
pub const MAX_RESPONSE_LINE_BYTES: usize =
    (MAX_EXECUTION_OUTPUT_BYTES + MAX_CWD_CHARS * 4 + MAX_REASON_BYTES) * JSON_ESCAPE_FACTOR + 4096;

/// How long an armed digest stays valid after the permission preflight.
pub const ARMED_LEASE: Duration = Duration::from_secs(30);
/// Failed validations (schema, digest) a channel survives before it is
/// cancelled and tombstoned.
pub const RETRY_BUDGET: u32 = 2;
/// Tombstones kept per helper, and how long each lives.
pub const MAX_TOMBSTONES: usize = 4;
pub const TOMBSTONE_TTL: Duration = Duration::from_secs(180);
/// A card nobody decides on ends as `timed_out` after this.
pub const USER_DECISION_TIMEOUT: Duration = Duration::from_secs(600);
/// Default execution timeout of a confirmed `send` (configurable).
pub const DEFAULT_EXECUTION_TIMEOUT: Duration = Duration::from_secs(120);

/// CLI connect backoff (ms) on a missing or busy socket. The CLI waits
/// *between* attempts only: never after the last one.
pub const CONNECT_BACKOFF_MS: [u64; 6] = [20, 50, 100, 200, 500, 1000];

/// Proposals one turn may make (the first channel and each `next` one):
/// the default of `[proposals] per_turn`.
pub const DEFAULT_PROPOSALS_PER_TURN: u32 = 10;
/// The most `[proposals] per_turn` may be.
pub const MAX_PROPOSALS_PER_TURN: u32 = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_limit_matches_the_original_formula() {
        assert_eq!(MAX_REQUEST_LINE_BYTES, 50_176);
    }

    #[test]
    fn request_envelope_fits_its_headroom() {
        let channel = format!("v1.{}.{}", "a".repeat(32), "b".repeat(32));
        let empty = format!(r#"{{"version":1,"channel":"{channel}","payload":""}}"#);
        assert_eq!(empty.len(), 107);
        assert!(empty.len() < REQUEST_ENVELOPE_HEADROOM);
    }
}
