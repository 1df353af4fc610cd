//! The test agent as an MCP client of the HTTP servers its client gives in
//! `session/new|load` (WTA's session endpoint), the way claude-code-acp
//! uses them: the tool call is shown as `mcp__<server>__<tool>`, permission
//! is asked, then the tool is called with the official `rmcp` client (in a
//! child process: `wta-test-agent --mcp-call URL BEARER TOOL ARGS`) and its
//! result said back as `mcp <tool>: <result JSON>`.

use std::collections::HashMap;
use std::sync::Mutex;

use agent_client_protocol::v1::schema::{ToolCallStatus, ToolKind};
use serde_json::{Value, json};
use wta_agent::scripted::{
    Command, Permission, PermissionAnswer, PermissionOption, Step, ToolCall, ToolUpdate,
};

const CALL_ID: &str = "mcp-1";

/// One HTTP MCP server a session was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    pub name: String,
    pub url: String,
    /// The `Authorization` header's token.
    pub bearer: Option<String>,
}

impl McpServer {
    /// The HTTP servers of a `session/new|load`'s `mcpServers`.
    pub fn all_in(params: &Value) -> Vec<Self> {
        let servers = params.get("mcpServers").and_then(Value::as_array);
        servers
            .into_iter()
            .flatten()
            .filter(|s| s.get("type").and_then(Value::as_str) == Some("http"))
            .filter_map(|s| {
                let bearer = s
                    .get("headers")?
                    .as_array()?
                    .iter()
                    .filter(|h| h.get("name").and_then(Value::as_str) == Some("Authorization"))
                    .find_map(|h| h.get("value")?.as_str()?.strip_prefix("Bearer "))
                    .map(str::to_owned);
                Some(Self {
                    name: s.get("name")?.as_str()?.to_owned(),
                    url: s.get("url")?.as_str()?.to_owned(),
                    bearer,
                })
            })
            .collect()
    }
}

/// The servers of each session: those of a `session/new` are held until
/// its session id is known.
#[derive(Debug, Default)]
pub struct Servers {
    by_session: Mutex<HashMap<String, Vec<McpServer>>>,
    opening: Mutex<Vec<McpServer>>,
}

impl Servers {
    /// `session/new` (`id` unknown yet) or `session/load` (`id` given).
    pub fn offered(&self, params: &Value, id: Option<&str>) {
        let servers = McpServer::all_in(params);
        match id {
            Some(id) => {
                lock(&self.by_session).insert(id.to_owned(), servers);
            }
            None => *lock(&self.opening) = servers,
        }
    }

    /// Session `id` was opened with the servers last offered.
    pub fn opened(&self, id: &str) {
        let servers = std::mem::take(&mut *lock(&self.opening));
        lock(&self.by_session).insert(id.to_owned(), servers);
    }

