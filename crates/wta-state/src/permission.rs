//! Permission requests waiting for the user: a FIFO queue whose front is
//! shown as a card. Like every card, it ignores its keys until it has been
//! visible for a short grace period (`guard.rs`), so that typing in
//! progress is never taken as an answer.

use std::collections::VecDeque;
use std::time::Duration;

use wta_i18n::tr;

use super::domain::{
    PermissionAnswer, PermissionOptionKind, PermissionRequest, PermissionRequestId,
};

/// The transcript's word for an answer the user did not choose.
fn dismissed() -> String {
    tr("chat.permission_dismissed", &[])
}

/// How long any card (this one, the agent's question, a proposal card) must
/// have been visible before it takes keys: the guard's [`CARD_GRACE`](super::guard::CARD_GRACE),
/// under the name tests and tools know it by.
pub const PERMISSION_GRACE: Duration = super::guard::CARD_GRACE;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingPermission {
    pub request: PermissionRequest,
    /// Highlighted option index.
    pub selected: usize,
}

impl PendingPermission {
    /// The option `y` (`allow = true`) or `n` answers with: the first
    /// one-time kind, else the first always kind. The card marks the same one.
    pub fn shortcut_index(&self, allow: bool) -> Option<usize> {
        let (once, always) = if allow {
            (
                PermissionOptionKind::AllowOnce,
                PermissionOptionKind::AllowAlways,
            )
        } else {
            (
                PermissionOptionKind::RejectOnce,
                PermissionOptionKind::RejectAlways,
            )
        };
        let options = &self.request.options;
        options
            .iter()
            .position(|o| o.kind == once)
            .or_else(|| options.iter().position(|o| o.kind == always))
    }
}

#[derive(Debug, Clone, Default)]
pub struct PermissionQueue {
    items: VecDeque<PendingPermission>,
}

impl PermissionQueue {
    pub fn front(&self) -> Option<&PendingPermission> {
        self.items.front()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &PendingPermission> {
        self.items.iter()
    }

    pub fn push(&mut self, request: PermissionRequest) {
        // Start on the first allow-once option: the common answer, and never an "always".
        let selected = request
            .options
            .iter()
            .position(|o| o.kind == PermissionOptionKind::AllowOnce)
            .unwrap_or(0);
        self.items
            .push_back(PendingPermission { request, selected });
    }

    fn pop_front(&mut self) -> Option<PendingPermission> {
        self.items.pop_front()
    }

    /// Removes a request the agent withdrew; true if it was pending.
    pub fn withdraw(&mut self, id: PermissionRequestId) -> bool {
        match self.items.iter().position(|p| p.request.id == id) {
            Some(0) => self.pop_front().is_some(),
            Some(i) => self.items.remove(i).is_some(),
            None => false,
        }
    }

    /// Answers the front card with `option` (one it offers) or dismisses it
    /// (`None` or an option it does not offer); `None` when there is no card.
    pub fn answer_with(
        &mut self,
        option: Option<&str>,
    ) -> Option<(PermissionRequestId, PermissionAnswer)> {
        let front = self.pop_front()?;
        let offered = option.filter(|o| front.request.options.iter().any(|x| x.id == *o));
        let answer = offered.map_or(PermissionAnswer::Cancelled, |o| {
            PermissionAnswer::Selected(o.to_owned())
        });
        Some((front.request.id, answer))
    }

    /// Moves the highlight by `delta`, clamped to the options.
    pub fn move_selection(&mut self, delta: isize) {
        if let Some(front) = self.items.front_mut() {
            let last = front.request.options.len().saturating_sub(1) as isize;
            front.selected = (front.selected as isize + delta).clamp(0, last) as usize;
        }
    }

    /// Answers the front card with its highlighted option.
    pub fn answer_selected(&mut self) -> Option<(PermissionRequestId, PermissionAnswer, String)> {
        let front = self.pop_front()?;
        let answer = front
            .request
            .options
            .get(front.selected)
            .map_or((PermissionAnswer::Cancelled, dismissed()), |o| {
                (PermissionAnswer::Selected(o.id.clone()), o.name.clone())
            });
        Some((front.request.id, answer.0, answer.1))
    }

    /// Answers with the first allow (`allow = true`) or reject option,
    /// preferring the one-time kinds; cancels when the agent offered none.
    pub fn answer_kind(
        &mut self,
        allow: bool,
    ) -> Option<(PermissionRequestId, PermissionAnswer, String)> {
        let pick = self.items.front()?.shortcut_index(allow);
        match pick {
            Some(index) => {
                if let Some(f) = self.items.front_mut() {
                    f.selected = index;
                }
                self.answer_selected()
            }
            None if allow => None,
            None => {
                let front = self.pop_front()?;
                Some((front.request.id, PermissionAnswer::Cancelled, dismissed()))
            }
        }
    }

    /// Cancels every pending request (turn cancelled, session replaced).
    pub fn drain(&mut self) -> Vec<PermissionRequestId> {
        self.items.drain(..).map(|p| p.request.id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{PermissionOption, ToolKind};

    fn request(id: u64) -> PermissionRequest {
        let option = |id: &str, kind| PermissionOption {
            id: id.into(),
            name: id.into(),
            kind,
        };
        PermissionRequest {
            id: PermissionRequestId(id),
            title: "Run".into(),
            kind: ToolKind::Execute,
            target: Some("ls".into()),
            options: vec![
                option("always", PermissionOptionKind::AllowAlways),
                option("once", PermissionOptionKind::AllowOnce),
                option("no", PermissionOptionKind::RejectOnce),
            ],
        }
    }

    #[test]
    fn answering_the_front_card_shows_the_next() {
        let mut q = PermissionQueue::default();
        q.push(request(1));
        q.push(request(2));
        let (id, answer, _) = q.answer_kind(true).unwrap();
        assert_eq!(
            (id, answer),
            (
                PermissionRequestId(1),
                PermissionAnswer::Selected("once".into())
            )
        );
        assert_eq!(
            q.front().map(|p| p.request.id),
            Some(PermissionRequestId(2))
        );
    }

    #[test]
    fn selection_starts_on_allow_once_and_clamps() {
        let mut q = PermissionQueue::default();
        q.push(request(1));
        assert_eq!(q.front().unwrap().selected, 1);
        q.move_selection(5);
        assert_eq!(q.front().unwrap().selected, 2);
        q.move_selection(-9);
        let (_, answer, _) = q.answer_selected().unwrap();
        assert_eq!(answer, PermissionAnswer::Selected("always".into()));
        assert!(q.is_empty());
    }

    #[test]
    fn reject_without_a_reject_option_cancels_and_withdraw_removes() {
        let mut q = PermissionQueue::default();
        let mut r = request(1);
        r.options.retain(|o| o.kind.is_allow());
        q.push(r);
        q.push(request(2));
        q.push(request(3));
        assert!(q.withdraw(PermissionRequestId(2)));
        assert!(!q.withdraw(PermissionRequestId(9)));
        let (id, answer, _) = q.answer_kind(false).unwrap();
        assert_eq!(
            (id, answer),
            (PermissionRequestId(1), PermissionAnswer::Cancelled)
        );
        assert_eq!(q.drain(), [PermissionRequestId(3)]);
    }
}
