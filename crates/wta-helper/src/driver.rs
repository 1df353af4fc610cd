//! A headless helper driver: line commands on input, JSON event lines on output.
//!
//! It stands where the TUI will stand, for tests and scripting. Commands:
//! `prompt <text>`, `cancel`, `allow <option-id>` (answers the oldest pending
//! permission), `deny` (cancels it), `new`, `restart` (a new session on a fresh
//! agent process of its own, like `/restart`), `config <id> <value>`, `sessions`.
//! Events: `ready`, `update`, `permission`, `prompt_done`, `error`, `lagged`,
//! `agent_exited`, `agent_restarted`, `client_request`, `sessions`, `master_closed`.
//! A prompt for a session that died with its agent first opens a new session
//! (the master starts the agent again) and says so with `agent_restarted`. This driver has
//! no terminals or files to offer, so `fs/*` and `terminal/*` are refused with
//! an error saying so.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::connection::{
    ConnectOptions, ConnectionError, HelperEvent, MasterConnection, PermissionRequest,
};

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

/// Connects, opens one session in `cwd`, then serves commands until input EOF or master EOF.
pub async fn run_headless<I, O>(
    options: ConnectOptions,
    cwd: PathBuf,
    input: I,
    mut output: O,
) -> Result<DriverExit, ConnectionError>
where
    I: AsyncBufRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let conn = Arc::new(MasterConnection::connect(options, events_tx).await?);
    let mut session = conn.new_session(&cwd, None).await?.session_id.to_string();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Value>();
    let _ =
        out_tx.send(json!({"event": "ready", "agentId": conn.agent_id(), "sessionId": session}));
    let mut pending: VecDeque<PermissionRequest> = VecDeque::new();
    let mut lost = false;
    let mut lines = input.lines();
    let exit = loop {
        tokio::select! {
            biased;
            event = events.recv() => match event {
                None | Some(HelperEvent::MasterClosed) => break DriverExit::MasterClosed,
                Some(event) => {
                    lost |= died_with_agent(&event, &session);
                    write_line(&mut output, &on_event(event, &mut pending)).await;
                }
            },
            Some(line) = out_rx.recv() => write_line(&mut output, &line).await,
            line = lines.next_line() => match line {
                Ok(Some(line)) => on_command(line.trim(), &conn, (&mut session, &mut lost), &cwd, &mut pending, &out_tx).await,
                _ => break DriverExit::InputClosed,
            },
        }
    };
    while let Ok(line) = out_rx.try_recv() {
        write_line(&mut output, &line).await;
    }
    if exit == DriverExit::MasterClosed {
        write_line(&mut output, &json!({"event": "master_closed"})).await;
    }
    Ok(exit)
}

async fn write_line<O: AsyncWrite + Unpin>(output: &mut O, value: &Value) {
    let mut line = value.to_string();
    line.push('\n');
    let _ = output.write_all(line.as_bytes()).await;
    let _ = output.flush().await;
}

/// Whether `event` says `session` went with its agent process.
fn died_with_agent(event: &HelperEvent, session: &str) -> bool {
    match event {
        HelperEvent::AgentExited(n) => n.session_ids.iter().any(|s| s == session),
        HelperEvent::PromptFinished {
            session_id,
            result: Err(ConnectionError::AgentExited { .. }),
        } => session_id == session,
        _ => false,
    }
}

