//! Snapshots of the status line while a command a card ran is still going
//! after its proposal's time limit (issue 30): `▶ command · elapsed` at 80
//! and 40 columns, the count when two run, the elapsed time moving with
//! the helper's updates, and nothing once the list is empty.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::Fixture;
use wta_state::*;

/// The fixture's start: its first events set the clock.
fn start(f: &Fixture) -> Instant {
    f.state
        .clock
        .expect("the fixture's first event set the clock")
}

fn running(t0: Instant, commands: &[(&str, u64)]) -> DomainEvent {
    DomainEvent::RunningCommands(
        commands
            .iter()
            .map(|(command, started_ms)| RunningCommand {
                command: (*command).to_owned(),
                pane: "%3".into(),
                since: t0 + Duration::from_millis(*started_ms),
            })
            .collect(),
    )
}

fn status_line(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| l.contains('▶') || l.contains("Ready"))
        .unwrap_or("")
        .to_owned()
}

#[test]
fn a_long_running_command_shows_with_its_elapsed_time() {
    let mut f = Fixture::ready();
    let t0 = start(&f);
    let list = running(t0, &[("cargo build", 0)]);
    f.at(130_000).domain(list);
    let wide = f.render(80, 8);
    insta::assert_snapshot!("running_80x8", wide);
    assert!(
        status_line(&wide).contains("▶ cargo build · 2m 10s"),
        "{wide}"
    );
    let narrow = f.render(40, 8);
    insta::assert_snapshot!("running_40x8", narrow);
    assert!(status_line(&narrow).contains("▶"), "{narrow}");
    // The helper's next update a second later moves the time.
    let list = running(t0, &[("cargo build", 0)]);
    f.at(131_000).domain(list);
    assert!(
        status_line(&f.render(80, 8)).contains("2m 11s"),
        "{}",
        f.render(80, 8)
    );
}

#[test]
fn two_running_show_the_oldest_and_the_count_and_none_shows_nothing() {
    let mut f = Fixture::ready();
    let list = running(
        start(&f),
        &[("make -j8 all", 5_000), ("cargo test --workspace", 0)],
    );
    f.at(65_000).domain(list);
    let screen = f.render(80, 8);
    insta::assert_snapshot!("running_two_80x8", screen);
    assert!(
        status_line(&screen).contains("▶ cargo test --workspace +1 · 1m 05s"),
        "{screen}"
    );
    f.at(66_000)
        .domain(DomainEvent::RunningCommands(Vec::new()));
    let screen = f.render(80, 8);
    assert!(!screen.contains('▶'), "{screen}");
}
