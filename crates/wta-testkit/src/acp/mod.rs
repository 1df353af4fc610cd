//! The scripted ACP test agent: stands in for an LLM's decisions, nothing else.
//!
//! Built on the `agent-client-protocol` crate's Agent side with untyped messages,
//! so the wire shapes (a Copilot-shaped `allow_all` config option, int or string
//! ids) are exactly what real agents send. Behaviour per prompt: [`script::parse`].
//! [`agent_path`] builds and finds the `wta-test-agent` binary for black-box tests.

pub mod propose;
pub mod script;
pub mod switches;
mod turn;
#[cfg(test)]
mod wire_tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::v1::{ConnectionTo, Dispatch, Responder};
use agent_client_protocol::{Agent, ByteStreams, Client, UntypedMessage};
use serde_json::{Value, json};
use tokio::sync::Notify;
use wta_protocol::prompt::request_and_context;

/// Per-session state of the test agent.
#[derive(Debug, Default)]
struct Session {
    cancel: Arc<Notify>,
    allow_all: String,
    mode: String,
}

#[derive(Debug, Default)]
struct State {
    sessions: Mutex<HashMap<String, Session>>,
    next: AtomicU64,
    options: Options,
    record: switches::Recorder,
    history: switches::History,
}

/// Agent-wide switches from the process's argv (set per `custom:` entry in a
/// test's config), modelling agents that differ in what they advertise.
#[derive(Debug, Default, Clone, Copy)]
struct Options {
    /// `--no-allow-all`: advertise no `allow_all` config option.
    no_allow_all: bool,
    /// `--refuse-allow-all-off`: fail `set_config_option allow_all=off`.
    refuse_allow_all_off: bool,
    /// `--allow-all-starts-on`: new sessions start with `allow_all=on`.
    allow_all_starts_on: bool,
}

impl Options {
    fn from_args() -> Self {
        let args: Vec<String> = std::env::args().skip(1).collect();
        Self {
            no_allow_all: args.iter().any(|a| a == "--no-allow-all"),
            refuse_allow_all_off: args.iter().any(|a| a == "--refuse-allow-all-off"),
            allow_all_starts_on: args.iter().any(|a| a == "--allow-all-starts-on"),
        }
    }
}

type Shared = Arc<State>;

