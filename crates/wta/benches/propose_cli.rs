//! Proposal CLI latency: process start → validation line printed, against a
//! live proposal socket (a real `wta_helper::proposals` server), median over
//! 200 runs. Budget (DESIGN §7): ≤ 10 ms.
//!
//! Each run issues a fresh turn so the answer is a real `accepted`; the card
//! is dismissed right after, so the CLI exits with the final line. Every
//! run checks the CLI's whole answer as protocol lines: validation
//! `accepted` naming the card the UI got, then final `cancelled` for it,
//! nothing else, exit 0.
//! Run: `cargo bench -p wta --bench propose_cli` (WTA_BENCH_RUNS to change
//! the count; a median over budget fails it). `cargo test -p wta --bench
//! propose_cli` is the quick run (5 runs, budget not enforced).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use wta_helper::proposals::{ProposalEvent, ProposalServer, ProposalService, TurnContext};
use wta_protocol::{FinalStatus, PaneId, ProposalId, ResponseLine, ValidationStatus};
use wta_testkit::bench::{Budgets, Mode};

const BUDGET: Duration = Duration::from_millis(10);

const PAYLOAD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","rationale":"see files","actions":[{"type":"send","input":"ls -la"}]}]}"#;

/// The CLI's answer for card `id`, dismissed: validation `accepted`, then
/// final `cancelled`, nothing else.
fn check_answer(lines: &[String], id: ProposalId) {
    let parsed: Vec<ResponseLine> = lines
        .iter()
        .map(
            |line| match ResponseLine::from_frame(line.trim_end().as_bytes()) {
                Ok(parsed) => parsed,
                Err(err) => panic!("not a protocol line ({err}): {line}"),
            },
        )
        .collect();
    let ok = matches!(parsed.as_slice(), [
        ResponseLine::Validation(v),
        ResponseLine::Final(f),
    ] if v.status == ValidationStatus::Accepted
        && v.proposal_id == Some(id)
        && f.status == FinalStatus::Cancelled
        && f.proposal_id == id);
    assert!(
        ok,
        "validation accepted, final cancelled for {id}: {lines:#?}"
    );
}

fn main() -> ExitCode {
    let mut budgets = Budgets::new("propose_cli", Mode::from_env());
    let runs = budgets.mode().count_usize("WTA_BENCH_RUNS", 5, 200);
    let xdg = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let service = ProposalService::with_random_id().unwrap();
    let mut events = service.attach_ui();
    let _server = {
        let _guard = rt.enter();
        ProposalServer::bind(service.clone(), &xdg.path().join("wta")).unwrap()
    };
    // HOME and XDG dirs of the CLI's (its runtime dir is the server's, below).
    let sandbox = wta_testkit::Sandbox::new();
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let channel = service
            .issue_turn(TurnContext::agent_turn(Some(PaneId::from_number(1)), None))
            .unwrap();
        // Built before the clock starts: the scrubbed environment is the
        // test's cost, not the CLI's.
        let mut cli = sandbox.command(env!("CARGO_BIN_EXE_wta"));
        cli.args([
            "propose-terminal-actions",
            "--channel",
            &channel.to_string(),
        ])
        .args(["--payload-json", PAYLOAD])
        .env("XDG_RUNTIME_DIR", xdg.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
        let start = Instant::now();
        let mut child = cli.spawn().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        samples.push(start.elapsed());
        let id = match rt.block_on(events.recv()) {
            Some(ProposalEvent::Accepted(a)) => a.id,
            other => panic!("{other:?}"),
        };
        service.cancel_card(id);
        while events.try_recv().is_ok() {} // drop the Ended event
        let mut lines = vec![line];
        lines.extend(out.lines().map(Result::unwrap));
        assert!(child.wait().unwrap().success());
        check_answer(&lines, id);
    }
    assert_eq!(samples.len(), runs);
    samples.sort();
    let median = samples[samples.len() / 2];
    let verdict = budgets.check(
        median <= BUDGET,
        format_args!("median {:.2} ms > {} ms", ms(median), BUDGET.as_millis()),
    );
    println!(
        "propose-terminal-actions start → validation line: median {:.2} ms over {runs} runs (p90 {:.2} ms; budget {} ms) {verdict}",
        ms(median),
        ms(samples[samples.len() * 9 / 10]),
        BUDGET.as_millis()
    );
    budgets.finish()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
