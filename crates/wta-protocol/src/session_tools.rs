//! The session MCP endpoint's tools as data (DESIGN §4.5), shared by the
//! master, which serves them over HTTP, and the helper, which runs them:
//! the tools' arguments and their rules, the `_wta/*` requests the master
//! forwards to the session's helper, and what comes back.
//!
//! The three terminal tools become one-choice schema-v1 proposals
//! ([`SessionTool::into_proposal`]) that go through the same validation,
//! policy, card and executor as the proposal CLI; where they land (the
//! pane, the origin) comes from the helper's live turn, never from the
//! arguments.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::ProposalId;
use crate::error::ProtocolError;
use crate::limits::{MAX_INPUT_CHARS, MAX_RATIONALE_CHARS, MAX_TITLE_CHARS, SCHEMA_VERSION};
use crate::lines::{ExecutionLine, FinalLine, ValidationLine};
use crate::payload::{Action, Choice, Direction, OpenTarget, Origin, ProposalPayload};
use crate::payload_rules::check_field;

/// `_wta/session_tool` (master → helper request): run a terminal tool for a
/// session; the answer is a [`ProposalReport`].
pub const METHOD_SESSION_TOOL: &str = "_wta/session_tool";
/// `_wta/proposal_result` (master → helper request): what became of a
/// proposal a terminal tool left pending; answered with a [`ProposalReport`].
pub const METHOD_PROPOSAL_RESULT: &str = "_wta/proposal_result";
/// `_wta/user_input` (master → helper request): ask the user; answered
/// with a [`UserInputOutcome`].
pub const METHOD_USER_INPUT: &str = "_wta/user_input";
/// `_wta/user_input_gone` (master → helper notification): the caller of a
/// `request_user_input` went away; remove its question.
pub const METHOD_USER_INPUT_GONE: &str = "_wta/user_input_gone";

/// Tool names, as `tools/list` advertises them.
pub const TOOL_RUN_COMMAND: &str = "run_command_in_current_shell";
pub const TOOL_CREATE_WORKSPACE: &str = "create_workspace";
pub const TOOL_DELEGATE_TASK: &str = "delegate_task_in_new_workspace";
pub const TOOL_PROPOSAL_RESULT: &str = "get_proposal_result";
pub const TOOL_USER_INPUT: &str = "request_user_input";

/// Every tool, as advertised.
pub const TOOLS: [&str; 5] = [
    TOOL_RUN_COMMAND,
    TOOL_CREATE_WORKSPACE,
    TOOL_DELEGATE_TASK,
    TOOL_PROPOSAL_RESULT,
    TOOL_USER_INPUT,
];

/// Prefix of a session's public MCP server name (`wta_` + 20 hex digits).
pub const SERVER_NAME_PREFIX: &str = "wta_";

/// Whether `s` holds a session server name (`wta_` and 20 hex digits, not
/// inside a longer word or number).
pub fn names_session_server(s: &str) -> bool {
    let bytes = s.as_bytes();
    s.match_indices(SERVER_NAME_PREFIX).any(|(at, _)| {
        let hex = &bytes[at + SERVER_NAME_PREFIX.len()..];
        let starts_word = at == 0 || !bytes[at - 1].is_ascii_alphanumeric();
        starts_word
            && hex.len() >= 20
            && hex[..20].iter().all(u8::is_ascii_hexdigit)
            && hex.get(20).is_none_or(|b| !b.is_ascii_hexdigit())
    })
}

/// The tool a string names (`mcp__wta_<hex>__run_command_in_current_shell`,
/// `wta_<hex>-create_workspace`, …): a session server name and a tool.
pub fn session_tool_in(s: &str) -> Option<&'static str> {
    names_session_server(s)
        .then(|| TOOLS.iter().copied().find(|tool| s.contains(tool)))
        .flatten()
}

/// How long a terminal tool waits for the user and the command by default:
/// below the 60 s many MCP clients allow a call.
pub const DEFAULT_WAIT_SECS: u64 = 45;
/// The longest `wait_secs` a call may ask for.
pub const MAX_WAIT_SECS: u64 = 300;
/// How long a question waits for the user.
pub const USER_INPUT_TIMEOUT: Duration = Duration::from_secs(600);
pub const MAX_QUESTION_CHARS: usize = 2000;
pub const MAX_INPUT_CHOICES: usize = 8;
pub const MAX_INPUT_CHOICE_CHARS: usize = 200;
pub const MAX_FREEFORM_CHARS: usize = 4000;
/// A task handed to a delegate agent (the input of its `open_and_send`).
pub const MAX_TASK_CHARS: usize = MAX_INPUT_CHARS;

