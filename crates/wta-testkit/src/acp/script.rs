//! The scripted test agent's "model": prompt text → what to do this turn.
//!
//! Pure parsing only; `turn.rs` performs the steps. The first word picks the
//! behaviour; anything unrecognised is echoed back. `propose…` words act on
//! the context block WTA appends to the prompt (`propose.rs`).

/// One turn's behaviour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Script {
    /// `echo <text>` (and any unrecognised prompt): one chunk with the text.
    Echo(String),
    /// `stream <n> [tag]`: `n` chunks `"<tag>:<i>;"` for i in 0..n.
    Stream { count: u32, tag: String },
    /// `tool`: a tool call, pending → in_progress → completed with content.
    Tool,
    /// `plan`: a three-entry plan, then a chunk.
    Plan,
    /// `permission [kind...]`: ask with one option per kind (default allow_once reject_once).
    Permission(Vec<String>),
    /// `permission-call <json>`: ask permission for the tool call `{"title",
    /// "kind", "rawInput"}` (allow once / reject), `{server}` in its strings
    /// replaced by the name of the session's MCP server; the answer is said
    /// back like `permission`'s. How a test forges a call that mentions
    /// WTA's tools.
    PermissionCall(serde_json::Value),
    /// `terminal <command>`: run it through the client's `terminal/*`.
    Terminal(String),
    /// `terminal-ops <json>`: `{"create": {params}, "ops": ["wait", "output",
    /// "kill", "release", …], "sleep_ms": n}`: `terminal/create` with those
    /// params, then each op on its id in order; every answer is said back as
    /// a chunk `"<op>: <json>"` (or `"<op>: error <message>"`).
    TerminalOps(serde_json::Value),
    /// `run <command>`: run it ourselves (`sh -c`) and report a tool call.
    Run(String),
    /// `read <path>`: ask the client for the file (`fs/read_text_file`).
    ReadFile(String),
    /// `fail [code] [message]`: answer the prompt with a JSON-RPC error.
    Fail { code: i32, message: String },
    /// `stall`: never finish until the client cancels.
    Stall,
    /// `pid`: one chunk with this process's pid.
    Pid,
    /// `exit`: exit the process at once, mid-turn.
    Exit,
    /// `propose…`: propose terminal actions through the WTA CLI (see [`Proposal`]).
    Propose(Proposal),
    /// `mcp <tool> [json-args]`: call a tool of the session's MCP server.
    Mcp {
        tool: String,
        args: serde_json::Value,
    },
    /// `mcp-servers`: say the names of the MCP servers the session was given.
    McpServers,
    /// `context <json-pointer>`: say that value of the turn's Terminal
    /// Context JSON (`context.rs`).
    Context(String),
    /// `propose-chain <cmd> ;; <cmd> ;; …`: one `send` proposal after the
    /// other in the same turn, each on the `next` channel the previous
    /// exchange ended with.
    Chain(Vec<String>),
}

/// A terminal-action proposal, as an LLM would make one with WTA's prompt
/// context: the payload, and how the command is asked for and run.
///
/// Words: `propose[-<how>] <json-payload>`, `propose-run[-<how>] <command>`
/// (one `send` action), `propose-open[-<how>] tab|panel [cwd]` (one `open`
/// action); `<how>` is `codex`, `terminal`, `unarmed` or `piped` (default:
/// claude).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// The payload JSON exactly as the agent writes it (compact).
    pub payload: String,
    pub how: Asking,
}

/// How the agent asks for and runs the proposal command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asking {
    /// claude-shaped permission request (`rawInput.command` string), then `sh -c`.
    Claude,
    /// claude-code-acp's way: its permission request, then the command run
    /// through the client's `terminal/create` (a pane, for WTA), read back
    /// with `terminal/wait_for_exit` and `terminal/output`.
    Terminal,
    /// codex-shaped (`rawInput.command` = `["/bin/bash","-lc",cmd]`), then that argv.
    Codex,
    /// No permission request (opencode's default, yolo sessions): just `sh -c`.
    Unarmed,
    /// claude-shaped, but the command is piped through `cat` (not canonical).
    Piped,
}

const DEFAULT_FAIL_CODE: i32 = -32603;

