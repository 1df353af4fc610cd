//! The registry's rows: a shell-pane session through its hook events, an
//! agent-pane session's activity and end, and the merge.

use wta_protocol::PaneId;
use wta_protocol::agent_sessions::HookCli;

use super::*;

fn event(kind: HookEventKind, session: Option<&str>) -> HookEvent {
    HookEvent {
        cli: HookCli::Claude,
        event: kind,
        pane: Some(PaneId::parse("%4").unwrap()),
        session_id: session.map(str::to_owned),
        cwd: Some("/src".into()),
        tool: Some("Bash".into()),
        message: Some("Claude needs your permission to use Bash".into()),
    }
}

fn info(helper: u64, session: &str) -> WtaSessionInfo {
    WtaSessionInfo {
        session_id: session.into(),
        agent_id: "custom:test".into(),
        helper,
        helper_pid: None,
        owner_tab: None,
        target_pane: None,
        state: SessionState::Active,
        yolo: None,
    }
}

#[test]
fn a_shell_session_follows_its_hooks_and_ends_as_history() {
    let r = Registry::default();
    r.hook(&event(HookEventKind::SessionStart, Some("abc")), 1);
    let rows = r.rows(&[]);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].status, rows[0].key.as_str()),
        (AgentStatus::Idle, "claude:abc")
    );
    r.hook(&event(HookEventKind::PromptSubmit, Some("abc")), 2);
    r.hook(&event(HookEventKind::ToolStarting, Some("abc")), 3);
    let row = &r.rows(&[])[0];
    assert_eq!(
        (row.status, row.current_tool.as_deref()),
        (AgentStatus::Working, Some("Bash"))
    );
    assert!(!row.resumable, "live");
    r.hook(&event(HookEventKind::Notification, Some("abc")), 4);
    assert_eq!(r.rows(&[])[0].status, AgentStatus::Attention);
    r.hook(&event(HookEventKind::Stop, Some("abc")), 5);
    assert_eq!(r.rows(&[])[0].status, AgentStatus::Idle);
    r.hook(&event(HookEventKind::SessionEnd, Some("abc")), 6);
    let row = &r.rows(&[])[0];
    assert_eq!(row.status, AgentStatus::Ended);
    assert!(row.resumable, "its CLI can resume it by id");
    assert!(r.shell_rows().is_empty());
}

#[test]
fn agent_pane_sessions_show_activity_and_are_kept_after_they_end() {
    let r = Registry::default();
    r.opened(1, "s1", Some("/work".into()), true);
    r.activity(1, "s1", AgentStatus::Working);
    let rows = r.rows(&[info(1, "s1")]);
    assert_eq!(rows[0].status, AgentStatus::Working);
    assert_eq!(rows[0].cwd.as_deref(), Some("/work"));
    assert_eq!(rows[0].source, SessionSource::AgentPane);
    r.ended(&info(1, "s1"));
    let rows = r.rows(&[]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, AgentStatus::Ended);
    assert!(rows[0].resumable, "its agent loads sessions");
    // An ended row is not listed twice when the same session is live again.
    assert_eq!(r.rows(&[info(2, "s1")]).len(), 1);
}

#[test]
fn history_is_bounded_and_a_gone_pane_ends_its_session() {
    let r = Registry::default();
    for n in 0..(MAX_ENDED + 5) {
        r.ended(&info(1, &format!("s{n}")));
    }
    assert_eq!(r.rows(&[]).len(), MAX_ENDED);
    r.hook(&event(HookEventKind::SessionStart, None), 1);
    let key = r.shell_rows()[0].key.clone();
    assert_eq!(key, "claude@%4");
    r.pane_gone(&key);
    assert!(r.shell_rows().is_empty());
}

#[test]
fn a_cli_log_moves_its_hooked_row_only() {
    use wta_agent::session_logs::LogSignal;
    let r = Registry::default();
    r.hook(&event(HookEventKind::PromptSubmit, Some("abc")), 1);
    let mut idle = LogSignal::status(AgentStatus::Idle);
    idle.cwd = Some("/elsewhere".into());
    r.log_signal("claude:abc", &idle, 2);
    let row = &r.rows(&[])[0];
    assert_eq!(row.status, AgentStatus::Idle);
    assert_eq!(row.cwd.as_deref(), Some("/src"), "the hook's cwd stays");
    r.log_signal("claude:unknown", &idle, 3);
    assert_eq!(r.rows(&[]).len(), 1, "a log makes no row of its own");
}

#[test]
fn only_an_ended_row_is_forgotten() {
    let r = Registry::default();
    r.hook(&event(HookEventKind::SessionStart, Some("live")), 1);
    r.ended(&info(1, "s1"));
    assert!(!r.forget("claude:live"), "a live shell-pane row stays");
    assert!(!r.forget("pane:9:nope"), "unknown");
    assert!(r.forget("pane:1:s1"));
    assert!(!r.forget("pane:1:s1"), "once");
    let keys: Vec<String> = r.rows(&[]).into_iter().map(|row| row.key).collect();
    assert_eq!(keys, ["claude:live"]);
}
