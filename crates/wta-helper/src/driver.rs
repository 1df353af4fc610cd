//! The headless front end: the same session machine and runtime as the
//! agent pane, with line commands on input and JSON event lines on output
//! instead of a terminal. For tests and scripting.
//!
//! Commands (each acts as the user would): `prompt <text>`, `cancel`,
//! `allow <option-id>` (answers the oldest permission card), `deny`
//! (dismisses it), `new` and `restart` (`/new`, `/restart`), `config <id>
//! <value>`, `sessions`. Events: `ready` (a session is open), `update`
//! (`session/update`, as ACP sent it), `permission` (a card asks), `prompt_done`,
//! `error`, `lagged`, `agent_exited`, `agent_restarted` (a prompt after the
//! agent died opened a new session first), `client_request`, `config`,
//! `sessions`, `master_closed`.
//!
//! There is no card side here: prompts go without a proposal channel, and
//! the proposal socket is not served. `fs/*` and `terminal/*` are served as
//! in the pane (terminals as panes when it runs inside tmux).

use std::collections::BTreeSet;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use wta_state::{Event, PermissionRequestId, Scripted};

use crate::connection::ConnectionError;
use crate::machine::{Call, ClientCall, Input, Machine};
use crate::runtime::{Runtime, RuntimeConfig};

/// How a headless run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverExit {
    /// The input ended; the helper left on its own.
    InputClosed,
    /// The master went away (fail closed).
    MasterClosed,
}

fn error_event(err: &ConnectionError) -> Value {
    let kind = match err {
        ConnectionError::MasterClosed => "master_closed".to_owned(),
        ConnectionError::Agent { .. } => "agent_error".to_owned(),
        other => other
            .failure_kind()
            .and_then(|k| serde_json::to_value(k).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "other".to_owned()),
    };
    json!({"event": "error", "kind": kind, "message": err.to_string()})
}

fn usage(message: &str) -> Value {
    json!({"event": "error", "kind": "usage", "message": message})
}

/// What the sink has told its reader so far.
#[derive(Debug, Default)]
struct Seen {
    /// The session last announced (`ready` / `agent_restarted`).
    session: Option<String>,
    /// Every session announced: a turn of an earlier one still ends for
    /// the reader when its answer comes after the next session's `ready`
    /// (a `/restart` during a hung turn).
    announced: BTreeSet<String>,
    /// Permission cards announced.
    cards: BTreeSet<PermissionRequestId>,
    /// A session has been ready at least once.
    ever_ready: bool,
}

/// Runs the pane headless: connects, opens one session in the config's cwd,
/// then serves commands until input EOF or master EOF. With a tmux `host`,
/// agent terminals open as panes there, else as local child processes.
pub async fn run_headless<I, O>(
    config: RuntimeConfig,
    host: Option<wta_host::TmuxHost>,
    input: I,
    mut output: O,
) -> Result<DriverExit, ConnectionError>
where
    I: AsyncBufRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let config = RuntimeConfig {
        cards: false,
        ..config
    };
    let mut runtime = Runtime::new(config, host);
    let mut machine = runtime.start(Instant::now());
    let mut seen = Seen::default();
    let mut lines = input.lines();
    loop {
        let next = tokio::select! {
            biased;
            input = runtime.next() => Some(input),
            line = lines.next_line() => match line {
                Ok(Some(line)) => {
                    let (input, now) = (command(line.trim(), &machine), Instant::now());
                    match input {
                        Ok(Some(input)) => step(&mut runtime, &mut machine, &mut seen, input, now, &mut output).await?,
                        Ok(None) => {}
                        Err(message) => write_line(&mut output, &usage(&message)).await,
                    }
                    None
                }
                _ => {
                    runtime.shutdown().await;
                    return Ok(DriverExit::InputClosed);
                }
            },
        };
        if let Some(input) = next {
            if matches!(input, Input::MasterClosed) {
                write_line(&mut output, &json!({"event": "master_closed"})).await;
                runtime.shutdown().await;
                return Ok(DriverExit::MasterClosed);
            }
            step(
                &mut runtime,
                &mut machine,
                &mut seen,
                input,
                Instant::now(),
                &mut output,
            )
            .await?;
        }
    }
}

/// A line command as the machine input it stands for.
fn command(line: &str, machine: &Machine) -> Result<Option<Input>, String> {
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    let script = match word {
        "" => return Ok(None),
        "prompt" => Scripted::Submit(rest.to_owned()),
        "cancel" => Scripted::Cancel,
        "allow" | "deny" if machine.app.permissions.is_empty() => {
            return Err("no permission request is pending".to_owned());
        }
        "allow" => Scripted::Answer(Some(rest.trim().to_owned())),
        "deny" => Scripted::Answer(None),
        "new" => Scripted::Submit("/new".to_owned()),
        "restart" => Scripted::Submit("/restart".to_owned()),
        "sessions" => Scripted::Submit("/sessions".to_owned()),
        "config" => {
            let (option, value) = rest.split_once(' ').unwrap_or((rest, ""));
            Scripted::SetOption {
                option: option.to_owned(),
                value: value.to_owned(),
            }
        }
        other => return Err(format!("unknown command `{other}`")),
    };
    Ok(Some(Input::App(Event::Script(script))))
}

