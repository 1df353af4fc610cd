//! The built-in offline demo agent (`wta --demo-agent`, agent id `demo`).
//!
//! It says plainly that it is a demo. Deterministic replies: a markdown echo,
//! a plan (`plan`), a permission request (`permission`), and help otherwise.
//! `run <command>` proposes that command through WTA's terminal-action path
//! (`run A, then B`: B on the turn's next channel once A's exchange is done)
//! exactly as a real agent would and reports the result. A fix turn (WTA's
//! autofix asking about a failed command) gets the failure explained, and a
//! command not found gets its spelling corrected as one `send`.
//! What is the demo's own is here: its words, its fixed script and its
//! report; the ACP side is the shared core in [`crate::scripted`].
//!
//! - `mod.rs`: choosing the reply and the turn's steps.
//! - `propose.rs`: proposing a command through the proposal CLI and
//!   reporting what it printed.
//! - [`fix`]: recognising and answering fix turns (pure).

pub mod fix;
mod propose;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{PlanEntry, PlanEntryPriority, PlanEntryStatus, ToolKind};
use serde_json::{Map, Value, json};

use crate::scripted::{
    Permission, PermissionAnswer, PermissionOption, Prompt, ScriptedAgent, Sessions, Step, ToolCall,
};

use fix::{FixReply, FixTurn};
pub use propose::{payload_for, report};

const INTRO: &str = "**This is the WTA demo agent.** It runs offline and does not use a model: \
it only shows what an agent pane can do.\n\n";

/// What the demo does for one prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoReply {
    Plan,
    Permission,
    /// `run <command>`: propose the command through WTA's proposal path.
    Propose(String),
    Echo(String),
    /// A fix turn: explain the failure, or correct a command not found.
    Fix(FixTurn),
}

/// Pure choice of the reply from the prompt's text and WTA's context: a
/// fix turn first, else by the text.
pub fn reply(text: &str, context: &str) -> DemoReply {
    fix::recognise(text, context).map_or_else(|| choose(text), DemoReply::Fix)
}

/// Pure choice of the reply from the prompt text.
pub fn choose(text: &str) -> DemoReply {
    let text = text.trim();
    let lower = text.to_lowercase();
    let run = text
        .split_once(char::is_whitespace)
        .filter(|(word, _)| word.eq_ignore_ascii_case("run"))
        .map(|(_, command)| command.trim())
        .filter(|command| !command.is_empty());
    if let Some(command) = run {
        DemoReply::Propose(command.to_owned())
    } else if lower.starts_with("plan") {
        DemoReply::Plan
    } else if lower.starts_with("permission") {
        DemoReply::Permission
    } else {
        DemoReply::Echo(text.trim().to_owned())
    }
}

/// Serves the demo agent until the client hangs up.
pub async fn serve<W, R>(outgoing: W, incoming: R) -> Result<(), Error>
where
    W: futures::AsyncWrite + Send + 'static,
    R: futures::AsyncRead + Send + 'static,
{
    let cli_path = std::env::var_os("WTA_CLI_PATH").is_some_and(|v| !v.is_empty());
    crate::scripted::serve(Demo { cli_path }, outgoing, incoming).await
}

/// [`serve`] as if started by WTA's master (`WTA_CLI_PATH` set), whatever
/// this process's environment: for in-process tests.
#[cfg(test)]
pub(crate) async fn serve_under_wta<W, R>(outgoing: W, incoming: R) -> Result<(), Error>
where
    W: futures::AsyncWrite + Send + 'static,
    R: futures::AsyncRead + Send + 'static,
{
    crate::scripted::serve(Demo { cli_path: true }, outgoing, incoming).await
}

/// The demo as a scripted agent: no session state, any session id welcome.
/// `cli_path`: whether it was started with `WTA_CLI_PATH` (the master sets
/// it); without it a proposal could not run, and the demo says so.
struct Demo {
    cli_path: bool,
}

impl ScriptedAgent for Demo {
    type Session = ();
    const NAME: &'static str = "wta-demo-agent";
    const SESSION_PREFIX: &'static str = "demo";

