//! Tracker throughput: parser + `step` over a 50 MB raw pane stream made of a
//! recorded bash session (`recorded/bash-session.raw`: the bytes a real bash
//! with WTA integration wrote to its tmux pane while running ls, a `\r`
//! progress loop, seq, grep and git log with colours, a failing command, an
//! alternate-screen program and unicode; re-record with `recorded/record.sh`)
//! repeated end to end. Each copy holds the same commands, so the count of
//! finished runs is checked too.
//! Run with `cargo bench -p wta-shell --bench tracker_throughput`.

use std::time::Instant;

use wta_shell::{Effect, Event, Parser, Tracker, TrackerConfig, step};

const RECORDED: &[u8] = include_bytes!("recorded/bash-session.raw");

fn stream(target: usize) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(target + RECORDED.len());
    let mut copies = 0;
    while out.len() < target {
        out.extend_from_slice(RECORDED);
        copies += 1;
    }
    (out, copies)
}

/// `D` marks in one copy of the recording: one finished run each.
fn runs_per_copy() -> usize {
    RECORDED.windows(7).filter(|w| w == b"]133;D;").count()
}

fn is_finished(effect: &Effect) -> bool {
    matches!(effect, Effect::RunFinished { .. })
}

fn main() {
    let (data, copies) = stream(50 * 1024 * 1024);
    let expected_runs = copies * runs_per_copy();
    let mut best = 0f64;
    for _ in 0..3 {
        let start = Instant::now();
        let mut parser = Parser::new();
        let mut tracker = Tracker::new(120, TrackerConfig::default());
        let mut tokens = Vec::new();
        let mut finished = 0usize;
        for chunk in data.chunks(64 * 1024) {
            tokens.clear();
            parser.feed(chunk, &mut tokens);
            for token in tokens.drain(..) {
                let (next, fx) = step(tracker, Event::Token(token), 0);
                tracker = next;
                finished += fx.iter().filter(|e| is_finished(e)).count();
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let mbps = data.len() as f64 / 1e6 / secs;
        best = best.max(mbps);
        println!(
            "{:.1} MB ({copies} copies of the recording) in {secs:.3}s: {mbps:.1} MB/s ({finished} runs finished)",
            data.len() as f64 / 1e6
        );
        assert_eq!(
            finished, expected_runs,
            "every recorded command finishes once"
        );
    }
    println!("tracker throughput (best of 3): {best:.1} MB/s");
}
