//! Domain data the chat shows: tool calls, plans, permission requests, usage,
//! agents/models/config choices, auth methods. Mirrors the ACP shapes the
//! UI needs, without depending on the ACP crate (the driver maps them).

use wta_i18n::tr;

/// Where the pane stands with its agent, as the helper's session machine
/// says: it owns the master link and the session, and tells the app of
/// each change (`DomainEvent::Connection`, `SessionStarted`, `MasterGone`,
/// `Reconnected`); the app only shows it, and queues, sends or refuses
/// what is typed by it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ConnectionState {
    /// Linking to the master or opening a session.
    #[default]
    Connecting,
    /// A session is open.
    Ready,
    /// Not usable; the text says why and what to do (e.g. `/restart`).
    Failed(String),
    /// The master went away: the pane keeps its transcript and waits for
    /// Enter (never reconnecting on its own); `reconnecting` once Enter
    /// had a master started and linked.
    MasterLost { reconnecting: bool },
}

/// Yolo as the helper's session machine decided it (DESIGN §5): the view
/// shows it and never decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct YoloState {
    /// The agent's own tool permissions are approved without a card.
    pub on: bool,
    /// Why `/yolo on` is refused, while it is.
    pub blocked: Option<YoloBlock>,
}

/// What keeps yolo off whatever the user asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YoloBlock {
    /// The group policy forbids it (`allow_yolo_mode = false`).
    Policy,
}

/// What the machine made of the user's `/yolo on|off` (or `allow_all`
/// picked in `/config`), for the transcript to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YoloAnswer {
    TurnedOn,
    TurnedOff,
    /// Not turned on, and why.
    Refused(YoloBlock),
}

/// ACP tool kinds, used to pick a glyph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    #[default]
    Other,
}

/// ACP tool-call status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolStatus {
    #[default]
    Pending,
    InProgress,
    Completed,
    Failed,
}

/// Agent-assigned tool call id (opaque).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ToolCallId(pub String);

/// Most output lines kept per tool call; the view previews a few of them.
pub const TOOL_OUTPUT_KEEP_LINES: usize = 200;
/// Longest output line kept (characters); longer lines end with `…`.
pub const TOOL_OUTPUT_LINE_CHARS: usize = 400;

/// A tool call as the transcript shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    pub id: ToolCallId,
    pub title: String,
    pub kind: ToolKind,
    pub status: ToolStatus,
    /// The command line (execute) or the path(s) (read/edit/…).
    pub target: Option<String>,
    /// Tail of the output, bounded by the constants above.
    pub output: Vec<String>,
    /// Lines dropped from the head of `output`.
    pub output_dropped: usize,
    pub exit_code: Option<i32>,
    /// The agent terminal this call runs in (ACP terminal content), whose
    /// command, output and end the row shows.
    pub terminal: Option<String>,
}

/// A command that failed in a shell pane of this tab (autofix's pill).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FailureNotice {
    /// Counts failures: a fix for an older one is dropped.
    pub generation: u64,
    /// Where it failed (`%N`).
    pub pane: String,
    /// The command line, when the shell reported it.
    pub command: Option<String>,
    pub exit_code: i32,
}

impl FailureNotice {
    /// `` `cargo test` failed (exit 101) in %3 ``.
    pub fn describe(&self) -> String {
        let (code, pane) = (self.exit_code, &self.pane);
        match &self.command {
            Some(command) => tr!(
                "chat.failure.command",
                command = command,
                code = code,
                pane = pane
            ),
            None => tr!("chat.failure.unknown", code = code, pane = pane),
        }
    }
}

/// An agent terminal as the transcript shows it (the helper serves it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TerminalView {
    pub id: String,
    pub command: String,
    /// How it ended (`exit 0`, `killed by SIGKILL`); `None` while it runs.
    pub exit: Option<String>,
    /// The newest lines of its output.
    pub last_lines: Vec<String>,
}

