//! Where the action history lives and how it is written and read.
//!
//! Writing: one line per record, appended with a single `write` to a file
//! opened `O_APPEND` and 0600, under an exclusive `flock` of
//! `history.lock` so two panes never interleave a line or rotate at once.
//! Before a line that would take `history.jsonl` past the rotation size,
//! the file becomes `history.1.jsonl` (replacing the older one): at most
//! about twice [`ROTATE_AT`] is ever kept.
//!
//! Reading: the older file, then the current one, oldest record first,
//! each proposal's later records folded into its first ([`super::merge`]:
//! one entry per proposal, the latest result wins). A line that is not a
//! record (cut by a crash, edited, from a newer layout,
//! or longer than [`MAX_LINE_BYTES`]) is skipped and named in
//! [`Listing::skipped`]; nothing in a file's bytes makes the reader fail or
//! panic (a proptest holds it to that). Only a file that exists and cannot
//! be read is an error.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use super::merge::merge;
use super::record::HistoryRecord;
use crate::state_files;

/// The size past which `history.jsonl` is rotated.
pub const ROTATE_AT: u64 = 1024 * 1024;
/// A longer line is not read as a record.
pub const MAX_LINE_BYTES: usize = 256 * 1024;
/// The current file's name in the state dir.
pub const FILE_NAME: &str = "history.jsonl";
/// The one older generation.
pub const OLDER_FILE_NAME: &str = "history.1.jsonl";
const LOCK_FILE_NAME: &str = "history.lock";

/// A line the reader skipped, and why (for a warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    pub why: String,
}

/// What the reader found: the records oldest first, and what it skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// One per proposal ([`Store::read`] merges; [`parse_into`] does not).
    pub records: Vec<HistoryRecord>,
    pub skipped: Vec<SkippedLine>,
}

/// The history files in one directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    rotate_at: u64,
}

impl Store {
    /// The history in `dir` (normally the state dir), rotated at [`ROTATE_AT`].
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            rotate_at: ROTATE_AT,
        }
    }

    /// The same store, rotated at `bytes` instead (tests, small disks).
    #[must_use]
    pub fn rotate_at(mut self, bytes: u64) -> Self {
        self.rotate_at = bytes;
        self
    }

    /// `history.jsonl`.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    /// `history.1.jsonl`.
    pub fn older_path(&self) -> PathBuf {
        self.dir.join(OLDER_FILE_NAME)
    }

    /// Appends `record` as one line, rotating first when it would pass the
    /// rotation size. Blocking (file I/O and a lock): call it off the
    /// pane's loop.
    pub fn append(&self, record: &HistoryRecord) -> io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        state_files::ensure_state_dir(&self.dir)?;
        let _lock = self.lock()?;
        let path = self.path();
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        if size > 0 && size + line.len() as u64 > self.rotate_at {
            std::fs::rename(&path, self.older_path())?;
        }
        let mut file = state_files::open_append(&path)?;
        file.write_all(&line)?;
        file.flush()
    }

    /// Every proposal's entry, oldest first (the older file's, then the
    /// current one's; a proposal recorded again stays where it was first,
    /// with its latest result, [`super::merge`]), with the lines that were
    /// skipped.
    pub fn read(&self) -> io::Result<Listing> {
        let mut listing = Listing::default();
        for path in [self.older_path(), self.path()] {
            match read_bytes(&path) {
                Ok(bytes) => parse_into(&bytes, &path, &mut listing),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        listing.records = merge(std::mem::take(&mut listing.records));
        Ok(listing)
    }

    fn lock(&self) -> io::Result<Flock<File>> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(state_files::STATE_FILE_MODE)
            .open(self.dir.join(LOCK_FILE_NAME))?;
        Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, errno)| io::Error::from(errno))
    }
}

