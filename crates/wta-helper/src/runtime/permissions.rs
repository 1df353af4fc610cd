//! Responders of pending `session/request_permission` requests, keyed by the
//! [`PermissionRequestId`] the app knows them by.
//!
//! Invariant: every request is answered exactly once. Taking a request out of
//! the table is the only way to answer it, so a second answer for the same id
//! (a late card key, a cancel after the turn ended) finds nothing and does
//! nothing. Requests of a session that is gone are cancelled in bulk.

use std::collections::BTreeMap;

use crate::connection::{ConnectionError, PermissionRequest};
use wta_state::{PermissionAnswer, PermissionRequestId};

/// Something that can answer one permission request.
pub trait Responder {
    fn select(self, option_id: &str) -> Result<(), ConnectionError>;
    fn cancel(self) -> Result<(), ConnectionError>;
}

impl Responder for PermissionRequest {
    fn select(self, option_id: &str) -> Result<(), ConnectionError> {
        PermissionRequest::select(self, option_id)
    }
    fn cancel(self) -> Result<(), ConnectionError> {
        PermissionRequest::cancel(self)
    }
}

struct Pending<R> {
    session: String,
    responder: R,
}

/// The table of unanswered requests.
pub struct Permissions<R = PermissionRequest> {
    next: u64,
    pending: BTreeMap<PermissionRequestId, Pending<R>>,
}

impl<R> Default for Permissions<R> {
    fn default() -> Self {
        Self {
            next: 1,
            pending: BTreeMap::new(),
        }
    }
}

impl<R> std::fmt::Debug for Permissions<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Permissions")
            .field("pending", &self.pending.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<R: Responder> Permissions<R> {
    /// Stores a responder and returns its fresh id.
    pub fn insert(&mut self, session: &str, responder: R) -> PermissionRequestId {
        let id = PermissionRequestId(self.next);
        self.next += 1;
        self.pending.insert(
            id,
            Pending {
                session: session.to_owned(),
                responder,
            },
        );
        id
    }

    /// Answers `id`; `Ok(false)` when it was already answered or withdrawn.
    pub fn answer(
        &mut self,
        id: PermissionRequestId,
        answer: &PermissionAnswer,
    ) -> Result<bool, ConnectionError> {
        let Some(pending) = self.pending.remove(&id) else {
            return Ok(false);
        };
        match answer {
            PermissionAnswer::Selected(option) => pending.responder.select(option)?,
            PermissionAnswer::Cancelled => pending.responder.cancel()?,
        }
        Ok(true)
    }

    /// Cancels every request of `session` (or of all sessions) and returns their ids.
    pub fn cancel_session(&mut self, session: Option<&str>) -> Vec<PermissionRequestId> {
        let ids: Vec<PermissionRequestId> = self
            .pending
            .iter()
            .filter(|(_, p)| session.is_none_or(|s| p.session == s))
            .map(|(id, _)| *id)
            .collect();
        for id in &ids {
            if let Some(p) = self.pending.remove(id)
                && let Err(err) = p.responder.cancel()
            {
                tracing::debug!("cancelling permission request {id:?}: {err}");
            }
        }
        ids
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;

    #[derive(Clone, Default)]
    struct Log(Rc<RefCell<Vec<String>>>);

    struct Fake {
        name: &'static str,
        log: Log,
    }

    impl Responder for Fake {
        fn select(self, option_id: &str) -> Result<(), ConnectionError> {
            self.log
                .0
                .borrow_mut()
                .push(format!("{} select {option_id}", self.name));
            Ok(())
        }
        fn cancel(self) -> Result<(), ConnectionError> {
            self.log
                .0
                .borrow_mut()
                .push(format!("{} cancel", self.name));
            Ok(())
        }
    }

    #[test]
    fn each_request_is_answered_exactly_once() {
        let log = Log::default();
        let mut table = Permissions::default();
        let fake = |name| Fake {
            name,
            log: log.clone(),
        };
        let a = table.insert("s1", fake("a"));
        let b = table.insert("s1", fake("b"));
        let c = table.insert("s2", fake("c"));
        assert_ne!(a, b);
        let allow = PermissionAnswer::Selected("opt".into());
        assert!(table.answer(a, &allow).unwrap());
        assert!(
            !table.answer(a, &allow).unwrap(),
            "second answer is ignored"
        );
        assert!(!table.answer(a, &PermissionAnswer::Cancelled).unwrap());
        assert_eq!(table.cancel_session(Some("s1")), [b]);
        assert!(!table.answer(b, &allow).unwrap());
        assert_eq!(table.len(), 1);
        assert_eq!(table.cancel_session(None), [c]);
        assert!(table.is_empty());
        assert_eq!(*log.0.borrow(), ["a select opt", "b cancel", "c cancel"]);
    }
}
