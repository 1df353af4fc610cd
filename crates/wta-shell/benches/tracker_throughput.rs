//! Tracker throughput: parser + `step` over a generated 50 MB pane stream.
//! Run with `cargo bench -p wta-shell --bench tracker_throughput`.

use std::time::Instant;

use wta_shell::{Event, Parser, Tracker, TrackerConfig, step};

fn stream(target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 4096);
    let mut n = 0u64;
    while out.len() < target {
        out.extend_from_slice(b"\x1b]133;A;aid=42\x07$ \x1b]133;B;aid=42\x07");
        out.extend_from_slice(b"seq 1 2000\r\n\x1b]133;C;aid=42;cmdline_url=seq%201%202000\x07");
        for i in 0..2000 {
            n += 1;
            out.extend_from_slice(
                format!("\x1b[32mline {i}\x1b[0m progress {n}%\rdone {i} h\u{e9}llo\r\n")
                    .as_bytes(),
            );
        }
        out.extend_from_slice(b"\x1b]133;D;0;aid=42\x07\x1b]7;file://h/tmp/a%20b\x1b\\");
    }
    out
}

fn main() {
    let data = stream(50 * 1024 * 1024);
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
                finished += fx.len();
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let mbps = data.len() as f64 / 1e6 / secs;
        best = best.max(mbps);
        println!(
            "{:.1} MB in {secs:.3}s: {mbps:.1} MB/s ({finished} effects)",
            data.len() as f64 / 1e6
        );
    }
    println!("tracker throughput (best of 3): {best:.1} MB/s");
}
