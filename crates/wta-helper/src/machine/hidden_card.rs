//! A card nobody sees: while a card (proposal, permission or question) is on
//! top and the status probe last found this pane off screen (stashed,
//! pre-warmed, in a tab the user is not looking at, or no client attached),
//! the owner tab carries an indicator the user's status line shows
//! (`Command::CardWaiting`, the tab option
//! `wta_protocol::helper_master::CARD_WAITING_OPTION`), and the bell rings
//! once per card (`Command::Bell`). The indicator goes when the card is
//! answered or withdrawn, or when the pane is seen again; while it is up
//! the status probe keeps looking ([`Machine::wants_status`]), so showing
//! the pane (`prefix a`) clears it even before a key reaches it.
//!
//! Pure: [`Machine::card_news`] runs after every step and compares what is
//! on top now with what the I/O layer was last told.

use wta_protocol::ProposalId;
use wta_state::{PermissionRequestId, TopCard};

use super::Machine;
use super::command::Command;

/// What waits, as the indicator names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardKind {
    Proposal,
    Permission,
    Question,
}

/// The owner tab's option with the mark's text, what waits in the user's
/// language (`wta tmux-config`'s status format shows it while the
/// indicator is set; a stale one is never shown).
pub const CARD_WAITING_TEXT_OPTION: &str = "@wta_card_waiting_text";

impl CardKind {
    /// The indicator's value: a machine word, the same in every language.
    pub fn as_str(self) -> &'static str {
        match self {
            CardKind::Proposal => "proposal",
            CardKind::Permission => "permission",
            CardKind::Question => "question",
        }
    }

    /// The mark's text ([`CARD_WAITING_TEXT_OPTION`]) in the user's language.
    pub fn shown(self) -> String {
        wta_i18n::tr(
            match self {
                CardKind::Proposal => "helper.card_waiting.proposal",
                CardKind::Permission => "helper.card_waiting.permission",
                CardKind::Question => "helper.card_waiting.question",
            },
            &[],
        )
    }
}

/// One card, whatever view of it is up (the full view of a proposal card
/// is the same card).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CardRef {
    Proposal(ProposalId),
    Permission(PermissionRequestId),
    Question(u64),
}

fn card(top: TopCard) -> (CardKind, CardRef) {
    match top {
        TopCard::Proposal { id, .. } => (CardKind::Proposal, CardRef::Proposal(id)),
        TopCard::Permission(id) => (CardKind::Permission, CardRef::Permission(id)),
        TopCard::Question(id) => (CardKind::Question, CardRef::Question(id)),
    }
}

/// What the I/O layer was told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Indicator {
    /// The indicator as last set (`None`: cleared).
    shown: Option<CardKind>,
    /// The last card the bell rang for.
    belled: Option<CardRef>,
}

impl Indicator {
    /// Whether the indicator is up.
    pub fn shown(&self) -> bool {
        self.shown.is_some()
    }
}

impl Machine {
    /// After a step: the indicator's and the bell's news, if any.
    pub(super) fn card_news(&mut self, commands: &mut Vec<Command>) {
        let unseen = !self.pane.visible && !self.pane.quit;
        let waiting = self.app.guard.on_top().filter(|_| unseen).map(card);
        let indicator = &mut self.pane.hidden_card;
        let kind = waiting.map(|(kind, _)| kind);
        if kind != indicator.shown {
            indicator.shown = kind;
            commands.push(Command::CardWaiting { kind });
        }
        if let Some((_, which)) = waiting
            && indicator.belled != Some(which)
        {
            indicator.belled = Some(which);
            commands.push(Command::Bell);
        }
    }
}
