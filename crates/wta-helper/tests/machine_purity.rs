//! The session machine (`src/machine/`) stays pure: no async runtime, no
//! I/O, and of this crate only the modules that are data. Its inputs and
//! commands may carry values of the pure modules listed in `ALLOWED`; the
//! I/O layer (`connection`, `runtime`, the proposal service and socket, the
//! executor's tasks, terminals, the CLI runs) is never named, so the
//! machine could move into a crate of its own that has no tokio
//! (DESIGN §3). Read from the sources: a `use` of a forbidden module fails
//! here naming the file and line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// Paths of this crate the machine may name (a prefix of `crate::…`).
const ALLOWED: &[&str] = &[
    "machine",
    // AutofixMode, the fix turn's record and `wta fix`'s reply token: data.
    "autofix::AutofixMode",
    "autofix::prompt",
    "autofix::request",
    // The proposal machine's value types (turn context, cards, claims).
    "proposals::types",
    // How an executed action ended (pure: built from tracker runs).
    "executor::outcome",
];

/// Paths outside this crate the machine must not name.
const FORBIDDEN: &[&str] = &[
    "tokio",
    "futures",
    "wta_host",
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "std::os",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            // The machine's own tests may build inputs any way they like.
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && !name.ends_with("_tests.rs") {
            out.push(path);
        }
    }
}

/// Every `crate::…` path and forbidden path named in `text`'s code (not
/// its comments), as (line number, what, the path).
fn violations(text: &str) -> Vec<(usize, &'static str, String)> {
    let mut found = Vec::new();
    let mut in_tests = false;
    for (n, line) in text.lines().enumerate() {
        // The code before any comment (a `//` inside a string cuts the
        // line short: it can hide nothing worse than the rest of a string).
        let code = line.trim_start();
        let code = code.find("//").map_or(code, |at| &code[..at]);
        // Unit tests at the bottom of a file are the file's own business.
        if code.starts_with("#[cfg(test)]") {
            in_tests = true;
        }
        if in_tests {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let path: String = tail
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let preceded = rest[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !preceded && !ALLOWED.iter().any(|a| path.starts_with(a)) {
                found.push((n + 1, "names the crate's I/O module", path.clone()));
            }
            rest = &tail[path.len().max(1).min(tail.len())..];
        }
        for bad in FORBIDDEN {
            let mut from = 0;
            while let Some(at) = code[from..].find(bad) {
                let start = from + at;
                let before = code[..start].chars().last();
                let after = code[start + bad.len()..].chars().next();
                let word = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                    && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                if word {
                    found.push((n + 1, "names an I/O crate or module", (*bad).to_owned()));
                }
                from = start + bad.len();
            }
        }
    }
    found
}

#[test]
fn the_session_machine_names_no_io_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/machine");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 10, "the machine's files: {files:?}");
    let mut all = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, what, path) in violations(&text) {
            all.push(format!("{}:{line}: {what}: {path}", file.display()));
        }
    }
    assert!(all.is_empty(), "\n{}", all.join("\n"));
}

/// The reader itself: what it reports and what it lets through.
#[test]
fn the_reader_finds_io_paths_in_code_only() {
    let text = "use crate::connection::ConnectionError;\n\
                use super::x; // crate::runtime in a comment is fine\n\
                /// `crate::runtime` in docs too\n\
                let a = crate::autofix::AutofixMode::Off;\n\
                use crate::proposals::{service::ProposalService};\n\
                tokio::spawn(f);\n\
                let my_tokio_like = 1;\n\
                std::fs::read(p);\n\
                use crate::proposals::types::TurnContext;\n\
                #[cfg(test)]\n\
                mod tests { use crate::runtime::Runtime; }\n";
    let got: Vec<(usize, String)> = violations(text)
        .into_iter()
        .map(|(n, _, p)| (n, p))
        .collect();
    assert_eq!(
        got,
        [
            (1, "connection::ConnectionError".to_owned()),
            (5, "proposals::".to_owned()),
            (6, "tokio".to_owned()),
            (8, "std::fs".to_owned()),
        ]
    );
}
