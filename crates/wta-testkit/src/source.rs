//! The workspace's own source files, for tests that read the code itself
//! (no orphaned test modules, no unscrubbed spawns, every variable in the
//! manual).

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`, sorted; an unreadable directory is
/// passed over.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
