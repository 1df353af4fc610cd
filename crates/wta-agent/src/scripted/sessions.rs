//! The sessions a scripted agent has open: their ids, each one's agent-owned
//! state `S`, and the cancel signal of its current turn.
//!
//! Invariants: every prompt gets a fresh cancel signal, so a `session/cancel`
//! aimed at an earlier turn (its stored permit) cannot cancel this one; a
//! cancel that arrives before the turn waits is kept for it (one permit);
//! closing a session wakes a turn waiting on it. The lock is held only for
//! map edits, never across an await.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

struct Open<S> {
    cancel: Arc<Notify>,
    state: S,
}

/// The open sessions, keyed by session id.
pub struct Sessions<S> {
    prefix: &'static str,
    next: AtomicU64,
    open: Mutex<HashMap<String, Open<S>>>,
}

impl<S> Sessions<S> {
    /// No sessions; new ids read `<prefix>-<pid>-<n>`, `n` from 1.
    pub(crate) fn new(prefix: &'static str) -> Self {
        Self {
            prefix,
            next: AtomicU64::new(1),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// A session id not handed out before by this agent.
    pub(crate) fn next_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{}-{}-{n}", self.prefix, std::process::id())
    }

    /// Opens (or reopens, replacing its state) session `id`.
    pub fn insert(&self, id: impl Into<String>, state: S) {
        let open = Open {
            cancel: Arc::new(Notify::new()),
            state,
        };
        self.lock().insert(id.into(), open);
    }

    /// Closes session `id`, waking a turn that waits for a cancel; whether
    /// it was open.
    pub fn close(&self, id: &str) -> bool {
        match self.lock().remove(id) {
            Some(open) => {
                open.cancel.notify_waiters();
                true
            }
            None => false,
        }
    }

    /// `f` on session `id`'s state, or `None` if it is not open.
    pub fn with<R>(&self, id: &str, f: impl FnOnce(&mut S) -> R) -> Option<R> {
        self.lock().get_mut(id).map(|open| f(&mut open.state))
    }

    /// A fresh cancel signal for a turn of session `id`, or `None` if the
    /// session is not open.
    pub(crate) fn begin_turn(&self, id: &str) -> Option<Arc<Notify>> {
        let cancel = Arc::new(Notify::new());
        let mut open = self.lock();
        let session = open.get_mut(id)?;
        session.cancel = cancel.clone();
        Some(cancel)
    }

    /// `session/cancel`: signals the current turn of session `id`.
    pub(crate) fn cancel(&self, id: &str) {
        if let Some(open) = self.lock().get(id) {
            open.cancel.notify_one();
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Open<S>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[test]
    fn ids_are_numbered_per_agent() {
        let sessions: Sessions<()> = Sessions::new("x");
        let pid = std::process::id();
        assert_eq!(sessions.next_id(), format!("x-{pid}-1"));
        assert_eq!(sessions.next_id(), format!("x-{pid}-2"));
    }

    #[test]
    fn state_lives_while_the_session_is_open() {
        let sessions = Sessions::new("x");
        assert_eq!(sessions.with("a", |n: &mut u32| *n), None);
        sessions.insert("a", 1);
        assert_eq!(sessions.with("a", |n| std::mem::replace(n, 2)), Some(1));
        assert_eq!(sessions.with("a", |n| *n), Some(2));
        sessions.insert("a", 5);
        assert_eq!(sessions.with("a", |n| *n), Some(5));
        assert!(sessions.close("a"));
        assert!(!sessions.close("a"));
        assert_eq!(sessions.with("a", |n| *n), None);
        assert!(sessions.begin_turn("a").is_none());
    }

    #[test]
    fn a_cancel_reaches_only_the_current_turn() {
        let sessions = Sessions::new("x");
        sessions.insert("a", ());
        let first = sessions.begin_turn("a").unwrap();
        sessions.cancel("a");
        // The permit is kept for a turn that waits later...
        assert!(first.notified().now_or_never().is_some());
        sessions.cancel("a");
        // ...but a new turn starts uncancelled.
        let second = sessions.begin_turn("a").unwrap();
        assert!(second.notified().now_or_never().is_none());
        sessions.cancel("b");
        assert!(second.notified().now_or_never().is_none());
    }

    #[tokio::test]
    async fn closing_wakes_a_waiting_turn() {
        let sessions = Arc::new(Sessions::new("x"));
        sessions.insert("a", ());
        let cancel = sessions.begin_turn("a").unwrap();
        let waiting = cancel.notified();
        tokio::pin!(waiting);
        // Registered as a waiter before the close.
        assert!(waiting.as_mut().now_or_never().is_none());
        sessions.close("a");
        waiting.await;
    }
}
