//! What the execution-latency benches share (`execution_latency`, a local
//! bash; `ssh_latency`, the same beside a remote bash over `wta ssh`): the
//! measurement of one pane, from the shell's `D` mark to the execution line
//! printed by the real `wta propose-terminal-actions` process, with where
//! the time goes.
//!
//! - [`Rig`]: one executor (the helper's) following panes of a private tmux
//!   server, its pipe-pane sink being this bench binary re-run (`sink_main`,
//!   from [`main`]), which stamps each read holding a `D` mark; a live
//!   proposal socket under a private runtime dir.
//! - [`Rig::measure`]: `runs` confirmed cards in a pane, each the whole
//!   path (a fresh turn's channel, the CLI sending the proposal, the card
//!   accepted and confirmed through `ProposalService`, the executor
//!   submitting to the pane and following the run, the line through the
//!   socket to the CLI, printed to its stdout and read here), each answer
//!   checked line by line ([`check_answer`]).
//! - [`Stages`]: the `wta::latency` trace events (the watcher's tracker
//!   stage, the proposal server's socket stage) with the time each came.
//!
//! The start time is taken inside the shell by the confirmed command's last
//! statement (`echo $EPOCHREALTIME > file`, no fork), just before the
//! integration's precmd prints `D`: the measure errs long, never short.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
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

const SINK_ENV: &str = "WTA_BENCH_SINK_SOCKET";
/// Where the sink appends the time it read each `D` mark.
const STAMPS_ENV: &str = "WTA_BENCH_SINK_STAMPS";
pub const T: Duration = Duration::from_secs(15);

/// The stage names of [`Samples::stages`], in order.
pub const STAGES: [&str; 5] = ["pipe-pane", "tracker", "executor", "socket", "CLI"];

/// The proposal: print, then stamp the end time into `marks`.
fn payload(marks: &Path) -> String {
    format!(
        r#"{{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{{"choice":1,"title":"bench","rationale":"latency","actions":[{{"type":"send","input":"echo bench-output; echo $EPOCHREALTIME > {}"}}]}}]}}"#,
        marks.display()
    )
}

