use super::*;
use crate::domain::{PlanStatus, ToolCallId, ToolStatus};

fn texts(t: &Transcript) -> Vec<String> {
    t.visible()
        .map(|e| match &e.item {
            Item::User(s) => format!("user:{s}"),
            Item::Agent(s) => format!("agent:{s}"),
            Item::Thought { text, .. } => format!("thought:{text}"),
            Item::Tool(c) => format!("tool:{}:{:?}", c.title, c.status),
            Item::Plan(p) => format!("plan:{}", p.len()),
            Item::System { text, .. } => format!("system:{text}"),
            Item::Divider(label) => format!("divider:{label}"),
            Item::TurnEnd {
                collapsed, items, ..
            } => format!("end:{collapsed}:{items}"),
        })
        .collect()
}

#[test]
fn chunks_join_the_streaming_reply_and_revisions_change() {
    let mut t = Transcript::default();
    t.begin_turn("hi");
    t.append_agent("Hel");
    let rev = t.entries()[1].rev;
    t.append_agent("lo");
    assert!(t.entries()[1].rev > rev);
    t.append_thought("hmm");
    t.append_agent("again");
    assert_eq!(
        texts(&t),
        ["user:hi", "agent:Hello", "thought:hmm", "agent:again"]
    );
    assert!(matches!(
        t.entries()[2].item,
        Item::Thought { live: false, .. }
    ));
}

#[test]
fn late_chunk_after_turn_end_joins_the_last_reply() {
    let mut t = Transcript::default();
    t.begin_turn("hi");
    t.append_agent("a");
    t.end_turn(StopReason::EndTurn);
    t.append_agent("b");
    assert_eq!(texts(&t), ["user:hi", "agent:ab", "end:false:1"]);
}

#[test]
fn tool_updates_merge_by_id_and_unknown_updates_create_rows() {
    let mut t = Transcript::default();
    t.begin_turn("x");
    let id = ToolCallId("t1".into());
    t.upsert_tool(ToolCall {
        id: id.clone(),
        title: "Run".into(),
        ..ToolCall::default()
    });
    t.update_tool(ToolCallUpdate {
        id: id.clone(),
        status: Some(ToolStatus::Completed),
        output: Some("a\nb\n".into()),
        ..ToolCallUpdate::default()
    });
    t.update_tool(ToolCallUpdate {
        id: ToolCallId("t2".into()),
        title: Some("Other".into()),
        ..ToolCallUpdate::default()
    });
    assert_eq!(
        texts(&t),
        ["user:x", "tool:Run:Completed", "tool:Other:Pending"]
    );
    let Item::Tool(call) = &t.entries()[1].item else {
        panic!()
    };
    assert_eq!(call.output, ["a", "b"]);
}

#[test]
fn tool_output_is_bounded_to_its_tail() {
    let mut call = ToolCall::default();
    let text: String = (0..250).map(|i| format!("{i}\n")).collect();
    call.set_output(&text);
    assert_eq!(call.output.len(), crate::domain::TOOL_OUTPUT_KEEP_LINES);
    assert_eq!(call.output_dropped, 50);
    assert_eq!(call.output[0], "50");
}

#[test]
fn plan_is_replaced_in_place_within_a_turn() {
    let mut t = Transcript::default();
    t.begin_turn("x");
    let entry = |s| PlanEntry {
        text: "a".into(),
        status: s,
    };
    t.set_plan(vec![entry(PlanStatus::Pending)]);
    t.append_agent("working");
    t.set_plan(vec![
        entry(PlanStatus::Completed),
        entry(PlanStatus::Pending),
    ]);
    assert_eq!(texts(&t), ["user:x", "plan:2", "agent:working"]);
}

#[test]
fn collapsing_a_turn_keeps_prompt_and_end_line() {
    let mut t = Transcript::default();
    t.begin_turn("one");
    t.append_thought("think");
    t.append_agent("reply");
    t.end_turn(StopReason::EndTurn);
    t.begin_turn("two");
    let foldables = t.foldables();
    assert_eq!(foldables.len(), 2, "settled thought and the completed turn");
    assert!(t.toggle(foldables[1]));
    assert_eq!(texts(&t), ["user:one", "end:true:2", "user:two"]);
    assert!(t.toggle(foldables[1]));
    assert_eq!(t.visible().count(), 5);
    let user_id = t.entries()[0].id;
    assert!(!t.toggle(user_id));
}

#[test]
fn end_turn_without_a_running_turn_is_a_no_op() {
    let mut t = Transcript::default();
    t.end_turn(StopReason::Cancelled);
    assert!(t.is_empty());
    assert!(!t.turn_running());
}
