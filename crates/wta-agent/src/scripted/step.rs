//! A turn's vocabulary: the steps a scripted agent takes on the wire, as data.
//!
//! A turn is a list of [`Step`]s run in order by `turn.rs`. Steps that wait
//! for something (a permission answer, a client request's result, a command's
//! output, a cancel) carry a [`Then`]: a pure function from what came back to
//! the steps that run next, so a script branches without doing I/O itself.
//! This file holds values only; `wire.rs` encodes them and nothing here
//! talks to a client.

use std::fmt;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{PlanEntry, ToolCallStatus, ToolKind};
use serde_json::{Map, Value};

use super::command::{Command, Ran};

/// What a waiting step does with its answer: the steps that run next.
pub type Then<T> = Box<dyn FnOnce(T) -> Vec<Step> + Send>;

/// One thing an agent does in a turn. The turn answers `end_turn` when the
/// steps run out, `cancelled` or an error when a step says so.
pub enum Step {
    /// An `agent_message_chunk` with this text.
    Say(String),
    /// A `plan` update with these entries.
    Plan(Vec<PlanEntry>),
    /// A `tool_call` update: a tool call starts.
    ToolCall(ToolCall),
    /// A `tool_call_update`.
    ToolUpdate(ToolUpdate),
    /// `session/request_permission`; the answer (or the request's error)
    /// picks the next steps.
    AskPermission(Permission, Then<Result<PermissionAnswer, Error>>),
    /// Any other request to the client (`fs/*`, `terminal/*`), with the
    /// turn's `sessionId` added to `params`; its result picks the next steps.
    Request {
        method: String,
        params: Map<String, Value>,
        then: Then<Result<Value, Error>>,
    },
    /// Runs a local command (the proposal CLI, a shell command); what it
    /// printed picks the next steps.
    Run(Command, Then<Ran>),
    /// Ends the turn `cancelled` if the client cancelled it since the turn
    /// began (or since the last such check); otherwise its steps run next.
    UnlessCancelled(Then<()>),
    /// Waits until the client cancels the turn (or closes the session), then
    /// ends it `cancelled`.
    AwaitCancel,
    /// Ends the turn with this JSON-RPC error.
    Fail(Error),
}

impl Step {
    /// [`Step::Say`].
    pub fn say(text: impl Into<String>) -> Self {
        Self::Say(text.into())
    }

    /// [`Step::AskPermission`].
    pub fn ask(
        permission: Permission,
        then: impl FnOnce(Result<PermissionAnswer, Error>) -> Vec<Step> + Send + 'static,
    ) -> Self {
        Self::AskPermission(permission, Box::new(then))
    }

    /// [`Step::Request`]; `params` must be a JSON object (anything else is
    /// sent as an empty one).
    pub fn request(
        method: impl Into<String>,
        params: Value,
        then: impl FnOnce(Result<Value, Error>) -> Vec<Step> + Send + 'static,
    ) -> Self {
        let params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Self::Request {
            method: method.into(),
            params,
            then: Box::new(then),
        }
    }

    /// [`Step::Run`].
    pub fn run(command: Command, then: impl FnOnce(Ran) -> Vec<Step> + Send + 'static) -> Self {
        Self::Run(command, Box::new(then))
    }

    /// [`Step::UnlessCancelled`].
    pub fn unless_cancelled(then: impl FnOnce() -> Vec<Step> + Send + 'static) -> Self {
        Self::UnlessCancelled(Box::new(move |()| then()))
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Say(text) => f.debug_tuple("Say").field(text).finish(),
            Self::Plan(entries) => f.debug_tuple("Plan").field(entries).finish(),
            Self::ToolCall(call) => f.debug_tuple("ToolCall").field(call).finish(),
            Self::ToolUpdate(update) => f.debug_tuple("ToolUpdate").field(update).finish(),
            Self::AskPermission(permission, _) => {
                f.debug_tuple("AskPermission").field(permission).finish()
            }
            Self::Request { method, params, .. } => f
                .debug_struct("Request")
                .field("method", method)
                .field("params", params)
                .finish(),
            Self::Run(command, _) => f.debug_tuple("Run").field(command).finish(),
            Self::UnlessCancelled(_) => f.write_str("UnlessCancelled"),
            Self::AwaitCancel => f.write_str("AwaitCancel"),
            Self::Fail(err) => f.debug_tuple("Fail").field(err).finish(),
        }
    }
}

/// What a `session/update` carries (the steps that notify, and a
/// `session/load` replaying history).
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// `agent_message_chunk`.
    AgentText(String),
    /// `user_message_chunk` (history replayed by `session/load`).
    UserText(String),
    /// `plan`.
    Plan(Vec<PlanEntry>),
    /// `tool_call`.
    ToolCall(ToolCall),
    /// `tool_call_update`.
    ToolUpdate(ToolUpdate),
}

