//! Compiles `locales/<domain>/<locale>.yml` into one static table
//! (`$OUT_DIR/catalog.rs`): the flattened keys sorted, and for each locale
//! its text of every key (English where a locale lacks one), as spans of
//! one text blob. A lookup is a binary search over the keys' spans: nothing
//! is allocated, built or relocated at run time, so an idle process holds
//! no copy of eight languages' text (the hash maps a runtime catalog builds
//! cost the agent pane about half a MiB).
//!
//! A file that is not YAML, a value that is not text, or a key defined
//! twice fails the build with the file named.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The source language and the fallback of every other.
const SOURCE: &str = "en";

type Texts = BTreeMap<String, String>;

fn main() {
    println!("cargo:rerun-if-changed=locales");
    // Read when the script runs (cargo sets it then), not baked in when it
    // was compiled: one compiled script can serve checkouts at other paths.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let root = Path::new(&manifest).join("locales");
    let catalogs = match read_catalogs(&root) {
        Ok(catalogs) => catalogs,
        Err(message) => panic!("wta-i18n locales: {message}"),
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("catalog.rs");
    if let Err(err) = std::fs::write(&out, generate(&catalogs)) {
        panic!("cannot write {}: {err}", out.display());
    }
}

/// Every locale's flattened keys over every domain folder.
fn read_catalogs(root: &Path) -> Result<BTreeMap<String, Texts>, String> {
    let mut catalogs: BTreeMap<String, Texts> = BTreeMap::new();
    let mut domains: Vec<PathBuf> = entries(root)?.into_iter().filter(|p| p.is_dir()).collect();
    domains.sort();
    for domain in domains {
        println!("cargo:rerun-if-changed={}", domain.display());
        let mut files: Vec<PathBuf> = entries(&domain)?
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "yml"))
            .collect();
        files.sort();
        for file in files {
            println!("cargo:rerun-if-changed={}", file.display());
            let Some(locale) = file.file_stem().and_then(|s| s.to_str()) else {
                return Err(format!("{}: not a locale file name", file.display()));
            };
            let text = std::fs::read_to_string(&file)
                .map_err(|err| format!("{}: {err}", file.display()))?;
            let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text)
                .map_err(|err| format!("{}: {err}", file.display()))?;
            let texts = catalogs.entry(locale.to_owned()).or_default();
            flatten("", &value, texts).map_err(|err| format!("{}: {err}", file.display()))?;
        }
    }
    if !catalogs.contains_key(SOURCE) {
        return Err(format!("no {SOURCE}.yml in {}", root.display()));
    }
    Ok(catalogs)
}

fn entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let read = std::fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    read.map(|entry| {
        entry
            .map(|e| e.path())
            .map_err(|err| format!("{}: {err}", dir.display()))
    })
    .collect()
}

/// Adds every leaf of `value` under `prefix` (`status.ready`) to `out`.
fn flatten(prefix: &str, value: &serde_yaml_ng::Value, out: &mut Texts) -> Result<(), String> {
    match value {
        serde_yaml_ng::Value::Mapping(map) => {
            for (key, inner) in map {
                let Some(key) = key.as_str() else {
                    return Err(format!("a key under {prefix:?} is not text"));
                };
                let full = if prefix.is_empty() {
                    key.to_owned()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&full, inner, out)?;
            }
            Ok(())
        }
        serde_yaml_ng::Value::String(text) => match out.insert(prefix.to_owned(), text.clone()) {
            Some(_) => Err(format!("{prefix} is defined twice")),
            None => Ok(()),
        },
        _ => Err(format!("{prefix} is not text")),
    }
}

/// One text blob and spans into it: `KEYS` (sorted), `LOCALE_TAGS` and
/// `TEXTS[locale][key]`. Spans are plain integers, so the tables need no
/// load-time relocation and no page of them is touched until a lookup
/// reads it (a table of `&str`s would be rewritten by the loader at every
/// start).
fn generate(catalogs: &BTreeMap<String, Texts>) -> String {
    let source = &catalogs[SOURCE];
    let keys: Vec<&String> = source.keys().collect();
    let mut blob = String::new();
    let mut span = |text: &str| {
        let start = blob.len();
        blob.push_str(text);
        format!("({start}, {})", text.len())
    };
    let key_spans: Vec<String> = keys.iter().map(|key| span(key)).collect();
    let text_spans: Vec<Vec<String>> = catalogs
        .values()
        .map(|texts| {
            keys.iter()
                .map(|key| span(texts.get(*key).unwrap_or(&source[*key])))
                .collect()
        })
        .collect();
    let mut code = String::new();
    let _ = writeln!(code, "/// Every key and text, one after another.");
    let _ = writeln!(code, "static BLOB: &str = {blob:?};");
    let _ = writeln!(code, "/// Every key's span in `BLOB`, sorted by key.");
    let _ = writeln!(code, "static KEYS: [(u32, u32); {}] = [", keys.len());
    for key in &key_spans {
        let _ = writeln!(code, "    {key},");
    }
    let _ = writeln!(code, "];");
    let _ = writeln!(code, "/// The locales compiled in, in `TEXTS` order.");
    let _ = writeln!(
        code,
        "pub(crate) static LOCALE_TAGS: [&str; {}] = [",
        catalogs.len()
    );
    for locale in catalogs.keys() {
        let _ = writeln!(code, "    {locale:?},");
    }
    let _ = writeln!(code, "];");
    let _ = writeln!(
        code,
        "/// Each locale's text of each key (English where it has none)."
    );
    let _ = writeln!(
        code,
        "static TEXTS: [[(u32, u32); {}]; {}] = [",
        keys.len(),
        catalogs.len()
    );
    for spans in &text_spans {
        let _ = writeln!(code, "    [{}],", spans.join(", "));
    }
    let _ = writeln!(code, "];");
    code
}