/// A partial update: `None` fields are unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCallUpdate {
    pub id: ToolCallId,
    pub title: Option<String>,
    pub kind: Option<ToolKind>,
    pub status: Option<ToolStatus>,
    pub target: Option<String>,
    /// Replaces the whole output (ACP content replaces, it does not append).
    pub output: Option<String>,
    pub exit_code: Option<i32>,
    pub terminal: Option<String>,
}

impl ToolCall {
    /// Applies an update in place.
    pub fn apply(&mut self, update: ToolCallUpdate) {
        if let Some(title) = update.title {
            self.title = title;
        }
        if let Some(kind) = update.kind {
            self.kind = kind;
        }
        if let Some(status) = update.status {
            self.status = status;
        }
        if update.target.is_some() {
            self.target = update.target;
        }
        if let Some(output) = update.output {
            self.set_output(&output);
        }
        if update.exit_code.is_some() {
            self.exit_code = update.exit_code;
        }
        if update.terminal.is_some() {
            self.terminal = update.terminal;
        }
    }

    /// Shows `view` (this call's terminal): its command when the call named
    /// none, its newest output, its exit code once it ended.
    pub fn show_terminal(&mut self, view: &TerminalView) {
        if self.target.is_none() {
            self.target = Some(view.command.clone());
        }
        if !view.last_lines.is_empty() {
            self.set_output(&view.last_lines.join("\n"));
        }
        if let Some(code) = view
            .exit
            .as_deref()
            .and_then(|e| e.strip_prefix("exit "))
            .and_then(|c| c.parse().ok())
        {
            self.exit_code = Some(code);
        }
    }

    /// Stores the tail of `text`, bounded in lines and line length.
    pub fn set_output(&mut self, text: &str) {
        let lines: Vec<&str> = text.trim_end_matches('\n').lines().collect();
        let skip = lines.len().saturating_sub(TOOL_OUTPUT_KEEP_LINES);
        self.output_dropped = skip;
        self.output = lines[skip..].iter().map(|l| bound_line(l)).collect();
    }
}

fn bound_line(line: &str) -> String {
    let line = line.trim_end_matches('\r');
    if line.chars().count() <= TOOL_OUTPUT_LINE_CHARS {
        return line.to_owned();
    }
    let mut out: String = line.chars().take(TOOL_OUTPUT_LINE_CHARS - 1).collect();
    out.push('…');
    out
}

/// Plan entry status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanEntry {
    pub text: String,
    pub status: PlanStatus,
}

/// Why a turn ended (ACP `StopReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    MaxTurnRequests,
    Refusal,
    Cancelled,
}

/// Driver-assigned id of a pending `session/request_permission`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PermissionRequestId(pub u64);

/// ACP permission option kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionOptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

impl PermissionOptionKind {
    pub fn is_allow(self) -> bool {
        matches!(self, Self::AllowOnce | Self::AllowAlways)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionOption {
    /// The agent's option id, sent back verbatim.
    pub id: String,
    pub name: String,
    pub kind: PermissionOptionKind,
}

/// A permission the agent asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRequest {
    pub id: PermissionRequestId,
    pub title: String,
    pub kind: ToolKind,
    /// Command line or path(s) the tool acts on.
    pub target: Option<String>,
    pub options: Vec<PermissionOption>,
}

/// The user's answer to a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// One of the agent's options, by its id.
    Selected(String),
    /// Dismissed without choosing (ACP `Cancelled` outcome).
    Cancelled,
}

/// Token usage and cost as the agent reports them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Usage {
    pub used_tokens: u64,
    /// Context window size, when known.
    pub context_tokens: Option<u64>,
    /// Cumulative cost and its currency code.
    pub cost: Option<(f64, String)>,
}

/// An agent this pane may switch to (allowed by policy and config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentChoice {
    pub id: String,
    pub name: String,
    /// `None` when installed; else how to install it (a command line, or
    /// what to fix in the config for a custom agent).
    pub install: Option<String>,
}

impl AgentChoice {
    pub fn installed(&self) -> bool {
        self.install.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    pub id: String,
    pub name: String,
}

/// A select-type session config option (`session/set_config_option`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigOption {
    pub id: String,
    pub name: String,
    pub current: String,
    /// (value id, label)
    pub values: Vec<(String, String)>,
}

