//! What submitting the input does: send a prompt or run a slash command,
//! plus the shared actions (cancel a turn, answer pickers) the key handler
//! calls. Everything user-visible that a command causes is a system line.

use std::time::Instant;

use wta_agent::yolo::ALLOW_ALL;

use super::domain::{ConnectionState, PermissionAnswer, StopReason};
use super::effects::Effect;
use super::slash::{self, COMMANDS, SlashCommand, Submission};
use super::state::{AppState, Picker, PickerItem, PickerKind, Scroll};
use super::transcript::SystemLevel;

/// Enter in the editor: classify the line and act on it.
pub(crate) fn submit(state: &mut AppState, now: Instant, fx: &mut Vec<Effect>) {
    match slash::parse(state.input.text()) {
        Submission::Empty => {}
        Submission::Prompt(text) => send_prompt(state, text, now, fx),
        Submission::Command(command) => {
            state.input.submit();
            run(state, command, fx);
        }
        Submission::Unknown(name) => warn(
            state,
            &format!(
                "Unknown command /{name}. Type /help for the list, or start with // to send a literal slash."
            ),
        ),
        Submission::BadArgument { message, .. } => warn(state, &message),
    }
}

fn warn(state: &mut AppState, text: &str) {
    state.transcript.push_system(SystemLevel::Warn, text);
    state.scroll = Scroll::Follow;
}

fn info(state: &mut AppState, text: &str) {
    state.transcript.push_system(SystemLevel::Info, text);
    state.scroll = Scroll::Follow;
}

fn send_prompt(state: &mut AppState, text: String, now: Instant, fx: &mut Vec<Effect>) {
    if state.connection != ConnectionState::Ready || state.setup.is_some() {
        return warn(state, "Not connected to an agent yet; your draft is kept.");
    }
    let card_open = !state.permissions.is_empty() || !state.proposals.is_empty();
    if state.transcript.turn_running() && card_open {
        // Enter may have been meant for the card that just appeared.
        return warn(state, "Answer the card first; your draft is kept.");
    }
    state.input.submit();
    if state.transcript.turn_running() {
        // Sent when the turn ends; a second message joins the first.
        state.queued = Some(match state.queued.take() {
            Some(earlier) => format!("{earlier}\n\n{text}"),
            None => text,
        });
        return;
    }
    start_turn(state, text, now, fx);
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
            info(
                state,
                "The turn did not finish: your queued message is back in the editor.",
            );
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
    state.transcript.begin_turn(&text);
    state.turn_started = Some(now);
    state.scroll = Scroll::Follow;
    state.fold_focus = None;
    fx.push(Effect::SendPrompt(text));
}

/// Cancels the running turn and every permission it is waiting on.
pub(crate) fn cancel_turn(state: &mut AppState, fx: &mut Vec<Effect>) {
    for request in state.permissions.drain() {
        fx.push(Effect::AnswerPermission {
            request,
            answer: PermissionAnswer::Cancelled,
        });
    }
    fx.push(Effect::Cancel);
    info(state, "Cancelling the turn…");
}

/// Leaves a trace of the user's answer in the transcript.
pub(crate) fn note_permission_answer(state: &mut AppState, label: &str) {
    state
        .transcript
        .push_system(SystemLevel::Info, &format!("Permission: {label}"));
}

fn run(state: &mut AppState, command: SlashCommand, fx: &mut Vec<Effect>) {
    match command {
        SlashCommand::Help => info(state, &help_text()),
        SlashCommand::Clear => {
            state.transcript.clear();
            state.scroll = Scroll::Follow;
            state.fold_focus = None;
            state.selection = None;
        }
        SlashCommand::New => {
            for request in state.permissions.drain() {
                fx.push(Effect::AnswerPermission {
                    request,
                    answer: PermissionAnswer::Cancelled,
                });
            }
            fx.push(Effect::NewSession);
            info(state, "Starting a new session…");
        }
        SlashCommand::Restart => {
            state.permissions.drain();
            state.connection = ConnectionState::Connecting;
            fx.push(Effect::Restart);
            info(state, &format!("Restarting {}…", state.agent.clone()));
        }
        SlashCommand::Stop if state.transcript.turn_running() => cancel_turn(state, fx),
        SlashCommand::Stop => info(state, "Nothing to stop: no turn is running."),
        SlashCommand::Agent(Some(id)) => switch_agent(state, id, fx),
        SlashCommand::Agent(None) => open_agent_picker(state),
        SlashCommand::Model(Some(id)) => {
            state.model = Some(id.clone());
            fx.push(Effect::SetModel(id));
        }
        SlashCommand::Model(None) => open_model_picker(state),
        SlashCommand::Config => open_config_picker(state),
        SlashCommand::Sessions => fx.push(Effect::OpenSessions),
        SlashCommand::Yolo(wanted) => yolo(state, wanted, fx),
    }
}

fn help_text() -> String {
    let mut text = String::from("Commands:");
    for spec in COMMANDS {
        let name = if spec.args.is_empty() {
            format!("/{}", spec.name)
        } else {
            format!("/{} {}", spec.name, spec.args)
        };
        text.push_str(&format!("\n  {name:<18} {}", spec.help));
    }
    text.push_str(
        "\nKeys:\n  Enter send · Shift/Alt+Enter or \\ Enter newline · ↑↓ history\n  \
         Ctrl+C copy/cancel/clear/quit · Esc clear · PgUp/PgDn scroll · Ctrl+End follow\n  \
         Tab select a turn or thought, Enter fold it · F12 ACP traffic",
    );
    text
}

