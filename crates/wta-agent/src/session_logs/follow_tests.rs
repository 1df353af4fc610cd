//! SessionLog: classification through a tail, the Codex fork skip (seen in
//! the stream or in the file's head) and session ids from file names.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use wta_protocol::agent_sessions::{AgentStatus, HookCli};

use super::SessionLog;
use super::classify_tests::{CLAUDE, CODEX, CODEX_FORK, COPILOT, GEMINI, fixture};

fn append(path: &Path, text: &str) {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// A copy of a fixture at the same relative path under a temp dir.
fn copy(dir: &Path, rel: &str) -> std::path::PathBuf {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::copy(fixture(rel), &path).unwrap();
    path
}

const TASK_STARTED: &str = "{\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\"}}\n";

#[test]
fn a_fork_is_skipped_from_the_start_and_from_its_head() {
    let dir = tempfile::tempdir().unwrap();
    let fork = copy(dir.path(), CODEX_FORK);

    let mut from_start = SessionLog::from_start(HookCli::Codex, &fork);
    assert_eq!(from_start.poll().unwrap(), []);
    assert!(from_start.is_fork());

    let mut at_end = SessionLog::at_end(HookCli::Codex, &fork);
    assert!(at_end.is_fork());
    append(&fork, TASK_STARTED);
    assert_eq!(at_end.poll().unwrap(), []);

    // The main session's file is followed.
    let main = copy(dir.path(), CODEX);
    let mut log = SessionLog::at_end(HookCli::Codex, &main);
    assert!(!log.is_fork());
    append(&main, TASK_STARTED);
    let got = log.poll().unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].status, AgentStatus::Working);
    // The record names no session: the file name does.
    assert_eq!(
        got[0].session_id.as_deref(),
        Some("0197a6b2-3c4d-7e8f-9a0b-1c2d3e4f5a6b")
    );
}

#[test]
fn session_ids_from_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            HookCli::Claude,
            CLAUDE,
            "{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n",
            Some("5b0c1f5e-8a51-4b8e-9a0e-2d6c7f1e3a44"),
        ),
        (
            HookCli::Copilot,
            COPILOT,
            "{\"type\":\"assistant.turn_start\",\"data\":{}}\n",
            Some("2f8e6a1c-54b7-4d0e-8c3a-9b1d7e2f4a60"),
        ),
        // Gemini's file name holds only a prefix of the id: none is made up.
        (
            HookCli::Gemini,
            GEMINI,
            "{\"type\":\"user\",\"content\":[{\"text\":\"hi\"}]}\n",
            None,
        ),
    ];
    for (cli, rel, record, want) in cases {
        let path = copy(dir.path(), rel);
        let mut log = SessionLog::at_end(cli, &path);
        append(&path, record);
        let got = log.poll().unwrap();
        assert_eq!(got.len(), 1, "{cli:?}");
        assert_eq!(got[0].session_id.as_deref(), want, "{cli:?}");
    }

    // Copilot's older flat layout, and a Codex name without a uuid.
    let flat = dir.path().join("flat/9d0f.jsonl");
    fs::create_dir_all(flat.parent().unwrap()).unwrap();
    let mut log = SessionLog::from_start(HookCli::Copilot, &flat);
    append(&flat, "{\"type\":\"assistant.turn_end\",\"data\":{}}\n");
    assert_eq!(log.poll().unwrap()[0].session_id.as_deref(), Some("9d0f"));
    let odd = dir.path().join("rollout-odd.jsonl");
    let mut log = SessionLog::from_start(HookCli::Codex, &odd);
    append(&odd, TASK_STARTED);
    assert_eq!(log.poll().unwrap()[0].session_id, None);
}

#[test]
fn a_whole_sample_through_a_tail_matches_classify() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path(), CLAUDE);
    let mut log = SessionLog::from_start(HookCli::Claude, &path);
    let got = log.poll().unwrap();
    let statuses: Vec<_> = got.iter().map(|s| s.status).collect();
    use AgentStatus::{Attention, Error, Idle, Working};
    assert_eq!(
        statuses,
        [Working, Working, Attention, Idle, Working, Idle, Error]
    );
    assert_eq!(log.cli(), HookCli::Claude);
    assert_eq!(log.path(), path);
}
