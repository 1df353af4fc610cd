//! Data shared by the proposal state machine, the socket server and the card
//! side: the trusted turn context, what the UI is told, and what a confirmed
//! claim hands to the executor.
//!
//! Everything trusted here comes from the helper's own turn, never from the
//! payload: the payload can only pick among actions, not where they land.

use wta_protocol::{Choice, FinalStatus, Origin, PaneId, ProposalId, ProposalPayload};

/// Trusted facts of one turn, captured when the turn's channel is issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnContext {
    /// Whether this turn is an autofix turn or a normal user turn.
    pub origin: Origin,
    /// The pane `send` types into and `open target=panel` splits.
    pub target_pane: Option<PaneId>,
    /// The agent pane itself: never a target.
    pub agent_pane: Option<PaneId>,
    /// The configured delegate agent id, if any (`delegate: true` needs one).
    pub delegate_agent: Option<String>,
}

impl TurnContext {
    /// A normal (non-autofix) turn targeting `target_pane`.
    pub fn agent_turn(target_pane: Option<PaneId>, agent_pane: Option<PaneId>) -> Self {
        Self {
            origin: Origin::TerminalAgent,
            target_pane,
            agent_pane,
            delegate_agent: None,
        }
    }
}

/// Whether the agent's permission flow pre-approved the exact payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// A canonical permission request armed this payload's digest.
    PreApproved,
    /// The agent ran the CLI without asking (opencode, yolo sessions).
    NotPreApproved,
    /// A tool of the session's own MCP endpoint (its bearer is the session's).
    SessionEndpoint,
}

impl Approval {
    /// The line the card shows for an unarmed proposal, `None` when armed.
    pub const fn notice(self) -> Option<&'static str> {
        match self {
            Self::PreApproved | Self::SessionEndpoint => None,
            Self::NotPreApproved => {
                Some("This proposal was not pre-approved by the agent's permission flow.")
            }
        }
    }
}

/// What the card side gets when a proposal is accepted: show a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalAccepted {
    pub id: ProposalId,
    /// The payload with unusable choices removed (see `dropped_choices`);
    /// `recommended_choice` names a remaining choice.
    pub payload: ProposalPayload,
    /// Choice numbers dropped because they would act on the agent pane itself.
    pub dropped_choices: Vec<u64>,
    pub turn: TurnContext,
    pub approval: Approval,
}

/// What the card side hears from the proposal engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProposalEvent {
    /// Show a card for this proposal.
    Accepted(ProposalAccepted),
    /// The card ended (superseded, cancelled, timed out, session replaced,
    /// unavailable, or confirmed): remove it. `reason` says more for the
    /// user when the status alone does not (e.g. `service::CLIENT_GONE_REASON`).
    Ended {
        id: ProposalId,
        status: FinalStatus,
        reason: Option<String>,
    },
}

/// How the user confirmed a choice (the card's own type).
pub use wta_state::ConfirmMode;

/// A successfully claimed proposal: the executor may now act on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    pub id: ProposalId,
    pub choice: Choice,
    pub turn: TurnContext,
    pub approval: Approval,
}

/// Why a confirmation could not claim its proposal (nothing may run).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    #[error("this card is no longer live: {0}")]
    NotLive(&'static str),
    #[error("this card timed out after 10 minutes without a decision")]
    TimedOut,
    #[error("choice {0} is not on this card")]
    NoSuchChoice(u64),
}
