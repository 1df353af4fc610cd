//! What the shell panes are doing (the runtime's pane watcher reports it as
//! [`Input::PaneFacts`](super::Input::PaneFacts)), and which of it the app
//! hears: the facts of this pane's target pane, and of every pane a card
//! types into (an autofix card's pane may be another of the tab).
//!
//! The machine owns the record of what the watcher last said, per pane
//! (at most [`MAX_PANES`]; one the app shows is never the one let go); the
//! app is told: a fact when it arrives for a pane it shows, and a card's
//! pane's last fact right after the card, so a card arriving after the
//! pane went busy says so at once.

use wta_protocol::PaneId;
use wta_state::{DomainEvent, PaneFacts};

use super::{Machine, Out};

/// Panes whose last facts are kept (a tab's worth and more).
pub const MAX_PANES: usize = 64;

impl Machine {
    /// The watcher's facts of `pane`: recorded, and told to the app when
    /// it shows that pane (as the target pane, or on a card).
    pub(super) fn pane_facts(&mut self, pane: PaneId, facts: PaneFacts, out: &mut Out) {
        let known = &self.pane.pane_facts;
        if known.get(&pane) == Some(&facts) {
            return;
        }
        if !known.contains_key(&pane) && known.len() >= MAX_PANES {
            // Room for the news: a pane the app does not show goes.
            let spare = known.keys().find(|p| !self.shows(p)).cloned();
            if let Some(spare) = spare {
                self.pane.pane_facts.remove(&spare);
            }
        }
        self.pane.pane_facts.insert(pane.clone(), facts.clone());
        if self.shows(&pane) {
            out.event(DomainEvent::PaneFacts {
                pane: pane.to_string(),
                facts,
            });
        }
    }

    /// A card for `pane` goes to the app: its pane's last facts follow it
    /// (nothing when none were told).
    pub(super) fn card_pane_facts(&self, pane: &str, out: &mut Out) {
        let known = PaneId::parse(pane)
            .ok()
            .and_then(|id| self.pane.pane_facts.get(&id));
        if let Some(facts) = known {
            out.event(DomainEvent::PaneFacts {
                pane: pane.to_owned(),
                facts: facts.clone(),
            });
        }
    }

    /// Whether the app shows `pane`: it is the target pane, or a queued
    /// card types into it.
    fn shows(&self, pane: &PaneId) -> bool {
        self.pane.config.target_pane.as_ref() == Some(pane)
            || self
                .app
                .proposals
                .iter()
                .any(|card| card.proposal.target_pane == pane.as_str())
    }
}
