//! What a card shows is what the shell reads (issue 11), in real bash, zsh
//! and fish: for generated commands full of what tmux or a shell could take
//! apart (`#(…)`, `#{…}`, `#[…]`, `;`, `\;`, quotes, `$(…)`, backticks,
//! `!`, unicode, long lines),
//! - after Run (the watcher's submit: one host call that types and presses
//!   Enter), the command line the shell reports in its `C` mark equals the
//!   input byte for byte, and the command printed exactly its argument;
//! - after Insert (typed without Enter), exactly that text waits at the
//!   prompt: pressing Enter runs it with the same command line;
//! - nothing in the text ever runs on its own (a sentinel file never appears).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use wta_host::{Key, Typing};
use wta_protocol::PaneId;
use wta_shell::{EndReason, Shell, State};

#[macro_use]
mod common;
mod typing_corpus;
use common::*;
use typing_corpus::{printf_command, tricky};

impl Pane {
    /// Types `text` as Insert does (clear the line, no Enter), then presses
    /// Enter, and returns the run it started.
    async fn insert_then_enter(&self, text: &str) -> wta_shell::Run {
        self.wait_state("idle prompt", |s| *s == State::Idle).await;
        let after = self.last_id().await;
        let pane = PaneId::parse(&self.pane).unwrap();
        let insert = Typing {
            clear_line: true,
            enter: false,
        };
        self.watcher
            .host()
            .type_text(&pane, text, insert)
            .await
            .unwrap();
        self.watcher
            .host()
            .press(&pane, &[Key::Enter])
            .await
            .unwrap();
        self.wait_run(after).await
    }
}

async fn typed_text_arrives_byte_for_byte(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let sentinel = p.dir.path().join("pwned");
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    let handle = tokio::runtime::Handle::current();
    let result = tokio::task::block_in_place(|| {
        runner.run(&tricky(&sentinel), |text| {
            let input = printf_command(sh, &text);
            handle.block_on(async {
                let ran = p.run(&input).await;
                prop_assert_eq!(ran.cmdline.as_deref(), Some(input.as_str()));
                prop_assert_eq!((ran.exit, ran.end_reason), (Some(0), Some(EndReason::Mark)));
                // The rendered screen text drops trailing blanks, as a terminal shows it.
                let shown = text.trim_end().to_owned();
                prop_assert_eq!(ran.render().text, shown.clone());
                let inserted = p.insert_then_enter(&input).await;
                prop_assert_eq!(inserted.cmdline.as_deref(), Some(input.as_str()));
                prop_assert_eq!(inserted.render().text, shown);
                Ok(())
            })
        })
    });
    result.unwrap_or_else(|e| panic!("{e}; screen:\n{}", p.server.capture(&p.pane)));
    // Give a stray background job a moment, then check none ran.
    p.server.tmux(&["run-shell", "true"]);
    assert!(!sentinel.exists(), "tmux ran a job from the typed text");
    assert!(
        !sentinel.with_extension("2").exists(),
        "the shell ran a substitution"
    );
}

/// A command ending in `;` or `\;` (tmux's separator rule) runs as typed.
async fn separators_at_the_end_survive(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let find = r"find /etc/hostname -maxdepth 0 -exec echo {} \;";
    let ran = p.run(find).await;
    assert_eq!(ran.cmdline.as_deref(), Some(find));
    assert_eq!(
        (ran.exit, ran.render().text.as_str()),
        (Some(0), "/etc/hostname")
    );
    let ran = p.run("echo trailing;").await;
    assert_eq!(ran.cmdline.as_deref(), Some("echo trailing;"));
    assert_eq!(ran.render().text, "trailing");
}

/// The longest command a card may carry, in characters of three bytes: more
/// than one tmux command can hold, so it goes through the paste buffer in
/// pieces, and still arrives whole.
async fn the_longest_unicode_command_arrives_whole(sh: Shell) {
    let p = open(sh, cfg(), true).await;
    let text = "日本".repeat(3_990);
    let input = printf_command(sh, &text);
    assert!(input.chars().count() <= 8000 && input.len() > 16 * 1024);
    let ran = p.run(&input).await;
    assert_eq!(ran.cmdline.as_deref(), Some(input.as_str()));
    assert_eq!(ran.exit, Some(0));
    assert_eq!(ran.render().text, text);
}

per_shell!(
    typed_text_arrives_byte_for_byte,
    separators_at_the_end_survive,
    the_longest_unicode_command_arrives_whole,
);
