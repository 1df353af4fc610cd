//! The schema of the config file: every key any part of WTA reads, with its
//! type, its range or choices, its default, and the setter that puts a
//! checked value into [`Config`]. The setter is the only way a value gets
//! there, so the code cannot read a key the validator does not know, and
//! [`defaults`] is the schema's defaults put through the same setters.
//!
//! Must not do I/O or report anything: `check.rs` decides what is valid
//! by [`Kind`], and calls a setter only with a value of that kind.

use std::collections::BTreeMap;

use wta_protocol::limits::{
    DEFAULT_EXECUTION_OUTPUT_BYTES, DEFAULT_EXECUTION_TIMEOUT, DEFAULT_PROPOSALS_PER_TURN,
    MAX_EXECUTION_OUTPUT_BYTES, MAX_PROPOSALS_PER_TURN,
};

use super::{
    Autofix, AutofixMode, Config, CustomAgentTable, DelegateTable, Execution, Pane, Placement,
    Proposals, Terminals,
};

/// Smallest `execution.output_max_bytes` (room for head, marker and tail).
pub const MIN_OUTPUT_BYTES: usize = 256;
/// Longest `execution.timeout_secs` and `interactive_after_secs` (one day).
pub const MAX_TIMEOUT_SECS: u64 = 24 * 3600;
/// The default quiet time before a program counts as interactive.
pub const DEFAULT_INTERACTIVE_AFTER_SECS: u64 = 3;
/// `[pane] popup_width` / `popup_height`: percent of the terminal, from a
/// tenth of it to all of it.
pub const MIN_POPUP_PERCENT: u8 = 10;
pub const MAX_POPUP_PERCENT: u8 = 100;
pub const DEFAULT_POPUP_PERCENT: u8 = 80;

/// What a key takes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    Bool {
        default: bool,
    },
    Int {
        min: i64,
        max: i64,
        default: i64,
    },
    /// Any string.
    Str,
    /// One of `choices`.
    Choice {
        choices: &'static [&'static str],
        default: &'static str,
    },
    /// An agent id (`claude`, `custom:NAME` of a table in the same file).
    AgentId,
    /// Agent ids and `custom:*`.
    AgentList,
    /// A language tag WTA speaks.
    Language,
    /// A program (not empty) and its arguments.
    Argv,
    /// A table of strings.
    StrMap,
}

/// A checked value, of the kind its key takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Bool(bool),
    Int(i64),
    Str(String),
    List(Vec<String>),
    Map(BTreeMap<String, String>),
}

/// Puts a value into the config; the `&str` is the entry's name in a
/// table of named tables (`custom_agents.NAME`), else empty.
pub(crate) type Setter = fn(&mut Config, &str, Value);

#[derive(Debug)]
pub(crate) struct Key {
    pub name: &'static str,
    pub kind: Kind,
    pub set: Setter,
}

