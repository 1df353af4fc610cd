//! Performs one scripted turn: notifications, client requests, the prompt answer.
//! Errors talking to the client end the turn with a visible chunk, never a panic.

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, UntypedMessage};
use futures::FutureExt;
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::propose;
use super::script::Script;

type Cx = ConnectionTo<Client>;

pub(super) async fn run(
    cx: Cx,
    session: String,
    script: Script,
    context: String,
    cancel: Arc<Notify>,
    responder: Responder<Value>,
) {
    let turn = Turn {
        cx,
        session,
        context,
    };
    let outcome = turn.perform(script, &cancel).await;
    let _ = match outcome {
        Ok(stop) => responder.respond(json!({"stopReason": stop})),
        Err(err) => responder.respond_with_error(err),
    };
}

pub(super) struct Turn {
    cx: Cx,
    session: String,
    /// The context block WTA appended to the prompt (empty without one).
    context: String,
}

impl Turn {
    async fn perform(
        &self,
        script: Script,
        cancel: &Notify,
    ) -> Result<&'static str, agent_client_protocol::Error> {
        match script {
            Script::Echo(text) => self.chunk(&text)?,
            Script::Pid => self.chunk(&format!("pid {}", std::process::id()))?,
            Script::Stream { count, tag } => {
                for i in 0..count {
                    if cancel.notified().now_or_never().is_some() {
                        return Ok("cancelled");
                    }
                    self.chunk(&format!("{tag}:{i};"))?;
                }
            }
            Script::Tool => {
                self.update(json!({"sessionUpdate": "tool_call", "toolCallId": "tc-1", "title": "Read README.md",
                    "kind": "read", "status": "pending", "locations": [{"path": "README.md"}]}))?;
                self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "tc-1", "status": "in_progress"}))?;
                self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "tc-1", "status": "completed",
                    "content": [{"type": "content", "content": {"type": "text", "text": "read 3 lines"}}]}))?;
                self.chunk("tool done")?;
            }
            Script::Plan => {
                self.update(json!({"sessionUpdate": "plan", "entries": [
                    {"content": "Inspect the failing test", "priority": "high", "status": "completed"},
                    {"content": "Fix the parser", "priority": "medium", "status": "in_progress"},
                    {"content": "Run the suite", "priority": "low", "status": "pending"}]}))?;
                self.chunk("plan shown")?;
            }
            Script::Permission(kinds) => {
                let options: Vec<Value> = kinds
                    .iter()
                    .enumerate()
                    .map(|(i, kind)| json!({"optionId": format!("opt-{i}-{kind}"), "name": kind, "kind": kind}))
                    .collect();
                self.update(json!({"sessionUpdate": "tool_call", "toolCallId": "perm-1", "title": "touch made_by_tool",
                    "kind": "execute", "status": "pending", "rawInput": {"command": "touch made_by_tool"}}))?;
                let answer = self
                    .request("session/request_permission", json!({"sessionId": self.session,
                        "toolCall": {"toolCallId": "perm-1", "title": "touch made_by_tool", "kind": "execute"},
                        "options": options}))
                    .await;
                let text = match answer {
                    Ok(v) => match v.pointer("/outcome/outcome").and_then(Value::as_str) {
                        Some("selected") => format!(
                            "permission: selected {}",
                            v.pointer("/outcome/optionId")
                                .and_then(Value::as_str)
                                .unwrap_or("?")
                        ),
                        _ => "permission: cancelled".to_owned(),
                    },
                    Err(err) => format!("permission: error {}", err.message),
                };
                self.chunk(&text)?;
            }
            Script::Terminal(command) => {
                let text = match self.terminal(&command).await {
                    Ok(text) => text,
                    Err(err) => format!("terminal: error {}", err.message),
                };
                self.chunk(&text)?;
            }
            Script::Run(command) => self.run_command(&command).await?,
            Script::ReadFile(path) => {
                let answer = self
                    .request(
                        "fs/read_text_file",
                        json!({"sessionId": self.session, "path": path}),
                    )
                    .await;
                let text = match answer {
                    Ok(v) => format!(
                        "read: {}",
                        v.get("content").and_then(Value::as_str).unwrap_or_default()
                    ),
                    Err(err) => format!("read: error {}", err.message),
                };
                self.chunk(&text)?;
            }
            Script::Fail { code, message } => {
                return Err(agent_client_protocol::Error::new(code, message));
            }
            Script::Stall => {
                self.chunk("stalling")?;
                cancel.notified().await;
                return Ok("cancelled");
            }
            Script::Exit => std::process::exit(3),
            Script::Propose(proposal) => propose::run(self, &self.context, &proposal).await?,
        }
        Ok("end_turn")
    }

    pub(super) fn session(&self) -> &str {
        &self.session
    }

    pub(super) fn update(&self, update: Value) -> Result<(), agent_client_protocol::Error> {
        self.cx.send_notification(UntypedMessage::new(
            "session/update",
            json!({"sessionId": self.session, "update": update}),
        )?)
    }

    pub(super) fn chunk(&self, text: &str) -> Result<(), agent_client_protocol::Error> {
        self.update(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}))
    }

    pub(super) async fn request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, agent_client_protocol::Error> {
        self.cx
            .send_request(UntypedMessage::new(method, params)?)
            .block_task()
            .await
    }

    async fn terminal(&self, command: &str) -> Result<String, agent_client_protocol::Error> {
        let created = self
            .request(
                "terminal/create",
                json!({"sessionId": self.session, "command": "sh",
                "args": ["-c", command], "outputByteLimit": 32000}),
            )
            .await?;
        let id = created.get("terminalId").cloned().unwrap_or(Value::Null);
        self.update(json!({"sessionUpdate": "tool_call", "toolCallId": "term-1", "title": command,
            "kind": "execute", "status": "in_progress", "content": [{"type": "terminal", "terminalId": id}]}))?;
        let ids = json!({"sessionId": self.session, "terminalId": id});
        let exit = self.request("terminal/wait_for_exit", ids.clone()).await?;
        let output = self.request("terminal/output", ids.clone()).await?;
        self.request("terminal/release", ids).await?;
        self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "term-1", "status": "completed"}))?;
        Ok(format!(
            "terminal exit {}: {}",
            exit.get("exitCode")
                .map(Value::to_string)
                .unwrap_or_default(),
            output
                .get("output")
                .and_then(Value::as_str)
                .unwrap_or_default()
        ))
    }

    async fn run_command(&self, command: &str) -> Result<(), agent_client_protocol::Error> {
        self.update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "run-1", "title": command,
            "kind": "execute", "status": "in_progress", "rawInput": {"command": command}}),
        )?;
        let out = tokio::process::Command::new("sh")
            .args(["-c", command])
            .output()
            .await;
        let (status, text, code) = match out {
            Ok(out) => (
                if out.status.success() {
                    "completed"
                } else {
                    "failed"
                },
                String::from_utf8_lossy(&out.stdout).into_owned(),
                out.status.code().unwrap_or(-1),
            ),
            Err(err) => ("failed", err.to_string(), -1),
        };
        self.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "run-1", "status": status,
            "rawOutput": {"exitCode": code, "output": text},
            "content": [{"type": "content", "content": {"type": "text", "text": text}}]}),
        )?;
        self.chunk(&format!("ran with exit {code}: {text}"))
    }
}