/// Steps the machine with `input` and writes what the reader should see.
async fn step<O: AsyncWrite + Unpin>(
    runtime: &mut Runtime,
    machine: &mut Machine,
    seen: &mut Seen,
    input: Input,
    now: Instant,
    output: &mut O,
) -> Result<(), ConnectionError> {
    let restarting = machine.pane.pending_prompt.is_some();
    let mut lines = before(&input, machine, seen);
    let prompt = matches!(&input, Input::App(Event::Script(Scripted::Submit(text))) if !text.starts_with('/'));
    // The first session could not open: the run fails, as it starts.
    let input = match input {
        Input::Linked(result) if !seen.ever_ready => Input::Linked(Box::new(Ok((*result)?))),
        Input::SessionOpened { agent, result } if !seen.ever_ready => Input::SessionOpened {
            agent,
            result: Box::new(Ok((*result)?)),
        },
        other => other,
    };
    runtime.apply(machine, input, now);
    if prompt && !machine.app.transcript.turn_running() && machine.app.queued.is_none() {
        lines.push(usage("the prompt was not sent: no session is ready"));
    }
    let session = machine.pane.session.as_ref().map(|s| s.0.to_string());
    if session.is_some() && session != seen.session {
        let event = if restarting {
            "agent_restarted"
        } else {
            "ready"
        };
        let mut line = json!({"event": event, "agentId": machine.pane.agent, "sessionId": session});
        if restarting {
            line["message"] = "the agent was started again; this is a new session".into();
        }
        lines.push(line);
        seen.announced.extend(session.clone());
        seen.session.clone_from(&session);
        seen.ever_ready = true;
    }
    for card in machine.app.permissions.iter() {
        if seen.cards.insert(card.request.id) {
            let options: Vec<&str> = card.request.options.iter().map(|o| o.id.as_str()).collect();
            lines.push(json!({"event": "permission", "sessionId": session,
                "title": card.request.title, "options": options}));
        }
    }
    seen.cards
        .retain(|id| machine.app.permissions.iter().any(|c| c.request.id == *id));
    for line in lines {
        write_line(output, &line).await;
    }
    Ok(())
}

/// What an input says on its own, before the machine takes it.
fn before(input: &Input, machine: &Machine, seen: &Seen) -> Vec<Value> {
    let current = machine.pane.session.as_ref();
    match input {
        Input::Update(n) if Some(&n.session_id) == current => {
            vec![
                json!({"event": "update", "sessionId": n.session_id.0.to_string(),
                "update": serde_json::to_value(&n.update).unwrap_or(Value::Null)}),
            ]
        }
        // A session the reader was told of: also after the machine dropped
        // it (its agent died and `_wta/agent_exited` came first) or moved on.
        Input::PromptFinished { session, result } if seen.announced.contains(&*session.0) => {
            match result.as_ref() {
                Ok(stop) => vec![json!({"event": "prompt_done",
                    "sessionId": session.0.to_string(), "stopReason": stop})],
                Err(err) => vec![error_event(err)],
            }
        }
        Input::Lagged { dropped } => vec![json!({"event": "lagged", "dropped": dropped})],
        Input::AgentExited(n) => vec![json!({"event": "agent_exited", "agentId": n.agent_id,
            "sessionIds": n.session_ids, "reason": n.reason})],
        Input::ClientRequest { call, .. } => {
            let method = match call {
                ClientCall::ReadFile => "fs/read_text_file",
                ClientCall::WriteFile => "fs/write_text_file",
                ClientCall::Terminal { method } => method,
                ClientCall::Other { method } => method,
                ClientCall::SessionTool { .. } => "_wta/session_tool",
            };
            vec![json!({"event": "client_request", "method": method})]
        }
        Input::AgentSessions(result) => match result.as_ref() {
            Ok(list) => vec![json!({"event": "sessions", "sessions": list.sessions})],
            Err(err) => vec![error_event(err)],
        },
        Input::Replied {
            call: Call::SetConfig,
            result,
        } => match result.as_ref() {
            Ok(reply) => vec![json!({"event": "config", "configOptions": reply.config_options})],
            Err(err) => vec![error_event(err)],
        },
        Input::SessionOpened { result, .. } => match result.as_ref() {
            Err(err) => vec![error_event(err)],
            Ok(_) => Vec::new(),
        },
        _ => Vec::new(),
    }
}

async fn write_line<O: AsyncWrite + Unpin>(output: &mut O, value: &Value) {
    let mut line = value.to_string();
    line.push('\n');
    let _ = output.write_all(line.as_bytes()).await;
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use agent_client_protocol::v1::schema::{SessionId, StopReason};

    use super::*;
    use crate::machine::PaneConfig;

    fn finished(session: &str) -> Input {
        Input::PromptFinished {
            session: SessionId::new(session),
            result: Box::new(Ok(StopReason::Cancelled)),
        }
    }

    /// `/restart` during a hung turn: the old turn's answer may come after
    /// the new session's `ready`, and still ends that turn for the reader;
    /// a session the reader never heard of stays unreported.
    #[test]
    fn a_turn_of_an_earlier_session_still_ends_for_the_reader() {
        let machine = Machine::new(PaneConfig::default());
        let seen = Seen {
            session: Some("new".into()),
            announced: ["old".to_owned(), "new".to_owned()].into(),
            ..Seen::default()
        };
        let lines = before(&finished("old"), &machine, &seen);
        assert_eq!(
            lines,
            [json!({"event": "prompt_done", "sessionId": "old", "stopReason": "cancelled"})]
        );
        assert!(before(&finished("other"), &machine, &seen).is_empty());
    }
}
