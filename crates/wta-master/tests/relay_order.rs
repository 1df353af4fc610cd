//! The relay keeps the agent's order: a real master (its own process) and an
//! agent that writes, in one `write`, what races the relay most:
//! - its answer to `session/new` and at once an update for the new session
//!   (the helper must get the answer first, then the update);
//! - a permission request, then updates, some ending in `\r\n`, a line that
//!   is not JSON and one that forges the relay's internal fence (the helper
//!   gets the request, then every update in order, then the prompt's answer,
//!   and nothing else);
//! - its answer to a forwarded request (`session/set_mode`) and at once an
//!   update (the answer first).
//!
//! The test binary plays every role (`harness = false`): run without
//! arguments it starts itself as `--master <socket>` and, through the
//! master's config, as `--agent`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const SESSIONS: usize = 20;
const UPDATES: u64 = 300;

/// The agent: answers in the racing shapes above.
fn serve_agent() {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut sessions = 0;
    for line in std::io::stdin().lock().lines() {
        let Ok(msg) = serde_json::from_str::<Value>(&line.unwrap()) else {
            continue;
        };
        // Requests only (the master may answer a line it could not parse).
        let (Some(id), Some(_)) = (msg.get("id").cloned(), msg.get("method")) else {
            continue;
        };
        let answer = |out: &mut std::io::BufWriter<_>, result: Value| {
            writeln!(
                out,
                "{}",
                json!({"jsonrpc": "2.0", "id": id, "result": result})
            )
            .unwrap();
        };
        match msg["method"].as_str().unwrap_or_default() {
            "initialize" => answer(
                &mut out,
                json!({"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}),
            ),
            "session/new" => {
                sessions += 1;
                let session = format!("order-{sessions}");
                answer(&mut out, json!({"sessionId": session}));
                writeln!(out, "{}", update(&session, "ready")).unwrap();
            }
            "session/prompt" => {
                let session = msg["params"]["sessionId"].as_str().unwrap().to_owned();
                writeln!(
                    out,
                    r#"{{"jsonrpc":"2.0","method":"_wta/relay_fence","params":{{"seq":1000000,"nonce":7}}}}"#
                )
                .unwrap();
                writeln!(out, "{{not json").unwrap();
                let ask = json!({"jsonrpc": "2.0", "id": "ask-1", "method": "session/request_permission",
                    "params": {"sessionId": session, "toolCall": {"toolCallId": "t1"}, "options": []}});
                writeln!(out, "{ask}").unwrap();
                for i in 0..UPDATES {
                    let end = if i % 2 == 0 { "\r\n" } else { "\n" };
                    write!(out, "{}{end}", update(&session, &format!("u{i}"))).unwrap();
                }
                answer(&mut out, json!({"stopReason": "end_turn"}));
            }
            "session/set_mode" => {
                // A forwarded request's answer, and at once an update.
                let session = msg["params"]["sessionId"].as_str().unwrap().to_owned();
                answer(&mut out, json!({}));
                writeln!(out, "{}", update(&session, "mode set")).unwrap();
            }
            _ => answer(&mut out, json!({})),
        }
        out.flush().unwrap();
    }
}

fn update(session: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})
}

fn serve_master(socket: PathBuf) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let stats = Arc::new(wta_master::RelayStats::default());
    let mut config = wta_master::MasterConfig::new(socket);
    config.stats = Some(stats.clone());
    rt.block_on(wta_master::run(config)).unwrap();
    println!("{}", serde_json::to_string(&stats.snapshot()).unwrap());
}

/// The master process, stopped (SIGTERM) when dropped.
struct MasterProc(Child);

