//! `wta history` as the history tests' user: its output, and its `--json`
//! entries (the listing's schema checked).

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)] // each test takes what it needs

use serde_json::Value;

use crate::pane_tui_common::Pane;

/// `wta history ARGS` as this test's user; stdout, asserting success.
pub fn history(pane: &Pane, args: &[&str]) -> String {
    let out = pane
        .env
        .command()
        .arg("history")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `wta history --json ARGS`'s entries.
pub fn entries(pane: &Pane, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let doc: Value = serde_json::from_str(&history(pane, &all)).unwrap();
    assert_eq!(doc["schema_version"], 2, "{doc}");
    doc["entries"].as_array().unwrap().clone()
}
