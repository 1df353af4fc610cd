//! The scripted ACP test agent: stands in for an LLM's decisions, nothing else.
//!
//! Built on the shared scripted-agent core ([`wta_agent::scripted`]), which
//! sends the wire shapes real agents send. What is the test agent's own is
//! here and beside it: its script language ([`script::parse`], `turn.rs`
//! turning a script into steps, [`propose`]), the Copilot-shaped `mode` and
//! `allow_all` config options with their argv switches, `state`, and the
//! process switches in [`switches`]. [`agent_path`] builds and finds the
//! `wta-test-agent` binary for black-box tests.

pub mod chain;
pub mod context;
pub mod mcp;
pub mod propose;
pub mod script;
pub mod switches;
mod turn;
#[cfg(test)]
mod wire_tests;

use std::path::PathBuf;
use std::sync::OnceLock;

use agent_client_protocol::Error;
use serde_json::{Map, Value, json};
use wta_agent::scripted::{Peer, Prompt, ScriptedAgent, Sessions, Step, Update, session_id};

/// The test agent's own state of a session: its config options.
#[derive(Debug)]
struct Config {
    allow_all: String,
    mode: String,
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

/// Serves the test agent on the given byte streams until the client hangs up.
pub async fn serve<W, R>(outgoing: W, incoming: R) -> agent_client_protocol::Result<()>
where
    W: futures::AsyncWrite + Send + 'static,
    R: futures::AsyncRead + Send + 'static,
{
    let agent = TestAgent {
        options: Options::from_args(),
        record: switches::Recorder::from_args(),
        history: switches::History::default(),
        mcp: mcp::Servers::default(),
    };
    wta_agent::scripted::serve(agent, outgoing, incoming).await
}

struct TestAgent {
    options: Options,
    record: switches::Recorder,
    history: switches::History,
    /// The MCP servers each session was given.
    mcp: mcp::Servers,
}

impl ScriptedAgent for TestAgent {
    type Session = Config;
    const NAME: &'static str = "wta-test-agent";
    const SESSION_PREFIX: &'static str = "test";

    fn initialize(&self) -> Value {
        json!({
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": switches::load_session(),
                "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
                "sessionCapabilities": {"close": {}},
                "mcpCapabilities": {"http": true, "sse": false}
            },
            "authMethods": [],
            "agentInfo": {"name": "wta-test-agent", "version": env!("CARGO_PKG_VERSION")}
        })
    }

    fn open_session(&self, id: &str) -> (Config, Map<String, Value>) {
        let starts_on = self.options.allow_all_starts_on && !self.options.no_allow_all;
        let config = Config {
            allow_all: if starts_on { "on" } else { "off" }.into(),
            mode: "agent".into(),
        };
        self.history.started(id);
        self.mcp.opened(id);
        let answer = self.answer(&config);
        (config, answer)
    }

    fn prompt(&self, prompt: &Prompt, sessions: &Sessions<Config>) -> Result<Vec<Step>, Error> {
        if !prompt.known {
            return Err(unknown_session(&prompt.session));
        }
        self.history.prompted(&prompt.session, &prompt.text);
        if prompt.text.trim() == "state" {
            // This session's config as the agent holds it (what layer 1 set).
            let line = sessions
                .with(&prompt.session, |c| {
                    format!("state: allow_all={} mode={}", c.allow_all, c.mode)
                })
                .unwrap_or_else(|| "state: unknown session".to_owned());
            return Ok(vec![Step::Say(line)]);
        }
        let script = script::fix_script(&prompt.text, &prompt.context);
        let script = script.as_deref().unwrap_or(&prompt.text);
        let servers = self.mcp.of(&prompt.session);
        Ok(turn::steps(script::parse(script), prompt, &servers))
    }

    fn request(
        &self,
        method: &str,
        params: &Value,
        peer: &Peer,
        sessions: &Sessions<Config>,
    ) -> Option<Result<Value, Error>> {
        match method {
            "session/load" if switches::load_session() => Some(self.load(params, peer, sessions)),
            "session/close" => {
                sessions.close(&session_id(params));
                Some(Ok(json!({})))
            }
            "session/set_config_option" => Some(self.set_config(params, sessions)),
            _ => None,
        }
    }

    fn received(&self, method: &str, params: &Value) {
        match method {
            "session/new" => self.mcp.offered(params, None),
            "session/load" => self.mcp.offered(params, Some(&session_id(params))),
            _ => {}
        }
        self.record
            .line(&format!("{method} {}", session_id(params)));
    }
}

impl TestAgent {
    /// `session/load`: like real agents, the history comes back as updates,
    /// then the answer.
    fn load(
        &self,
        params: &Value,
        peer: &Peer,
        sessions: &Sessions<Config>,
    ) -> Result<Value, Error> {
        let id = session_id(params);
        let Some(prompts) = self.history.replay(&id) else {
            return Err(unknown_session(&id));
        };
        for text in prompts {
            peer.notify(&id, &Update::UserText(text))?;
        }
        let config = Config {
            allow_all: "off".into(),
            mode: "agent".into(),
        };
        let answer = self.answer(&config);
        sessions.insert(id, config);
        Ok(Value::Object(answer))
    }

    fn set_config(&self, params: &Value, sessions: &Sessions<Config>) -> Result<Value, Error> {
        let id = session_id(params);
        let config = params
            .get("configId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let value = params
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let opts = self.options;
        let set = |session: &mut Config| {
            match (config, value.as_str()) {
                ("allow_all", "off") if opts.refuse_allow_all_off => {
                    return Err(Error::internal_error()
                        .data(json!("allow_all cannot be turned off right now")));
                }
                ("allow_all", "on" | "off") if !opts.no_allow_all => {
                    session.allow_all.clone_from(&value);
                }
                ("mode", "agent" | "plan") => session.mode.clone_from(&value),
                _ => {
                    return Err(Error::invalid_params()
                        .data(json!(format!("unknown config option {config}={value}"))));
                }
            }
            Ok(Value::Object(self.answer(session)))
        };
        sessions
            .with(&id, set)
            .unwrap_or_else(|| Err(unknown_session(&id)))
    }

    /// `{"configOptions": …}` for `config`.
    fn answer(&self, config: &Config) -> Map<String, Value> {
        let mut answer = Map::new();
        answer.insert("configOptions".into(), config_options(config, self.options));
        answer
    }
}

fn unknown_session(id: &str) -> Error {
    Error::invalid_params().data(json!(format!("unknown session {id}")))
}

/// Copilot-shaped config options: `mode` and `allow_all` (category
/// permissions), the latter left out with `--no-allow-all`.
fn config_options(session: &Config, options: Options) -> Value {
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
