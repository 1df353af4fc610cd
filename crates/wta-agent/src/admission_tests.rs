//! The queue row by row and against a model (proptest), then the runtime
//! part: eviction signals, deadlines, and a proven place that never fires.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::*;

fn ids<T>(queue: &Queue<T>) -> Vec<u64> {
    queue.entries.iter().map(|entry| entry.id).collect()
}

#[test]
fn a_full_queue_evicts_its_oldest_silent_entry_first() {
    // (operation, evicted id, ids after)
    enum Op {
        Admit(u64),
        Spoke(u64),
        Remove(u64),
    }
    use Op::{Admit, Remove, Spoke};
    let rows: Vec<(Op, Option<u64>, Vec<u64>)> = vec![
        (Admit(0), None, vec![0]),
        (Admit(1), None, vec![0, 1]),
        (Admit(2), None, vec![0, 1, 2]),
        // Full and all silent: the oldest goes.
        (Admit(3), Some(0), vec![1, 2, 3]),
        // 1 spoke: 2 is the oldest silent one.
        (Spoke(1), None, vec![1, 2, 3]),
        (Admit(4), Some(2), vec![1, 3, 4]),
        (Spoke(3), None, vec![1, 3, 4]),
        (Spoke(4), None, vec![1, 3, 4]),
        // Everyone spoke: the oldest goes.
        (Admit(5), Some(1), vec![3, 4, 5]),
        // The newcomer is silent: it goes before those that spoke.
        (Admit(6), Some(5), vec![3, 4, 6]),
        // A proven (removed) entry frees its place.
        (Remove(4), None, vec![3, 6]),
        (Admit(7), None, vec![3, 6, 7]),
        // Unknown ids change nothing.
        (Remove(99), None, vec![3, 6, 7]),
        (Spoke(99), None, vec![3, 6, 7]),
        (Admit(8), Some(6), vec![3, 7, 8]),
    ];
    let mut queue = Queue::new(3);
    for (i, (op, evicted, after)) in rows.into_iter().enumerate() {
        let got = match op {
            Admit(id) => queue.admit(id, id).map(|(id, value)| {
                assert_eq!(id, value);
                id
            }),
            Spoke(id) => {
                queue.spoke(id);
                None
            }
            Remove(id) => {
                queue.remove(id);
                None
            }
        };
        assert_eq!(got, evicted, "row {i}");
        assert_eq!(ids(&queue), after, "row {i}");
    }
}

#[test]
fn a_queue_holds_at_least_one() {
    let mut queue = Queue::new(0);
    assert_eq!(queue.admit(1, ()), None);
    assert_eq!(queue.admit(2, ()).map(|(id, ())| id), Some(1));
    assert_eq!(queue.len(), 1);
}

#[derive(Debug, Clone)]
enum ModelOp {
    Admit,
    Spoke(usize),
    Remove(usize),
}

fn model_op() -> impl Strategy<Value = ModelOp> {
    prop_oneof![
        3 => Just(ModelOp::Admit),
        1 => (0usize..16).prop_map(ModelOp::Spoke),
        1 => (0usize..16).prop_map(ModelOp::Remove),
    ]
}

proptest! {
    /// Against a plain list: never over `max`, never evicts while there is
    /// room, evicts a silent entry whenever there is one, and always the
    /// oldest of its kind.
    #[test]
    fn the_queue_matches_its_model(max in 1usize..6, ops in prop::collection::vec(model_op(), 0..64)) {
        let mut queue = Queue::new(max);
        // (id, spoke), oldest first
        let mut model: Vec<(u64, bool)> = Vec::new();
        let mut next = 0u64;
        for op in ops {
            match op {
                ModelOp::Admit => {
                    let want = (model.len() >= max).then(|| {
                        let at = model.iter().position(|(_, spoke)| !spoke).unwrap_or(0);
                        model.remove(at).0
                    });
                    model.push((next, false));
                    let got = queue.admit(next, next).map(|(id, _)| id);
                    prop_assert_eq!(got, want);
                    next += 1;
                }
                ModelOp::Spoke(pick) => {
                    if let Some(entry) = model.get_mut(pick) {
                        entry.1 = true;
                        queue.spoke(entry.0);
                    }
                }
                ModelOp::Remove(pick) => {
                    if pick < model.len() {
                        let (id, _) = model.remove(pick);
                        prop_assert_eq!(queue.remove(id), Some(id));
                    }
                }
            }
            prop_assert!(queue.len() <= max);
            let seen: Vec<(u64, bool)> = queue.entries.iter().map(|e| (e.id, e.spoke)).collect();
            prop_assert_eq!(&seen, &model);
        }
    }
}

#[tokio::test]
async fn an_evicted_connection_is_told_at_once_and_its_place_goes_to_the_newcomer() {
    let pool = Unproven::new("test socket", 2, Duration::from_secs(600));
    let first = pool.admit();
    let second = pool.admit();
    second.saw_bytes();
    assert_eq!(pool.len(), 2);
    let third = pool.admit();
    assert_eq!(pool.len(), 2);
    // `first` sent nothing: it is the victim, before `second` that spoke.
    assert_eq!(first.lost().await, Lost::Evicted);
    let fourth = pool.admit();
    // Everyone left is `second` (spoke) and `third` (silent): third goes.
    assert_eq!(third.lost().await, Lost::Evicted);
    drop(first);
    assert_eq!(pool.len(), 2);
    second.prove();
    assert_eq!(pool.len(), 1);
    fourth.prove();
    assert!(pool.is_empty());
}

#[tokio::test]
async fn an_unproven_connection_times_out_and_a_proven_one_never_does() {
    let timeout = Duration::from_millis(50);
    let pool = Unproven::new("test socket", 8, timeout);
    let started = tokio::time::Instant::now();
    let proven = pool.admit();
    let watch = proven.watch();
    proven.prove();
    let late = pool.admit();
    // `late`'s deadline is after the proven one's: had the proven watch
    // fired on its deadline, the biased select would have seen it first.
    tokio::select! {
        biased;
        lost = watch.lost() => panic!("a proven connection was lost: {lost:?}"),
        lost = late.lost() => assert_eq!(lost, Lost::TimedOut),
    }
    assert!(started.elapsed() >= timeout);
    // Still in the pool until its owner drops it.
    assert_eq!(pool.len(), 1);
    drop(late);
    assert!(pool.is_empty());
}

#[tokio::test]
async fn a_flood_leaves_the_newest_in_the_pool() {
    let pool = Unproven::new("test socket", 4, Duration::from_secs(600));
    let flood: Vec<Pending> = (0..20).map(|_| pool.admit()).collect();
    for (i, pending) in flood.iter().enumerate() {
        let evicted = tokio::time::timeout(Duration::ZERO, pending.lost()).await;
        // `timeout(ZERO, …)` polls once: a cancelled token is ready at once.
        assert_eq!(evicted.is_ok(), i < 16, "connection {i}");
    }
    assert_eq!(pool.len(), 4);
}
