//! The master reads the agent config and policy at each use (issue 12): a
//! custom agent added to `config.toml` while the master runs is found by the
//! next session, and a broken file fails new requests with a clear error
//! while sessions already running carry on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp_common;

use std::time::Duration;

use acp_common::Env;
use acp_common::raw::RawHelper;
use serde_json::json;

const T: Duration = Duration::from_secs(20);

fn initialize(raw: &mut RawHelper, agent: &str) -> serde_json::Value {
    raw.call(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {},
               "_meta": {"wta": {"agentId": agent}}}),
    )
}

#[test]
fn config_changes_apply_to_the_next_session_and_a_broken_file_harms_none_running() {
    let env = Env::new();
    let _master = env.start_master();
    let (mut running, session) = RawHelper::connect(&env.socket, "custom:test");

    // Not configured yet: refused, and the message names the missing table.
    let mut early = RawHelper::open(&env.socket);
    let refused = initialize(&mut early, "custom:late");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("no [custom_agents.late] entry"),
        "{refused}"
    );

    // Added while the master runs: the next helper gets it.
    let config = env.path("config/wta/config.toml");
    let agent = wta_testkit::acp::agent_path();
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "\n[custom_agents.late]\nargv = [{:?}, \"--late\"]\n",
        agent.to_string_lossy()
    ));
    std::fs::write(&config, &text).unwrap();
    let (mut late, late_session) = RawHelper::connect(&env.socket, "custom:late");
    let id = late.prompt(&late_session, "echo hello from the late agent");
    let (answer, _) = late.response(id, T);
    assert!(answer.get("result").is_some(), "{answer}");

    // A broken file: new requests fail saying so; the running session works.
    std::fs::write(&config, "this is [not toml").unwrap();
    let mut after = RawHelper::open(&env.socket);
    let broken = initialize(&mut after, "custom:test");
    let message = broken["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("config.toml") && message.contains("not valid"),
        "{broken}"
    );
    let id = running.prompt(&session, "echo still running");
    let (answer, _) = running.response(id, T);
    assert!(answer.get("result").is_some(), "{answer}");
}