/// Parses a prompt's text.
pub fn parse(text: &str) -> Script {
    let text = text.trim();
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let rest = rest.trim();
    match word {
        "echo" => Script::Echo(rest.to_owned()),
        "stream" => {
            let (n, tag) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            match n.parse() {
                Ok(count) => Script::Stream {
                    count,
                    tag: if tag.trim().is_empty() {
                        "chunk".to_owned()
                    } else {
                        tag.trim().to_owned()
                    },
                },
                Err(_) => Script::Echo(text.to_owned()),
            }
        }
        "tool" => Script::Tool,
        "plan" => Script::Plan,
        "permission" => {
            let kinds: Vec<String> = rest.split_whitespace().map(str::to_owned).collect();
            if kinds.is_empty() {
                Script::Permission(vec!["allow_once".to_owned(), "reject_once".to_owned()])
            } else {
                Script::Permission(kinds)
            }
        }
        "permission-call" => match serde_json::from_str(rest) {
            Ok(call) => Script::PermissionCall(call),
            Err(_) => Script::Echo(text.to_owned()),
        },
        "terminal" if !rest.is_empty() => Script::Terminal(rest.to_owned()),
        "terminal-ops" => match serde_json::from_str(rest) {
            Ok(spec) => Script::TerminalOps(spec),
            Err(_) => Script::Echo(text.to_owned()),
        },
        "run" if !rest.is_empty() => Script::Run(rest.to_owned()),
        "mcp-servers" => Script::McpServers,
        "context" if rest.starts_with('/') => Script::Context(rest.to_owned()),
        "propose-chain" if !rest.is_empty() => Script::Chain(
            rest.split(";;")
                .map(|c| c.trim().to_owned())
                .filter(|c| !c.is_empty())
                .collect(),
        ),
        "mcp" if !rest.is_empty() => {
            let (tool, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, "{}"));
            match serde_json::from_str(args.trim()) {
                Ok(args) => Script::Mcp {
                    tool: tool.to_owned(),
                    args,
                },
                Err(_) => Script::Echo(text.to_owned()),
            }
        }
        "read" if !rest.is_empty() => Script::ReadFile(rest.to_owned()),
        "fail" => {
            let (first, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            match first.parse::<i32>() {
                Ok(code) => Script::Fail {
                    code,
                    message: non_empty(after, "scripted failure"),
                },
                Err(_) => Script::Fail {
                    code: DEFAULT_FAIL_CODE,
                    message: non_empty(rest, "scripted failure"),
                },
            }
        }
        "stall" => Script::Stall,
        "pid" => Script::Pid,
        "exit" => Script::Exit,
        _ if word.starts_with("propose") => match proposal(word, rest) {
            Some(p) => Script::Propose(p),
            None => Script::Echo(text.to_owned()),
        },
        _ => Script::Echo(text.to_owned()),
    }
}

/// `propose[-run|-open][-codex|-terminal|-unarmed|-piped] <rest>`.
fn proposal(word: &str, rest: &str) -> Option<Proposal> {
    let mut parts = word.split('-');
    if parts.next() != Some("propose") {
        return None;
    }
    let mut kind = "payload";
    let mut how = Asking::Claude;
    for part in parts {
        match part {
            "run" | "open" if kind == "payload" => kind = part,
            "codex" => how = Asking::Codex,
            "terminal" => how = Asking::Terminal,
            "unarmed" => how = Asking::Unarmed,
            "piped" => how = Asking::Piped,
            _ => return None,
        }
    }
    if rest.is_empty() {
        return None;
    }
    let payload = match kind {
        "run" => run_payload(rest),
        "open" => {
            let (target, cwd) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if !matches!(target, "tab" | "panel") {
                return None;
            }
            let mut action =
                serde_json::json!({"type": "open", "target": target, "title": "scripted"});
            if !cwd.trim().is_empty() {
                action["cwd"] = cwd.trim().into();
            }
            one_action(action, &format!("Open a {target}"))
        }
        _ => rest.to_owned(),
    };
    Some(Proposal { payload, how })
}

/// The script of an autofix turn, so a test decides what the "model" does
/// with the failure: the user's hint (`The user adds: …` after WTA's
/// auto-fix instructions), else the comment of the failed command line
/// (`false # propose-run echo hi`), for fix turns nobody typed a hint for.
pub fn fix_script(text: &str, context: &str) -> Option<String> {
    if let Some((_, hint)) = text.rsplit_once("\nThe user adds: ") {
        return Some(hint.trim().to_owned());
    }
    let turn = wta_agent::demo::fix::recognise(text, context)?;
    let cmdline = turn.failed?.cmdline?;
    let (_, comment) = cmdline.split_once(" # ")?;
    Some(comment.trim().to_owned())
}

/// A compact v1 payload with one choice holding `action`.
/// A one-`send` payload for `command` (what `propose-run` proposes).
pub fn run_payload(command: &str) -> String {
    one_action(
        serde_json::json!({"type": "send", "input": command}),
        command,
    )
}

