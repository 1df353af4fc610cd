//! Proposal CLI latency: process start → validation line printed, against a
//! live proposal socket (a real `wta_helper::proposals` server), median over
//! 200 runs. Budget (DESIGN §7): ≤ 10 ms.
//!
//! Each run issues a fresh turn so the answer is a real `accepted`; the card
//! is dismissed right after, so the CLI exits with the final line.
//! Run: `cargo bench -p wta --bench propose_cli` (WTA_BENCH_RUNS to change the count).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wta_helper::proposals::{ProposalEvent, ProposalServer, ProposalService, TurnContext};
use wta_protocol::PaneId;

const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","rationale":"see files","actions":[{"type":"send","input":"ls -la"}]}]}"#;

fn main() {
    let runs: usize = std::env::var("WTA_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let xdg = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let service = ProposalService::with_random_id().unwrap();
    let mut events = service.attach_ui();
    let _server = {
        let _guard = rt.enter();
        ProposalServer::bind(service.clone(), &xdg.path().join("wta")).unwrap()
    };
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let channel = service
            .issue_turn(TurnContext::agent_turn(Some(PaneId::from_number(1)), None))
            .unwrap();
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_wta"))
            .args([
                "propose-terminal-actions",
                "--channel",
                &channel.to_string(),
            ])
            .args(["--payload-json", PAYLOAD])
            .env("XDG_RUNTIME_DIR", xdg.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        samples.push(start.elapsed());
        assert!(line.contains("\"accepted\""), "{line}");
        let id = match rt.block_on(events.recv()) {
            Some(ProposalEvent::Accepted(a)) => a.id,
            other => panic!("{other:?}"),
        };
        service.cancel_card(id);
        while events.try_recv().is_ok() {} // drop the Ended event
        assert!(child.wait().unwrap().success());
    }
    samples.sort();
    let median = samples[samples.len() / 2];
    println!(
        "propose-terminal-actions start → validation line: median {:.2} ms over {runs} runs (p90 {:.2} ms; budget 10 ms) {}",
        ms(median),
        ms(samples[samples.len() * 9 / 10]),
        if median <= Duration::from_millis(10) {
            "OK"
        } else {
            "OVER BUDGET"
        }
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