/// An ACP auth method the agent advertises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthMethod {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// A terminal-auth command (argv) the agent advertises; run in a new tmux window.
    pub terminal_command: Option<Vec<String>>,
}

/// What a shell pane is doing, as the helper's pane watcher last saw it:
/// what a card that types into that pane says before it is confirmed. The
/// default is what the pane shows until the watcher said anything (no fact
/// yet): nothing new on the card.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PaneFacts {
    /// A program holds the pane: a command typed now would not reach its
    /// shell's prompt. `None`: the prompt is there (or nothing is known).
    pub busy: Option<Busy>,
    /// The prompt holds text the user typed and has not submitted.
    pub typed_text: bool,
    /// How a confirmed command reaches the pane's prompt.
    pub keys: KeyPath,
    /// The pane's shell has no WTA integration: a command typed there
    /// runs, but WTA cannot see it end, so no exit status or output comes
    /// back and autofix cannot follow it.
    pub untracked: Option<Untracked>,
}

/// A shell (or a plain remote login) whose commands WTA cannot follow, as
/// the pane's watcher names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untracked {
    /// Its program: `bash`, `dash`, `ssh`…
    pub program: String,
    /// The line that gives it WTA's integration, with the rc file it goes
    /// in; `None` where WTA has none for it.
    pub rc_line: Option<String>,
}

/// What holds a pane whose prompt is not there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Busy {
    /// A command runs in the foreground. `command` is what the user would
    /// recognise it by (its command line, else its program's name; empty
    /// when unknown).
    Running { command: String },
    /// A full-screen program (the alternate screen: an editor, a pager)
    /// holds the pane; `command` as for `Running`.
    FullScreen { command: String },
}

impl Busy {
    /// What runs, as the watcher named it.
    pub fn command(&self) -> &str {
        match self {
            Self::Running { command } | Self::FullScreen { command } => command,
        }
    }
}

/// How a confirmed command reaches a pane's prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyPath {
    /// The shell's WTA key binding takes the command whole (its
    /// integration's hand-off): no key map or half-typed text can change
    /// it, and what was typed comes back after. Also what a card assumes
    /// until the watcher says otherwise (it says nothing about keys).
    #[default]
    Handoff,
    /// The shell has no WTA key binding: the command is typed into the
    /// pane as keystrokes, over a cleared line.
    TypedKeys,
}

/// Longest command name a card shows (characters); longer ones end in `…`.
pub const PANE_COMMAND_CHARS: usize = 48;

impl PaneFacts {
    /// The facts as a card may show them: the busy command on one line,
    /// without control or invisible format characters (each becomes `�`),
    /// at most [`PANE_COMMAND_CHARS`] long. The watcher reads it from the
    /// pane (a process name, a command line typed there), so it is not
    /// trusted to be printable.
    pub fn shown(self) -> Self {
        let busy = self.busy.map(|busy| match busy {
            Busy::Running { command } => Busy::Running {
                command: shown_command(&command),
            },
            Busy::FullScreen { command } => Busy::FullScreen {
                command: shown_command(&command),
            },
        });
        let untracked = self.untracked.map(|u| Untracked {
            program: shown_command(&u.program),
            // Ours (the helper's words for the shell), shown whole.
            rc_line: u.rc_line,
        });
        Self {
            busy,
            untracked,
            ..self
        }
    }
}

/// `command` printable, on one line, bounded (see [`PaneFacts::shown`]).
fn shown_command(command: &str) -> String {
    let clean: String = command
        .trim()
        .chars()
        .map(|c| if invisible(c) { '\u{fffd}' } else { c })
        .collect();
    if clean.chars().count() <= PANE_COMMAND_CHARS {
        return clean;
    }
    let mut out: String = clean.chars().take(PANE_COMMAND_CHARS - 1).collect();
    out.push('…');
    out
}

/// Controls (C0, DEL, C1), line and paragraph separators, and the format
/// and variation characters that draw as nothing or reorder text.
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{61c}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{e0000}'..='\u{e01ef}'
        )
}
