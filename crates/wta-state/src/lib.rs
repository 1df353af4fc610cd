//! wta-state: the chat app of one agent pane, as data: state, events in, effects out,
//! and the pure reducer between them. No I/O and no async runtime here; the
//! driver feeds events and executes effects, `wta-tui` draws the state.
//!
//! ```text
//! crossterm / ACP ──Event──► update(&mut AppState, event, now) ──► Vec<Effect> ──► driver
//!                                     │
//!                                     └──► wta_tui::View::render(&AppState, frame)
//! ```
//!
//! Its driver is `wta_helper::machine` (the pane's session machine, which
//! holds this state and steps it). What it keeps to:
//! - Map `session/update` to [`DomainEvent`]s (chunks, tool calls and
//!   updates, plan, usage), `session/prompt`'s result to `TurnEnded`, and
//!   each `session/request_permission` to `PermissionRequest` with a fresh
//!   [`PermissionRequestId`] that keys the responder until an
//!   [`Effect::AnswerPermission`] for it arrives (`Cancelled` included).
//! - Execute effects in order; the front end redraws after any event and
//!   ticks (~100 ms) only while [`AppState::needs_tick`] is true, so an idle
//!   pane costs nothing.
//! - A scripted front end (the headless driver) acts through
//!   [`Event::Script`] by the same paths as the keys.
//! - The link and the session are the driver's (the session machine owns
//!   them, with yolo and quitting): it tells this state of each change
//!   (`Connection`, `SessionStarted`, `MasterGone`, `Reconnected`, `Yolo`)
//!   and this state only shows it. When the master connection ends, send
//!   `MasterGone` and keep running: [`Effect::Reconnect`] (Enter) asks for
//!   a master and a new session (the driver says `Connection(MasterLost {
//!   reconnecting: true })` once it starts one), and `Reconnected` says one
//!   answers; only [`Effect::Quit`] ends the pane.

pub mod card_enter;
mod commands;
pub mod copy_mode;
mod copy_motion;
pub mod debug;
pub mod domain;
mod domain_events;
pub mod effects;
pub mod events;
pub mod export;
pub mod guard;
pub mod history_picker;
pub mod input;
mod keys;
pub mod lifecycle;
pub mod paste_chip;
pub mod permission;
mod pickers;
pub mod proposal_card;
pub mod question;
pub mod reducer;
pub mod running;
pub mod selection;
pub mod slash;
pub mod state;
pub mod transcript;

pub use card_enter::{CardEnter, ProposalEnter, QuestionEnter};
pub use copy_mode::{CopyMode, SELECT_KEY, Search, TranscriptText};
pub use copy_motion::matches_in;
pub use debug::{DebugLine, DebugLog, Direction, TrafficArea};
pub use domain::*;
pub use effects::{Effect, SessionVerb};
pub use events::{DomainEvent, Event, Key, KeyCode, Mods, Mouse, Scripted};
pub use guard::{CARD_GRACE, CardGuard, TopCard};
pub use proposal_card::{
    AcceptedProposal, ConfirmMode, PaneNotes, ProposalCard, ProposalQueue, Stale, TypedText,
};
pub use question::{PendingQuestion, QuestionAnswer, QuestionRequest};
pub use reducer::update;
pub use running::{RunningCommand, RunningShown, elapsed_text};
pub use selection::{Click, MULTI_CLICK, SelectedText, Selection, TextPoint, TranscriptArea, Unit};
pub use state::{
    Activity, AppState, Pending, Picker, PickerItem, PickerKind, Scroll, Setup, TargetPane,
    UserWait, Viewport,
};
pub use transcript::{Entry, Item, ItemId, SystemLevel, Transcript, TurnId};

#[cfg(test)]
mod commands_tests;
#[cfg(test)]
mod copy_mode_tests;
#[cfg(test)]
mod fix_tests;
#[cfg(test)]
mod guard_tests;
#[cfg(test)]
mod lifecycle_tests;
#[cfg(test)]
mod pane_facts_tests;
#[cfg(test)]
mod permission_tests;
#[cfg(test)]
mod question_tests;
#[cfg(test)]
mod reducer_tests;
#[cfg(test)]
mod selection_tests;
#[cfg(test)]
mod sessions_tests;
#[cfg(test)]
mod setup_tests;
#[cfg(test)]
mod slash_tests;
#[cfg(test)]
mod test_pane;
#[cfg(test)]
mod waits_tests;
