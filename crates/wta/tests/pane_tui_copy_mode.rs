//! The keyboard select mode in the agent pane, end to end: real tmux
//! (private server), real master and helper, the scripted test agent. Alt+V
//! enters the mode, `/` and `n` find a line of the agent's reply, `V` selects it
//! and `y` copies it: the text lands in the tmux buffer (`show-buffer`),
//! the copy path the mouse selection uses.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;

use pane_tui_common::{Pane, T};
use wta_testkit::wait_until;

#[test]
fn a_transcript_line_found_and_copied_in_select_mode_is_in_the_tmux_buffer() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    pane.submit("echo copy me 4242 then stop");
    pane.submit("echo a later line");
    pane.wait_for_all(&["• copy me 4242 then stop", "• a later line"]);
    pane.keys(&["M-v"]);
    pane.wait_for("SELECT");
    pane.keys(&["/"]);
    pane.tmux
        .tmux(&["send-keys", "-t", &pane.pane, "-l", "--", "4242"]);
    pane.wait_for("/4242");
    pane.keys(&["Enter"]);
    // From the last line the search wraps to the first match, the prompt;
    // n goes on to the reply.
    pane.wait_for("“4242” 1 of 2");
    pane.keys(&["n"]);
    pane.wait_for("“4242” 2 of 2");
    pane.keys(&["V"]);
    pane.wait_for("SELECT lines");
    pane.keys(&["y"]);
    let buffer = || pane.tmux.try_tmux(&["show-buffer"]).unwrap_or_default();
    wait_until("the copied line in the tmux buffer", T, || {
        buffer().trim_end_matches('\n') == "• copy me 4242 then stop"
    })
    .unwrap_or_else(|e| panic!("{e}; buffer: {:?}\n{}", buffer(), pane.screen()));
    let screen = pane.wait_for("Ready");
    assert!(!screen.contains("SELECT"), "y left the mode:\n{screen}");
}