/// A tool call as a `tool_call` update or a permission request shows it.
/// `status` and `kind` are always sent when set, as real agents do (the
/// ACP crate's typed value leaves a `pending` status out).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub title: String,
    pub kind: ToolKind,
    /// `None` leaves the field out (a permission request's bare tool call).
    pub status: Option<ToolCallStatus>,
    /// Paths the tool acts on (`locations`; left out when empty).
    pub locations: Vec<String>,
    /// Left out when empty.
    pub content: Vec<ToolContent>,
    pub raw_input: Option<Value>,
}

impl ToolCall {
    /// A call with no status, locations, content or input.
    pub fn new(id: impl Into<String>, title: impl Into<String>, kind: ToolKind) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            kind,
            status: None,
            locations: Vec::new(),
            content: Vec::new(),
            raw_input: None,
        }
    }

    pub fn status(mut self, status: ToolCallStatus) -> Self {
        self.status = Some(status);
        self
    }

    pub fn location(mut self, path: impl Into<String>) -> Self {
        self.locations.push(path.into());
        self
    }

    pub fn content(mut self, content: ToolContent) -> Self {
        self.content.push(content);
        self
    }

    pub fn raw_input(mut self, input: Value) -> Self {
        self.raw_input = Some(input);
        self
    }
}

/// A `tool_call_update`: the new status, and what the tool produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUpdate {
    pub id: String,
    pub status: ToolCallStatus,
    /// Left out when empty.
    pub content: Vec<ToolContent>,
    pub raw_output: Option<Value>,
}

impl ToolUpdate {
    pub fn new(id: impl Into<String>, status: ToolCallStatus) -> Self {
        Self {
            id: id.into(),
            status,
            content: Vec::new(),
            raw_output: None,
        }
    }

    pub fn content(mut self, content: ToolContent) -> Self {
        self.content.push(content);
        self
    }

    pub fn raw_output(mut self, output: Value) -> Self {
        self.raw_output = Some(output);
        self
    }
}

/// What a tool call shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolContent {
    /// Text content.
    Text(String),
    /// A terminal the client created (`terminal/create`), by its id.
    Terminal(String),
}

/// A permission request: the tool call it is about and the options offered.
#[derive(Debug, Clone, PartialEq)]
pub struct Permission {
    pub call: ToolCall,
    pub options: Vec<PermissionOption>,
}

/// One option of a permission request. `kind` is the wire name as the agent
/// writes it (`allow_once`, `allow_always`, `reject_once`, …): a scripted
/// agent may offer kinds the schema does not know, as agents in the wild do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionOption {
    pub id: String,
    pub name: String,
    pub kind: String,
}

impl PermissionOption {
    pub fn new(id: impl Into<String>, name: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            kind: kind.into(),
        }
    }

    /// Whether choosing it allows the tool call (`allow_once`, `allow_always`).
    pub fn allows(&self) -> bool {
        matches!(self.kind.as_str(), "allow_once" | "allow_always")
    }
}

/// How the client answered a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// The user (or the client's policy) chose this option id.
    Selected(String),
    /// The request was cancelled (the turn was cancelled, the user went away).
    Cancelled,
}

impl PermissionAnswer {
    /// Whether the answer chose one of `permission`'s allowing options.
    pub fn allows(&self, permission: &Permission) -> bool {
        match self {
            Self::Selected(id) => permission
                .options
                .iter()
                .any(|option| option.id == *id && option.allows()),
            Self::Cancelled => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn permission() -> Permission {
        Permission {
            call: ToolCall::new("c", "t", ToolKind::Execute),
            options: vec![
                PermissionOption::new("always", "Always", "allow_always"),
                PermissionOption::new("once", "Once", "allow_once"),
                PermissionOption::new("no", "No", "reject_once"),
                PermissionOption::new("never", "Never", "reject_always"),
                PermissionOption::new("odd", "Odd", "maybe"),
            ],
        }
    }

    #[test]
    fn only_a_chosen_allow_option_allows() {
        let p = permission();
        for (answer, allows) in [
            (PermissionAnswer::Selected("always".into()), true),
            (PermissionAnswer::Selected("once".into()), true),
            (PermissionAnswer::Selected("no".into()), false),
            (PermissionAnswer::Selected("never".into()), false),
            (PermissionAnswer::Selected("odd".into()), false),
            // An option the request did not offer allows nothing.
            (PermissionAnswer::Selected("allow".into()), false),
            (PermissionAnswer::Cancelled, false),
        ] {
            assert_eq!(answer.allows(&p), allows, "{answer:?}");
        }
    }

    #[test]
    fn request_params_are_an_object() {
        let Step::Request { params, .. } = Step::request("m", Value::Null, |_| vec![]) else {
            panic!("not a request");
        };
        assert!(params.is_empty());
    }
}
