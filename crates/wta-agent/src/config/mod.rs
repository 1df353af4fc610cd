//! The user's config file (`~/.config/wta/config.toml`): its one schema,
//! its one loader and its one validator.
//!
//! - `schema.rs`: every section and key any part of WTA reads, with its
//!   type, range and default, and the one place each value is put into
//!   [`Config`]. A key that is not in the schema cannot reach the code, and
//!   a key the code reads cannot be missing from the validator.
//! - `check.rs`: walks the file (spanned TOML) against the schema: every
//!   unknown key (with the nearest known one), wrong type and out-of-range
//!   value becomes a [`Problem`] with its line and column, and the default
//!   applies instead; a file that is not TOML at all is one problem that
//!   says where, and every setting stays at its default.
//! - `problem.rs`: [`Problem`], rendered from `locales/config` in the
//!   user's language or in English (logs, `--json`).
//! - `near.rs`: the nearest known word for a typo.
//!
//! Pure apart from [`load`] reading the file. The system policy file is not
//! the user's config and is not read here.

mod check;
mod near;
mod problem;
mod schema;
#[cfg(test)]
mod schema_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use check::known_language;
pub use near::nearest;
pub use problem::{Expected, Fallback, Found, Problem, ProblemKind, Suggestion};
pub use schema::{
    DEFAULT_INTERACTIVE_AFTER_SECS, DEFAULT_POPUP_PERCENT, MAX_POPUP_PERCENT, MAX_TIMEOUT_SECS,
    MIN_OUTPUT_BYTES, MIN_POPUP_PERCENT, keys,
};

/// Every setting of the config file, each at its default unless the file
/// set it to a valid value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `default_agent`: a valid agent id (not checked for being installed).
    pub default_agent: Option<String>,
    /// `language`: a tag WTA speaks (normalised later by `wta_i18n::resolve`).
    pub language: Option<String>,
    /// `auto_approve_tools`: yolo for every new session.
    pub auto_approve_tools: bool,
    /// `allowed_agents`: the user's allowlist (agent ids and `custom:*`).
    pub allowed_agents: Option<Vec<String>>,
    pub execution: Execution,
    pub proposals: Proposals,
    pub terminals: Terminals,
    pub autofix: Autofix,
    pub pane: Pane,
    /// `[delegate]`, when present with a program.
    pub delegate: Option<DelegateTable>,
    /// `[custom_agents.NAME]`, each with a program.
    pub custom_agents: BTreeMap<String, CustomAgentTable>,
}

/// `[execution]`: results of confirmed commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Execution {
    /// Follow a confirmed choice this long, then `timed_out`.
    pub timeout_secs: u64,
    /// Output returned to the agent per run (head and tail kept).
    pub output_max_bytes: usize,
    /// Quiet time on the terminal before a program counts as interactive.
    pub interactive_after_secs: u64,
}

/// `[proposals]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proposals {
    /// Proposals one turn may make, one after the other.
    pub per_turn: u32,
}

/// `[terminals]`: commands an agent runs through ACP `terminal/*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminals {
    pub placement: Placement,
    /// The pane stays after the command until Enter.
    pub keep_after_exit: bool,
}

/// `[autofix]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Autofix {
    pub mode: AutofixMode,
    /// A hidden agent pane in every tab of the session.
    pub prewarm: bool,
}

/// `[pane]`: the agent pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pane {
    /// Percent of the terminal's columns `wta popup` takes, border included.
    pub popup_width: u8,
    /// Percent of the terminal's rows `wta popup` takes, border included.
    pub popup_height: u8,
    /// The agent's target pane follows the tab's focus (the active pane
    /// when it is a shell pane other than the agent pane).
    pub follow_focus: bool,
}

/// `[delegate]`: the agent CLI delegated tasks start in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DelegateTable {
    /// Shown on the card; default: the program's file name.
    pub name: Option<String>,
    /// The program (not empty) and its arguments.
    pub argv: Vec<String>,
    /// Put before the task; `None`: unset (the default `--`), `Some("")`: none.
    pub end_of_options: Option<String>,
}

