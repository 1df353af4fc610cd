//! `delegate: true` end to end: the `[delegate]` agent CLI from the config
//! file starts in a new tab with the task, after the user confirms the card.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pane_tui_common;

use pane_tui_common::{Env, Pane, T};
use wta_testkit::{squeezed, wait_for_value, wait_until};

const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"Hand it to the delegate","rationale":"It is a long task.","actions":[{"type":"open_and_send","target":"tab","input":"fix the flaky tests","delegate":true}]}]}"#;

#[test]
fn a_confirmed_delegate_choice_starts_the_configured_agent_with_the_task() {
    let env = Env::with_config(
        // `sh -c` takes no end of options: the task is its `$0`.
        "[delegate]\nname = \"fake-delegate\"\nargv = [\"/bin/sh\", \"-c\", \"echo delegated: \\\"$0\\\"; exec sleep 600\"]\nend_of_options = \"\"\n",
    );
    let pane = Pane::open_in(env, "custom:test");
    pane.wait_ready();
    pane.submit(&format!("propose {PAYLOAD}"));
    let card = pane.wait_card("Run");
    assert!(card.contains("Hand it to the delegate"), "{card}");
    assert!(squeezed(&card).contains("fake-delegate"), "{card}");
    pane.keys(&["Enter"]);
    let delegated = wait_for_value("a pane running the delegate", T, || {
        let panes = pane.tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
        panes
            .lines()
            .find(|p| {
                pane.tmux
                    .capture(p)
                    .contains("delegated: fix the flaky tests")
            })
            .map(str::to_owned)
    })
    .unwrap_or_else(|e| panic!("{e}; agent pane:\n{}", pane.screen()));
    assert_ne!(
        pane.tmux.display(&delegated, "#{window_id}"),
        pane.tmux.display(&pane.pane, "#{window_id}"),
        "a new tab"
    );
}

#[test]
fn without_a_configured_delegate_the_proposal_is_rejected_at_validation() {
    let pane = Pane::open_in(Env::new(), "custom:test");
    pane.wait_ready();
    pane.submit(&format!("propose {PAYLOAD}"));
    wait_until("the rejection", T, || {
        squeezed(&pane.screen()).contains("rejected")
    })
    .unwrap_or_else(|e| panic!("{e}:\n{}", pane.screen()));
    let screen = pane.screen();
    assert!(
        !screen.contains(" Run ") && !screen.contains(" Open "),
        "no card:\n{screen}"
    );
}