    fn initialize(&self) -> Value {
        json!({
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": false},
            "authMethods": [],
            "agentInfo": {"name": "wta-demo", "title": "WTA demo agent (offline)", "version": env!("CARGO_PKG_VERSION")}
        })
    }

    fn open_session(&self, _id: &str) -> ((), Map<String, Value>) {
        ((), Map::new())
    }

    fn prompt(&self, prompt: &Prompt, _sessions: &Sessions<()>) -> Result<Vec<Step>, Error> {
        let reply = reply(&prompt.text, &prompt.context);
        let proposes = match &reply {
            DemoReply::Propose(_) => true,
            DemoReply::Fix(turn) => matches!(fix::decide(turn), FixReply::Correct(_)),
            _ => false,
        };
        if proposes && !self.cli_path {
            // Like any agent, the demo runs the invocation as given: without
            // the variable it would run `""`. It says so instead of papering
            // over it.
            return Ok(vec![
                Step::say(INTRO),
                Step::say(propose::missing_cli_path()),
            ]);
        }
        Ok(steps(reply, &prompt.context))
    }
}

/// The demo's turn for `reply`; `context` is the block WTA appended to the
/// prompt (where proposals find their channel).
pub fn steps(reply: DemoReply, context: &str) -> Vec<Step> {
    let mut steps = vec![Step::say(INTRO)];
    match reply {
        DemoReply::Echo(text) => {
            let body = if text.is_empty() {
                "(empty prompt)".to_owned()
            } else {
                text
            };
            steps.push(Step::say(format!(
                "You said:\n\n> {body}\n\nTry `plan`, `permission`, `run <command>` or `run <command>, then <command>`.\n"
            )));
        }
        DemoReply::Plan => {
            steps.push(Step::Plan(vec![
                PlanEntry::new(
                    "Read the failing test output",
                    PlanEntryPriority::High,
                    PlanEntryStatus::Completed,
                ),
                PlanEntry::new(
                    "Propose a fix",
                    PlanEntryPriority::Medium,
                    PlanEntryStatus::InProgress,
                ),
                PlanEntry::new(
                    "Re-run the tests",
                    PlanEntryPriority::Low,
                    PlanEntryStatus::Pending,
                ),
            ]));
            steps.push(Step::say("Here is a **plan** (a demo; nothing is run).\n"));
        }
        DemoReply::Permission => {
            let permission = allow_or_reject(ToolCall::new(
                "demo-1",
                "echo hello from the demo",
                ToolKind::Execute,
            ));
            steps.push(Step::ask(permission.clone(), move |answer| {
                let text = match answer {
                    Err(err) => return vec![Step::Fail(err)],
                    Ok(answer) if answer.allows(&permission) => {
                        "You allowed it. (The demo does not run anything.)\n"
                    }
                    Ok(PermissionAnswer::Selected(_)) => "You rejected it.\n",
                    Ok(PermissionAnswer::Cancelled) => "The request was cancelled.\n",
                };
                vec![Step::say(text)]
            }));
        }
        DemoReply::Propose(command) => {
            // `run A, then B`: B is proposed once A's exchange is complete.
            let mut commands: Vec<String> = command
                .split(", then ")
                .map(|c| c.trim().to_owned())
                .filter(|c| !c.is_empty())
                .collect();
            let first = if commands.is_empty() {
                command
            } else {
                commands.remove(0)
            };
            let payload = payload_for(&first);
            steps.extend(propose::propose_chain(context, first, &payload, commands));
        }
        DemoReply::Fix(turn) => match fix::decide(&turn) {
            FixReply::Correct(fix) => {
                steps.push(Step::say(fix.diagnosis(turn.hint.as_deref())));
                let payload = fix.payload_json();
                steps.extend(propose::propose(context, fix.command, &payload));
            }
            FixReply::Explain(text) => steps.push(Step::say(text)),
        },
    }
    steps
}

/// A permission request for `call` with Allow and Reject.
pub(crate) fn allow_or_reject(call: ToolCall) -> Permission {
    Permission {
        call,
        options: vec![
            PermissionOption::new("allow", "Allow", "allow_once"),
            PermissionOption::new("reject", "Reject", "reject_once"),
        ],
    }
}

#[cfg(test)]
mod fix_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;