fn on_event(event: HelperEvent, pending: &mut VecDeque<PermissionRequest>) -> Value {
    match event {
        HelperEvent::SessionUpdate(n) => {
            json!({"event": "update", "sessionId": n.session_id.to_string(), "update": serde_json::to_value(&n.update).unwrap_or(Value::Null)})
        }
        HelperEvent::Permission(p) => {
            let options: Vec<String> = p
                .request
                .options
                .iter()
                .map(|o| o.option_id.to_string())
                .collect();
            let line = json!({"event": "permission", "sessionId": p.request.session_id.to_string(),
                "title": p.request.tool_call.fields.title, "options": options});
            pending.push_back(*p);
            line
        }
        HelperEvent::ClientRequest(r) => {
            let method = r.method.clone();
            let _ = r.fail(
                -32601,
                "the headless wta driver offers no terminals or files",
            );
            json!({"event": "client_request", "method": method})
        }
        HelperEvent::Lagged { dropped } => json!({"event": "lagged", "dropped": dropped}),
        HelperEvent::AgentExited(n) => json!({"event": "agent_exited", "agentId": n.agent_id,
            "sessionIds": n.session_ids, "reason": n.reason}),
        HelperEvent::PromptFinished { session_id, result } => match result {
            Ok(r) => {
                json!({"event": "prompt_done", "sessionId": session_id, "stopReason": r.stop_reason})
            }
            Err(err) => error_event(&err),
        },
        HelperEvent::MasterClosed => json!({"event": "master_closed"}),
    }
}

async fn on_command(
    line: &str,
    conn: &Arc<MasterConnection>,
    (session, lost): (&mut String, &mut bool),
    cwd: &std::path::Path,
    pending: &mut VecDeque<PermissionRequest>,
    out: &mpsc::UnboundedSender<Value>,
) {
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    let spawn_call = |fut: std::pin::Pin<Box<dyn std::future::Future<Output = Value> + Send>>| {
        let out = out.clone();
        tokio::spawn(async move {
            let _ = out.send(fut.await);
        });
    };
    match word {
        "prompt" if *lost => {
            // The session died with its agent: a new one first, then the prompt.
            match conn.new_session(cwd, None).await {
                Ok(r) => {
                    *session = r.session_id.to_string();
                    *lost = false;
                    let _ = out.send(
                        json!({"event": "agent_restarted", "agentId": conn.agent_id(),
                        "sessionId": *session,
                        "message": "the agent was started again; this is a new session"}),
                    );
                    conn.start_prompt(session, rest);
                }
                Err(err) => {
                    let _ = out.send(error_event(&err));
                }
            }
        }
        "prompt" => conn.start_prompt(session, rest),
        "cancel" => {
            if let Err(err) = conn.cancel(session) {
                let _ = out.send(error_event(&err));
            }
        }
        "allow" | "deny" => {
            let Some(p) = pending.pop_front() else {
                let _ = out.send(json!({"event": "error", "kind": "usage", "message": "no permission request is pending"}));
                return;
            };
            let result = if word == "allow" {
                p.select(rest.trim())
            } else {
                p.cancel()
            };
            if let Err(err) = result {
                let _ = out.send(error_event(&err));
            }
        }
        "new" | "restart" => {
            // Sequential on purpose: the next command must use the new session.
            let opened = if word == "new" {
                conn.new_session(cwd, None).await
            } else {
                conn.restart_session(cwd, conn.agent_id()).await
            };
            match opened {
                Ok(r) => {
                    *session = r.session_id.to_string();
                    *lost = false;
                    let _ = out.send(json!({"event": "ready", "agentId": conn.agent_id(), "sessionId": *session}));
                }
                Err(err) => {
                    let _ = out.send(error_event(&err));
                }
            }
        }
        "config" => {
            let (id, value) = rest.split_once(' ').unwrap_or((rest, ""));
            let (conn, s, id, value) = (
                conn.clone(),
                session.clone(),
                id.to_owned(),
                value.to_owned(),
            );
            spawn_call(Box::pin(async move {
                match conn.set_config_option(&s, &id, &value).await {
                    Ok(v) => json!({"event": "config", "result": v}),
                    Err(err) => error_event(&err),
                }
            }));
        }
        "sessions" => {
            let conn = conn.clone();
            spawn_call(Box::pin(async move {
                match conn.sessions().await {
                    Ok(list) => json!({"event": "sessions", "sessions": list.sessions}),
                    Err(err) => error_event(&err),
                }
            }));
        }
        "" => {}
        other => {
            let _ = out.send(json!({"event": "error", "kind": "usage", "message": format!("unknown command `{other}`")}));
        }
    }
}
