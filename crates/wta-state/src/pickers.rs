//! The pickers `/agent`, `/model` and `/config` open, and what Enter on one
//! of their rows does. Opening is pure; the choice goes out as an effect
//! (the status line changes only once the agent confirms it).

use wta_i18n::tr;
use wta_protocol::acp_options::ALLOW_ALL;

use super::commands::{info, switch_agent, warn, yolo};
use super::effects::{Effect, SessionVerb};
use super::state::{AppState, Picker, PickerItem, PickerKind};

/// Every allowed agent; one that is not installed shows its install line.
pub(crate) fn open_agent_picker(state: &mut AppState) {
    if state.agents.is_empty() {
        return warn(state, &tr("chat.picker.no_agents", &[]));
    }
    let items = state
        .agents
        .iter()
        .map(|a| PickerItem {
            id: a.id.clone(),
            label: a.name.clone(),
            detail: match &a.install {
                None => a.id.clone(),
                Some(install) => tr!("chat.agent.not_installed", install = install),
            },
            current: a.id == state.agent,
        })
        .collect();
    open_picker(
        state,
        PickerKind::Agent,
        &tr("chat.picker.switch_agent", &[]),
        items,
    );
}

pub(crate) fn open_model_picker(state: &mut AppState) {
    if state.models.is_empty() {
        return warn(state, &tr("chat.picker.no_models", &[]));
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
    open_picker(
        state,
        PickerKind::Model,
        &tr("chat.picker.choose_model", &[]),
        items,
    );
}

pub(crate) fn open_config_picker(state: &mut AppState) {
    if state.config_options.is_empty() {
        return info(state, &tr("chat.picker.no_options", &[]));
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
    open_picker(
        state,
        PickerKind::ConfigOption,
        &tr("chat.picker.session_options", &[]),
        items,
    );
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
        PickerKind::History => super::history_picker::picked(item, fx),
        PickerKind::Model => fx.push(Effect::SetModel(item.id.clone())),
        PickerKind::Sessions => fx.push(Effect::SessionAction {
            key: item.id.clone(),
            verb: if item.current {
                SessionVerb::Focus
            } else {
                SessionVerb::Resume
            },
        }),
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

/// Ctrl+D or Delete in `/sessions`: closes the highlighted session (the
/// picker closes; the action says what it did). Other pickers ignore it.
pub(crate) fn close_session(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(picker) = state.picker.take_if(|p| p.kind == PickerKind::Sessions) else {
        return;
    };
    if let Some(item) = picker.items.get(picker.selected) {
        fx.push(Effect::SessionAction {
            key: item.id.clone(),
            verb: SessionVerb::Close,
        });
    }
}

/// `/sessions`' answer: live ones go (Enter) to their pane, ended ones are
/// resumed.
pub(crate) fn open_sessions(state: &mut AppState, items: Vec<PickerItem>) {
    open_picker(
        state,
        PickerKind::Sessions,
        &tr("chat.picker.sessions", &[]),
        items,
    );
}
