//! LogTail over temp files: append, partial lines, seeding to the end,
//! truncation, rotation, huge lines, the read cap and a missing file.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use super::{LogTail, MAX_LINE_BYTES, MAX_READ_BYTES};

fn append(path: &Path, text: &str) {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

#[test]
fn appended_lines_come_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    append(&path, "a\nb\n");
    let mut tail = LogTail::from_start(&path);
    assert_eq!(tail.poll().unwrap(), ["a", "b"]);
    assert_eq!(tail.poll().unwrap(), Vec::<String>::new());
    append(&path, "c\r\n\n\nd\n");
    assert_eq!(tail.poll().unwrap(), ["c", "d"]);
    assert_eq!(tail.offset(), fs::metadata(&path).unwrap().len());
}

#[test]
fn a_partial_line_waits_for_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    append(&path, "one\ntw");
    let mut tail = LogTail::from_start(&path);
    assert_eq!(tail.poll().unwrap(), ["one"]);
    append(&path, "o");
    assert_eq!(tail.poll().unwrap(), Vec::<String>::new());
    append(&path, "\nthree\n");
    assert_eq!(tail.poll().unwrap(), ["two", "three"]);
}

#[test]
fn at_end_does_not_replay_and_skips_a_cut_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    append(&path, "old\n");
    let mut tail = LogTail::at_end(&path);
    assert_eq!(tail.poll().unwrap(), Vec::<String>::new());
    append(&path, "new\n");
    assert_eq!(tail.poll().unwrap(), ["new"]);

    // Seeded while the writer was mid-line: the rest of that line is not a line.
    let cut = dir.path().join("cut.jsonl");
    append(&cut, "old\n{\"half\":");
    let mut tail = LogTail::at_end(&cut);
    append(&cut, "1}\nwhole\n");
    assert_eq!(tail.poll().unwrap(), ["whole"]);

    // An empty file seeds to 0 with nothing to skip.
    let empty = dir.path().join("empty.jsonl");
    append(&empty, "");
    let mut tail = LogTail::at_end(&empty);
    append(&empty, "first\n");
    assert_eq!(tail.poll().unwrap(), ["first"]);
}

#[test]
fn truncation_reads_again_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    append(&path, "a long first line\nsecond\n");
    let mut tail = LogTail::from_start(&path);
    assert_eq!(tail.poll().unwrap().len(), 2);
    fs::write(&path, "x\n").unwrap();
    assert_eq!(tail.poll().unwrap(), ["x"]);
    append(&path, "y\n");
    assert_eq!(tail.poll().unwrap(), ["y"]);
}

#[cfg(unix)]
#[test]
fn rotation_by_rename_reads_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    append(&path, "old 1\nold 2\n");
    let mut tail = LogTail::from_start(&path);
    assert_eq!(tail.poll().unwrap().len(), 2);
    // A longer file moved into place: the offset alone would not notice.
    let next = dir.path().join("next.jsonl");
    append(&next, "new 1\nnew 2\nnew 3\n");
    fs::rename(&next, &path).unwrap();
    assert_eq!(tail.poll().unwrap(), ["new 1", "new 2", "new 3"]);
}

#[test]
fn a_huge_line_is_skipped_not_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let mut tail = LogTail::from_start(&path);
    append(&path, "before\n");
    // Written in pieces across polls, longer than the cap in total.
    let piece = "z".repeat(MAX_LINE_BYTES / 2 + 1);
    append(&path, &piece);
    assert_eq!(tail.poll().unwrap(), ["before"]);
    append(&path, &piece);
    assert_eq!(tail.poll().unwrap(), Vec::<String>::new());
    append(&path, &piece);
    assert_eq!(tail.poll().unwrap(), Vec::<String>::new());
    append(&path, "\nafter\n");
    assert_eq!(tail.poll().unwrap(), ["after"]);

    // A line of exactly the cap is kept.
    let exact = "q".repeat(MAX_LINE_BYTES);
    append(&path, &format!("{exact}\n"));
    assert_eq!(tail.poll().unwrap(), [exact]);
}

#[test]
fn one_poll_reads_at_most_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let line = format!("{}\n", "w".repeat(1023)); // 1 KiB a line
    let count = (MAX_READ_BYTES / 1024) as usize + 10;
    append(&path, &line.repeat(count));
    let mut tail = LogTail::from_start(&path);
    let first = tail.poll().unwrap();
    assert_eq!(first.len(), (MAX_READ_BYTES / 1024) as usize);
    assert!(tail.is_behind());
    let second = tail.poll().unwrap();
    assert_eq!(second.len(), 10);
    assert!(!tail.is_behind());
}

#[test]
fn a_missing_file_is_empty_and_read_once_it_appears() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("later.jsonl");
    let mut tail = LogTail::at_end(&path);
    assert_eq!(tail.poll().unwrap(), Vec::<String>::new());
    append(&path, "hello\n");
    assert_eq!(tail.poll().unwrap(), ["hello"]);
    fs::remove_file(&path).unwrap();
    assert_eq!(tail.poll().unwrap(), Vec::<String>::new());
    append(&path, "again\n");
    assert_eq!(tail.poll().unwrap(), ["again"]);
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    fs::write(&path, b"ok\n\xff\xfe\n").unwrap();
    let mut tail = LogTail::from_start(&path);
    assert_eq!(tail.poll().unwrap(), ["ok", "\u{fffd}\u{fffd}"]);
}