/// `run_command_in_current_shell`: one `send` into the session's pane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunCommandArgs {
    pub command: String,
    /// Why, shown on the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_secs: Option<u64>,
}

/// `create_workspace`: an `open` of a tab or a panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkspaceArgs {
    pub target: OpenTarget,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_secs: Option<u64>,
}

/// `delegate_task_in_new_workspace`: an `open_and_send` of a tab with
/// `delegate: true`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelegateTaskArgs {
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_secs: Option<u64>,
}

/// `get_proposal_result`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposalResultArgs {
    pub proposal_id: ProposalId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_secs: Option<u64>,
}

/// A terminal tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tool", content = "arguments", rename_all = "snake_case")]
pub enum SessionTool {
    #[serde(rename = "run_command_in_current_shell")]
    RunCommand(RunCommandArgs),
    CreateWorkspace(CreateWorkspaceArgs),
    #[serde(rename = "delegate_task_in_new_workspace")]
    DelegateTask(DelegateTaskArgs),
}

/// The wait a call asked for, defaulted and capped.
pub fn wait_for(wait_secs: Option<u64>) -> Duration {
    Duration::from_secs(wait_secs.unwrap_or(DEFAULT_WAIT_SECS).min(MAX_WAIT_SECS))
}

/// A card title naming `text`, cut to the title limit on one line.
fn titled(prefix: &str, text: &str) -> String {
    let first = text.lines().next().unwrap_or_default().trim();
    let room = MAX_TITLE_CHARS - prefix.chars().count() - 3;
    let shown: String = first.chars().take(room).collect();
    let cut = shown.chars().count() < first.chars().count() || text.lines().nth(1).is_some();
    format!("{prefix}`{shown}`{}", if cut { "…" } else { "" })
}

impl SessionTool {
    /// The tool's name as advertised.
    pub const fn name(&self) -> &'static str {
        match self {
            Self::RunCommand(_) => TOOL_RUN_COMMAND,
            Self::CreateWorkspace(_) => TOOL_CREATE_WORKSPACE,
            Self::DelegateTask(_) => TOOL_DELEGATE_TASK,
        }
    }

    /// How long the call waits for the decision and the result.
    pub fn wait(&self) -> Duration {
        wait_for(match self {
            Self::RunCommand(a) => a.wait_secs,
            Self::CreateWorkspace(a) => a.wait_secs,
            Self::DelegateTask(a) => a.wait_secs,
        })
    }

    /// The one-choice proposal this call makes; `origin` is the live
    /// turn's. The result has passed [`ProposalPayload::validate`], so a
    /// bad argument is refused with the payload rule it breaks.
    pub fn into_proposal(self, origin: Origin) -> Result<ProposalPayload, ProtocolError> {
        let (title, rationale, action) = match self {
            Self::RunCommand(a) => {
                if let Some(why) = &a.explanation {
                    check_field(why, MAX_RATIONALE_CHARS, true, "explanation")?;
                }
                (
                    titled("Run ", &a.command),
                    a.explanation.unwrap_or_default(),
                    Action::Send { input: a.command },
                )
            }
            Self::CreateWorkspace(a) => {
                let what = match a.target {
                    OpenTarget::Tab => "Open a new tab",
                    OpenTarget::Panel => "Open a new panel",
                };
                let title = match &a.title {
                    Some(t) => format!("{what}: {t}"),
                    None => what.to_owned(),
                };
                let title = if title.chars().count() > MAX_TITLE_CHARS {
                    what.to_owned()
                } else {
                    title
                };
                (
                    title,
                    String::new(),
                    Action::Open {
                        target: a.target,
                        cwd: a.cwd,
                        title: a.title,
                        direction: a.direction,
                    },
                )
            }
            Self::DelegateTask(a) => (
                titled("Delegate ", &a.task),
                String::new(),
                Action::OpenAndSend {
                    target: OpenTarget::Tab,
                    input: a.task,
                    delegate: true,
                    cwd: a.cwd,
                },
            ),
        };
        let payload = ProposalPayload {
            schema_version: SCHEMA_VERSION,
            origin,
            recommended_choice: 1,
            choices: vec![Choice {
                choice: 1,
                title,
                rationale,
                actions: vec![action],
            }],
        };
        payload.validate()?;
        Ok(payload)
    }
}

