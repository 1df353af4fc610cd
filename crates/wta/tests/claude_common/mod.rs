//! A real Claude agent CLI offline: `@zed-industries/claude-code-acp`
//! (installed by `scripts/install-test-peers.sh`) against
//! `peers/fake_anthropic.py`, which only makes the model's decisions.

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use wta_testkit::wait_for_value;

pub const T: Duration = Duration::from_secs(60);

/// The installed adapter; `None` (skipped) outside CI when it is not.
pub fn claude_code_acp() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/test-peers/claude-code-acp/node_modules/.bin/claude-code-acp");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing: run scripts/install-test-peers.sh",
        path.display()
    );
    eprintln!("claude-code-acp not installed (scripts/install-test-peers.sh); skipped outside CI");
    None
}

/// The fake model server, ended on drop.
pub struct FakeModel {
    child: Child,
    pub port: u16,
}

impl FakeModel {
    /// Its tool calls run (or propose) `command`.
    pub fn start(dir: &Path, command: &str) -> Self {
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/fake_anthropic.py");
        let portfile = dir.join("fake-model.port");
        let child = wta_testkit::env::clean("python3")
            .arg(script)
            .arg(&portfile)
            .arg(command)
            .spawn()
            .expect("python3 for the fake model");
        let port = wait_for_value("the fake model's port", T, || {
            std::fs::read_to_string(&portfile).ok()?.trim().parse().ok()
        })
        .unwrap();
        Self { child, port }
    }

    /// `config.toml` lines for `custom:claude` on this model, with its
    /// own HOME under `dir`.
    pub fn claude_config(&self, agent: &Path, dir: &Path) -> String {
        let home = dir.join("claude-home");
        std::fs::create_dir_all(&home).unwrap();
        format!(
            "[custom_agents.claude]\nargv = [{agent:?}]\nenv = {{ IS_SANDBOX = \"1\", ANTHROPIC_BASE_URL = \"http://127.0.0.1:{port}\", ANTHROPIC_API_KEY = \"dummy\", HOME = {home:?} }}\n",
            agent = agent.to_string_lossy(),
            port = self.port,
            home = home.to_string_lossy(),
        )
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
