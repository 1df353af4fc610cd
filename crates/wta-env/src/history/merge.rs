//! One entry per proposal: later records of a proposal supersede its
//! first.
//!
//! The file is append-only, and a record is written when a card's
//! execution lines end. A command still running at the proposal's time
//! limit ends later (DESIGN §4.4's long runs): the pane then appends a
//! second, complete record for the same `proposal_id`, whose actions carry
//! the final result (`ended_after_limit`). The reader folds them here:
//!
//! - a proposal's entry stands where its first record was (the listing
//!   stays in decision order, newest last);
//! - its `time` and `decision` are the first record's (when and how the
//!   user decided; a later record only reports how the run ended);
//! - everything else is the latest record's (the latest result wins).
//!
//! Records whose `proposal_id`s differ are never merged, and none is
//! dropped: the entries are exactly the distinct proposals read. Pure, no
//! I/O; any list of records is accepted (a proptest holds it to that).

use std::collections::HashMap;

use super::record::HistoryRecord;

/// `records` (oldest first) with each proposal's later records folded into
/// its first, as the module doc says.
pub fn merge(records: Vec<HistoryRecord>) -> Vec<HistoryRecord> {
    let mut at: HashMap<String, usize> = HashMap::with_capacity(records.len());
    let mut entries: Vec<HistoryRecord> = Vec::with_capacity(records.len());
    for record in records {
        match at.get(&record.proposal_id) {
            Some(&index) => {
                let first = &mut entries[index];
                let time = std::mem::take(&mut first.time);
                let decision = first.decision;
                *first = HistoryRecord {
                    time,
                    decision,
                    ..record
                };
            }
            None => {
                at.insert(record.proposal_id.clone(), entries.len());
                entries.push(record);
            }
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::*;
    use crate::history::record::{ActionRecord, Decision, OutputDigest, RECORD_VERSION};

    fn record(id: &str, time: &str, decision: Decision, result: &str) -> HistoryRecord {
        HistoryRecord {
            version: RECORD_VERSION,
            time: time.into(),
            agent: Some("demo".into()),
            session_id: Some("s-1".into()),
            tab: Some("@1".into()),
            pane: Some("%2".into()),
            host: Some("box".into()),
            remote: false,
            proposal_id: id.into(),
            origin: Some("terminal_agent".into()),
            choice: 1,
            title: format!("Run {id}"),
            decision,
            reason: None,
            actions: vec![ActionRecord {
                kind: "send".into(),
                command: Some("sleep 3; false".into()),
                result: Some(result.into()),
                ..ActionRecord::default()
            }],
        }
    }

    #[test]
    fn a_later_record_supersedes_the_first_in_its_place_keeping_time_and_decision() {
        let first = record(
            "p-1",
            "2026-12-02T05:00:00Z",
            Decision::Confirmed,
            "timed_out",
        );
        let other = record("p-2", "2026-12-02T05:00:01Z", Decision::Cancelled, "x");
        let mut late = record("p-1", "2026-12-02T05:00:03Z", Decision::TimedOut, "failed");
        late.actions[0].exit_status = Some(1);
        late.actions[0].duration_ms = Some(3012);
        late.actions[0].output = Some(OutputDigest::of("done", false));
        late.actions[0].ended_after_limit = true;
        let merged = merge(vec![first.clone(), other.clone(), late.clone()]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[1], other);
        let entry = &merged[0];
        assert_eq!(entry.proposal_id, "p-1");
        assert_eq!(entry.time, first.time);
        assert_eq!(entry.decision, Decision::Confirmed);
        assert_eq!(entry.actions, late.actions);
        let action = &entry.actions[0];
        assert_eq!(action.result.as_deref(), Some("failed"));
        assert_eq!(action.exit_status, Some(1));
        assert!(action.ended_after_limit);
        assert_eq!(
            action.output.as_ref().map(|o| o.head.as_str()),
            Some("done")
        );
    }

    #[test]
    fn the_latest_of_several_wins_and_distinct_proposals_are_untouched() {
        let a = record("p-1", "t1", Decision::Confirmed, "timed_out");
        let b = record("p-1", "t2", Decision::Confirmed, "completed");
        let c = record("p-1", "t3", Decision::Confirmed, "failed");
        let merged = merge(vec![a, b, c.clone()]);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].time, "t1");
        assert_eq!(merged[0].actions, c.actions);
        let plain: Vec<HistoryRecord> = (0..4)
            .map(|n| record(&format!("p-{n}"), "t", Decision::Confirmed, "completed"))
            .collect();
        assert_eq!(merge(plain.clone()), plain);
        assert!(merge(Vec::new()).is_empty());
    }

    fn decision() -> impl Strategy<Value = Decision> {
        prop_oneof![
            Just(Decision::Confirmed),
            Just(Decision::Inserted),
            Just(Decision::Cancelled),
            Just(Decision::TimedOut),
        ]
    }

    fn any_record() -> impl Strategy<Value = HistoryRecord> {
        (
            prop_oneof![4 => "p-[0-4]", 1 => any::<String>()],
            any::<String>(),
            decision(),
            any::<String>(),
        )
            .prop_map(|(id, time, decision, result)| record(&id, &time, decision, &result))
    }

    proptest! {
        #[test]
        fn merging_never_panics_and_never_drops_a_proposal(
            records in proptest::collection::vec(any_record(), 0..40),
        ) {
            let merged = merge(records.clone());
            // One entry per distinct proposal, in order of first appearance.
            let mut seen = HashSet::new();
            let order: Vec<&str> = records
                .iter()
                .map(|r| r.proposal_id.as_str())
                .filter(|id| seen.insert(*id))
                .collect();
            let ids: Vec<&str> = merged.iter().map(|r| r.proposal_id.as_str()).collect();
            prop_assert_eq!(&ids, &order);
            for entry in &merged {
                let of: Vec<&HistoryRecord> = records
                    .iter()
                    .filter(|r| r.proposal_id == entry.proposal_id)
                    .collect();
                let (first, last) = (of[0], of[of.len() - 1]);
                prop_assert_eq!(&entry.time, &first.time);
                prop_assert_eq!(entry.decision, first.decision);
                prop_assert_eq!(&entry.actions, &last.actions);
                prop_assert_eq!(&entry.title, &last.title);
            }
        }
    }
}
