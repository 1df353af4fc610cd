//! Benchmark (DESIGN §7): command end (the shell's `D` mark) → the execution
//! line printed by the real `wta propose-terminal-actions` process, median
//! over 100 confirmed commands on a private tmux server with integrated
//! bash. Budget: ≤ 5 ms (tmux's own pipe-pane delivery is about 0.5 ms).
//!
//! It also prints where the time goes, as medians of each stage:
//! - pipe-pane: `D` printed → the sink (this bench re-run) read it;
//! - tracker: → the watcher stepped the tracker to the run's end;
//! - executor: → the executor reported the action's result;
//! - socket: → the proposal server wrote the execution line;
//! - CLI: → the CLI printed it (read here from its stdout).
//!
//! The tracker and socket stages are `wta::latency` trace events of the
//! watcher and the proposal server, recorded by this bench's subscriber.
//!
//! Each run is the whole path: a fresh turn's channel, the CLI process
//! sending the proposal to a live proposal socket, the card accepted and
//! confirmed through `ProposalService`, the executor submitting to the pane
//! and following the run (pipe-pane → sink → watcher → tracker → follower →
//! render → line), the line through the socket to the CLI, and the CLI
//! printing it to its stdout, read here.
//!
//! The start time is taken inside the shell by the confirmed command's last
//! statement (`echo $EPOCHREALTIME > file`, no fork), just before the
//! integration's precmd prints `D`: the measure errs long, never short. The
//! end time is taken when this process reads the execution line from the
//! CLI's stdout.
//!
//! Every run checks the CLI's whole answer, parsed as the protocol's lines:
//! validation `accepted` for this card, final `confirmed` (choice 1), the
//! execution line `completed` (exit 0, the command's output), then `next`
//! or `end`, and the CLI's exit 0.
//!
//! The CLI is this package's `wta` binary, which cargo builds with the
//! bench in the same profile. Full run (100 commands, the budget fails the
//! bench when over): `cargo bench -p wta --bench execution_latency`.
//! Quick run (5 commands, budget not enforced; `scripts/test` runs it):
//! `cargo test -p wta --bench execution_latency`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wta_helper::executor::{Executor, ExecutorConfig, Launch};
use wta_helper::proposals::{
    ConfirmMode, ProposalEvent, ProposalServer, ProposalService, TurnContext,
};
use wta_host::{ServerLocation, TmuxHost};
use wta_protocol::{
    ExecutionStatus, FinalStatus, PaneId, ProposalId, ResponseLine, ValidationStatus,
};
use wta_shell::{ScriptSource, State, TrackerConfig, WatchOptions, gated_command};
use wta_testkit::bench::{Budgets, Mode};
use wta_testkit::{TmuxServer, wait_until};

const BUDGET_MS: f64 = 5.0;
const SINK_ENV: &str = "WTA_BENCH_SINK_SOCKET";
/// Where the sink appends the time it read each `D` mark.
const STAMPS_ENV: &str = "WTA_BENCH_SINK_STAMPS";
/// The proposal: print, then stamp the end time into `marks`.
fn payload(marks: &Path) -> String {
    format!(
        r#"{{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{{"choice":1,"title":"bench","rationale":"latency","actions":[{{"type":"send","input":"echo bench-output; echo $EPOCHREALTIME > {}"}}]}}]}}"#,
        marks.display()
    )
}
const T: Duration = Duration::from_secs(15);

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The sink's stdin, stamping each read that holds a `D` mark.
struct Stamping<R> {
    inner: R,
    stamps: std::fs::File,
}

impl<R: std::io::Read> std::io::Read for Stamping<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::Write;
        let n = self.inner.read(buf)?;
        if buf[..n].windows(6).any(|w| w == b"133;D;") {
            let _ = writeln!(self.stamps, "{}", now_secs());
        }
        Ok(n)
    }
}

/// Records the time of each `wta::latency` event by its message.
#[derive(Clone, Default)]
struct Stages(Arc<std::sync::Mutex<Vec<(String, f64)>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Stages {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
        }
        let at = now_secs();
        let mut message = Message(String::new());
        event.record(&mut message);
        self.0.lock().unwrap().push((message.0, at));
    }
}

impl Stages {
    /// The time of the first event since `since` whose message starts with `prefix`.
    fn first(&self, prefix: &str, since: f64) -> Option<f64> {
        let events = self.0.lock().unwrap();
        events
            .iter()
            .find(|(m, at)| m.starts_with(prefix) && *at >= since)
            .map(|(_, at)| *at)
    }
}

