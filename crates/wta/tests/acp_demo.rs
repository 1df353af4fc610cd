//! The built-in offline demo agent, through a real master and helper.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed step should panic

mod acp_common;

use std::time::Duration;

use acp_common::{Env, Helper};

#[test]
fn demo_agent_says_it_is_a_demo_shows_a_plan_and_asks_permission() {
    let env = Env::new();
    let _master = env.start_master();
    let mut h = env.helper("demo");
    let events = h.turn("hello *there*", Duration::from_secs(10));
    let text = Helper::chunks(&events).join("");
    assert!(
        text.contains("WTA demo agent") && text.contains("> hello *there*"),
        "{text}"
    );
    let events = h.turn("plan", Duration::from_secs(10));
    assert!(
        events
            .iter()
            .any(|e| e["update"]["sessionUpdate"] == "plan"),
        "{events:?}"
    );
    h.send("prompt permission");
    let p = h.expect(Duration::from_secs(10), |e| e["event"] == "permission");
    assert_eq!(p["options"], serde_json::json!(["allow", "reject"]));
    h.send("allow allow");
    h.expect(Duration::from_secs(10), |e| e["event"] == "prompt_done");
    assert!(Helper::chunks(&h.seen).join("").contains("You allowed it"));
}