/// How a table appears in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// Optional keys with defaults; the table itself may be absent.
    Section,
    /// Taken only as a whole, when its `required` key is valid.
    Whole { required: &'static str },
    /// A table of named tables, each taken only with its `required` key.
    Named { required: &'static str },
}

#[derive(Debug)]
pub(crate) struct Table {
    pub name: &'static str,
    pub shape: Shape,
    pub keys: &'static [Key],
}

impl Value {
    fn bool(self) -> bool {
        matches!(self, Self::Bool(true))
    }
    fn int(self) -> i64 {
        match self {
            Self::Int(n) => n,
            _ => 0,
        }
    }
    fn string(self) -> String {
        match self {
            Self::Str(s) => s,
            _ => String::new(),
        }
    }
    fn list(self) -> Vec<String> {
        match self {
            Self::List(l) => l,
            _ => Vec::new(),
        }
    }
    fn map(self) -> BTreeMap<String, String> {
        match self {
            Self::Map(m) => m,
            _ => BTreeMap::new(),
        }
    }
}

const fn secs(max: u64) -> i64 {
    max as i64
}

/// Top-level keys.
pub(crate) const TOP: &[Key] = &[
    Key {
        name: "default_agent",
        kind: Kind::AgentId,
        set: |c, _, v| c.default_agent = Some(v.string()),
    },
    Key {
        name: "language",
        kind: Kind::Language,
        set: |c, _, v| c.language = Some(v.string()),
    },
    Key {
        name: "auto_approve_tools",
        kind: Kind::Bool { default: false },
        set: |c, _, v| c.auto_approve_tools = v.bool(),
    },
    Key {
        name: "allowed_agents",
        kind: Kind::AgentList,
        set: |c, _, v| c.allowed_agents = Some(v.list()),
    },
];

/// The tables.
pub(crate) const TABLES: &[Table] = &[
    Table {
        name: "execution",
        shape: Shape::Section,
        keys: &[
            Key {
                name: "timeout_secs",
                kind: Kind::Int {
                    min: 1,
                    max: secs(MAX_TIMEOUT_SECS),
                    default: secs(DEFAULT_EXECUTION_TIMEOUT.as_secs()),
                },
                set: |c, _, v| c.execution.timeout_secs = v.int().unsigned_abs(),
            },
            Key {
                name: "output_max_bytes",
                kind: Kind::Int {
                    min: MIN_OUTPUT_BYTES as i64,
                    max: MAX_EXECUTION_OUTPUT_BYTES as i64,
                    default: DEFAULT_EXECUTION_OUTPUT_BYTES as i64,
                },
                set: |c, _, v| {
                    c.execution.output_max_bytes = usize::try_from(v.int()).unwrap_or_default();
                },
            },
            Key {
                name: "interactive_after_secs",
                kind: Kind::Int {
                    min: 1,
                    max: secs(MAX_TIMEOUT_SECS),
                    default: secs(DEFAULT_INTERACTIVE_AFTER_SECS),
                },
                set: |c, _, v| c.execution.interactive_after_secs = v.int().unsigned_abs(),
            },
        ],
    },
    Table {
        name: "proposals",
        shape: Shape::Section,
        keys: &[Key {
            name: "per_turn",
            kind: Kind::Int {
                min: 1,
                max: MAX_PROPOSALS_PER_TURN as i64,
                default: DEFAULT_PROPOSALS_PER_TURN as i64,
            },
            set: |c, _, v| c.proposals.per_turn = u32::try_from(v.int()).unwrap_or_default(),
        }],
    },
    Table {
        name: "terminals",
        shape: Shape::Section,
        keys: &[
            Key {
                name: "placement",
                kind: Kind::Choice {
                    choices: Placement::WORDS,
                    default: Placement::Split.word(),
                },
                set: |c, _, v| {
                    c.terminals.placement = Placement::from_word(&v.string()).unwrap_or_default();
                },
            },
            Key {
                name: "keep_after_exit",
                kind: Kind::Bool { default: false },
                set: |c, _, v| c.terminals.keep_after_exit = v.bool(),
            },
        ],
    },
    Table {
        name: "autofix",
        shape: Shape::Section,
        keys: &[
            Key {
                name: "mode",
                kind: Kind::Choice {
                    choices: AutofixMode::WORDS,
                    default: AutofixMode::Suggest.word(),
                },
                set: |c, _, v| {
                    c.autofix.mode = AutofixMode::from_word(&v.string()).unwrap_or_default();
                },
            },
            Key {
                name: "prewarm",
                kind: Kind::Bool { default: false },
                set: |c, _, v| c.autofix.prewarm = v.bool(),
            },
        ],
    },
    Table {
        name: "pane",
        shape: Shape::Section,
        keys: &[
            Key {
                name: "popup_width",
                kind: POPUP_PERCENT,
                set: |c, _, v| c.pane.popup_width = percent(v),
            },
            Key {
                name: "popup_height",
                kind: POPUP_PERCENT,
                set: |c, _, v| c.pane.popup_height = percent(v),
            },
            Key {
                name: "follow_focus",
                kind: Kind::Bool { default: false },
                set: |c, _, v| c.pane.follow_focus = v.bool(),
            },
        ],
    },
    Table {
        name: "delegate",
        shape: Shape::Whole { required: "argv" },
        keys: &[
            Key {
                name: "name",
                kind: Kind::Str,
                set: |c, _, v| delegate(c).name = Some(v.string()),
            },
            Key {
                name: "argv",
                kind: Kind::Argv,
                set: |c, _, v| delegate(c).argv = v.list(),
            },
            Key {
                name: "end_of_options",
                kind: Kind::Str,
                set: |c, _, v| delegate(c).end_of_options = Some(v.string()),
            },
        ],
    },
    Table {
        name: "custom_agents",
        shape: Shape::Named { required: "argv" },
        keys: &[
            Key {
                name: "argv",
                kind: Kind::Argv,
                set: |c, name, v| custom(c, name).argv = v.list(),
            },
            Key {
                name: "env",
                kind: Kind::StrMap,
                set: |c, name, v| custom(c, name).env = v.map(),
            },
        ],
    },
];

const POPUP_PERCENT: Kind = Kind::Int {
    min: MIN_POPUP_PERCENT as i64,
    max: MAX_POPUP_PERCENT as i64,
    default: DEFAULT_POPUP_PERCENT as i64,
};

/// A checked percent (the schema's range keeps it within `u8`).
fn percent(v: Value) -> u8 {
    u8::try_from(v.int()).unwrap_or(DEFAULT_POPUP_PERCENT)
}

fn delegate(c: &mut Config) -> &mut DelegateTable {
    c.delegate.get_or_insert_with(DelegateTable::default)
}

fn custom<'c>(c: &'c mut Config, name: &str) -> &'c mut CustomAgentTable {
    c.custom_agents.entry(name.to_owned()).or_default()
}