/// Checks the CLI's whole answer for card `id`, one protocol line each:
/// validation `accepted`, final `confirmed` with choice 1, the execution
/// line `completed` with exit 0 and the command's output, then `next` or
/// `end`. Returns when the execution line was read.
fn check_answer(lines: &[(String, f64)], id: ProposalId) -> f64 {
    let parsed: Vec<ResponseLine> = lines
        .iter()
        .map(
            |(line, _)| match ResponseLine::from_frame(line.as_bytes()) {
                Ok(parsed) => parsed,
                Err(err) => panic!("not a protocol line ({err}): {line}"),
            },
        )
        .collect();
    let printed = || format!("{lines:#?}");
    let [validation, fin, execution, last] = parsed.as_slice() else {
        panic!("validation, final, execution, next/end: {}", printed());
    };
    assert!(
        matches!(validation, ResponseLine::Validation(v)
            if v.status == ValidationStatus::Accepted && v.proposal_id == Some(id)),
        "validation: {}",
        printed()
    );
    assert!(
        matches!(fin, ResponseLine::Final(f)
            if f.status == FinalStatus::Confirmed && f.proposal_id == id && f.choice == Some(1)),
        "final: {}",
        printed()
    );
    assert!(
        matches!(execution, ResponseLine::Execution(e)
            if e.status == ExecutionStatus::Completed
                && e.proposal_id == id
                && e.action == 1
                && e.exit_code == Some(0)
                && e.output.as_deref().is_some_and(|o| o.contains("bench-output"))),
        "execution: {}",
        printed()
    );
    assert!(
        matches!(last, ResponseLine::Next(_) | ResponseLine::End(_)),
        "next or end: {}",
        printed()
    );
    lines[2].1
}

fn main() -> ExitCode {
    if let Ok(socket) = std::env::var(SINK_ENV) {
        let stamps = std::env::var(STAMPS_ENV).unwrap();
        let stamps = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(stamps)
            .unwrap();
        let input = Stamping {
            inner: std::io::stdin().lock(),
            stamps,
        };
        let _ = wta_shell::sink::run_pipe_sink_from(Path::new(&socket), input);
        return ExitCode::SUCCESS;
    }
    let mode = Mode::from_env();
    use tracing_subscriber::prelude::*;
    let stages = Stages::default();
    tracing_subscriber::registry()
        .with(
            stages.clone().with_filter(
                tracing_subscriber::filter::Targets::new()
                    .with_target("wta::latency", tracing::Level::TRACE),
            ),
        )
        .init();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(bench(stages, Budgets::new("execution_latency", mode)))
}

