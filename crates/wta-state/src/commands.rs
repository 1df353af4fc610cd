//! What submitting the input does: send a prompt or run a slash command,
//! plus the shared actions (cancel a turn) the key handler calls. Pickers
//! live in `pickers.rs`. Everything user-visible that a command causes is a
//! system line.
//!
//! The draft after Enter: a command that ran leaves the editor empty; one
//! that could not run (unknown, bad argument) stays selected, so the next
//! command typed replaces it instead of joining it.

use std::time::Instant;

use unicode_width::UnicodeWidthStr;
use wta_i18n::tr;

use super::domain::{ConnectionState, PermissionAnswer, StopReason, YoloAnswer, YoloBlock};
use super::effects::Effect;
use super::events::Scripted;
use super::pickers;
use super::slash::{self, COMMANDS, SlashCommand, Submission};
use super::state::{AppState, Pending, Scroll, Setup};
use super::transcript::SystemLevel;

/// Enter in the editor: classify the line and act on it.
pub(crate) fn submit(state: &mut AppState, now: Instant, fx: &mut Vec<Effect>) {
    match slash::parse(state.input.text()) {
        Submission::Empty => {}
        Submission::Prompt(text) => send_prompt(state, text, now, fx),
        Submission::Command(command) => {
            state.input.submit();
            run(state, command, now, fx);
        }
        Submission::Unknown(name) => refuse(state, &tr!("chat.unknown_command", name = name)),
        Submission::BadArgument { message, .. } => refuse(state, &message),
        Submission::Delegate(task) => {
            state.input.submit();
            info(state, &tr!("chat.delegating", task = task));
            fx.push(Effect::Delegate(task));
        }
    }
}

/// A scripted front end's action, by the same paths as the keys.
pub(crate) fn scripted(state: &mut AppState, script: Scripted, now: Instant, fx: &mut Vec<Effect>) {
    match script {
        Scripted::Submit(text) => {
            state.input.set_text(&text);
            submit(state, now, fx);
        }
        Scripted::Answer(option) => {
            if let Some((request, answer)) = state.permissions.answer_with(option.as_deref()) {
                fx.push(Effect::AnswerPermission { request, answer });
            }
        }
        Scripted::Cancel => {
            if state.transcript.turn_running() {
                cancel_turn(state, fx);
            }
        }
        Scripted::SetOption { option, value } => {
            fx.push(Effect::SetConfigOption { option, value });
        }
    }
}

/// A command that cannot run: say why and select the draft, so it can be
/// fixed or typed over.
fn refuse(state: &mut AppState, text: &str) {
    warn(state, text);
    state.input.select_all();
}

pub(crate) fn warn(state: &mut AppState, text: &str) {
    state.transcript.push_system(SystemLevel::Warn, text);
    state.scroll = Scroll::Follow;
}

pub(crate) fn info(state: &mut AppState, text: &str) {
    state.transcript.push_system(SystemLevel::Info, text);
    state.scroll = Scroll::Follow;
}

fn send_prompt(state: &mut AppState, text: String, now: Instant, fx: &mut Vec<Effect>) {
    if let Some(setup) = &state.setup {
        // The setup screen hides the transcript: say it there.
        let notice = setup_refusal(setup);
        warn(state, &notice);
        state.setup_notice = Some(notice);
        return;
    }
    if state.waits_for_connection() && !state.master_lost() {
        // Sent once the session is open (a second message joins the first);
        // a failed connection puts it back in the editor.
        state.input.submit();
        queue(state, text);
        return;
    }
    if state.connection != ConnectionState::Ready {
        return warn(state, &tr("chat.not_connected", &[]));
    }
    let card_open = !state.permissions.is_empty() || !state.proposals.is_empty();
    if state.transcript.turn_running() && card_open {
        // Enter may have been meant for the card that just appeared.
        return warn(state, &tr("chat.answer_card_first", &[]));
    }
    state.input.submit();
    if state.transcript.turn_running() {
        // Sent when the turn ends; a second message joins the first.
        queue(state, text);
        return;
    }
    start_turn(state, text, now, fx);
}

/// Holds `text` for later, after the message already held.
fn queue(state: &mut AppState, text: String) {
    state.queued = Some(match state.queued.take() {
        Some(earlier) => format!("{earlier}\n\n{text}"),
        None => text,
    });
}