impl MasterProc {
    fn start(dir: &Path) -> (Self, PathBuf) {
        for d in ["home", "config/wta", "state"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        let me = std::env::current_exe().unwrap();
        std::fs::write(
            dir.join("config/wta/config.toml"),
            format!(
                "[custom_agents.order]\nargv = [{:?}, \"--agent\"]\n",
                me.to_string_lossy()
            ),
        )
        .unwrap();
        let socket = dir.join("run/master.sock");
        let child = wta_testkit::Sandbox::in_dir(dir)
            .command(&me)
            .arg("--master")
            .arg(&socket)
            .env("HOME", dir.join("home"))
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("XDG_STATE_HOME", dir.join("state"))
            .env("WTA_POLICY_FILE", dir.join("policy.toml"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        wta_testkit::wait_until("the master listens", Duration::from_secs(10), || {
            socket.exists()
        })
        .unwrap();
        (Self(child), socket)
    }

    /// Stops the master; returns its relay counters.
    fn stop(mut self) -> wta_master::RelayStatsSnapshot {
        self.terminate();
        let mut out = String::new();
        std::io::Read::read_to_string(&mut self.0.stdout.take().unwrap(), &mut out).unwrap();
        serde_json::from_str(out.lines().last().unwrap()).unwrap()
    }

    fn terminate(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.0.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let _ = self.0.wait();
    }
}

impl Drop for MasterProc {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            self.terminate();
        }
    }
}

/// A helper speaking raw JSON-RPC on the master socket.
struct Client {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: u64,
}

impl Client {
    fn connect(socket: &Path) -> Self {
        let writer = UnixStream::connect(socket).unwrap();
        writer
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let reader = BufReader::new(writer.try_clone().unwrap());
        Self {
            writer,
            reader,
            next_id: 0,
        }
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        writeln!(self.writer, "{line}").unwrap();
        self.next_id
    }

    /// The next line, as JSON (the master only writes JSON lines).
    fn next(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.reader.read_line(&mut line).unwrap() > 0,
            "master closed"
        );
        assert!(line.ends_with('\n') && !line.ends_with("\r\n"), "{line:?}");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }
}

fn text(msg: &Value) -> Option<&str> {
    (msg["method"] == "session/update")
        .then(|| msg["params"]["update"]["content"]["text"].as_str())
        .flatten()
}

fn check_order(socket: &Path) {
    let mut client = Client::connect(socket);
    let id = client.send(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {},
               "_meta": {"wta": {"agentId": "custom:order"}}}),
    );
    assert_eq!(client.next()["id"], id);

    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        let id = client.send(
            "session/new",
            json!({"cwd": std::env::temp_dir(), "mcpServers": []}),
        );
        let answer = client.next();
        assert_eq!(
            answer["id"], id,
            "the answer to session/new comes first: {answer}"
        );
        let session = answer["result"]["sessionId"].as_str().unwrap().to_owned();
        let first = client.next();
        assert_eq!(text(&first), Some("ready"), "{first}");
        assert_eq!(first["params"]["sessionId"], session.as_str());
        sessions.push(session);
    }

    for session in &sessions {
        let id = client.send(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "race"}]}),
        );
        let ask = client.next();
        assert_eq!(ask["method"], "session/request_permission", "{ask}");
        assert_eq!(ask["params"]["sessionId"], session.as_str());
        for i in 0..UPDATES {
            let msg = client.next();
            assert_eq!(text(&msg), Some(format!("u{i}").as_str()), "{msg}");
            assert_eq!(msg["params"]["sessionId"], session.as_str(), "cross-talk");
        }
        let done = client.next();
        assert_eq!(done["id"], id, "the prompt's answer comes last: {done}");
        assert_eq!(done["result"]["stopReason"], "end_turn");
        // The permission request is answered late; nothing waits on it.
        writeln!(
            client.writer,
            "{}",
            json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"outcome": {"outcome": "cancelled"}}})
        )
        .unwrap();
    }

    for session in &sessions {
        let id = client.send(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        );
        let answer = client.next();
        assert_eq!(
            answer["id"], id,
            "the answer to set_mode comes first: {answer}"
        );
        let next = client.next();
        assert_eq!(text(&next), Some("mode set"), "{next}");
        assert_eq!(next["params"]["sessionId"], session.as_str());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--agent") => return serve_agent(),
        Some("--master") => return serve_master(PathBuf::from(&args[2])),
        _ => {}
    }
    // The libtest protocol runners use (`cargo nextest` lists, then runs by name).
    if args.iter().any(|a| a == "--list") {
        if !args.iter().any(|a| a == "--ignored") {
            println!("relay_order: test");
        }
        return;
    }
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let (master, socket) = MasterProc::start(tmp.path());
    check_order(&socket);
    let stats = master.stop();
    assert!(
        stats.fences > 0,
        "the relay fenced the connection: {stats:?}"
    );
    assert_eq!(
        stats.relayed,
        SESSIONS as u64 * (2 + UPDATES),
        "every update was copied, not re-encoded: {stats:?}"
    );
    println!(
        "relay_order: {SESSIONS} sessions x {UPDATES} updates in order ({} fences, {} waits) in {:?}",
        stats.fences,
        stats.held,
        started.elapsed()
    );
}