/// `_wta/session_tool` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionToolParams {
    pub session_id: String,
    pub call: SessionTool,
    pub wait_ms: u64,
}

/// `_wta/proposal_result` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProposalResultParams {
    pub session_id: String,
    pub proposal_id: ProposalId,
    pub wait_ms: u64,
}

/// Where a proposal a tool made stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportState {
    /// Validation refused it: no card, nothing ran.
    Refused,
    /// The user has not decided yet, or the command still runs: ask
    /// `get_proposal_result` with the proposal id.
    Pending,
    /// Decided and, when confirmed, every action reported.
    Done,
}

/// What a terminal tool or `get_proposal_result` answers: the lines the
/// proposal CLI would have printed so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposalReport {
    pub state: ReportState,
    pub validation: ValidationLine,
    #[serde(rename = "final", default, skip_serializing_if = "Option::is_none")]
    pub final_line: Option<FinalLine>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executions: Vec<ExecutionLine>,
    /// Proposals this turn may still make, once the exchange is complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<u32>,
    /// Why this turn may propose no more, once the exchange is complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

impl ProposalReport {
    /// The proposal's id, when it was accepted.
    pub fn proposal_id(&self) -> Option<ProposalId> {
        self.validation.proposal_id
    }
}

/// `request_user_input`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserInputArgs {
    pub question: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    #[serde(default)]
    pub allow_freeform: bool,
}

impl UserInputArgs {
    /// The rules of first-implementation §2.13: a question of 1..=2000
    /// characters, at most 8 one-line choices of 1..=200, and at least one
    /// choice or a free-form answer.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        check_field(&self.question, MAX_QUESTION_CHARS, true, "question")?;
        if self.choices.len() > MAX_INPUT_CHOICES {
            return Err(ProtocolError::PayloadMalformed {
                detail: format!(
                    "{} choices given; at most {MAX_INPUT_CHOICES}",
                    self.choices.len()
                ),
            });
        }
        for (i, choice) in self.choices.iter().enumerate() {
            check_field(
                choice,
                MAX_INPUT_CHOICE_CHARS,
                false,
                &format!("choice {}", i + 1),
            )?;
        }
        if self.choices.is_empty() && !self.allow_freeform {
            return Err(ProtocolError::PayloadMalformed {
                detail: "give at least one choice, or allow_freeform: true".into(),
            });
        }
        Ok(())
    }
}

/// `_wta/user_input` params. `request` is the master's id for the call, so
/// that [`METHOD_USER_INPUT_GONE`] can name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UserInputParams {
    pub session_id: String,
    pub request: u64,
    pub input: UserInputArgs,
}

/// `_wta/user_input_gone` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UserInputGoneParams {
    pub session_id: String,
    pub request: u64,
}

/// How a question ended (first-implementation §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
pub enum UserInputOutcome {
    Answered {
        answer: String,
        /// 0-based index of the choice picked; absent for a free-form answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selected_index: Option<usize>,
    },
    Cancelled,
    Unavailable {
        reason: String,
    },
}

impl UserInputOutcome {
    /// Whether the tool result is an error (only `unavailable` is).
    pub const fn is_error(&self) -> bool {
        matches!(self, Self::Unavailable { .. })
    }
}

/// Whether `args` are arguments `tool` takes: they read as that tool's
/// argument type, which refuses unknown keys. How the permission preflight
/// tells a WTA tool reported by its bare name from another tool of the same
/// name with other inputs.
pub fn arguments_fit(tool: &str, args: &serde_json::Value) -> bool {
    fn reads<T: serde::de::DeserializeOwned>(args: &serde_json::Value) -> bool {
        T::deserialize(args).is_ok()
    }
    match tool {
        TOOL_RUN_COMMAND => reads::<RunCommandArgs>(args),
        TOOL_CREATE_WORKSPACE => reads::<CreateWorkspaceArgs>(args),
        TOOL_DELEGATE_TASK => reads::<DelegateTaskArgs>(args),
        TOOL_PROPOSAL_RESULT => reads::<ProposalResultArgs>(args),
        TOOL_USER_INPUT => reads::<UserInputArgs>(args),
        _ => false,
    }
}

#[cfg(test)]
#[path = "session_tools_tests.rs"]
mod tests;
