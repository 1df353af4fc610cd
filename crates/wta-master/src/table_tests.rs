//! The table's routes, keyed twice, and what each change returns.

use wta_protocol::{PaneId, WindowId};

use super::*;
use crate::pool::test_instance;

fn sid(s: &str) -> SessionId {
    SessionId::new(s)
}

fn meta(tab: &str, pane: &str) -> WtaMeta {
    WtaMeta {
        owner_tab: WindowId::parse(tab).ok(),
        target_pane: PaneId::parse(pane).ok(),
        ..WtaMeta::default()
    }
}

#[tokio::test]
async fn a_route_is_found_both_ways_and_only_by_its_owner() {
    let table = Table::new(16, None);
    let (a, b) = (table.add_helper(Some(10)), table.add_helper(None));
    table.set_meta(a.id, meta("@1", "%2"));
    let copilot = test_instance(7, "copilot").await;
    assert!(!table.bind(&a, &copilot, &sid("s1")));

    assert_eq!(table.session_helper(7, "s1").map(|h| h.id), Some(a.id));
    assert!(
        table
            .outbound_of(7, "s1")
            .is_some_and(|o| Arc::ptr_eq(&o, &a.out))
    );
    assert_eq!(table.session_agent(a.id, &sid("s1")).map(|i| i.id), Some(7));
    // Another helper cannot address it, nor the same id on another instance.
    assert!(table.session_agent(b.id, &sid("s1")).is_none());
    assert!(table.session_helper(8, "s1").is_none());
    assert!(!table.set_session_yolo(b.id, "s1", YoloReport::default()));
    let yolo = YoloReport {
        on: true,
        blocked_by_policy: false,
    };
    assert!(table.set_session_yolo(a.id, "s1", yolo));

    let rows = table.sessions();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(
        (row.helper, row.helper_pid, row.agent_id.as_str()),
        (a.id, Some(10), "copilot")
    );
    assert_eq!(row.owner_tab, WindowId::parse("@1").ok());
    assert_eq!((row.state, row.yolo), (SessionState::Active, Some(yolo)));
}

#[tokio::test]
async fn two_agents_minting_one_session_id_never_cross() {
    let table = Table::new(16, None);
    let (a, b) = (table.add_helper(None), table.add_helper(None));
    let (one, two) = (
        test_instance(1, "copilot").await,
        test_instance(2, "gemini").await,
    );
    table.bind(&a, &one, &sid("same"));
    table.bind(&b, &two, &sid("same"));
    assert_eq!(table.session_helper(1, "same").map(|h| h.id), Some(a.id));
    assert_eq!(table.session_helper(2, "same").map(|h| h.id), Some(b.id));
    assert_eq!(
        table.session_agent(a.id, &sid("same")).map(|i| i.id),
        Some(1)
    );
    assert_eq!(
        table.session_agent(b.id, &sid("same")).map(|i| i.id),
        Some(2)
    );
    // The same helper getting the id from another instance: rebound there.
    assert!(table.bind(&a, &two, &sid("same")));
    assert!(table.session_helper(1, "same").is_none());
    assert_eq!(
        table.session_agent(a.id, &sid("same")).map(|i| i.id),
        Some(2)
    );
}

#[tokio::test]
async fn unbinding_returns_the_session_as_it_was_listed() {
    let table = Table::new(16, None);
    let a = table.add_helper(Some(3));
    table.set_meta(a.id, meta("@4", "%5"));
    let (one, two) = (
        test_instance(1, "copilot").await,
        test_instance(2, "copilot").await,
    );
    for (instance, session) in [(&one, "x"), (&one, "y"), (&two, "z")] {
        table.bind(&a, instance, &sid(session));
    }
    let unbound = table
        .unbind(a.id, &sid("x"))
        .unwrap_or_else(|| panic!("bound"));
    assert_eq!(
        (unbound.info.session_id.as_str(), unbound.instance.id),
        ("x", 1)
    );
    assert_eq!(unbound.info.target_pane, PaneId::parse("%5").ok());
    assert!(table.unbind(a.id, &sid("x")).is_none(), "once");
    assert!(table.session_helper(1, "x").is_none());

    let on_two: Vec<_> = table
        .unbind_on(a.id, 2)
        .into_iter()
        .map(|u| u.session)
        .collect();
    assert_eq!(on_two, [sid("z")]);
    assert_eq!(table.session_helper(1, "y").map(|h| h.id), Some(a.id));
}

#[tokio::test]
async fn a_departing_helper_takes_its_sessions_and_its_agent_choice() {
    let table = Table::new(16, None);
    let (a, b) = (table.add_helper(Some(3)), table.add_helper(None));
    table.set_meta(a.id, meta("@4", "%5"));
    let one = test_instance(1, "copilot").await;
    assert!(table.use_agent(a.id, &one).is_none());
    assert!(
        table.use_agent(a.id, &one).is_none(),
        "the same instance replaces nothing"
    );
    table.bind(&a, &one, &sid("s"));
    table.bind(&b, &one, &sid("t"));
    assert!(!table.is_idle(1));

    let gone = table
        .remove_helper(a.id)
        .unwrap_or_else(|| panic!("connected"));
    assert_eq!(gone.meta, meta("@4", "%5"));
    assert_eq!(gone.agent.map(|i| i.id), Some(1));
    let sessions: Vec<&str> = gone
        .sessions
        .iter()
        .map(|u| u.info.session_id.as_str())
        .collect();
    assert_eq!(sessions, ["s"]);
    // Its rows for the history no longer name its tab or pid: it is gone.
    assert_eq!(gone.sessions[0].info.owner_tab, None);
    assert_eq!(gone.sessions[0].info.helper_pid, None);
    assert!(table.helper(a.id).is_none() && table.remove_helper(a.id).is_none());
    assert_eq!(table.sessions().len(), 1);

    assert!(!table.is_idle(1), "b's session");
    table.unbind(b.id, &sid("t"));
    assert!(table.is_idle(1));
}

#[tokio::test]
async fn an_agents_death_marks_its_sessions_by_helper() {
    let table = Table::new(16, None);
    let (a, b) = (table.add_helper(None), table.add_helper(None));
    let (one, two) = (
        test_instance(1, "copilot").await,
        test_instance(2, "copilot").await,
    );
    table.bind(&a, &one, &sid("s2"));
    table.bind(&a, &one, &sid("s1"));
    table.bind(&b, &one, &sid("t"));
    table.bind(&b, &two, &sid("u"));
    let orphaned = table.agent_exited(1);
    let by_helper: Vec<(u64, Vec<String>)> = orphaned
        .iter()
        .map(|o| (o.helper.id, o.session_ids.clone()))
        .collect();
    assert_eq!(
        by_helper,
        [
            (a.id, vec!["s1".to_owned(), "s2".to_owned()]),
            (b.id, vec!["t".to_owned()])
        ]
    );
    let states: Vec<(String, SessionState)> = table
        .sessions()
        .into_iter()
        .map(|r| (r.session_id, r.state))
        .collect();
    assert_eq!(
        states,
        [
            ("s1".to_owned(), SessionState::AgentExited),
            ("s2".to_owned(), SessionState::AgentExited),
            ("t".to_owned(), SessionState::AgentExited),
            ("u".to_owned(), SessionState::Active),
        ]
    );
}
