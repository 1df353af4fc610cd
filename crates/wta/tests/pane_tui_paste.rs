//! A long bracketed paste in the agent pane, end to end: real tmux (private
//! server), real master and helper, the scripted test agent. tmux's
//! `paste-buffer -p` wraps the buffer in paste markers (the pane asked for
//! bracketed paste), so the helper reads it as one paste: the prompt shows
//! one chip, and Enter sends every line of it to the agent.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;

use pane_tui_common::{Pane, T};
use wta_testkit::wait_for_value;

/// 40 pasted lines: a shell here-document the test agent runs (`run …`),
/// writing its 38 body lines to a file. The screen shows `[Pasted 40
/// lines]`, never a pasted line; the file holds the body exactly.
#[test]
fn forty_pasted_lines_show_as_one_chip_and_all_reach_the_agent() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    let out = pane.env.path("pasted.txt");
    let body: Vec<String> = (1..=38)
        .map(|i| format!("body {i:02}: the quick brown fox {}", "~".repeat(i % 7)))
        .collect();
    let mut lines = vec![format!("run cat > '{}' <<'EOF'", out.display())];
    lines.extend(body.iter().cloned());
    lines.push("EOF".to_owned());
    assert_eq!(lines.len(), 40);
    let text = lines.join("\n");
    pane.tmux
        .tmux(&["set-buffer", "-b", "paste40", "--", &text]);
    pane.tmux
        .tmux(&["paste-buffer", "-p", "-b", "paste40", "-t", &pane.pane]);
    let screen = pane.wait_for("[Pasted 40 lines]");
    assert!(
        !screen.contains("body 01") && !screen.contains("quick brown"),
        "no pasted line is shown:\n{screen}"
    );
    pane.keys(&["Enter"]);
    pane.wait_for("ran with exit 0");
    let written =
        wait_for_value("the agent's file", T, || std::fs::read_to_string(&out).ok()).unwrap();
    assert_eq!(written, format!("{}\n", body.join("\n")));
}