fn read_bytes(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The records in `bytes` (one file's contents) added to `listing`; every
/// other line is named in its `skipped`. Empty lines are ignored.
pub fn parse_into(bytes: &[u8], file: &Path, listing: &mut Listing) {
    for (index, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let skip = |why: String| SkippedLine {
            file: file.to_path_buf(),
            line: index + 1,
            why,
        };
        if raw.len() > MAX_LINE_BYTES {
            listing
                .skipped
                .push(skip(format!("longer than {MAX_LINE_BYTES} bytes")));
            continue;
        }
        match serde_json::from_slice::<HistoryRecord>(raw) {
            Ok(record) => listing.records.push(record),
            Err(e) => listing.skipped.push(skip(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::os::unix::fs::MetadataExt;

    use proptest::prelude::*;

    use super::*;
    use crate::history::record::{ActionRecord, Decision, RECORD_VERSION};

    fn record(n: u64) -> HistoryRecord {
        HistoryRecord {
            version: RECORD_VERSION,
            time: "2026-12-02T04:30:00Z".into(),
            agent: Some("demo".into()),
            session_id: Some("s-1".into()),
            tab: Some("@1".into()),
            pane: Some("%2".into()),
            host: Some("box".into()),
            remote: false,
            proposal_id: format!("p-{n}"),
            origin: Some("terminal_agent".into()),
            choice: 1,
            title: format!("Run number {n}"),
            decision: Decision::Confirmed,
            reason: None,
            actions: vec![ActionRecord {
                kind: "send".into(),
                command: Some(format!("echo {n}")),
                exit_status: Some(0),
                ..ActionRecord::default()
            }],
        }
    }

    #[test]
    fn records_round_trip_oldest_first_in_a_private_file() {
        let d = tempfile::tempdir().unwrap();
        let store = Store::new(d.path().join("wta"));
        for n in 1..=3 {
            store.append(&record(n)).unwrap();
        }
        let listing = store.read().unwrap();
        assert_eq!(listing.records, vec![record(1), record(2), record(3)]);
        assert!(listing.skipped.is_empty());
        let mode = std::fs::metadata(store.path()).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn rotation_keeps_one_older_file_and_bounds_the_total() {
        let d = tempfile::tempdir().unwrap();
        let line = serde_json::to_vec(&record(10)).unwrap().len() as u64 + 1;
        let store = Store::new(d.path().to_path_buf()).rotate_at(line * 3);
        for n in 10..=17 {
            store.append(&record(n)).unwrap();
        }
        // 3 lines a file: 10-12 and 13-15 rotated away in turn, 13-15
        // kept as the older generation, 16-17 current.
        let current = std::fs::read_to_string(store.path()).unwrap();
        let older = std::fs::read_to_string(store.older_path()).unwrap();
        assert_eq!((older.lines().count(), current.lines().count()), (3, 2));
        let titles: Vec<String> = store
            .read()
            .unwrap()
            .records
            .into_iter()
            .map(|r| r.title)
            .collect();
        let want: Vec<String> = (13..=17).map(|n| format!("Run number {n}")).collect();
        assert_eq!(titles, want);
        assert!(!d.path().join("history.2.jsonl").exists());
        let older_mode = std::fs::metadata(store.older_path()).unwrap().mode() & 0o777;
        assert_eq!(older_mode, 0o600);
    }

    #[test]
    fn a_corrupt_line_is_skipped_and_named() {
        let d = tempfile::tempdir().unwrap();
        let store = Store::new(d.path().to_path_buf());
        store.append(&record(1)).unwrap();
        let mut f = OpenOptions::new().append(true).open(store.path()).unwrap();
        f.write_all(b"{\"version\":1,\"time\":\"cut by a cr\n\n")
            .unwrap();
        drop(f);
        store.append(&record(2)).unwrap();
        let listing = store.read().unwrap();
        assert_eq!(listing.records, vec![record(1), record(2)]);
        assert_eq!(listing.skipped.len(), 1);
        assert_eq!(listing.skipped[0].line, 2);
        assert_eq!(listing.skipped[0].file, store.path());
    }

    #[test]
    fn a_superseding_record_is_read_as_one_entry_even_across_rotation() {
        let d = tempfile::tempdir().unwrap();
        let line = serde_json::to_vec(&record(1)).unwrap().len() as u64 + 1;
        let store = Store::new(d.path().to_path_buf()).rotate_at(line * 2);
        store.append(&record(1)).unwrap();
        store.append(&record(2)).unwrap();
        let mut late = record(1);
        late.time = "2026-12-02T04:31:00Z".into();
        late.actions[0].exit_status = Some(1);
        late.actions[0].ended_after_limit = true;
        // record(1) is in the older file now, its successor in the current one.
        store.append(&late).unwrap();
        assert!(
            std::fs::read_to_string(store.older_path())
                .unwrap()
                .contains("p-1")
        );
        let records = store.read().unwrap().records;
        let ids: Vec<&str> = records.iter().map(|r| r.proposal_id.as_str()).collect();
        assert_eq!(ids, ["p-1", "p-2"]);
        assert_eq!(records[0].time, record(1).time);
        assert_eq!(records[0].actions, late.actions);
    }

    #[test]
    fn no_history_yet_is_an_empty_listing() {
        let d = tempfile::tempdir().unwrap();
        let listing = Store::new(d.path().join("none")).read().unwrap();
        assert_eq!(listing, Listing::default());
    }

    proptest! {
        #[test]
        fn the_reader_never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let mut listing = Listing::default();
            parse_into(&bytes, Path::new("h"), &mut listing);
            let lines = bytes.split(|b| *b == b'\n').count();
            prop_assert!(listing.records.len() + listing.skipped.len() <= lines);
        }

        #[test]
        fn valid_lines_survive_garbage_around_them(
            junk in proptest::collection::vec(any::<u8>(), 0..256),
            n in 0u64..1000,
        ) {
            let junk: Vec<u8> = junk.into_iter().filter(|b| *b != b'\n').collect();
            let mut bytes = junk.clone();
            bytes.push(b'\n');
            bytes.extend(serde_json::to_vec(&record(n)).unwrap());
            bytes.push(b'\n');
            bytes.extend(&junk);
            let mut listing = Listing::default();
            parse_into(&bytes, Path::new("h"), &mut listing);
            prop_assert!(listing.records.contains(&record(n)));
        }
    }
}
