use super::*;
use serde_json::json;

#[test]
fn ext_method_matches_both_spellings() {
    assert_eq!(ext_method("_wta/sessions"), Some(METHOD_SESSIONS));
    assert_eq!(ext_method("wta/sessions"), Some(METHOD_SESSIONS));
    assert_eq!(ext_method("_wta/lagged"), Some(METHOD_LAGGED));
    assert_eq!(ext_method("session/new"), None);
    assert_eq!(ext_method("_wta/other"), None);
}

#[test]
fn meta_parses_ids_and_refuses_commands() {
    let params =
        json!({"_meta": {"wta": {"agentId": "copilot", "ownerTab": "@3", "targetPane": "%7"}}});
    let meta = WtaMeta::from_params(&params).unwrap().unwrap();
    assert_eq!(meta.agent_id.as_deref(), Some("copilot"));
    assert_eq!(meta.owner_tab.unwrap().as_str(), "@3");
    assert_eq!(meta.target_pane.unwrap().as_str(), "%7");
    assert_eq!(meta.client, ClientKind::Helper);

    let smuggled =
        json!({"_meta": {"wta": {"agentId": "copilot", "argv": ["sh", "-c", "touch x"]}}});
    assert!(WtaMeta::from_params(&smuggled).is_err());
    let bad_pane = json!({"_meta": {"wta": {"targetPane": "@1"}}});
    assert!(WtaMeta::from_params(&bad_pane).is_err());
    assert_eq!(WtaMeta::from_params(&json!({"cwd": "/"})).unwrap(), None);
}

#[test]
fn strip_removes_only_wta() {
    let mut params = json!({"cwd": "/", "_meta": {"wta": {}, "other": 1}});
    WtaMeta::strip_from(&mut params);
    assert_eq!(params, json!({"cwd": "/", "_meta": {"other": 1}}));
    let mut params = json!({"cwd": "/", "_meta": {"wta": {}}});
    WtaMeta::strip_from(&mut params);
    assert_eq!(params, json!({"cwd": "/"}));
}

#[test]
fn golden_sessions_list() {
    let list = SessionsListResponse {
        sessions: vec![WtaSessionInfo {
            session_id: "s1".into(),
            agent_id: "copilot".into(),
            helper: 2,
            helper_pid: Some(42),
            owner_tab: Some(crate::WindowId::parse("@1").unwrap()),
            target_pane: None,
            state: SessionState::AgentExited,
            yolo: Some(YoloReport {
                on: true,
                blocked_by_policy: false,
            }),
        }],
    };
    assert_eq!(
        serde_json::to_value(&list).unwrap(),
        json!({"sessions": [{"sessionId": "s1", "agentId": "copilot", "helper": 2, "helperPid": 42,
            "ownerTab": "@1", "targetPane": null, "state": "agent_exited",
            "yolo": {"on": true, "blockedByPolicy": false}}]})
    );
    // A report with an unknown field is refused (trust boundary).
    assert!(
        serde_json::from_value::<SessionStateParams>(
            json!({"sessionId": "s", "yolo": {"on": true, "blockedByPolicy": false, "argv": ["x"]}})
        )
        .is_err()
    );
}

#[test]
fn failures_classify_by_code() {
    let data = MasterFailure::data(FailureKind::AgentExited, Some("copilot"));
    let f = MasterFailure::classify(codes::AGENT_EXITED, "gone", Some(&data)).unwrap();
    assert_eq!(f.kind, FailureKind::AgentExited);
    assert_eq!(f.agent_id.as_deref(), Some("copilot"));
    assert_eq!(MasterFailure::classify(-32603, "x", None), None);
    for kind in [
        FailureKind::AgentExited,
        FailureKind::UnknownSession,
        FailureKind::AgentNotAllowed,
        FailureKind::AgentUnavailable,
        FailureKind::AgentStartFailed,
        FailureKind::BadMeta,
        FailureKind::NoAgent,
    ] {
        assert_eq!(FailureKind::from_code(kind.code()), Some(kind));
    }
}

/// A `_meta.wta` value as anyone could send it: the known keys and a few
/// unknown ones, with values of the right and of the wrong shapes.
fn any_meta() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let key = prop_oneof![
        Just("agentId"),
        Just("ownerTab"),
        Just("targetPane"),
        Just("client"),
        Just("proposalMcp"),
        Just("freshAgent"),
        Just("mcpServer"),
        Just("argv"),
        Just("agent_id"),
    ];
    let value = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(|b| json!(b)),
        any::<i64>().prop_map(|n| json!(n)),
        Just(json!("%7")),
        Just(json!("@3")),
        Just(json!("cli")),
        Just(json!("helper")),
        ".{0,12}".prop_map(|s| json!(s)),
        Just(json!(["sh", "-c", "touch x"])),
    ];
    proptest::collection::btree_map(key, value, 0..5).prop_map(|m| {
        serde_json::Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    })
}

const META_KEYS: [&str; 7] = [
    "agentId",
    "ownerTab",
    "targetPane",
    "client",
    "proposalMcp",
    "freshAgent",
    "mcpServer",
];

proptest::proptest! {
    /// Whatever a client sends as `_meta.wta`: a key the meta does not
    /// know is refused, and what is read writes back to the same meta, with
    /// only known keys; stripping it leaves the rest of `_meta`.
    #[test]
    fn read_meta_round_trips_and_unknown_keys_are_refused(wta in any_meta()) {
        let mut params = json!({"_meta": {"wta": wta.clone(), "other": 1}, "cwd": "/"});
        let read = WtaMeta::from_params(&params);
        let keys: Vec<&String> = wta.as_object().unwrap().keys().collect();
        if keys.iter().any(|k| !META_KEYS.contains(&k.as_str())) {
            proptest::prop_assert!(read.is_err(), "{wta} was read: {read:?}");
        }
        if let Ok(read) = read {
            let meta = read.unwrap();
            let written = meta.to_meta();
            for key in written["wta"].as_object().unwrap().keys() {
                proptest::prop_assert!(META_KEYS.contains(&key.as_str()), "{key}");
            }
            proptest::prop_assert_eq!(WtaMeta::from_meta(&written), Some(meta));
        }
        WtaMeta::strip_from(&mut params);
        proptest::prop_assert_eq!(params, json!({"_meta": {"other": 1}, "cwd": "/"}));
    }
}

#[test]
fn session_state_text_is_its_wire_spelling() {
    for state in [SessionState::Active, SessionState::AgentExited] {
        assert_eq!(serde_json::to_value(state).unwrap(), json!(state.as_str()));
    }
}

#[test]
fn fresh_agent_flag_is_optional_and_omitted_when_false() {
    let params = json!({"_meta": {"wta": {"agentId": "copilot", "freshAgent": true}}});
    let meta = WtaMeta::from_params(&params).unwrap().unwrap();
    assert!(meta.fresh_agent);
    assert!(
        !WtaMeta::from_params(&json!({"_meta": {"wta": {}}}))
            .unwrap()
            .unwrap()
            .fresh_agent
    );
    let plain = WtaMeta {
        agent_id: Some("copilot".into()),
        ..WtaMeta::default()
    };
    assert_eq!(
        serde_json::to_value(&plain).unwrap(),
        json!({"agentId": "copilot"})
    );
    let fresh = WtaMeta {
        fresh_agent: true,
        ..plain
    };
    assert_eq!(
        serde_json::to_value(&fresh).unwrap(),
        json!({"agentId": "copilot", "freshAgent": true})
    );
}
