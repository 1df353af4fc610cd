//! No dead source files: every `.rs` file of every workspace crate (under
//! `src/`, `tests/`, `benches/`, `examples/`) is a target root or reachable
//! from one through `mod x;` / `#[path = "…"] mod x;` declarations. A file no
//! `mod` names is never compiled, so its tests never run and clippy and fmt
//! never see it; this test names such files.
//!
//! The reader is deliberately small: it strips comments, strings and char
//! literals, follows file modules through inline `mod x { … }` blocks, and
//! resolves paths the way rustc does (`x.rs` or `x/mod.rs` beside a `mod.rs`
//! or crate root, `foo/x.rs` below a `foo.rs`; `#[path]` relative to the
//! declaring file's directory). `cfg` is ignored: a module under
//! `#[cfg(test)]` counts as reachable, which is what matters here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use wta_testkit::source::rust_files;

/// One token of Rust source, with comments, literals' contents and
/// whitespace gone (string literals keep their text for `#[path]`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
}

/// The tokens of `src` that matter for module declarations.
fn tokens(src: &str) -> Vec<Tok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some((text, end)) = raw_string(&chars, i) {
            out.push(Tok::Str(text));
            i = end;
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') || (c == 'c' && at(i + 1) == '"') {
            i += if c == '"' { 1 } else { 2 };
            let mut text = String::new();
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                text.push(at(i));
                i += 1;
            }
            out.push(Tok::Str(text));
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\'') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(Tok::Ident(
                word.strip_prefix("r#").unwrap_or(&word).to_owned(),
            ));
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// A raw (byte) string starting at `i`: its text and the index after it.
fn raw_string(chars: &[char], i: usize) -> Option<(String, usize)> {
    let mut j = i;
    if chars.get(j) == Some(&'b') || chars.get(j) == Some(&'c') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|c| **c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    // An identifier ending in `r`/`br` directly before `"` is not possible
    // in Rust, so this is a raw string.
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    j += 1;
    let start = j;
    loop {
        if j >= chars.len() {
            return Some((chars[start..].iter().collect(), j));
        }
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == '#')
                .count()
                == hashes
        {
            return Some((chars[start..j].iter().collect(), j + 1 + hashes));
        }
        j += 1;
    }
}

/// A file module declared in a source file: its name, the inline modules it
/// sits in, and its `#[path]` if any.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ModDecl {
    name: String,
    inline: Vec<String>,
    path: Option<String>,
}

/// The file modules `src` declares (`mod x;`, with a `#[path]` before it).
fn mod_decls(src: &str) -> Vec<ModDecl> {
    let toks = tokens(src);
    let mut decls = Vec::new();
    // One entry per open brace: the inline module it opens, if any.
    let mut braces: Vec<Option<String>> = Vec::new();
    let mut path: Option<String> = None;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('#') => {
                // `#[path = "…"]` (or `#![…]`): read to the closing bracket.
                let mut j = i + 1;
                if toks.get(j) == Some(&Tok::Punct('!')) {
                    j += 1;
                }
                if toks.get(j) == Some(&Tok::Punct('[')) {
                    if let (Some(Tok::Ident(k)), Some(Tok::Punct('=')), Some(Tok::Str(p))) =
                        (toks.get(j + 1), toks.get(j + 2), toks.get(j + 3))
                        && k == "path"
                    {
                        path = Some(p.clone());
                    }
                    let mut depth = 0;
                    while j < toks.len() {
                        match toks[j] {
                            Tok::Punct('[') => depth += 1,
                            Tok::Punct(']') => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    i = j;
                }
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    let inline = braces.iter().flatten().cloned().collect();
                    match toks.get(i + 2) {
                        Some(Tok::Punct(';')) => {
                            decls.push(ModDecl {
                                name: name.clone(),
                                inline,
                                path: path.take(),
                            });
                            i += 2;
                        }
                        Some(Tok::Punct('{')) => {
                            braces.push(Some(name.clone()));
                            path = None;
                            i += 2;
                        }
                        _ => {}
                    }
                }
            }
            Tok::Punct('{') => {
                braces.push(None);
                path = None;
            }
            Tok::Punct('}') => {
                braces.pop();
                path = None;
            }
            Tok::Punct(';') => path = None,
            _ => {}
        }
        i += 1;
    }
    decls
}

/// Whether `file` owns a directory of the same level for its children
/// (`lib.rs`, `main.rs`, `mod.rs`, or a target root such as `tests/x.rs`).
fn is_mod_rs(file: &Path, roots: &BTreeSet<PathBuf>) -> bool {
    roots.contains(file)
        || matches!(
            file.file_name().and_then(|n| n.to_str()),
            Some("mod.rs" | "lib.rs" | "main.rs")
        )
}

/// The files `decl` in `file` may name (rustc takes the first that exists).
fn candidates(file: &Path, decl: &ModDecl, roots: &BTreeSet<PathBuf>) -> Vec<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut base = dir.clone();
    if !is_mod_rs(file, roots)
        && let Some(stem) = file.file_stem()
    {
        base.push(stem);
    }
    for inline in &decl.inline {
        base.push(inline);
    }
    match &decl.path {
        // Outside inline modules `#[path]` is relative to the file's own
        // directory; inside them, to the inline modules' directory.
        Some(path) if decl.inline.is_empty() => vec![dir.join(path)],
        Some(path) => vec![base.join(path)],
        None => vec![
            base.join(format!("{}.rs", decl.name)),
            base.join(&decl.name).join("mod.rs"),
        ],
    }
}