impl Kind {
    /// The default as the file would spell it, for keys that have one.
    pub(crate) fn default_text(self) -> Option<String> {
        match self {
            Self::Bool { default } => Some(default.to_string()),
            Self::Int { default, .. } => Some(default.to_string()),
            Self::Choice { default, .. } => Some(format!("\"{default}\"")),
            _ => None,
        }
    }

    fn default_value(self) -> Option<Value> {
        match self {
            Self::Bool { default } => Some(Value::Bool(default)),
            Self::Int { default, .. } => Some(Value::Int(default)),
            Self::Choice { default, .. } => Some(Value::Str(default.to_owned())),
            _ => None,
        }
    }
}

/// The top-level keys and every table's keys, dotted (`execution.timeout_secs`,
/// `custom_agents.NAME.argv`): what the config file may say.
pub fn keys() -> Vec<String> {
    let mut out: Vec<String> = TOP.iter().map(|k| k.name.to_owned()).collect();
    for table in TABLES {
        let prefix = match table.shape {
            Shape::Named { .. } => format!("{}.NAME", table.name),
            _ => table.name.to_owned(),
        };
        out.extend(table.keys.iter().map(|k| format!("{prefix}.{}", k.name)));
    }
    out
}

/// Every setting at its default: the defaults of the schema through the
/// setters, over a config that holds nothing.
pub(crate) fn defaults() -> Config {
    let mut config = Config {
        default_agent: None,
        language: None,
        auto_approve_tools: false,
        allowed_agents: None,
        execution: Execution {
            timeout_secs: 0,
            output_max_bytes: 0,
            interactive_after_secs: 0,
        },
        proposals: Proposals { per_turn: 0 },
        terminals: Terminals {
            placement: Placement::Split,
            keep_after_exit: false,
        },
        autofix: Autofix {
            mode: AutofixMode::Off,
            prewarm: false,
        },
        pane: Pane {
            popup_width: 0,
            popup_height: 0,
            follow_focus: false,
        },
        delegate: None,
        custom_agents: BTreeMap::new(),
    };
    let sections = TABLES
        .iter()
        .filter(|t| matches!(t.shape, Shape::Section))
        .flat_map(|t| t.keys);
    for key in TOP.iter().chain(sections) {
        if let Some(value) = key.kind.default_value() {
            (key.set)(&mut config, "", value);
        }
    }
    config
}
