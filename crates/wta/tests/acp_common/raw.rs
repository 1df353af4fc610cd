//! A helper speaking raw JSON-RPC lines on the master socket, for tests that
//! need control of the wire: ids of any JSON type, answering the agent's
//! requests by hand, or not reading at all.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Env;

const T: Duration = Duration::from_secs(20);

/// A helper speaking raw JSON-RPC lines on the master socket. It reads only when
/// told to, so the master sees a peer that really stops reading.
pub struct RawHelper {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: u64,
}

impl RawHelper {
    /// Connected, nothing sent yet.
    pub fn open(socket: &Path) -> Self {
        let writer = UnixStream::connect(socket).expect("connect master");
        let reader = BufReader::new(writer.try_clone().expect("clone socket"));
        Self {
            writer,
            reader,
            next_id: 0,
        }
    }

    /// Connected, initialized for `agent`, with one session.
    pub fn connect(socket: &Path, agent: &str) -> (Self, String) {
        let mut raw = Self::open(socket);
        let init = raw.call(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {},
                   "_meta": {"wta": {"agentId": agent}}}),
        );
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        let new = raw.call(
            "session/new",
            json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
        );
        let session = new["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("session/new failed: {new}"))
            .to_owned();
        (raw, session)
    }

    /// Writes a request and returns its id without reading anything.
    pub fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.writer, "{line}").expect("write request");
        self.writer.flush().expect("flush");
        id
    }

    /// Writes a request with the given JSON-RPC `id` (any JSON: int, string, ...).
    pub fn send_with_id(&mut self, id: &Value, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// Writes one message line.
    pub fn write(&mut self, msg: &Value) {
        writeln!(self.writer, "{msg}").expect("write to master");
        self.writer.flush().expect("flush");
    }

    /// Reads lines until the response to `id`; returns (response, messages before it).
    pub fn response(&mut self, id: impl Into<Value>, timeout: Duration) -> (Value, Vec<Value>) {
        self.until_response(id.into(), timeout, None)
    }

    /// Like [`Self::response`], answering every request the master forwards
    /// from the agent with `answer(request)` as its result.
    pub fn serve_until(
        &mut self,
        id: impl Into<Value>,
        timeout: Duration,
        mut answer: impl FnMut(&Value) -> Value,
    ) -> (Value, Vec<Value>) {
        self.until_response(id.into(), timeout, Some(&mut answer))
    }

    fn until_response(
        &mut self,
        id: Value,
        timeout: Duration,
        mut answer: Option<&mut dyn FnMut(&Value) -> Value>,
    ) -> (Value, Vec<Value>) {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let msg = self.next_before(deadline, &format!("a response to request {id}"));
            if msg.get("method").is_none() && msg["id"] == id {
                return (msg, before);
            }
            if let Some(answer) = answer.as_mut()
                && msg.get("method").is_some()
                && msg.get("id").is_some()
            {
                let result = answer(&msg);
                self.write(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": result}));
            }
            before.push(msg);
        }
    }

    /// The next message, read by `deadline`.
    pub fn next_before(&mut self, deadline: Instant, what: &str) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no {what} in time");
        self.reader
            .get_ref()
            .set_read_timeout(Some(left))
            .expect("read timeout");
        let mut line = String::new();
        let n = self
            .reader
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("no {what}: {e}"));
        assert!(n > 0, "master closed the connection");
        serde_json::from_str(&line).expect("json line")
    }

    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id, T).0
    }

    pub fn prompt(&mut self, session: &str, text: &str) -> u64 {
        self.send(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        )
    }
}

/// Session ids `wta sessions list --json` reports.
pub fn listed_sessions(env: &Env) -> Vec<String> {
    let out = env
        .command()
        .args(["--json", "sessions", "list", "--master-socket"])
        .arg(&env.socket)
        .output()
        .expect("run wta sessions list");
    assert!(out.status.success(), "{out:?}");
    let list: Value = serde_json::from_slice(&out.stdout).expect("sessions json");
    list["sessions"]
        .as_array()
        .expect("sessions array")
        .iter()
        .map(|s| {
            s.get("session_id")
                .or_else(|| s.get("sessionId"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// The text of an `agent_message_chunk` update.
pub fn chunk_text(msg: &Value) -> Option<&str> {
    (msg["method"] == "session/update"
        && msg["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .then(|| msg["params"]["update"]["content"]["text"].as_str())
        .flatten()
}