/// Normalises `a/b/../c` to `a/c` without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The target roots of the crate in `krate`: `src/lib.rs`, `src/main.rs`,
/// `src/bin/*`, the top-level files (or `*/main.rs`) of `tests/`, `benches/`
/// and `examples/`, `build.rs`, and every `path = "….rs"` of its Cargo.toml.
fn roots(krate: &Path) -> BTreeSet<PathBuf> {
    let mut roots = BTreeSet::new();
    for file in ["src/lib.rs", "src/main.rs", "build.rs"] {
        roots.insert(krate.join(file));
    }
    for dir in ["src/bin", "tests", "benches", "examples"] {
        let Ok(entries) = std::fs::read_dir(krate.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                roots.insert(path.join("main.rs"));
            } else if path.extension().is_some_and(|e| e == "rs") {
                roots.insert(path);
            }
        }
    }
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap_or_default();
    for line in manifest.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        if key.trim() == "path" && value.ends_with(".rs") {
            roots.insert(normalise(&krate.join(value)));
        }
    }
    roots.into_iter().filter(|p| p.is_file()).collect()
}

/// The source files of the crate in `krate` that no root reaches.
fn orphans(krate: &Path) -> Vec<PathBuf> {
    let krate = &normalise(krate);
    let roots = roots(krate);
    let mut reached: BTreeSet<PathBuf> = BTreeSet::new();
    let mut todo: Vec<PathBuf> = roots.iter().cloned().collect();
    while let Some(file) = todo.pop() {
        if !reached.insert(file.clone()) {
            continue;
        }
        let src = std::fs::read_to_string(&file).unwrap_or_default();
        for decl in mod_decls(&src) {
            let found = candidates(&file, &decl, &roots)
                .into_iter()
                .map(|p| normalise(&p))
                .find(|p| p.is_file());
            if let Some(found) = found {
                todo.push(found);
            }
        }
    }
    ["src", "tests", "benches", "examples"]
        .iter()
        .flat_map(|dir| rust_files(&krate.join(dir)))
        .filter(|f| !reached.contains(f))
        .collect()
}

/// The workspace's crate directories (`crates/*` with a Cargo.toml).
fn crates() -> Vec<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(workspace.join("crates"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.retain(|d| d.join("Cargo.toml").is_file());
    dirs.sort();
    dirs
}

#[test]
fn every_source_file_is_reachable_from_a_mod_declaration() {
    let crates = crates();
    assert!(
        crates.len() >= 10 && crates.iter().any(|c| c.ends_with("wta-testkit")),
        "the workspace's crates were not found: {crates:?}"
    );
    let orphans: Vec<String> = crates
        .iter()
        .flat_map(|krate| orphans(krate))
        .map(|p| normalise(&p).display().to_string())
        .collect();
    assert!(
        orphans.is_empty(),
        "these files are declared by no `mod` (never compiled, never tested):\n{}",
        orphans.join("\n")
    );
}

/// Writes `files` (path, text) under a fresh temp dir.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    for (path, text) in files {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{parent:?}: {e}"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    }
    dir
}

fn names(krate: &Path) -> Vec<String> {
    orphans(krate)
        .iter()
        .map(|p| p.strip_prefix(krate).unwrap_or(p).display().to_string())
        .collect()
}

#[test]
fn the_reader_follows_rustc_module_paths() {
    let krate = tree(&[
        (
            "Cargo.toml",
            "[[bin]]\nname = \"x\"\npath = \"src/tool.rs\"\n",
        ),
        (
            "src/lib.rs",
            "pub mod a;\nmod b;\n#[cfg(test)]\n#[path = \"lib_tests.rs\"]\nmod tests;\n\
             mod inline { pub mod deep; }\n",
        ),
        (
            "src/a.rs",
            "mod child;\n#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n",
        ),
        ("src/a/child.rs", "fn f() -> char { '{' }\n"),
        ("src/a_tests.rs", ""),
        ("src/b/mod.rs", "mod c;\n"),
        ("src/b/c.rs", ""),
        ("src/lib_tests.rs", ""),
        ("src/inline/deep.rs", ""),
        ("src/tool.rs", "mod tool_part;\n"),
        ("src/tool_part.rs", ""),
        ("src/bin/other.rs", ""),
        (
            "tests/t.rs",
            "mod common;\n#[path = \"shared/x.rs\"]\nmod x;\n",
        ),
        ("tests/common/mod.rs", ""),
        ("tests/shared/x.rs", ""),
    ]);
    assert_eq!(names(krate.path()), Vec::<String>::new());
}

#[test]
fn files_no_mod_names_are_orphans() {
    let krate = tree(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        (
            "src/lib.rs",
            "// mod commented;\n/* mod blocked; */\nconst S: &str = \"mod quoted;\";\n\
             const R: &str = r#\"mod raw;\"#;\nmod a;\n",
        ),
        ("src/a.rs", "fn f<'a>(x: &'a str) -> &'a str { x }\n"),
        ("src/a_tests.rs", "#[test]\nfn never_compiled() {}\n"),
        ("src/commented.rs", ""),
        ("src/blocked.rs", ""),
        ("src/quoted.rs", ""),
        ("src/raw.rs", ""),
        ("tests/helpers/unused.rs", ""),
    ]);
    assert_eq!(
        names(krate.path()),
        [
            "src/a_tests.rs",
            "src/blocked.rs",
            "src/commented.rs",
            "src/quoted.rs",
            "src/raw.rs",
            "tests/helpers/unused.rs",
        ]
    );
}
