//! The action history: every terminal-action proposal the user decided on
//! (confirmed, inserted, cancelled, or left to time out), one JSON line per
//! decision (and one more when a command ends after its time limit), in
//! `<state dir>/history.jsonl`.
//!
//! - [`record`]: the line's shape (stable field names, what `wta history
//!   --json` prints) and the output digest.
//! - [`store`]: appending under a lock, rotation, and a reader that skips
//!   what it cannot read (with a warning) instead of failing the listing.
//! - [`merge`]: one entry per proposal; a record appended later for the
//!   same proposal (a command that ended after its time limit) supersedes
//!   the first's result, keeping its time and decision.
//!
//! Private like the logs (the dir 0700, the files 0600, [`crate::state_files`]);
//! bounded: a file that would pass [`store::ROTATE_AT`] bytes is moved to
//! `history.1.jsonl` (the one older generation kept) before the line is
//! written. The writer is the agent pane, readers are `wta history` and the
//! pane's `/history` picker; both go through [`store::Store`].

pub mod merge;
pub mod record;
pub mod store;

pub use merge::merge;
pub use record::{ActionRecord, Decision, HistoryRecord, OutputDigest, rfc3339};
pub use store::{Listing, SkippedLine, Store};

/// `history.jsonl` in [`crate::dirs::state_dir`] (not created).
pub fn default_store() -> Store {
    Store::new(crate::dirs::state_dir())
}
