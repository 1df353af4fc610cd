//! A real proposal server (`wta_helper::proposals`) in a runtime dir of its
//! own, and the `wta propose-terminal-actions` CLI run against it as an
//! agent runs it: the fixture of the CLI's black-box tests and of the
//! transcript-row tests built from its real output.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // each test binary uses its own part

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use wta_helper::proposals::{
    ProposalAccepted, ProposalEvent, ProposalServer, ProposalService, TurnContext,
};
use wta_protocol::{Channel, PaneId};

pub struct Fixture {
    pub rt: tokio::runtime::Runtime,
    pub service: ProposalService,
    pub events: tokio::sync::mpsc::UnboundedReceiver<ProposalEvent>,
    pub server: ProposalServer,
    pub xdg: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Self {
        let xdg = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let service = ProposalService::with_random_id().unwrap();
        let events = service.attach_ui();
        let server = {
            let _guard = rt.enter();
            ProposalServer::bind(service.clone(), &xdg.path().join("wta")).unwrap()
        };
        Self {
            rt,
            service,
            events,
            server,
            xdg,
        }
    }

    /// A new agent turn's channel (target `%1`, agent pane `%2`).
    pub fn turn(&self) -> Channel {
        self.service
            .issue_turn(TurnContext::agent_turn(
                Some(PaneId::parse("%1").unwrap()),
                Some(PaneId::parse("%2").unwrap()),
            ))
            .unwrap()
    }

    /// The card the CLI's proposal made (within 10 s).
    pub fn accepted(&mut self) -> ProposalAccepted {
        let event = self.rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(10), self.events.recv()).await
        });
        match event.unwrap().unwrap() {
            ProposalEvent::Accepted(a) => a,
            other => panic!("expected a card, got {other:?}"),
        }
    }
}

/// The CLI as an agent runs it: the testkit's scrubbed environment, its
/// HOME and XDG dirs under `xdg`, which is also the runtime dir.
pub fn cli(xdg: &Path, channel: &str, payload: &str) -> Command {
    let mut cmd = wta_testkit::Sandbox::in_dir(xdg).command(env!("CARGO_BIN_EXE_wta"));
    cmd.args([
        "propose-terminal-actions",
        "--channel",
        channel,
        "--payload-json",
        payload,
    ])
    .env("XDG_RUNTIME_DIR", xdg)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    cmd
}