fn one_action(action: serde_json::Value, title: &str) -> String {
    serde_json::json!({
        "schema_version": 1, "origin": "terminal_agent", "recommended_choice": 1,
        "choices": [{"choice": 1, "title": title, "rationale": "scripted by the test agent",
                     "actions": [action]}]
    })
    .to_string()
}

fn non_empty(text: &str, default: &str) -> String {
    if text.trim().is_empty() {
        default.to_owned()
    } else {
        text.trim().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mcp_calls() {
        assert_eq!(
            parse(r#"mcp request_user_input {"question":"q?","allow_freeform":true}"#),
            Script::Mcp {
                tool: "request_user_input".into(),
                args: serde_json::json!({"question": "q?", "allow_freeform": true}),
            }
        );
        assert_eq!(
            parse("mcp get_proposal_result"),
            Script::Mcp {
                tool: "get_proposal_result".into(),
                args: serde_json::json!({}),
            }
        );
        assert_eq!(
            parse("mcp x {not json"),
            Script::Echo("mcp x {not json".into())
        );
        assert_eq!(parse("mcp-servers"), Script::McpServers);
    }

    #[test]
    fn parses_each_behaviour() {
        assert_eq!(parse("echo hi there"), Script::Echo("hi there".into()));
        assert_eq!(parse("hello"), Script::Echo("hello".into()));
        assert_eq!(
            parse("stream 5 a1"),
            Script::Stream {
                count: 5,
                tag: "a1".into()
            }
        );
        assert_eq!(
            parse("stream 3"),
            Script::Stream {
                count: 3,
                tag: "chunk".into()
            }
        );
        assert_eq!(parse("stream x"), Script::Echo("stream x".into()));
        assert_eq!(parse("tool"), Script::Tool);
        assert_eq!(parse("plan"), Script::Plan);
        assert_eq!(
            parse("permission allow_always reject_once"),
            Script::Permission(vec!["allow_always".into(), "reject_once".into()])
        );
        assert_eq!(
            parse("permission").clone(),
            Script::Permission(vec!["allow_once".into(), "reject_once".into()])
        );
        assert_eq!(
            parse("terminal echo hi"),
            Script::Terminal("echo hi".into())
        );
        assert_eq!(parse("run ls -l"), Script::Run("ls -l".into()));
        assert_eq!(parse("read /tmp/x"), Script::ReadFile("/tmp/x".into()));
        assert_eq!(parse("read"), Script::Echo("read".into()));
        assert_eq!(
            parse("fail -32000 need auth"),
            Script::Fail {
                code: -32000,
                message: "need auth".into()
            }
        );
        assert_eq!(
            parse("fail"),
            Script::Fail {
                code: -32603,
                message: "scripted failure".into()
            }
        );
        assert_eq!(parse("stall"), Script::Stall);
        assert_eq!(parse("pid"), Script::Pid);
        assert_eq!(parse("exit"), Script::Exit);
    }

    #[test]
    fn parses_proposals() {
        let Script::Propose(p) = parse("propose-run echo 'hi'") else {
            panic!("not a proposal");
        };
        assert_eq!(p.how, Asking::Claude);
        let v: serde_json::Value = serde_json::from_str(&p.payload).unwrap();
        assert_eq!(v["choices"][0]["actions"][0]["input"], "echo 'hi'");
        let Script::Propose(p) = parse("propose-open-codex panel /tmp/x y") else {
            panic!("not a proposal");
        };
        assert_eq!(p.how, Asking::Codex);
        let v: serde_json::Value = serde_json::from_str(&p.payload).unwrap();
        assert_eq!(v["choices"][0]["actions"][0]["target"], "panel");
        assert_eq!(v["choices"][0]["actions"][0]["cwd"], "/tmp/x y");
        assert_eq!(
            parse(r#"propose-unarmed {"a":1}"#),
            Script::Propose(Proposal {
                payload: r#"{"a":1}"#.into(),
                how: Asking::Unarmed
            })
        );
        assert!(matches!(
            parse("propose-run-piped ls"),
            Script::Propose(Proposal {
                how: Asking::Piped,
                ..
            })
        ));
        assert_eq!(
            parse("propose-open window"),
            Script::Echo("propose-open window".into())
        );
        assert_eq!(
            parse("propose-bogus x"),
            Script::Echo("propose-bogus x".into())
        );
        assert_eq!(parse("propose"), Script::Echo("propose".into()));
    }
}
