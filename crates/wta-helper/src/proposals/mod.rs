//! Direct terminal-action proposals (DESIGN §4.2–4.3): per-turn channels,
//! the permission preflight, validation, the per-helper socket, and the API
//! the recommendation card and the executor use.
//!
//! - [`machine`]: the channel manager as a pure state machine.
//! - [`policy`]: turn policy (delegate, agent-pane targets).
//! - [`preflight`]: permission request → allow+arm / silent cancel / fail closed / card.
//! - [`own_tools`]: whether a permission request is a call of this session's MCP tools.
//! - [`service`]: [`ProposalService`], the lockable engine and its API.
//! - [`server`]: [`ProposalServer`], the Unix socket.
//! - `continuation.rs` (in [`machine`]): a fresh channel after each confirmed
//!   exchange, within the turn's budget ([`settings`]: `[proposals] per_turn`).
//!
//! Card side: `let rx = service.attach_ui();` then for each
//! [`ProposalEvent::Accepted`] show a card; on Run/Insert/Open call
//! [`ProposalService::confirm`] (nothing may run unless it returns `Ok`), on
//! Esc [`ProposalService::cancel_card`]; remove the card on
//! [`ProposalEvent::Ended`]. The executor writes one
//! [`wta_protocol::ExecutionLine`] per dispatched action through
//! [`ExecutionSink::send`] and drops the sink when done (which completes the
//! exchange: the CLI's last line is the turn's next channel, or why not).

pub mod glue;
pub mod machine;
pub mod own_tools;
pub mod policy;
pub mod preflight;
pub mod server;
pub mod service;
pub mod settings;
pub mod types;

pub use glue::ProposalGlue;
pub use preflight::Preflight;
pub use server::{ProposalServer, ServerError, runtime_dir};
pub use service::{ConfirmedProposal, ExecutionSink, ProposalService};
pub use settings::ProposalSettings;
pub use types::{
    Approval, ClaimError, Claimed, ConfirmMode, ProposalAccepted, ProposalEvent, TurnContext,
};