/// The session is open: a message typed while it connected goes out now.
pub(crate) fn connected(state: &mut AppState, now: Instant, fx: &mut Vec<Effect>) {
    if state.transcript.turn_running() {
        return;
    }
    if let Some(queued) = state.queued.take() {
        start_turn(state, queued, now, fx);
    }
}

/// Why a message typed on the setup screen was not sent, and what to do.
fn setup_refusal(setup: &Setup) -> String {
    match setup {
        Setup::NotInstalled { agent, .. } => tr!("chat.not_sent_missing", agent = agent),
        Setup::NeedsAuth { agent, .. } => tr!("chat.not_sent_auth", agent = agent),
    }
}

/// The turn ended: a queued message goes out now when the agent finished
/// its answer; after a cancel or a refusal it returns to the editor instead,
/// so nothing is sent the user did not see through.
pub(crate) fn turn_ended(
    state: &mut AppState,
    stop: StopReason,
    now: Instant,
    fx: &mut Vec<Effect>,
) {
    let Some(queued) = state.queued.take() else {
        return;
    };
    match stop {
        StopReason::EndTurn | StopReason::MaxTokens | StopReason::MaxTurnRequests
            if state.connection == ConnectionState::Ready =>
        {
            start_turn(state, queued, now, fx);
        }
        _ => {
            unqueue(state, queued);
            info(state, &tr("chat.queued_back", &[]));
        }
    }
}

/// Puts a queued message back in the editor, ahead of any draft.
pub(crate) fn unqueue(state: &mut AppState, queued: String) {
    let draft = state.input.text().to_owned();
    if draft.is_empty() {
        state.input.set_text(&queued);
    } else {
        state.input.set_text(&format!("{queued}\n{draft}"));
    }
}

fn start_turn(state: &mut AppState, text: String, now: Instant, fx: &mut Vec<Effect>) {
    open_turn(state, &text, now);
    fx.push(Effect::SendPrompt(text));
}

/// Shows a new turn with `text` as its prompt.
fn open_turn(state: &mut AppState, text: &str, now: Instant) {
    state.transcript.begin_turn(text);
    state.turn_started = Some(now);
    state.scroll = Scroll::Follow;
    state.fold_focus = None;
}

/// Cancels the running turn and every permission it is waiting on.
pub(crate) fn cancel_turn(state: &mut AppState, fx: &mut Vec<Effect>) {
    cancel_permissions(state, fx);
    fx.push(Effect::Cancel);
    info(state, &tr("chat.cancelling", &[]));
}

/// Answers every pending permission card `cancelled`.
pub(crate) fn cancel_permissions(state: &mut AppState, fx: &mut Vec<Effect>) {
    for request in state.permissions.drain() {
        fx.push(Effect::AnswerPermission {
            request,
            answer: PermissionAnswer::Cancelled,
        });
    }
}

/// Leaves a trace of the user's answer in the transcript.
pub(crate) fn note_permission_answer(state: &mut AppState, label: &str) {
    state.transcript.push_system(
        SystemLevel::Info,
        &tr!("chat.permission_answer", label = label),
    );
}

fn run(state: &mut AppState, command: SlashCommand, now: Instant, fx: &mut Vec<Effect>) {
    match command {
        SlashCommand::Help => info(state, &help_text()),
        SlashCommand::Clear => {
            state.transcript.clear();
            state.scroll = Scroll::Follow;
            state.fold_focus = None;
            state.selection = None;
        }
        SlashCommand::New => {
            cancel_permissions(state, fx);
            state.pending = Some(Pending::NewSession);
            fx.push(Effect::NewSession);
            info(state, &tr("chat.starting_new", &[]));
        }
        SlashCommand::Restart => {
            // The machine answers them (its restart abandons the session)
            // and says the session is being opened.
            state.permissions.drain();
            state.pending = Some(Pending::Restart);
            fx.push(Effect::Restart);
            info(state, &tr!("chat.restarting", agent = state.agent.clone()));
        }
        SlashCommand::Stop if state.transcript.turn_running() => cancel_turn(state, fx),
        SlashCommand::Stop => info(state, &tr("chat.nothing_to_stop", &[])),
        SlashCommand::Agent(Some(id)) => switch_agent(state, id, fx),
        SlashCommand::Agent(None) => pickers::open_agent_picker(state),
        // The status line changes once the agent confirms (`ModelChanged`).
        SlashCommand::Model(Some(id)) => fx.push(Effect::SetModel(id)),
        SlashCommand::Model(None) => pickers::open_model_picker(state),
        SlashCommand::Config => pickers::open_config_picker(state),
        SlashCommand::Sessions => fx.push(Effect::OpenSessions),
        SlashCommand::History => {
            fx.push(Effect::History(super::history_picker::HistoryEffect::Read))
        }
        SlashCommand::Export(file) => super::history_picker::export(state, file, fx),
        SlashCommand::Yolo(wanted) => yolo(state, wanted, fx),
        SlashCommand::Fix(hint) => fix(state, hint, now, fx),
    }
}

