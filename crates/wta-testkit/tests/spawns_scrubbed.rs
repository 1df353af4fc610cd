//! Every process a test or bench starts goes through the testkit's scrubbed
//! environment (`wta_testkit::env`): `env::clean`, `Sandbox::command`, or a
//! fixture built on them. This test reads every `.rs` file under
//! `crates/*/tests/` and `crates/*/benches/` and names, as `file:line`, each
//! process `Command` built directly instead, unless the comment lines right
//! above it hold an `// unscrubbed: <reason>` (a child that must see the
//! runner's environment on purpose, such as the probe that proves the scrub).
//! `crates/wta-testkit/src` is the one place allowed to build them: it is
//! where the scrub lives.
//!
//! The needle is assembled at compile time so this file does not name itself.

use std::path::{Path, PathBuf};
use wta_testkit::source::rust_files;

/// What a direct spawn looks like in source.
const NEEDLE: &str = concat!("Command", "::", "new");
/// The comment that lets one through; a reason must follow it.
const EXCUSE: &str = "// unscrubbed:";

/// The 1-based lines of `src` that build a process `Command` with no
/// `// unscrubbed: <reason>` among the comment lines directly above.
fn unscrubbed_lines(src: &str) -> Vec<usize> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        if !spawns(code) {
            continue;
        }
        let excused = lines[..i]
            .iter()
            .rev()
            .map(|l| l.trim())
            .take_while(|l| l.starts_with("//"))
            .any(|l| {
                l.strip_prefix(EXCUSE)
                    .is_some_and(|reason| !reason.trim().is_empty())
            });
        if !excused {
            out.push(i + 1);
        }
    }
    out
}

/// Whether `code` names the needle as a whole path (not `…::new_thing`).
fn spawns(code: &str) -> bool {
    code.match_indices(NEEDLE).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + NEEDLE.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn every_test_and_bench_spawn_goes_through_the_scrub() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(workspace.join("crates"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    crates.retain(|d| d.join("Cargo.toml").is_file());
    crates.sort();
    let files: Vec<PathBuf> = crates
        .iter()
        .flat_map(|krate| {
            let mut files = rust_files(&krate.join("tests"));
            files.extend(rust_files(&krate.join("benches")));
            files
        })
        .collect();
    // The walk found the suite (so an empty list below means something).
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("wta/tests/support/mod.rs"))
            && files
                .iter()
                .any(|f| f.ends_with("wta/benches/cli_startup.rs")),
        "the workspace's tests and benches were not found under {}",
        workspace.display()
    );
    let mut found = Vec::new();
    for file in &files {
        let src = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let shown = file.strip_prefix(&workspace).unwrap_or(file).display();
        found.extend(
            unscrubbed_lines(&src)
                .into_iter()
                .map(|line| format!("{shown}:{line}")),
        );
    }
    assert!(
        found.is_empty(),
        "these start a process with the runner's environment; use \
         wta_testkit::env::clean (a tool that needs no HOME), Sandbox::command \
         (anything that reads HOME/XDG, such as wta) or a fixture built on them, \
         or put `{EXCUSE} <reason>` on the line above:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reader_finds_spawns_and_honours_the_excuse() {
    let n = NEEDLE;
    let src = format!(
        "let a = std::process::{n}(\"tmux\");\n\
         {EXCUSE} the probe must see the runner's env\n\
         let b = {n}(exe);\n\
         // several comment lines,\n\
         {EXCUSE} one of them the excuse,\n\
         // and more after it\n\
         let c = tokio::process::{n}(exe);\n\
         {EXCUSE}\n\
         let d = {n}(\"no reason given\");\n\
         {EXCUSE} not directly above\n\
         let x = 1;\n\
         let e = items.map({n});\n\
         let f = {n}_thing();\n\
         let g = My{n}();\n\
         let h = 2; // {n}( only in a comment\n"
    );
    assert_eq!(unscrubbed_lines(&src), vec![1, 9, 12]);
}
