//! The card side on the machine: what the proposal engine (the pane's
//! second machine, `crate::proposals`, DESIGN §4.2) and the card executor
//! report, turned into what the pane shows. A proposal goes one way:
//!
//! ```text
//! CLI ─► proposal machine ─Input::Proposal─► here ─► card (wta-state)
//!     ─Effect::ConfirmProposal─► Command::ConfirmCard ─► proposal machine
//!     (claims it) ─► executor ─► CLI, and ─Input::Executor─► here
//! ```
//!
//! Here a card for an autofix turn older than the newest failure is
//! dropped (and its proposal cancelled), a card gets the target's last
//! probed cwd and what its pane is doing, an ended proposal resolves its
//! card, and a claim refused or an action ended is said in the transcript.

use wta_state::{AcceptedProposal, DomainEvent};

use super::input::ExecutorNews;
use super::{Machine, Out};
use crate::proposals::types::{ProposalAccepted, ProposalEvent};

impl Machine {
    /// The proposal engine's news.
    pub(super) fn proposal(&mut self, event: ProposalEvent, out: &mut Out) {
        match event {
            ProposalEvent::Accepted(accepted) if self.stale_fix_card(accepted.turn.origin) => {
                out.cmd(super::Command::CancelCard { id: accepted.id });
                out.event(DomainEvent::Notice(wta_i18n::tr!(
                    "helper.fix.stale_dropped"
                )));
            }
            ProposalEvent::Accepted(accepted) => {
                let card = self.card(accepted);
                // What its pane is doing, when the watcher said (after the
                // card: the app keeps facts of the panes it shows).
                let pane = card.target_pane.clone();
                out.event(DomainEvent::ProposalAccepted(Box::new(card)));
                self.card_pane_facts(&pane, out);
            }
            // For a card the user decided on, the id is gone and the app
            // ignores it.
            ProposalEvent::Ended { id, status, reason } => {
                out.event(DomainEvent::ProposalResolved { id, status, reason });
            }
        }
    }

    /// The card the app shows for an accepted proposal: where a `send`
    /// runs is the target's last probed cwd.
    fn card(&self, p: ProposalAccepted) -> AcceptedProposal {
        AcceptedProposal {
            id: p.id,
            payload: p.payload,
            target_pane: p
                .turn
                .target_pane
                .as_ref()
                .map_or_else(|| "(no target)".to_owned(), ToString::to_string),
            target_cwd: self.pane.probed_cwd.clone().flatten(),
            origin: p.turn.origin,
            armed: p.approval.notice().is_none(),
            delegate_agent: p.turn.delegate_agent,
        }
    }

    /// The card executor's news.
    pub(super) fn executor_news(&mut self, news: ExecutorNews, out: &mut Out) {
        use wta_i18n::tr;
        match news {
            ExecutorNews::NotRun(err) => out.error(tr!("helper.card.not_run", err = err)),
            ExecutorNews::NoTerminal => out.error(tr!("helper.card.no_terminal")),
            ExecutorNews::CannotFollow { target, why } => {
                out.error(tr!("helper.card.cannot_follow", target = target, err = why))
            }
            ExecutorNews::ActionEnded { action, outcome } => {
                out.event(DomainEvent::Notice(outcome.display(action)));
            }
            ExecutorNews::LongRunning(runs) => {
                out.event(DomainEvent::RunningCommands(super::long_runs::shown(runs)));
            }
            ExecutorNews::LongRunEnded(late) => {
                out.event(DomainEvent::Notice(super::long_runs::ended_notice(&late)));
            }
        }
    }
}