/// `[custom_agents.NAME]`: an agent selectable as `custom:NAME`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CustomAgentTable {
    /// The program (not empty) and its arguments.
    pub argv: Vec<String>,
    /// Extra environment for the agent.
    pub env: BTreeMap<String, String>,
}

/// Where an agent terminal's pane opens (`[terminals] placement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// Split below the pane the agent works on (a window when it has none).
    #[default]
    Split,
    /// A tmux window of its own, in the background.
    Window,
}

/// What a failed command in the tab does (`[autofix] mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AutofixMode {
    /// Nothing.
    Off,
    /// A pill offers the fix; the user starts it.
    #[default]
    Suggest,
    /// The fix turn starts at once (its card still waits for the user).
    Auto,
}

impl Placement {
    /// The words the file may use, in the order of the variants.
    pub const WORDS: &'static [&'static str] = &["split", "window"];

    pub const fn word(self) -> &'static str {
        match self {
            Self::Split => "split",
            Self::Window => "window",
        }
    }

    pub fn from_word(word: &str) -> Option<Self> {
        [Self::Split, Self::Window]
            .into_iter()
            .find(|p| p.word() == word)
    }
}

impl AutofixMode {
    /// The words the file may use, in the order of the variants.
    pub const WORDS: &'static [&'static str] = &["off", "suggest", "auto"];

    pub const fn word(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Suggest => "suggest",
            Self::Auto => "auto",
        }
    }

    pub fn from_word(word: &str) -> Option<Self> {
        [Self::Off, Self::Suggest, Self::Auto]
            .into_iter()
            .find(|m| m.word() == word)
    }
}

impl Default for Config {
    /// Every key at the schema's default.
    fn default() -> Self {
        schema::defaults()
    }
}

/// The config file as read: its settings and what was wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub path: PathBuf,
    /// False when there is no file (every setting at its default).
    pub exists: bool,
    pub config: Config,
    /// In file order.
    pub problems: Vec<Problem>,
}

impl Loaded {
    /// The problem that made the whole file unusable (unreadable, not
    /// TOML), if any.
    pub fn unusable(&self) -> Option<&Problem> {
        self.problems.iter().find(|p| {
            matches!(
                p.kind,
                ProblemKind::Syntax { .. } | ProblemKind::Unreadable { .. }
            )
        })
    }

    /// The problems of `table` (`execution`, `custom_agents.mine`) and of
    /// the file as a whole.
    pub fn problems_in<'a>(&'a self, table: &'a str) -> impl Iterator<Item = &'a Problem> + 'a {
        self.problems.iter().filter(move |p| {
            p.key.is_empty()
                || p.key == table
                || p.key
                    .strip_prefix(table)
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    /// The problems as the agent pane shows them once at start, in the
    /// user's language; `None` when there are none.
    pub fn notice(&self) -> Option<String> {
        if self.problems.is_empty() {
            return None;
        }
        let mut text = wta_i18n::tr("config.notice.header", &[]);
        for problem in &self.problems {
            text.push('\n');
            text.push_str(&problem.located(&self.path));
        }
        Some(text)
    }
}

/// Reads and checks `path`; a missing file is every default, an unreadable
/// one is every default and one problem.
pub fn load(path: &Path) -> Loaded {
    let (exists, config, problems) = match std::fs::read_to_string(path) {
        Ok(text) => {
            let (config, problems) = parse(&text);
            (true, config, problems)
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            (false, Config::default(), Vec::new())
        }
        Err(err) => (
            true,
            Config::default(),
            vec![Problem {
                line: 1,
                column: 1,
                key: String::new(),
                kind: ProblemKind::Unreadable {
                    error: err.to_string(),
                },
                fallback: Fallback::Everything,
            }],
        ),
    };
    Loaded {
        path: path.to_path_buf(),
        exists,
        config,
        problems,
    }
}

/// Checks a whole file's text: the settings (defaults where the file is
/// wrong) and the problems, in file order.
pub fn parse(text: &str) -> (Config, Vec<Problem>) {
    check::check(text)
}
