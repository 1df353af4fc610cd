//! A session hook runs our program with every word as given and our own
//! formats expanded, against real tmux: a word full of what tmux's parser,
//! format expansion and `sh` would each take apart arrives intact, and
//! `#{window_id}` names the new tab.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use wta_host::{HookWord, ServerLocation, TerminalHost, TmuxHost};
use wta_testkit::{TmuxServer, wait_for_value};

#[test]
fn a_hook_hands_its_words_over_intact() {
    let server = TmuxServer::start();
    let host = TmuxHost::new(ServerLocation::Socket(server.socket().to_path_buf()), None);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("argv");
    let sentinel = dir.path().join("pwned");
    let tricky = format!(
        "it's #{{pane_id}} #(touch {}) $HOME \"q\" \\ ; `id` $(touch {})",
        sentinel.display(),
        sentinel.display()
    );
    let session = host.list_sessions().unwrap()[0].id.clone();
    host.set_session_hook(
        &session,
        "after-new-window",
        7,
        &[
            HookWord::Text("/bin/sh".into()),
            HookWord::Text("-c".into()),
            HookWord::Text(r#"printf '%s\n' "$@" > "$0""#.into()),
            HookWord::Text(out.to_string_lossy().into_owned()),
            HookWord::Text(tricky.clone()),
            HookWord::Format("#{window_id}"),
        ],
    )
    .unwrap();
    let window = server.tmux(&["new-window", "-d", "-P", "-F", "#{window_id}"]);
    let argv = wait_for_value("the hook to run", Duration::from_secs(10), || {
        std::fs::read_to_string(&out)
            .ok()
            .filter(|s| s.ends_with('\n'))
    })
    .unwrap();
    assert_eq!(argv, format!("{tricky}\n{}\n", window.trim()));
    assert!(!sentinel.exists(), "nothing in the word ran");
}
