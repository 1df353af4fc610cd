//! Benchmark (DESIGN §7): command end (the shell's `D` mark) → execution
//! line ready to send to the CLI, median over 100 confirmed commands on a
//! private tmux server with integrated bash. Budget: ≤ 50 ms.
//!
//! The `D` time is taken inside the shell: the user's `PROMPT_COMMAND` part
//! runs right after the integration's precmd printed `D`, and appends
//! `$EPOCHREALTIME` (no fork) to a file. The end time is taken in the
//! executor's report callback once the line is encoded. The path between
//! them is the real one: pipe-pane → sink → watcher → tracker → follower →
//! render → line. Run with `cargo bench -p wta-helper --bench execution_latency`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wta_helper::executor::{Executor, ExecutorConfig, Launch};
use wta_helper::proposals::ConfirmMode;
use wta_host::{ServerLocation, TmuxHost};
use wta_protocol::{Action, Choice, ExecutionId, PaneId, ProposalId, ResponseLine};
use wta_shell::{ScriptSource, State, TmuxTarget, TrackerConfig, WatchOptions, gated_command};
use wta_testkit::{TmuxServer, wait_until};

const RUNS: usize = 100;
const BUDGET_MS: f64 = 50.0;
const SINK_ENV: &str = "WTA_BENCH_SINK_SOCKET";

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn main() {
    if let Ok(socket) = std::env::var(SINK_ENV) {
        let _ = wta_shell::run_pipe_sink(Path::new(&socket));
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(bench());
}

async fn bench() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let marks = home.join("d-marks");
    std::fs::write(
        home.join(".bashrc"),
        format!(
            "PS1='$ '\nPROMPT_COMMAND='echo $EPOCHREALTIME >> {}'\n",
            marks.display()
        ),
    )
    .unwrap();
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
    let watch = WatchOptions {
        sink_argv: vec![
            "sh".into(),
            "-c".into(),
            format!("{SINK_ENV}=\"$1\" exec \"$0\""),
            exe,
        ],
        runtime_dir: home.join("rt"),
        config: TrackerConfig::default(),
    };
    let config = ExecutorConfig::new(
        TmuxTarget {
            socket: server.socket().to_path_buf(),
        },
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
    wait_until("an idle prompt", Duration::from_secs(15), || {
        futures::executor::block_on(exec.pane_state(&target)) == Some(State::Idle)
    })
    .unwrap();
    let choice = Choice {
        choice: 1,
        title: "bench".into(),
        rationale: String::new(),
        actions: vec![Action::Send {
            input: "echo bench-output".into(),
        }],
    };
    let mut latencies = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let before = std::fs::read_to_string(&marks).unwrap_or_default();
        let mut sent_at = 0.0;
        exec.execute(&target, &choice, ConfirmMode::Run, |r| {
            let line = r
                .outcome
                .execution_line(
                    ProposalId::from_bytes([1; 16]),
                    ExecutionId::from_bytes([2; 16]),
                    r.action,
                )
                .expect("a send has an execution line");
            let bytes = ResponseLine::Execution(line).to_line().unwrap();
            assert!(bytes.starts_with(br#"{"phase":"execution","status":"completed""#));
            sent_at = now_secs();
        })
        .await;
        // The D timestamp is written right after D; wait for it to land.
        let d_at: f64 =
            wta_testkit::wait_for_value("the D timestamp", Duration::from_secs(5), || {
                let now = std::fs::read_to_string(&marks).unwrap_or_default();
                now.strip_prefix(before.as_str())
                    .and_then(|new| new.lines().next_back())
                    .and_then(|l| l.trim().parse().ok())
            })
            .unwrap();
        latencies.push((sent_at - d_at) * 1000.0);
    }
    latencies.sort_by(f64::total_cmp);
    let median = latencies[RUNS / 2];
    let p90 = latencies[RUNS * 9 / 10];
    println!(
        "execution_latency: D mark -> execution line, median {median:.2} ms, p90 {p90:.2} ms, \
         min {:.2} ms, max {:.2} ms over {RUNS} runs (budget {BUDGET_MS} ms): {}",
        latencies[0],
        latencies[RUNS - 1],
        if median <= BUDGET_MS {
            "OK"
        } else {
            "OVER BUDGET"
        }
    );
    exec.shutdown().await;
}