/// `/fix [hint]` (and Ctrl+F): a turn about the last failure, if there is
/// one and nothing else runs.
pub(crate) fn fix(state: &mut AppState, hint: Option<String>, now: Instant, fx: &mut Vec<Effect>) {
    let Some(failure) = state.failure.clone() else {
        return info(state, &tr("chat.fix.nothing", &[]));
    };
    if state.connection != ConnectionState::Ready {
        return warn(state, &tr("chat.fix.not_connected", &[]));
    }
    if state.transcript.turn_running() {
        return warn(state, &tr("chat.fix.turn_running", &[]));
    }
    state.failure = None;
    let text = match &hint {
        None => tr!("chat.fix.prompt", failure = failure.describe()),
        Some(hint) => tr!(
            "chat.fix.prompt_hint",
            failure = failure.describe(),
            hint = hint
        ),
    };
    open_turn(state, &text, now);
    fx.push(Effect::Fix {
        generation: failure.generation,
        hint,
    });
}

fn help_text() -> String {
    let mut text = tr("chat.help.commands", &[]);
    for spec in COMMANDS {
        let name = if spec.args.is_empty() {
            format!("/{}", spec.name)
        } else {
            format!("/{} {}", spec.name, spec.args)
        };
        // Padded by display width: the descriptions line up in any language.
        let pad = " ".repeat(18usize.saturating_sub(name.width()));
        text.push_str(&format!("\n  {name}{pad} {}", spec.help_text()));
    }
    text.push('\n');
    text.push_str(&tr("chat.help.keys", &[]));
    text.push('\n');
    text.push_str(&tr("pastecopy.help", &[]));
    text
}

/// `/agent ID` and the agent picker. The runtime checks the registry again
/// before it switches: an agent that is not installed is not switched to
/// (the running session stays) and the pane says how to install it
/// (`AgentUnavailable`), so one installed since the list was read works.
pub(crate) fn switch_agent(state: &mut AppState, id: String, fx: &mut Vec<Effect>) {
    let known = state.agents.iter().find(|a| a.id == id);
    if !state.agents.is_empty() && known.is_none() {
        let ids: Vec<&str> = state.agents.iter().map(|a| a.id.as_str()).collect();
        return warn(
            state,
            &tr!("chat.agent.unknown", id = id, ids = ids.join(", ")),
        );
    }
    if id == state.agent && state.setup.is_none() {
        return info(state, &tr!("chat.agent.already", id = id));
    }
    if known.is_none_or(|a| a.installed()) {
        info(state, &tr!("chat.agent.switching", id = id));
    }
    state.pending = Some(Pending::SwitchAgent(id.clone()));
    fx.push(Effect::SwitchAgent(id));
}

/// `/yolo`, `/yolo on|off` and the `allow_all` config value. The session
/// machine decides (the policy, the session's override) and answers with
/// `DomainEvent::Yolo`; bare `/yolo` explains what it last said.
pub(crate) fn yolo(state: &mut AppState, wanted: Option<bool>, fx: &mut Vec<Effect>) {
    match wanted {
        Some(on) => fx.push(Effect::SetYolo(on)),
        None => {
            let now = match (state.yolo.blocked, state.yolo.on) {
                (Some(YoloBlock::Policy), _) => "chat.yolo.blocked",
                (None, true) => "chat.yolo.is_on",
                (None, false) => "chat.yolo.is_off",
            };
            info(state, &tr(now, &[]));
        }
    }
}

/// The machine's answer to a `/yolo on|off`, said.
pub(crate) fn yolo_answered(state: &mut AppState, answer: YoloAnswer) {
    match answer {
        YoloAnswer::TurnedOn => warn(state, &tr("chat.yolo.on", &[])),
        YoloAnswer::TurnedOff => info(state, &tr("chat.yolo.off", &[])),
        YoloAnswer::Refused(YoloBlock::Policy) => warn(state, &tr("chat.yolo.blocked", &[])),
    }
}
