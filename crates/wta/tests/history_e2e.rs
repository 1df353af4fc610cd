//! The action history end to end (issue 30): real tmux on a private
//! server, the real master and agent pane, real bash with WTA's
//! integration, the scripted test agent proposing. A card confirmed and a
//! card cancelled each leave one record, and `wta history` (table and
//! `--json`, `-n`, `--search`) shows them, newest last, with the decision,
//! the command, its exit status and the digest of its output; the file is
//! the user's alone.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod history_common;
mod pane_tui_common;

use std::os::unix::fs::MetadataExt;

use history_common::{entries, history};
use pane_tui_common::{T, integrated_pane_in};
use serde_json::Value;
use wta_testkit::wait_for_value;

#[test]
fn a_confirmed_and_a_cancelled_card_are_listed_with_their_results() {
    let pane = integrated_pane_in("bash");
    pane.submit("propose-run echo hist-$((40+2))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "hist-42", T);
    pane.wait_squeezed("action 1: the command succeeded");
    pane.submit("propose-run echo never-$((3*3))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Escape"]);
    pane.wait_squeezed("the proposal ended: cancelled.");

    let listed = wait_for_value("both decisions are in the history", T, || {
        let listed = entries(&pane, &[]);
        (listed.len() == 2).then_some(listed)
    })
    .unwrap();
    let window = pane.tmux.display(&pane.shell, "#{window_id}");
    let (run, cancelled) = (&listed[0], &listed[1]);
    assert_eq!(run["decision"], "confirmed", "{run}");
    assert_eq!(run["title"], "echo hist-$((40+2))", "{run}");
    assert_eq!(run["pane"], pane.shell.as_str(), "{run}");
    assert_eq!(run["tab"], window.as_str(), "{run}");
    assert_eq!(
        run["agent"].as_str().map(str::is_empty),
        Some(false),
        "{run}"
    );
    assert_eq!(
        run["host"].as_str().map(str::is_empty),
        Some(false),
        "{run}"
    );
    assert_eq!(run["remote"], false, "{run}");
    assert!(run["session_id"].is_string(), "{run}");
    let action = &run["actions"][0];
    assert_eq!(action["type"], "send", "{run}");
    assert_eq!(action["command"], "echo hist-$((40+2))", "{run}");
    assert_eq!(action["result"], "completed", "{run}");
    assert_eq!(action["exit_status"], 0, "{run}");
    assert!(action["duration_ms"].is_u64(), "{run}");
    let output = &action["output"];
    assert_eq!(output["head"], "hist-42", "{run}");
    assert_eq!(
        (output["bytes"].as_u64(), output["lines"].as_u64()),
        (Some(7), Some(1))
    );
    assert_eq!(output["sha256"].as_str().map(str::len), Some(64), "{run}");

    assert_eq!(cancelled["decision"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["actions"][0]["command"], "echo never-$((3*3))");
    assert!(
        cancelled["actions"][0].get("exit_status").is_none(),
        "{cancelled}"
    );
    assert_eq!(cancelled["session_id"], run["session_id"]);

    // Newest last, bounded, searched (any case).
    let last = entries(&pane, &["-n", "1"]);
    assert_eq!(last, vec![cancelled.clone()]);
    let found = entries(&pane, &["--search", "HIST-"]);
    assert_eq!(found, vec![run.clone()]);
    let table = history(&pane, &[]);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[0].starts_with("TIME"), "{table}");
    assert!(
        rows[1].contains("run") && rows[1].contains("echo hist-$((40+2))"),
        "{table}"
    );
    assert!(
        rows[2].contains("cancelled") && rows[2].contains("echo never-"),
        "{table}"
    );

    let file = pane.env.path("state/wta/history.jsonl");
    assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
}

#[test]
fn a_corrupt_line_is_skipped_with_a_warning() {
    let pane = integrated_pane_in("bash");
    pane.submit("propose-run echo kept-$((2*2))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Escape"]);
    let file = pane.env.path("state/wta/history.jsonl");
    wait_for_value("the record is written", T, || {
        std::fs::read_to_string(&file)
            .ok()
            .filter(|s| s.ends_with('\n'))
    })
    .unwrap();
    let mut text = std::fs::read(&file).unwrap();
    text.extend_from_slice(b"{\"version\":1,\"ti\xff\n");
    std::fs::write(&file, text).unwrap();
    let out = pane
        .env
        .command()
        .args(["history", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("skipped line 2 of"), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["entries"].as_array().map(Vec::len), Some(1), "{doc}");
    assert_eq!(
        doc["entries"][0]["actions"][0]["command"],
        "echo kept-$((2*2))"
    );
}
