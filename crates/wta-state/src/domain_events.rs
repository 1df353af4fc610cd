//! Domain events from the ACP connection applied to the state: streamed
//! content into the transcript, permission requests into the queue, and
//! session facts into the status line and setup screen. Session comings and
//! goings (and the master's) are `lifecycle.rs`'s.

use std::time::Instant;

use wta_i18n::tr;

use super::domain::ConnectionState;
use super::effects::Effect;
use super::events::DomainEvent;
use super::state::{AppState, Setup, TargetPane};
use super::transcript::SystemLevel;
use super::{commands, lifecycle, proposal_card};

pub(crate) fn on_domain(
    state: &mut AppState,
    event: DomainEvent,
    now: Instant,
    fx: &mut Vec<Effect>,
) {
    match event {
        DomainEvent::Connection(connection) => {
            if let ConnectionState::Failed(reason) = &connection {
                let text = lifecycle::failed(state, reason);
                state.transcript.push_system(SystemLevel::Error, &text);
                lifecycle::end_everything_open(state, fx);
            }
            state.connection = connection;
        }
        DomainEvent::SessionStarted { agent, model } => {
            state.agent = agent;
            state.model = model;
            state.setup = None;
            state.setup_notice = None;
            lifecycle::session_started(state);
            commands::connected(state, now, fx);
        }
        DomainEvent::ModelChanged(model) => {
            state
                .transcript
                .push_system(SystemLevel::Info, &tr!("chat.model_changed", model = model));
            state.model = Some(model);
        }
        DomainEvent::UserMessage(text) => state.transcript.push_replayed_user(&text),
        DomainEvent::AgentMessageChunk(text) => state.transcript.append_agent(&text),
        DomainEvent::ThoughtChunk(text) => state.transcript.append_thought(&text),
        DomainEvent::ToolCall(call) => {
            let terminal = call.terminal.clone();
            state.transcript.upsert_tool(call);
            show_known_terminal(state, terminal);
        }
        DomainEvent::ToolCallUpdate(update) => {
            let terminal = update.terminal.clone();
            state.transcript.update_tool(update);
            show_known_terminal(state, terminal);
        }
        DomainEvent::Failure(notice) => state.failure = Some(notice),
        DomainEvent::Question(request) => super::question::ask(state, request),
        DomainEvent::QuestionWithdrawn { id, why } => super::question::withdraw(state, id, &why),
        DomainEvent::Terminal(view) => {
            state.transcript.show_terminal(&view);
            if state.terminals.len() >= MAX_TERMINAL_VIEWS
                && !state.terminals.contains_key(&view.id)
            {
                state.terminals.pop_first();
            }
            state.terminals.insert(view.id.clone(), view);
        }
        DomainEvent::Plan(plan) => state.transcript.set_plan(plan),
        DomainEvent::PermissionRequest(request) => state.permissions.push(request),
        DomainEvent::PermissionWithdrawn(id) => {
            state.permissions.withdraw(id);
        }
        DomainEvent::PaneShown => state.pane_hidden = false,
        DomainEvent::PaneHidden => state.pane_hidden = true,
        DomainEvent::TurnEnded(stop) => {
            state.transcript.end_turn(stop);
            state.turn_started = None;
            commands::turn_ended(state, stop, now, fx);
        }
        DomainEvent::Error(text) => state.transcript.push_system(SystemLevel::Error, &text),
        DomainEvent::Notice(text) => state.transcript.push_system(SystemLevel::Info, &text),
        DomainEvent::Usage(usage) => state.usage = Some(usage),
        DomainEvent::Agents(agents) => state.agents = agents,
        DomainEvent::SessionList(items) if items.is_empty() => {
            super::commands::info(state, &tr("chat.no_sessions", &[]));
        }
        DomainEvent::SessionList(items) => super::pickers::open_sessions(state, items),
        DomainEvent::HistoryList(items) => super::history_picker::open(state, items),
        DomainEvent::Models(models) => state.models = models,
        DomainEvent::ConfigOptions(options) => state.config_options = options,
        DomainEvent::TargetPane { pane, cwd } => state.target = Some(TargetPane { pane, cwd }),
        DomainEvent::RunningCommands(list) => state.running = list,
        DomainEvent::PaneFacts { pane, facts } => proposal_card::on_facts(state, pane, facts),
        DomainEvent::Yolo {
            state: yolo,
            answer,
        } => {
            state.yolo = yolo;
            if let Some(answer) = answer {
                commands::yolo_answered(state, answer);
            }
        }
        DomainEvent::AgentMissing {
            agent,
            install_hint,
        } => {
            let text = lifecycle::failed(state, &tr!("chat.agent_missing", agent = agent));
            state.transcript.push_system(SystemLevel::Warn, &text);
            state.agent = agent.clone();
            state.model = None;
            state.setup = Some(Setup::NotInstalled {
                agent,
                install_hint,
            });
        }
        DomainEvent::AuthRequired { agent, methods } => {
            let text = lifecycle::failed(state, &tr!("chat.agent_needs_auth", agent = agent));
            state.transcript.push_system(SystemLevel::Warn, &text);
            state.agent = agent.clone();
            state.model = None;
            state.setup = Some(Setup::NeedsAuth {
                agent,
                methods,
                selected: 0,
            });
        }
        DomainEvent::AgentUnavailable { agent, install } => {
            lifecycle::agent_unavailable(state, &agent, &install);
        }
        DomainEvent::MasterGone { why } => lifecycle::master_gone(state, why, fx),
        DomainEvent::Reconnected { new_master } => lifecycle::reconnected(state, new_master),
        DomainEvent::Traffic { direction, line } => state.debug.push(direction, &line),
        DomainEvent::ProposalAccepted(proposal) => {
            proposal_card::on_accepted(state, *proposal, now);
        }
        DomainEvent::ProposalResolved { id, status, reason } => {
            proposal_card::on_resolved(state, id, status, reason);
        }
    }
}

/// Terminal views kept for tool calls that name their terminal late.
pub const MAX_TERMINAL_VIEWS: usize = 64;

/// A tool call named a terminal already seen: show it now.
fn show_known_terminal(state: &mut AppState, terminal: Option<String>) {
    if let Some(view) = terminal.and_then(|id| state.terminals.get(&id).cloned()) {
        state.transcript.show_terminal(&view);
    }
}