    pub fn of(&self, id: &str) -> Vec<McpServer> {
        lock(&self.by_session).get(id).cloned().unwrap_or_default()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `mcp-servers`: what the session was given, bearer included (a test
/// reads it to call the endpoint itself), as one JSON line.
pub fn list(servers: &[McpServer]) -> Vec<Step> {
    let all: Vec<Value> = servers
        .iter()
        .map(|s| json!({"name": s.name, "url": s.url, "bearer": s.bearer}))
        .collect();
    vec![Step::say(format!("mcp servers: {}", Value::Array(all)))]
}

/// `mcp <tool> <args>`: ask permission, then call `tool` on the session's
/// first server.
pub fn steps(servers: &[McpServer], tool: String, args: Value) -> Vec<Step> {
    let Some(server) = servers.first().cloned() else {
        return vec![Step::say("mcp: this session was given no MCP server")];
    };
    let title = format!("mcp__{}__{tool}", server.name);
    let call = ToolCall::new(CALL_ID, title, ToolKind::Other)
        .status(ToolCallStatus::Pending)
        .raw_input(args.clone());
    let ask = Permission {
        call: call.clone(),
        options: vec![
            PermissionOption::new("allow", "Allow", "allow_once"),
            PermissionOption::new("reject", "Reject", "reject_once"),
        ],
    };
    vec![
        Step::ToolCall(call),
        Step::ask(ask.clone(), move |answer| match answer {
            Ok(answer) if answer.allows(&ask) => calling(&server, tool, &args),
            Ok(PermissionAnswer::Selected(id)) => refused(&id),
            Ok(PermissionAnswer::Cancelled) => refused("cancelled"),
            Err(err) => refused(&err.message),
        }),
    ]
}

/// `permission-call <json>`: a permission request for the tool call the
/// test wrote, with `{server}` standing for the session's server name.
pub fn forged_permission(servers: &[McpServer], call: &Value) -> Vec<Step> {
    let name = servers.first().map(|s| s.name.clone()).unwrap_or_default();
    let text = |key: &str| {
        call.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .replace("{server}", &name)
    };
    let kind = match text("kind").as_str() {
        "execute" => ToolKind::Execute,
        "edit" => ToolKind::Edit,
        "delete" => ToolKind::Delete,
        "read" => ToolKind::Read,
        _ => ToolKind::Other,
    };
    let raw_input = call
        .get("rawInput")
        .map(|raw| serde_json::from_str(&raw.to_string().replace("{server}", &name)))
        .and_then(Result::ok);
    let mut tool_call = ToolCall::new("forged-1", text("title"), kind);
    if let Some(raw) = raw_input {
        tool_call = tool_call.raw_input(raw);
    }
    let ask = Permission {
        call: tool_call,
        options: vec![
            PermissionOption::new("allow", "Allow", "allow_once"),
            PermissionOption::new("reject", "Reject", "reject_once"),
        ],
    };
    vec![Step::ask(ask, |answer| {
        vec![Step::say(match answer {
            Ok(PermissionAnswer::Selected(id)) => format!("permission: selected {id}"),
            Ok(PermissionAnswer::Cancelled) => "permission: cancelled".to_owned(),
            Err(err) => format!("permission: error {}", err.message),
        })]
    })]
}

fn refused(why: &str) -> Vec<Step> {
    vec![
        Step::ToolUpdate(ToolUpdate::new(CALL_ID, ToolCallStatus::Failed)),
        Step::say(format!("mcp: permission not granted ({why})")),
    ]
}

fn calling(server: &McpServer, tool: String, args: &Value) -> Vec<Step> {
    let exe = std::env::current_exe()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "wta-test-agent".to_owned());
    let command = Command::new(vec![
        exe,
        "--mcp-call".into(),
        server.url.clone(),
        server.bearer.clone().unwrap_or_default(),
        tool.clone(),
        args.to_string(),
    ]);
    vec![
        Step::ToolUpdate(ToolUpdate::new(CALL_ID, ToolCallStatus::InProgress)),
        Step::run(command, move |ran| {
            let said = match ran.exit {
                Some(0) => ran.stdout.trim().to_owned(),
                _ => format!("error {}", ran.stderr.trim()),
            };
            vec![
                Step::ToolUpdate(ToolUpdate::new(CALL_ID, ran.tool_status())),
                Step::say(format!("mcp {tool}: {said}")),
            ]
        }),
    ]
}

/// `--mcp-call URL BEARER TOOL ARGS`: one `tools/call` with the rmcp
/// client; the result as JSON on stdout.
pub async fn call(url: &str, bearer: &str, tool: &str, args: &str) -> Result<Value, String> {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let args: Value = serde_json::from_str(args).map_err(|e| format!("arguments: {e}"))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    if !bearer.is_empty() {
        config = config.auth_header(bearer.to_owned());
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = ().serve(transport).await.map_err(|e| format!("connect: {e}"))?;
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(args) = args {
        params = params.with_arguments(args);
    }
    let result = client
        .call_tool(params)
        .await
        .map_err(|e| format!("call: {e}"));
    let _ = client.cancel().await;
    serde_json::to_value(result?).map_err(|e| e.to_string())
}
