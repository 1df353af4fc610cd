//! Setup shared by the executor tests on real tmux (`executor_tmux`, `executor_open`,
//! `executor_results`): an executor over a private server whose pipe-pane
//! sink is the `wta-helper-test-sink` helper program, and card-building
//! shorthands.

#![allow(dead_code)] // each test binary uses its own part of it

pub mod rig;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use wta_helper::executor::{ActionResult, Executor, ExecutorConfig, Launch};
use wta_host::{ServerLocation, TmuxHost};
use wta_protocol::{Action, Choice, ExecutionId, ExecutionLine, PaneId, ProposalId};
use wta_shell::{TrackerConfig, WatchOptions};
use wta_testkit::TmuxServer;

/// An executor on `server`, acting for its first pane, that opens panes with
/// `launch` and keeps its watcher sockets in `runtime_dir`. Ready and run
/// timeouts are 10 s before `tweak`.
pub fn executor(
    server: &TmuxServer,
    launch: Launch,
    runtime_dir: PathBuf,
    tweak: impl FnOnce(&mut ExecutorConfig),
) -> Executor<TmuxHost> {
    let watch = WatchOptions {
        sink_argv: vec![env!("CARGO_BIN_EXE_wta-helper-test-sink").to_owned()],
        runtime_dir,
        config: TrackerConfig::default(),
    };
    let mut config = ExecutorConfig::new(watch, launch);
    config.ready_timeout = Duration::from_secs(10);
    config.run_timeout = Duration::from_secs(10);
    tweak(&mut config);
    let caller = PaneId::parse(server.first_pane()).unwrap();
    let host = TmuxHost::new(
        ServerLocation::Socket(server.socket().to_path_buf()),
        Some(caller),
    );
    Executor::new(Arc::new(host), config)
}

pub fn choice(actions: Vec<Action>) -> Choice {
    Choice {
        choice: 1,
        title: "t".into(),
        rationale: String::new(),
        actions,
    }
}

pub fn send(input: &str) -> Action {
    Action::Send {
        input: input.into(),
    }
}

/// The execution line of one action's result.
pub fn line(r: &ActionResult) -> ExecutionLine {
    r.outcome
        .execution_line(
            ProposalId::from_bytes([1; 16]),
            ExecutionId::from_bytes([2; 16]),
            r.action,
        )
        .unwrap_or_else(|| panic!("no execution line for {r:?}"))
}