/// Serves the test agent on the given byte streams until the client hangs up.
pub async fn serve<W, R>(outgoing: W, incoming: R) -> agent_client_protocol::Result<()>
where
    W: futures::AsyncWrite + Send + 'static,
    R: futures::AsyncRead + Send + 'static,
{
    let state: Shared = Arc::new(State {
        options: Options::from_args(),
        record: switches::Recorder::from_args(),
        ..State::default()
    });
    Agent
        .v1()
        .name("wta-test-agent")
        .on_receive_dispatch(
            async move |dispatch: Dispatch, cx| {
                let state = state.clone();
                match dispatch {
                    Dispatch::Request(msg, responder) => handle_request(&state, msg, responder, cx),
                    Dispatch::Notification(msg) => {
                        handle_notification(&state, &msg);
                        Ok(())
                    }
                    Dispatch::Response(result, router) => router.route_with_result(result),
                }
            },
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_to(ByteStreams::new(outgoing, incoming))
        .await
}

fn handle_request(
    state: &Shared,
    msg: UntypedMessage,
    responder: Responder<Value>,
    cx: ConnectionTo<Client>,
) -> agent_client_protocol::Result<()> {
    let params = msg.params;
    state
        .record
        .line(&format!("{} {}", msg.method, session_id(&params)));
    match msg.method.as_str() {
        "initialize" => responder.respond(json!({
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": switches::load_session(),
                "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
                "sessionCapabilities": {"close": {}}
            },
            "authMethods": [],
            "agentInfo": {"name": "wta-test-agent", "version": env!("CARGO_PKG_VERSION")}
        })),
        "session/new" => {
            let n = state.next.fetch_add(1, Ordering::Relaxed);
            let id = format!("test-{}-{n}", std::process::id());
            let starts_on = state.options.allow_all_starts_on && !state.options.no_allow_all;
            let session = Session {
                allow_all: if starts_on { "on" } else { "off" }.into(),
                mode: "agent".into(),
                ..Session::default()
            };
            let options = config_options(&session, state.options);
            lock(state).insert(id.clone(), session);
            state.history.started(&id);
            responder.respond(json!({"sessionId": id, "configOptions": options}))
        }
        "session/load" if switches::load_session() => {
            let id = session_id(&params);
            let Some(prompts) = state.history.replay(&id) else {
                return responder.respond_with_error(unknown_session(&id));
            };
            // Like real agents: the history comes back as updates, then the answer.
            for text in prompts {
                let update = json!({"sessionId": id, "update": {"sessionUpdate": "user_message_chunk",
                    "content": {"type": "text", "text": text}}});
                cx.send_notification(UntypedMessage::new("session/update", update)?)?;
            }
            let session = Session {
                allow_all: "off".into(),
                mode: "agent".into(),
                ..Session::default()
            };
            let options = config_options(&session, state.options);
            lock(state).insert(id, session);
            responder.respond(json!({"configOptions": options}))
        }
        "session/close" => {
            let id = session_id(&params);
            if let Some(s) = lock(state).remove(&id) {
                s.cancel.notify_waiters();
            }
            responder.respond(json!({}))
        }
        "session/set_config_option" => {
            let id = session_id(&params);
            let config = params
                .get("configId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let value = params
                .get("value")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let mut sessions = lock(state);
            let Some(session) = sessions.get_mut(&id) else {
                return responder.respond_with_error(unknown_session(&id));
            };
            let opts = state.options;
            match (config, value.as_str()) {
                ("allow_all", "off") if opts.refuse_allow_all_off => {
                    return responder.respond_with_error(
                        agent_client_protocol::Error::internal_error()
                            .data(json!("allow_all cannot be turned off right now")),
                    );
                }
                ("allow_all", "on" | "off") if !opts.no_allow_all => session.allow_all = value,
                ("mode", "agent" | "plan") => session.mode = value,
                _ => {
                    return responder.respond_with_error(
                        agent_client_protocol::Error::invalid_params()
                            .data(json!(format!("unknown config option {config}={value}"))),
                    );
                }
            }
            responder.respond(json!({"configOptions": config_options(session, opts)}))
        }
        "session/prompt" => {
            let id = session_id(&params);
            // A fresh Notify per turn: a cancel aimed at an earlier turn must not
            // leave a stored permit that cancels this one.
            let cancel = Arc::new(Notify::new());
            match lock(state).get_mut(&id) {
                Some(session) => session.cancel = cancel.clone(),
                None => return responder.respond_with_error(unknown_session(&id)),
            }
            let (text, context) = request_and_context(&params);
            state.history.prompted(&id, &text);
            if text.trim() == "state" {
                // This session's config as the agent holds it (what layer 1 set).
                let line = match lock(state).get(&id) {
                    Some(s) => format!("state: allow_all={} mode={}", s.allow_all, s.mode),
                    None => "state: unknown session".to_owned(),
                };
                let update = json!({"sessionId": id, "update": {"sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": line}}});
                cx.send_notification(UntypedMessage::new("session/update", update)?)?;
                return responder.respond(json!({"stopReason": "end_turn"}));
            }
            let script = script::parse(&text);
            cx.spawn({
                let cx = cx.clone();
                async move {
                    turn::run(cx, id, script, context, cancel, responder).await;
                    Ok(())
                }
            })
        }
        other => responder.respond_with_error(
            agent_client_protocol::Error::method_not_found().data(json!(other)),
        ),
    }
}

fn handle_notification(state: &Shared, msg: &UntypedMessage) {
    state
        .record
        .line(&format!("{} {}", msg.method, session_id(&msg.params)));
    if msg.method == "session/cancel" {
        let id = session_id(&msg.params);
        if let Some(s) = lock(state).get(&id) {
            s.cancel.notify_one();
        }
    }
}

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
    state
        .sessions
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn session_id(params: &Value) -> String {
    params
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn unknown_session(id: &str) -> agent_client_protocol::Error {
    agent_client_protocol::Error::invalid_params().data(json!(format!("unknown session {id}")))
}

/// Copilot-shaped config options: `mode` and `allow_all` (category
/// permissions), the latter left out with `--no-allow-all`.
fn config_options(session: &Session, options: Options) -> Value {
    let mut list = vec![json!(
        {"id": "mode", "name": "Mode", "type": "select", "currentValue": session.mode,
         "options": [{"value": "agent", "name": "Agent"}, {"value": "plan", "name": "Plan"}]})];
    if !options.no_allow_all {
        list.push(json!(
            {"id": "allow_all", "name": "Allow all", "category": "permissions",
             "description": "Automatically approve all tool, path, and URL requests",
             "type": "select", "currentValue": session.allow_all,
             "options": [{"value": "on", "name": "On"}, {"value": "off", "name": "Off"}]}));
    }
    Value::Array(list)
}

/// Path of the `wta-test-agent` binary, built on first use with the `cargo` that
/// runs the tests. Panics with cargo's output if the build fails.
pub fn agent_path() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = std::process::Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "-p",
                "wta-testkit",
                "--bin",
                "wta-test-agent",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output();
        match out {
            Ok(out) if out.status.success() => {}
            Ok(out) => panic!(
                "building wta-test-agent failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(err) => panic!("cannot run cargo to build wta-test-agent: {err}"),
        }
        target_dir().join("debug").join("wta-test-agent")
    })
    .clone()
}

fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    // crates/wta-testkit → workspace root
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target")
}
