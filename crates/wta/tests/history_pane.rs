//! `/history` and `/export` in a real agent pane (issue 30): real tmux on
//! a private server, the real master and helper, bash with WTA's
//! integration, the scripted test agent. `/history` lists a decided card
//! and Enter makes it a new card that has not run (the shell never sees
//! the command until the user confirms, and then it runs as any card);
//! Esc closes the picker. `/export FILE` writes the transcript as
//! Markdown in the pane's directory, with the user's prompt and the
//! agent's reply, and says where.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod pane_tui_common;

use pane_tui_common::{T, integrated_pane_in};
use wta_testkit::{squeezed, wait_for_value, wait_until};

#[test]
fn enter_on_a_history_entry_proposes_it_again_and_nothing_runs_by_itself() {
    let pane = integrated_pane_in("bash");
    pane.submit("propose-run echo again-$((5+5))");
    pane.wait_armed_card(" Run ");
    pane.keys(&["Escape"]);
    pane.wait_squeezed("the proposal ended: cancelled.");
    let file = pane.env.path("state/wta/history.jsonl");
    wait_until("the cancelled card is recorded", T, || {
        std::fs::read_to_string(&file).is_ok_and(|s| s.contains("again-"))
    })
    .unwrap();

    // Esc closes the picker and asks nothing.
    pane.submit("/history");
    pane.wait_squeezed("Action history");
    pane.keys(&["Escape"]);
    wait_until("the picker closes", T, || {
        !squeezed(&pane.screen()).contains("Actionhistory")
    })
    .unwrap();

    pane.submit("/history");
    let picker = pane.wait_squeezed("Action history");
    assert!(
        squeezed(&picker).contains(&squeezed("echo again-$((5+5))")),
        "{picker}"
    );
    assert!(squeezed(&picker).contains("cancelled"), "{picker}");
    pane.keys(&["Enter"]);
    let card = pane.wait_armed_card(" Run ");
    assert!(card.contains("echo again-$((5+5))"), "{card}");
    assert!(
        !pane.shell_screen().contains("again-10"),
        "{}",
        pane.shell_screen()
    );
    // Confirmed, it runs like any card and is recorded again.
    pane.keys(&["Enter"]);
    pane.tmux.wait_for_text(&pane.shell, "again-10", T);
    pane.wait_squeezed(&format!("Action 1: {} completed (exit 0)", pane.shell));
    wait_for_value("the re-proposal is recorded as run", T, || {
        let text = std::fs::read_to_string(&file).ok()?;
        text.lines()
            .any(|l| l.contains("\"decision\":\"confirmed\"") && l.contains("again-"))
            .then_some(())
    })
    .unwrap();
}

#[test]
fn export_writes_the_prompt_and_the_reply_as_markdown() {
    let pane = integrated_pane_in("bash");
    pane.submit("echo hello from the export");
    pane.wait_for("• hello from the export");
    pane.submit("/export talk.md");
    let path = pane.env.path("talk.md");
    pane.wait_squeezed(&format!("Transcript written to {}", path.display()));
    let md = std::fs::read_to_string(&path).unwrap();
    let prompt = md.find("## You\n\necho hello from the export").expect(&md);
    let reply = md.find("## Agent\n\nhello from the export").expect(&md);
    assert!(prompt < reply, "{md}");
    assert!(md.starts_with("# Agent pane transcript\n"), "{md}");
}
