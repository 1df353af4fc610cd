//! The action history of a command that outlived its proposal's time
//! limit, end to end (issue 30): real tmux on a private server, the real
//! master and agent pane, bash with WTA's integration, the scripted test
//! agent, and `[execution] timeout_secs = 1` with a card running
//! `sleep 3; …; false`. While it runs, `wta history --json` has it
//! `timed_out`; once it ended, the same entry (one per proposal, its time
//! and decision kept) says `failed`, exit code 1, its duration and output
//! digest, and `ended_after_limit`. The file holds both records
//! (append-only); the table shows the one entry with exit code 1.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod history_common;
mod pane_tui_common;

use history_common::{entries, history};
use pane_tui_common::{Env, Pane, T, integrated_pane_on};
use serde_json::Value;
use wta_testkit::wait_for_value;

const CONFIG: &str = "[execution]\ntimeout_secs = 1\n";

/// The only entry, once its first action's `result` is `want`.
fn entry_with_result(pane: &Pane, want: &str) -> Value {
    wait_for_value(&format!("the history's entry is {want}"), T, || {
        let listed = entries(pane, &[]);
        match listed.as_slice() {
            [one] if one["actions"][0]["result"] == want => Some(one.clone()),
            _ => None,
        }
    })
    .unwrap_or_else(|e| panic!("{e}; history: {:?}", entries(pane, &[])))
}

#[test]
fn a_command_that_ended_after_its_limit_is_listed_with_its_final_result() {
    let pane = integrated_pane_on(Env::with_config(CONFIG), "bash", "custom:test");
    let command = "sleep 3; echo hist-l\"\"ate; false";
    pane.submit(&format!("propose-run {command}"));
    pane.wait_armed_card(" Run ");
    pane.keys(&["Enter"]);
    pane.wait_squeezed(
        "action 1: timed_out: still running when the proposal's execution time limit",
    );

    // At the limit the card's record is written: timed out, still running.
    let early = entry_with_result(&pane, "timed_out");
    let action = &early["actions"][0];
    assert!(action.get("exit_status").is_none(), "{early}");
    assert!(action.get("ended_after_limit").is_none(), "{early}");
    assert_eq!(early["decision"], "confirmed", "{early}");

    // It ends: the same entry now has its final result.
    pane.tmux.wait_for_text(&pane.shell, "hist-late", T);
    let entry = entry_with_result(&pane, "failed");
    assert_eq!(entry["proposal_id"], early["proposal_id"], "{entry}");
    assert_eq!(entry["time"], early["time"], "{entry}");
    assert_eq!(entry["decision"], "confirmed", "{entry}");
    assert_eq!(entry["pane"], pane.shell.as_str(), "{entry}");
    let action = &entry["actions"][0];
    assert_eq!(action["command"], command, "{entry}");
    assert_eq!(action["exit_status"], 1, "{entry}");
    assert_eq!(action["ended_after_limit"], true, "{entry}");
    let ran = action["duration_ms"].as_u64().unwrap();
    assert!((3000..60_000).contains(&ran), "{entry}");
    let output = &action["output"];
    assert_eq!(output["head"], "hist-late", "{entry}");
    assert_eq!(
        (output["bytes"].as_u64(), output["lines"].as_u64()),
        (Some(9), Some(1)),
        "{entry}"
    );
    assert_eq!(output["sha256"].as_str().map(str::len), Some(64), "{entry}");

    // Append-only: the file keeps both records of the proposal.
    let file = std::fs::read_to_string(pane.env.path("state/wta/history.jsonl")).unwrap();
    let ids: Vec<Value> = file
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["proposal_id"].clone())
        .collect();
    assert_eq!(ids, vec![early["proposal_id"].clone(); 2], "{file}");

    // The table: one row, exit code 1.
    let table = history(&pane, &[]);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 2, "{table}");
    let cells: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(cells.get(2), Some(&"1"), "{table}");
}
