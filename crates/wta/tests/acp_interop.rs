//! Interop: the master and a helper against an independent ACP implementation,
//! the Python SDK's `echo_agent.py` (installed by `scripts/install-test-peers.sh`).

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::path::PathBuf;
use std::time::Duration;

use acp_common::{Env, Helper};

fn echo_agent() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/test-peers/echo-agent");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing: run scripts/install-test-peers.sh",
        path.display()
    );
    eprintln!(
        "python echo agent not installed (scripts/install-test-peers.sh); skipped outside CI"
    );
    None
}

#[test]
fn python_sdk_echo_agent_works_through_master_and_helper() {
    let Some(agent) = echo_agent() else { return };
    let env = Env::with_config(&format!(
        "[custom_agents.pyecho]\nargv = [{:?}]\n",
        agent.to_string_lossy()
    ));
    let _master = env.start_master();
    let mut a = env.helper("custom:pyecho");
    let mut b = env.helper("custom:pyecho");
    let ea = a.turn("hello from a", Duration::from_secs(30));
    let eb = b.turn("hello from b", Duration::from_secs(30));
    assert_eq!(Helper::chunks(&ea).join(""), "hello from a", "{ea:?}");
    assert_eq!(Helper::chunks(&eb).join(""), "hello from b", "{eb:?}");
    assert_eq!(ea.last().unwrap()["stopReason"], "end_turn");
    for h in [&a, &b] {
        assert!(
            h.seen
                .iter()
                .all(|e| e["sessionId"].as_str().is_none_or(|s| s == h.session))
        );
    }
}
