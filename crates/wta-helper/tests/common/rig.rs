//! The executor tests' rig on real tmux (`executor_tmux`, `executor_open`):
//! a private server with a bash target pane (integrated or not) behind a
//! wait-for gate, followed by an executor from the start.

use std::path::Path;
use std::time::Duration;

use wta_helper::executor::{ActionResult, Executor, ExecutorConfig, Launch};
use wta_helper::proposals::ConfirmMode;
use wta_host::TmuxHost;
use wta_protocol::{Action, PaneId};
use wta_shell::{Shell, gated_command};
use wta_testkit::{TmuxServer, wait_until};

use super::choice;

pub const T: Duration = Duration::from_secs(15);
pub struct Rig {
    pub server: TmuxServer,
    pub dir: tempfile::TempDir,
    pub target: PaneId,
    pub exec: Executor<TmuxHost>,
}

/// bash with PS1 `$ ` and the integration script (or none).
pub fn bash(dir: &Path, integrate: bool) -> Launch {
    let script = if integrate { Shell::Bash.script() } else { "" };
    let home = dir.to_string_lossy().into_owned();
    let rc = dir.join(if integrate { "bashrc" } else { "bashrc-plain" });
    std::fs::write(&rc, format!("PS1='$ '\nHISTFILE={home}/.hist\n{script}")).unwrap();
    Launch {
        argv: vec![
            "env".into(),
            format!("HOME={home}"),
            "bash".into(),
            "--rcfile".into(),
            rc.to_string_lossy().into_owned(),
            "-i".into(),
        ],
        env: vec![],
    }
}

pub async fn rig(integrate_target: bool, tweak: impl FnOnce(&mut ExecutorConfig)) -> Rig {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let launch = bash(dir.path(), true);
    let target_launch = bash(dir.path(), integrate_target);
    let gate = format!("wta-test-go-{}", std::process::id());
    let argv: Vec<&str> = target_launch.argv.iter().map(String::as_str).collect();
    let target = server
        .tmux(&[
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-n",
            "target",
            "-c",
            &dir.path().to_string_lossy(),
            &gated_command(&gate, &argv),
        ])
        .trim()
        .to_owned();
    let target = PaneId::parse(&target).unwrap();
    let exec = super::executor(&server, launch, dir.path().join("rt"), tweak);
    exec.watch(&target).await.unwrap();
    server.tmux(&["wait-for", "-S", &gate]);
    wait_prompt(&server, target.as_str());
    Rig {
        server,
        dir,
        target,
        exec,
    }
}

/// Waits until the pane's screen ends at the `$ ` prompt.
pub fn wait_prompt(server: &TmuxServer, pane: &str) {
    wait_until("a prompt", T, || server.capture(pane).ends_with('$'))
        .unwrap_or_else(|e| panic!("{e}: {}", server.capture(pane)));
}

impl Rig {
    pub async fn run(&self, actions: Vec<Action>, mode: ConfirmMode) -> Vec<ActionResult> {
        let mut seen = Vec::new();
        let results = self
            .exec
            .execute(&self.target, &choice(actions), mode, |r| {
                seen.push(r.clone())
            })
            .await;
        assert_eq!(seen, results, "each result is reported as it is known");
        results
    }

    pub fn line(&self, r: &ActionResult) -> wta_protocol::ExecutionLine {
        super::line(r)
    }

    pub fn panes(&self) -> Vec<String> {
        self.server
            .tmux(&["list-panes", "-a", "-F", "#{pane_id} #{pane_current_path}"])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}
