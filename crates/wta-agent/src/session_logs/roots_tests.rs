//! log_roots and session_files over a temp tree: layout per CLI, newest
//! first, the cap, depth bounds and what is not a session file.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use wta_protocol::agent_sessions::HookCli;

use super::{MAX_SESSION_FILES, log_roots, session_files};

/// Creates `rel` under `root` with an mtime `age_s` seconds in the past.
fn touch(root: &Path, rel: &str, age_s: u64) -> PathBuf {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = File::create(&path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(age_s))
        .unwrap();
    path
}

#[test]
fn roots_under_home() {
    let home = Path::new("/home/ada");
    assert_eq!(
        log_roots(home),
        vec![
            (HookCli::Claude, home.join(".claude/projects")),
            (HookCli::Copilot, home.join(".copilot/session-state")),
            (HookCli::Codex, home.join(".codex/sessions")),
            (HookCli::Gemini, home.join(".gemini/tmp")),
        ]
    );
}

#[test]
fn files_per_cli_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let claude_old = touch(r, "claude/-home-ada-a/11111111.jsonl", 300);
    let claude_new = touch(r, "claude/-home-ada-b/22222222.jsonl", 10);
    touch(r, "claude/-home-ada-a/agent-3333.jsonl", 1); // a sidechain file
    touch(r, "claude/-home-ada-a/11111111/subagents/agent-x.jsonl", 1); // too deep
    touch(r, "claude/-home-ada-a/notes.txt", 1);
    touch(r, "claude/top.jsonl", 1); // not in a project dir
    assert_eq!(
        session_files(&r.join("claude"), HookCli::Claude),
        [claude_new, claude_old]
    );

    let copilot_dir = touch(r, "copilot/aaaa/events.jsonl", 50);
    let copilot_flat = touch(r, "copilot/bbbb.jsonl", 5);
    touch(r, "copilot/aaaa/other.jsonl", 1);
    touch(r, "copilot/aaaa/workspace.yaml", 1);
    assert_eq!(
        session_files(&r.join("copilot"), HookCli::Copilot),
        [copilot_flat, copilot_dir]
    );

    let codex_a = touch(
        r,
        "codex/2025/06/13/rollout-2025-06-13T09-00-00-a.jsonl",
        90_000,
    );
    let codex_b = touch(
        r,
        "codex/2025/06/14/rollout-2025-06-14T09-00-00-b.jsonl",
        60,
    );
    touch(r, "codex/2025/06/14/history.jsonl", 1);
    touch(r, "codex/2025/06/rollout-misplaced.jsonl", 1);
    touch(r, "codex/2025/06/14/deeper/rollout-x.jsonl", 1);
    assert_eq!(
        session_files(&r.join("codex"), HookCli::Codex),
        [codex_b, codex_a]
    );

    let gemini = touch(
        r,
        "gemini/abc123/chats/session-2025-06-14T12-10-3b44bc68.jsonl",
        20,
    );
    touch(r, "gemini/abc123/logs.json", 1);
    touch(r, "gemini/abc123/chats/checkpoint-x.jsonl", 1);
    touch(r, "gemini/abc123/other/session-x.jsonl", 1);
    assert_eq!(session_files(&r.join("gemini"), HookCli::Gemini), [gemini]);

    assert_eq!(
        session_files(&r.join("claude"), HookCli::Opencode),
        Vec::<PathBuf>::new()
    );
    assert_eq!(
        session_files(&r.join("missing"), HookCli::Claude),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn at_most_the_cap_and_the_newest_ones() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let total = MAX_SESSION_FILES + 5;
    for i in 0..total {
        // File i is i minutes old.
        touch(r, &format!("p/{i:03}.jsonl"), 60 * i as u64 + 1);
    }
    let got = session_files(r, HookCli::Claude);
    assert_eq!(got.len(), MAX_SESSION_FILES);
    let want: Vec<PathBuf> = (0..MAX_SESSION_FILES)
        .map(|i| r.join(format!("p/{i:03}.jsonl")))
        .collect();
    assert_eq!(got, want);
}

#[cfg(unix)]
#[test]
fn symlinked_directories_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let outside = tempfile::tempdir().unwrap();
    touch(outside.path(), "s.jsonl", 1);
    std::os::unix::fs::symlink(outside.path(), r.join("linked")).unwrap();
    let real = touch(r, "real/s.jsonl", 5);
    assert_eq!(session_files(r, HookCli::Claude), [real]);
}