pub fn now_secs() -> f64 {
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

/// A latency bench's `main`: the pane's sink when this process was
/// started as one, else `bench` with the trace stages installed and budgets
/// named `name` (quick or full, from the environment), on a 2-worker
/// runtime like the helper's.
pub fn main<F, Fut>(name: &'static str, bench: F) -> ExitCode
where
    F: FnOnce(Stages, Budgets) -> Fut,
    Fut: std::future::Future<Output = ExitCode>,
{
    if let Some(code) = sink_main() {
        return code;
    }
    let mode = Mode::from_env();
    let stages = Stages::install();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(bench(stages, Budgets::new(name, mode)))
}

/// When this process was started as a pane's sink: runs it, and says so.
fn sink_main() -> Option<ExitCode> {
    let socket = std::env::var(SINK_ENV).ok()?;
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
    Some(ExitCode::SUCCESS)
}

/// Records the time of each `wta::latency` event by its message.
#[derive(Clone, Default)]
pub struct Stages(Arc<std::sync::Mutex<Vec<(String, f64)>>>);

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
    /// A recorder of this process's `wta::latency` events (installed as the
    /// global subscriber).
    pub fn install() -> Self {
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
        stages
    }

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

/// The median of `values` (sorted in place).
pub fn median_of(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The 90th percentile of `values` (sorted in place).
pub fn p90_of(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() * 9 / 10]
}

/// What [`Rig::measure`] measured, in ms: each run's whole latency, and
/// each stage's share of it ([`STAGES`]).
#[derive(Debug, Default)]
pub struct Samples {
    pub latencies: Vec<f64>,
    pub stages: [Vec<f64>; 5],
}

impl Samples {
    /// "name median ms (p90 …)" for each stage.
    pub fn stage_medians(&mut self) -> Vec<String> {
        STAGES
            .iter()
            .zip(self.stages.iter_mut())
            .map(|(name, values)| {
                let m = median_of(values);
                format!("{name} {m:.2} ms (p90 {:.2})", p90_of(values))
            })
            .collect()
    }
}

/// The helper's side of the benches: an executor following panes of
/// `server`, and a live proposal socket.
pub struct Rig {
    pub server: TmuxServer,
    pub exec: Executor<TmuxHost>,
    pub home: PathBuf,
    launch: wta_shell::ShellLaunch,
    service: ProposalService,
    cards: tokio::sync::mpsc::UnboundedReceiver<ProposalEvent>,
    xdg: tempfile::TempDir,
    _socket: ProposalServer,
    sink_stamps: PathBuf,
}

impl Rig {
    /// A private tmux server with `HOME` = `home` (a `.bashrc` with a plain
    /// prompt is written there), an executor and the proposal socket.
    pub fn start(home: &Path) -> Self {
        std::fs::write(home.join(".bashrc"), "PS1='$ '\n").unwrap();
        let server =
            TmuxServer::start_with_env("bash --norc --noprofile", &[("HOME", home.as_os_str())]);
        let launch =
            wta_shell::integrated("bash", ScriptSource::Embedded, &home.join("rc")).unwrap();
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
        let xdg = tempfile::tempdir().unwrap();
        let service = ProposalService::with_random_id().unwrap();
        let cards = service.attach_ui();
        let socket = ProposalServer::bind(service.clone(), &xdg.path().join("wta")).unwrap();
        Rig {
            server,
            exec,
            home: home.to_path_buf(),
            launch,
            service,
            cards,
            xdg,
            _socket: socket,
            sink_stamps,
        }
    }

    /// A new window running an integrated bash, followed by the executor,
    /// at an idle prompt.
    pub async fn integrated_bash(&self) -> PaneId {
        let gate = format!("wta-bench-go-{}-{}", std::process::id(), now_secs());
        let argv: Vec<&str> = self.launch.argv.iter().map(String::as_str).collect();
        let target = self.server.tmux(&[
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            &gated_command(&gate, &argv),
        ]);
        let target = PaneId::parse(target.trim()).unwrap();
        self.exec.watch(&target).await.unwrap();
        self.server.tmux(&["wait-for", "-S", &gate]);
        self.wait_idle(&target);
        target
    }

    /// Waits for an idle prompt in `target`.
    pub fn wait_idle(&self, target: &PaneId) {
        wait_until("an idle prompt", T, || {
            futures::executor::block_on(self.exec.pane_state(target)) == Some(State::Idle)
        })
        .unwrap();
    }

    /// `runs` confirmed cards in `target` (see the module's header).
    pub async fn measure(&mut self, target: &PaneId, runs: usize, stages: &Stages) -> Samples {
        let wta = env!("CARGO_BIN_EXE_wta");
        let marks = self.home.join("d-marks");
        let mut samples = Samples::default();
        for _ in 0..runs {
            let _ = std::fs::remove_file(&marks);
            let sinks_before = std::fs::read_to_string(&self.sink_stamps)
                .unwrap_or_default()
                .lines()
                .count();
            let channel = self
                .service
                .issue_turn(TurnContext::agent_turn(Some(target.clone()), None))
                .unwrap();
            let mut child = self
                .server
                .sandbox()
                .command(wta)
                .args(["propose-terminal-actions", "--channel"])
                .arg(channel.to_string())
                .args(["--payload-json", &payload(&marks)])
                .env("XDG_RUNTIME_DIR", self.xdg.path())
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
            let card = match tokio::time::timeout(T, self.cards.recv()).await {
                Ok(Some(ProposalEvent::Accepted(card))) => card,
                other => panic!("expected a card, got {other:?}"),
            };
            let confirmed = self.service.confirm(card.id, 1).unwrap();
            let sink = confirmed.executions;
            let mut reported_at = 0.0;
            self.exec
                .execute(target, &confirmed.claimed.choice, ConfirmMode::Run, |r| {
                    if let Some(line) = r.execution_line(card.id) {
                        reported_at = now_secs();
                        sink.send(line);
                    }
                })
                .await;
            sink.finish();
            while let Ok(Some(_)) = tokio::time::timeout(Duration::ZERO, self.cards.recv()).await {}
            assert!(child.wait().unwrap().success());
            reader.join().unwrap();
            let lines: Vec<(String, f64)> = printed.try_iter().collect();
            let printed_at = check_answer(&lines, card.id);
            let d_at: f64 = std::fs::read_to_string(&marks)
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            samples.latencies.push((printed_at - d_at) * 1000.0);
            let sink_at: f64 = wta_testkit::wait_for_value("the sink's D stamp", T, || {
                let stamps = std::fs::read_to_string(&self.sink_stamps).ok()?;
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
            for (stage, pair) in samples.stages.iter_mut().zip(points.windows(2)) {
                stage.push((pair[1] - pair[0]) * 1000.0);
            }
        }
        assert_eq!(
            samples.latencies.len(),
            runs,
            "one execution line per command"
        );
        samples
    }

    pub async fn shutdown(self) {
        self.exec.shutdown().await;
    }
}