fn switch_agent(state: &mut AppState, id: String, fx: &mut Vec<Effect>) {
    if !state.agents.is_empty() && !state.agents.iter().any(|a| a.id == id) {
        let known: Vec<&str> = state.agents.iter().map(|a| a.id.as_str()).collect();
        return warn(
            state,
            &format!("No installed agent `{id}`. Available: {}", known.join(", ")),
        );
    }
    if id == state.agent {
        return info(state, &format!("Already using {id}."));
    }
    info(state, &format!("Switching to {id}…"));
    state.connection = ConnectionState::Connecting;
    fx.push(Effect::SwitchAgent(id));
}

fn open_agent_picker(state: &mut AppState) {
    if state.agents.is_empty() {
        return warn(state, "No other agents are installed and allowed here.");
    }
    let items = state
        .agents
        .iter()
        .map(|a| PickerItem {
            id: a.id.clone(),
            label: a.name.clone(),
            detail: a.id.clone(),
            current: a.id == state.agent,
        })
        .collect();
    open_picker(state, PickerKind::Agent, "Switch agent", items);
}

fn open_model_picker(state: &mut AppState) {
    if state.models.is_empty() {
        return warn(state, "This agent does not offer a model choice.");
    }
    let current = state.model.clone();
    let items = state
        .models
        .iter()
        .map(|m| PickerItem {
            id: m.id.clone(),
            label: m.name.clone(),
            detail: m.id.clone(),
            current: current.as_deref() == Some(m.id.as_str()),
        })
        .collect();
    open_picker(state, PickerKind::Model, "Choose model", items);
}

fn open_config_picker(state: &mut AppState) {
    if state.config_options.is_empty() {
        return info(state, "This agent has no session options to change.");
    }
    let items = state
        .config_options
        .iter()
        .map(|o| {
            let current = o
                .values
                .iter()
                .find(|(v, _)| *v == o.current)
                .map_or(o.current.as_str(), |(_, l)| l);
            PickerItem {
                id: o.id.clone(),
                label: o.name.clone(),
                detail: current.to_owned(),
                current: false,
            }
        })
        .collect();
    open_picker(state, PickerKind::ConfigOption, "Session options", items);
}

fn open_picker(state: &mut AppState, kind: PickerKind, title: &str, items: Vec<PickerItem>) {
    let selected = items.iter().position(|i| i.current).unwrap_or(0);
    state.picker = Some(Picker {
        kind,
        title: title.to_owned(),
        items,
        selected,
    });
}

/// Enter in a picker.
pub(crate) fn picked(state: &mut AppState, picker: Picker, fx: &mut Vec<Effect>) {
    let Some(item) = picker.items.get(picker.selected) else {
        return;
    };
    match picker.kind {
        PickerKind::Agent => switch_agent(state, item.id.clone(), fx),
        PickerKind::Model => {
            state.model = Some(item.id.clone());
            fx.push(Effect::SetModel(item.id.clone()));
        }
        PickerKind::ConfigOption => {
            let Some(option) = state.config_options.iter().find(|o| o.id == item.id) else {
                return;
            };
            let items = option
                .values
                .iter()
                .map(|(value, label)| PickerItem {
                    id: value.clone(),
                    label: label.clone(),
                    detail: String::new(),
                    current: *value == option.current,
                })
                .collect();
            let title = option.name.clone();
            let kind = PickerKind::ConfigValue {
                option: option.id.clone(),
            };
            open_picker(state, kind, &title, items);
        }
        PickerKind::ConfigValue { option } => {
            // `allow_all` is yolo's layer 1: it goes through `/yolo`, so the
            // policy gate and the session state apply to it too.
            if option == ALLOW_ALL && matches!(item.id.as_str(), "on" | "off") {
                return yolo(state, Some(item.id == "on"), fx);
            }
            if let Some(o) = state.config_options.iter_mut().find(|o| o.id == option) {
                o.current = item.id.clone();
            }
            fx.push(Effect::SetConfigOption {
                option,
                value: item.id.clone(),
            });
        }
    }
}

fn yolo(state: &mut AppState, wanted: Option<bool>, fx: &mut Vec<Effect>) {
    let Some(on) = wanted else {
        // Bare `/yolo` explains; it never changes anything.
        let now = match (state.yolo.blocked, state.yolo.on) {
            (true, _) => "Yolo mode is disabled by your organization's policy.",
            (false, true) => {
                "Yolo is on: the agent's tool permissions in this session are approved automatically (terminal actions still ask). `/yolo off` asks again."
            }
            (false, false) => {
                "Yolo is off: every tool permission asks first. `/yolo on` approves them automatically in this session (terminal actions still ask)."
            }
        };
        return info(state, now);
    };
    if on && state.yolo.blocked {
        return warn(
            state,
            "Yolo mode is disabled by your organization's policy.",
        );
    }
    state.yolo.on = on;
    fx.push(Effect::SetYolo(on));
    if on {
        warn(
            state,
            "Yolo on: tool permissions in this session are approved automatically. Terminal actions still ask.",
        );
    } else {
        info(state, "Yolo off: every tool permission asks first.");
    }
}
