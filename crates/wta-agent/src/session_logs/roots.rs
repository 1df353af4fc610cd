//! Where each agent CLI keeps its session logs, and finding the candidate
//! files under one root.
//!
//! | CLI | root | session files |
//! |---|---|---|
//! | Claude | `~/.claude/projects` | `<slug>/<session-id>.jsonl` (not `agent-*.jsonl` sidechains, not `<session>/subagents/…`) |
//! | Copilot | `~/.copilot/session-state` | `<session-id>/events.jsonl`, or the older `<session-id>.jsonl` |
//! | Codex | `~/.codex/sessions` | `YYYY/MM/DD/rollout-*.jsonl` |
//! | Gemini | `~/.gemini/tmp` | `<project-hash>/chats/session-*.jsonl` |
//! | Opencode | — | none (a SQLite store) |
//!
//! The walk is bounded: it goes only as deep as the layout above, never
//! follows a symlinked directory, stops after [`MAX_WALK_ENTRIES`] directory
//! entries, and returns the [`MAX_SESSION_FILES`] newest by mtime. Unreadable
//! directories are skipped (a log directory is someone else's).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use wta_protocol::agent_sessions::HookCli;

/// The most files [`session_files`] returns.
pub const MAX_SESSION_FILES: usize = 64;
/// The most directory entries one [`session_files`] walk looks at.
const MAX_WALK_ENTRIES: usize = 20_000;

/// Each CLI's log root under `home` (existing or not), in [`HookCli::ALL`] order.
/// Opencode has none.
pub fn log_roots(home: &Path) -> Vec<(HookCli, PathBuf)> {
    HookCli::ALL
        .into_iter()
        .filter_map(|cli| {
            let rel = match cli {
                HookCli::Claude => ".claude/projects",
                HookCli::Copilot => ".copilot/session-state",
                HookCli::Codex => ".codex/sessions",
                HookCli::Gemini => ".gemini/tmp",
                HookCli::Opencode => return None,
            };
            Some((cli, home.join(rel)))
        })
        .collect()
}

/// The session log files of `cli` under `root`, newest first, at most
/// [`MAX_SESSION_FILES`]. A missing root gives none.
pub fn session_files(root: &Path, cli: HookCli) -> Vec<PathBuf> {
    let depth = match cli {
        HookCli::Claude | HookCli::Copilot => 2,
        HookCli::Gemini => 3,
        HookCli::Codex => 4,
        HookCli::Opencode => return Vec::new(),
    };
    let mut found = Vec::new();
    let mut budget = MAX_WALK_ENTRIES;
    walk(root, root, cli, depth, &mut budget, &mut found);
    // Newest first; ties by path so the order is stable.
    found.sort_by(|(a_time, a), (b_time, b)| b_time.cmp(a_time).then_with(|| a.cmp(b)));
    found.truncate(MAX_SESSION_FILES);
    found.into_iter().map(|(_, path)| path).collect()
}

fn walk(
    root: &Path,
    dir: &Path,
    cli: HookCli,
    depth_left: usize,
    budget: &mut usize,
    found: &mut Vec<(SystemTime, PathBuf)>,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        // `DirEntry::file_type` does not follow symlinks.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if depth_left > 1 {
                walk(root, &path, cli, depth_left - 1, budget, found);
            }
        } else if kind.is_file()
            && is_session_file(cli, root, &path)
            && let Ok(modified) = entry.metadata().and_then(|m| m.modified())
        {
            found.push((modified, path));
        }
    }
}

/// Whether `path` (a file under `root`) has the shape of `cli`'s session log.
fn is_session_file(cli: HookCli, root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let parts: Vec<&str> = rel.iter().filter_map(|p| p.to_str()).collect();
    let Some(&name) = parts.last() else {
        return false;
    };
    if !name.ends_with(".jsonl") || parts.len() != rel.iter().count() {
        return false;
    }
    match cli {
        HookCli::Claude => parts.len() == 2 && !name.starts_with("agent-"),
        HookCli::Copilot => parts.len() == 1 || (parts.len() == 2 && name == "events.jsonl"),
        HookCli::Codex => parts.len() == 4 && name.starts_with("rollout-"),
        HookCli::Gemini => parts.len() == 3 && parts[1] == "chats" && name.starts_with("session-"),
        HookCli::Opencode => false,
    }
}