/// The median of `values` (sorted in place).
fn median_of(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

async fn bench(stages: Stages, mut budgets: Budgets) -> ExitCode {
    let runs = budgets.mode().count_usize("WTA_BENCH_RUNS", 5, 100);
    let wta = env!("CARGO_BIN_EXE_wta");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let marks = home.join("d-marks");
    std::fs::write(home.join(".bashrc"), "PS1='$ '\n").unwrap();
    let server =
        TmuxServer::start_with_env("bash --norc --noprofile", &[("HOME", home.as_os_str())]);
    let launch = wta_shell::integrated("bash", ScriptSource::Embedded, &home.join("rc")).unwrap();
    let gate = format!("wta-bench-go-{}", std::process::id());
    let argv: Vec<&str> = launch.argv.iter().map(String::as_str).collect();
    let target = server.tmux(&[
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        &gated_command(&gate, &argv),
    ]);
    let target = PaneId::parse(target.trim()).unwrap();
    let exe = std::env::current_exe()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let sink_stamps = home.join("sink-stamps");
    let watch = WatchOptions {
        sink_argv: vec![
            "sh".into(),
            "-c".into(),
            format!(
                "{SINK_ENV}=\"$1\" {STAMPS_ENV}={} exec \"$0\"",
                wta_host::sh_quote(&sink_stamps.to_string_lossy())
            ),
            exe,
        ],
        runtime_dir: home.join("rt"),
        config: TrackerConfig::default(),
    };
    let config = ExecutorConfig::new(
        watch,
        Launch {
            argv: launch.argv.clone(),
            env: launch.env.clone(),
        },
    );
    let host = TmuxHost::new(
        ServerLocation::Socket(server.socket().to_path_buf()),
        Some(PaneId::parse(server.first_pane()).unwrap()),
    );
    let exec = Executor::new(Arc::new(host), config);
    exec.watch(&target).await.unwrap();
    server.tmux(&["wait-for", "-S", &gate]);
    wait_until("an idle prompt", T, || {
        futures::executor::block_on(exec.pane_state(&target)) == Some(State::Idle)
    })
    .unwrap();

    // The helper's side: a live proposal socket under a private runtime dir.
    let xdg = tempfile::tempdir().unwrap();
    let service = ProposalService::with_random_id().unwrap();
    let mut cards = service.attach_ui();
    let _socket = ProposalServer::bind(service.clone(), &xdg.path().join("wta")).unwrap();

    let mut latencies = Vec::with_capacity(runs);
    let mut breakdown: [Vec<f64>; 5] = Default::default();
    for _ in 0..runs {
        let _ = std::fs::remove_file(&marks);
        let sinks_before = std::fs::read_to_string(&sink_stamps)
            .unwrap_or_default()
            .lines()
            .count();
        let channel = service
            .issue_turn(TurnContext::agent_turn(Some(target.clone()), None))
            .unwrap();
        let mut child = server
            .sandbox()
            .command(wta)
            .args(["propose-terminal-actions", "--channel"])
            .arg(channel.to_string())
            .args(["--payload-json", &payload(&marks)])
            .env("XDG_RUNTIME_DIR", xdg.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        // Lines as the CLI prints them, stamped when read.
        let stdout = child.stdout.take().unwrap();
        let (tx, printed) = std_mpsc::channel::<(String, f64)>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send((line, now_secs()));
            }
        });
        let card = match tokio::time::timeout(T, cards.recv()).await {
            Ok(Some(ProposalEvent::Accepted(card))) => card,
            other => panic!("expected a card, got {other:?}"),
        };
        let confirmed = service.confirm(card.id, 1).unwrap();
        let sink = confirmed.executions;
        let mut reported_at = 0.0;
        exec.execute(&target, &confirmed.claimed.choice, ConfirmMode::Run, |r| {
            if let Some(line) = r.execution_line(card.id) {
                reported_at = now_secs();
                sink.send(line);
            }
        })
        .await;
        sink.finish();
        while let Ok(Some(_)) = tokio::time::timeout(Duration::ZERO, cards.recv()).await {}
        assert!(child.wait().unwrap().success());
        reader.join().unwrap();
        let lines: Vec<(String, f64)> = printed.try_iter().collect();
        let printed_at = check_answer(&lines, card.id);
        let d_at: f64 = std::fs::read_to_string(&marks)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        latencies.push((printed_at - d_at) * 1000.0);
        let sink_at: f64 = wta_testkit::wait_for_value("the sink's D stamp", T, || {
            let stamps = std::fs::read_to_string(&sink_stamps).ok()?;
            stamps.lines().nth(sinks_before)?.trim().parse().ok()
        })
        .unwrap();
        let tracker_at = stages.first("tracker", sink_at).unwrap();
        let socket_at = stages.first("socket", reported_at).unwrap();
        let points = [
            d_at,
            sink_at,
            tracker_at,
            reported_at,
            socket_at,
            printed_at,
        ];
        for (stage, pair) in breakdown.iter_mut().zip(points.windows(2)) {
            stage.push((pair[1] - pair[0]) * 1000.0);
        }
    }
    assert_eq!(latencies.len(), runs, "one execution line per command");
    latencies.sort_by(f64::total_cmp);
    let median = latencies[runs / 2];
    let p90 = latencies[runs * 9 / 10];
    let verdict = budgets.check(
        median <= BUDGET_MS,
        format_args!("median {median:.2} ms > {BUDGET_MS} ms"),
    );
    println!(
        "execution_latency: D mark -> execution line printed by `wta propose-terminal-actions`: \
         median {median:.2} ms ({:.2}x the {BUDGET_MS} ms budget), p90 {p90:.2} ms, \
         min {:.2} ms, max {:.2} ms over {runs} runs: {verdict}",
        median / BUDGET_MS,
        latencies[0],
        latencies[runs - 1],
    );
    let names = ["pipe-pane", "tracker", "executor", "socket", "CLI"];
    let parts: Vec<String> = names
        .iter()
        .zip(breakdown.iter_mut())
        .map(|(name, values)| {
            let m = median_of(values);
            format!(
                "{name} {m:.2} ms (p90 {:.2})",
                values[values.len() * 9 / 10]
            )
        })
        .collect();
    println!(
        "execution_latency: where the time goes (medians): {} (pipe-pane includes the shell \
         printing D after the command's last statement)",
        parts.join(", ")
    );
    exec.shutdown().await;
    budgets.finish()
}
