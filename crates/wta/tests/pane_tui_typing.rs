//! Typing into the agent pane without bracketed paste, end to end: real tmux
//! (private server), real master and helper, the scripted test agent. Keys go
//! in with `send-keys -l` (tmux writes them as typed input, no paste markers),
//! so the helper reads them as thousands of key events.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod pane_tui_common;

use pane_tui_common::Pane;

/// 5,000 characters typed in one go all reach the editor and the Enter after
/// them sends the prompt, with no further key to wake the pane up. (The
/// terminal reader once returned after each 1 KiB read and left the rest
/// unread until the next key arrived: typing stalled at 1,024-byte steps.)
#[test]
fn five_thousand_typed_characters_all_arrive_and_enter_sends_them() {
    let pane = Pane::open("custom:test");
    pane.wait_ready();
    // `run <command>`: the test agent runs it and replies with its output,
    // so the reply says how many characters of the payload got through.
    let prefix = "run printf %s ";
    let suffix = " | wc -c";
    let room = 5_000 - prefix.len() - suffix.len();
    let payload: String = "0123456789".chars().cycle().take(room - 4).collect();
    let text = format!("{prefix}{payload}TAIL{suffix}");
    assert_eq!(text.chars().count(), 5_000);
    pane.tmux
        .tmux(&["send-keys", "-t", &pane.pane, "-l", &text]);
    // The editor scrolls to the cursor: the end of the text is in view.
    pane.wait_for("TAIL | wc -c");
    pane.keys(&["Enter"]);
    pane.wait_for(&format!("ran with exit 0: {room}"));
}
