//! What the pane says as sessions come and go: a `/new`, `/restart`,
//! `/agent` or reconnect in progress ([`Pending`]) ends with a line saying
//! it is ready or that it failed; and the master going away keeps the pane
//! and its transcript (`ConnectionState::MasterLost`) until the user
//! presses Enter to reconnect (never on its own) or closes the pane.
//!
//! The link and the session are the helper's session machine's: each change
//! here follows an event it sent (`SessionStarted`, `MasterGone`,
//! `Reconnected`, `Connection`); Enter only asks (`Effect::Reconnect`), and
//! the machine says when a reconnect is under way.
//!
//! Invariants: while the master is gone no turn is open and no card waits
//! (each permission is answered `cancelled` once; recommendation cards are
//! dropped, the proposal engine ended them with the connection); a
//! reconnect shows a divider in the transcript once a master answers.

use super::domain::{ConnectionState, PermissionAnswer, StopReason};
use super::effects::Effect;
use super::state::{AppState, Pending};
use super::transcript::SystemLevel;
use wta_i18n::tr;

/// The divider above what a reconnected pane shows (a `wta_i18n` key).
pub const RECONNECTED_NEW: &str = "chat.master.reconnected_new";
/// The divider when the master that answers is the one the pane lost (it
/// had closed this pane's connection but kept running).
pub const RECONNECTED: &str = "chat.master.reconnected";

fn push(state: &mut AppState, level: SystemLevel, text: &str) {
    state.transcript.push_system(level, text);
    state.scroll = super::state::Scroll::Follow;
}

/// A session is live: the pending change, if any, is done.
pub(crate) fn session_started(state: &mut AppState) {
    state.connection = ConnectionState::Ready;
    let Some(pending) = state.pending.take() else {
        return;
    };
    let agent = state.agent.clone();
    let key = match pending {
        Pending::NewSession => "chat.session.new_ready",
        Pending::Restart => "chat.session.restarted",
        Pending::SwitchAgent(_) => "chat.session.switched",
        Pending::Reconnect => "chat.session.reconnect_ready",
    };
    push(state, SystemLevel::Info, &tr!(key, agent = agent));
}

/// What a failure line says: which change failed, when one was pending.
pub(crate) fn failed(state: &mut AppState, reason: &str) -> String {
    match state.pending.take() {
        None => reason.to_owned(),
        Some(pending) => tr!(
            "chat.session.failed",
            what = label(&pending, &state.agent),
            reason = reason
        ),
    }
}

fn label(pending: &Pending, agent: &str) -> String {
    match pending {
        Pending::NewSession => tr("chat.session.starting_new", &[]),
        Pending::Restart => tr!("chat.session.restarting", agent = agent),
        Pending::SwitchAgent(id) => tr!("chat.session.switching", id = id),
        Pending::Reconnect => tr("chat.session.reopening", &[]),
    }
}

/// `/agent ID` found the agent missing: the current session stays.
pub(crate) fn agent_unavailable(state: &mut AppState, agent: &str, install: &str) {
    state.pending = None;
    let text = tr!(
        "chat.agent.unavailable",
        agent = agent,
        current = state.agent,
        install = install
    );
    if state.setup.is_some() {
        state.setup_notice = Some(text.clone());
    }
    push(state, SystemLevel::Warn, &text);
}

/// The master connection ended (or a reconnect could not reach one).
pub(crate) fn master_gone(state: &mut AppState, why: String, fx: &mut Vec<Effect>) {
    let was = std::mem::replace(
        &mut state.connection,
        ConnectionState::MasterLost {
            reconnecting: false,
        },
    );
    if let ConnectionState::MasterLost { reconnecting } = was {
        // Already gone: an attempt to link again did not work (the user's
        // reconnect, or one the machine made on its own).
        let text = if reconnecting {
            tr!("chat.master.reconnect_failed", why = why)
        } else {
            why
        };
        return push(state, SystemLevel::Error, &text);
    }
    end_everything_open(state, fx);
    state.proposals.drain();
    state.pending = None;
    state.picker = None;
    state.setup = None;
    state.setup_notice = None;
    push(
        state,
        SystemLevel::Error,
        &tr!("chat.master.gone", why = why),
    );
}

/// A master answers again: the transcript gets its divider and a session
/// is being opened.
pub(crate) fn reconnected(state: &mut AppState, new_master: bool) {
    state.connection = ConnectionState::Connecting;
    state.pending = Some(Pending::Reconnect);
    let key = if new_master {
        RECONNECTED_NEW
    } else {
        RECONNECTED
    };
    state.transcript.push_divider(&tr(key, &[]));
    state.scroll = super::state::Scroll::Follow;
}

/// The connection is gone mid-turn: close the turn and drop its pending
/// cards (answering them keeps the connection layer's responders from
/// leaking); a queued message goes back to the editor.
pub(crate) fn end_everything_open(state: &mut AppState, fx: &mut Vec<Effect>) {
    for request in state.permissions.drain() {
        fx.push(Effect::AnswerPermission {
            request,
            answer: PermissionAnswer::Cancelled,
        });
    }
    state.transcript.end_turn(StopReason::Cancelled);
    state.turn_started = None;
    if let Some(queued) = state.queued.take() {
        super::commands::unqueue(state, queued);
    }
}
