//! What is wrong with a config file, in the file's own words: where (line,
//! column, the dotted key), what (a [`ProblemKind`]) and what applies
//! instead (a [`Fallback`]). Rendered through `locales/config` in the
//! user's language ([`Problem::localized`]) or in English for logs and
//! `--json` ([`Problem::english`]); the texts exist once, in the locale
//! files.

use std::path::Path;

use serde::Serialize;

/// One problem of the config file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// 1-based line of the key (or of the value, when the value is wrong).
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// The dotted key (`execution.timeout_secs`, `custom_agents.mine`);
    /// empty for the file as a whole.
    pub key: String,
    #[serde(flatten)]
    pub kind: ProblemKind,
    /// What applies instead.
    pub fallback: Fallback,
}

/// What the problem is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum ProblemKind {
    /// The file exists but cannot be read.
    Unreadable { error: String },
    /// The file is not TOML; `message` is the parser's (English).
    Syntax { message: String },
    /// A key no part of WTA reads.
    UnknownKey { suggestion: Option<Suggestion> },
    /// A value of the wrong TOML type.
    WrongType { expected: Expected, found: Found },
    /// A number outside its range (`found` as written, it may not fit a number).
    OutOfRange { min: i64, max: i64, found: String },
    /// A word that is not one of the key's choices.
    NotOneOf {
        choices: Vec<String>,
        found: String,
        suggestion: Option<String>,
    },
    /// Not an agent id.
    BadAgentId {
        found: String,
        suggestion: Option<String>,
    },
    /// `custom:NAME` with no `[custom_agents.NAME]` table.
    UndefinedCustomAgent { found: String, name: String },
    /// Not a language WTA ships (nor one it falls back from).
    UnknownLanguage { found: String },
    /// A table without the key it cannot do without.
    MissingKey { missing: String },
    /// An argv whose program is empty, or an empty argv.
    EmptyProgram,
    /// A `[custom_agents.NAME]` whose NAME has other characters than A-Z a-z 0-9 _ - .
    BadCustomName { name: String },
}

/// A key the user probably meant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Suggestion {
    /// A key of the same table.
    Key { key: String },
    /// A key of another table.
    InTable { table: String, key: String },
    /// A top-level key written under a table header.
    TopLevel { key: String },
}

/// The TOML type a key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    Boolean,
    Integer,
    String,
    Strings,
    Table,
}

/// The TOML type a value has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Found {
    String,
    Integer,
    Float,
    Boolean,
    Datetime,
    Array,
    Table,
}

/// What applies instead of the bad part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Fallback {
    /// The key's default (as it would be written in the file).
    Default(String),
    /// The key (or list element) is ignored; what that means is the key's
    /// own documented behaviour when unset.
    Ignored,
    /// The whole table is ignored.
    Table(String),
    /// Every setting is at its default (the file could not be used).
    Everything,
}

impl Expected {
    fn key(self) -> &'static str {
        match self {
            Self::Boolean => "config.expected.boolean",
            Self::Integer => "config.expected.integer",
            Self::String => "config.expected.string",
            Self::Strings => "config.expected.strings",
            Self::Table => "config.expected.table",
        }
    }
}

impl Found {
    fn key(self) -> &'static str {
        match self {
            Self::String => "config.found.string",
            Self::Integer => "config.found.integer",
            Self::Float => "config.found.float",
            Self::Boolean => "config.found.boolean",
            Self::Datetime => "config.found.datetime",
            Self::Array => "config.found.array",
            Self::Table => "config.found.table",
        }
    }
}

/// Looks a text up and fills its placeholders.
pub(super) type Lookup<'a> = &'a dyn Fn(&str, &[(&str, &str)]) -> String;

/// `text` with each `%{name}` replaced by its value.
pub(super) fn fill(mut text: String, args: &[(&str, &str)]) -> String {
    for (name, value) in args {
        text = text.replace(&format!("%{{{name}}}"), value);
    }
    text
}

impl Problem {
    /// The message in the user's language (no location).
    pub fn localized(&self) -> String {
        self.render(&|key, args| wta_i18n::tr(key, args))
    }

    /// The message in English, for logs and machine output (no location).
    pub fn english(&self) -> String {
        self.render(&|key, args| fill(wta_i18n::tr_in("en", key), args))
    }

    /// `path:line: message` (`path:line:column:` for a syntax error), the
    /// form editors and compilers use, in the user's language.
    pub fn located(&self, path: &Path) -> String {
        format!("{}: {}", self.place(path), self.localized())
    }

    /// [`Problem::located`] in English.
    pub fn located_english(&self, path: &Path) -> String {
        format!("{}: {}", self.place(path), self.english())
    }

    /// What is wrong, in English, without what applies instead (for a
    /// caller that refuses the file rather than use the defaults).
    pub fn english_what(&self) -> String {
        self.what(&|key, args| fill(wta_i18n::tr_in("en", key), args))
    }

    fn place(&self, path: &Path) -> String {
        match self.kind {
            ProblemKind::Unreadable { .. } => path.display().to_string(),
            ProblemKind::Syntax { .. } => {
                format!("{}:{}:{}", path.display(), self.line, self.column)
            }
            _ => format!("{}:{}", path.display(), self.line),
        }
    }

    pub(super) fn render(&self, t: Lookup<'_>) -> String {
        let what = self.what(t);
        let instead = match &self.fallback {
            Fallback::Default(value) => t("config.fallback.default", &[("value", value)]),
            Fallback::Ignored => t("config.fallback.ignored", &[]),
            Fallback::Table(table) => t("config.fallback.table", &[("table", table)]),
            Fallback::Everything => t("config.fallback.everything", &[]),
        };
        t(
            "config.problem.with_fallback",
            &[("problem", &what), ("fallback", &instead)],
        )
    }

    /// The last part of the dotted key (what the line of the file says).
    fn leaf(&self) -> &str {
        self.key.rsplit('.').next().unwrap_or(&self.key)
    }

    /// The table the key is in (`execution`), if it is not top-level.
    fn table(&self) -> Option<&str> {
        self.key.rsplit_once('.').map(|(table, _)| table)
    }

    fn what(&self, t: Lookup<'_>) -> String {
        let key = self.leaf();
        match &self.kind {
            ProblemKind::Unreadable { error } => {
                t("config.problem.unreadable", &[("error", error)])
            }
            ProblemKind::Syntax { message } => t("config.problem.syntax", &[("message", message)]),
            ProblemKind::UnknownKey { suggestion } => {
                let unknown = match self.table() {
                    Some(table) => t(
                        "config.problem.unknown_key_in",
                        &[("key", key), ("table", table)],
                    ),
                    None => t("config.problem.unknown_key", &[("key", key)]),
                };
                match suggestion {
                    None => unknown,
                    Some(s) => {
                        let hint = match s {
                            Suggestion::Key { key } => {
                                t("config.problem.did_you_mean", &[("suggestion", key)])
                            }
                            Suggestion::InTable { table, key } => t(
                                "config.problem.did_you_mean_in",
                                &[("key", key), ("table", table)],
                            ),
                            Suggestion::TopLevel { key } => {
                                t("config.problem.top_level", &[("key", key)])
                            }
                        };
                        t(
                            "config.problem.with_hint",
                            &[("problem", &unknown), ("hint", &hint)],
                        )
                    }
                }
            }
            ProblemKind::WrongType { expected, found } => t(
                "config.problem.wrong_type",
                &[
                    ("key", key),
                    ("expected", &t(expected.key(), &[])),
                    ("found", &t(found.key(), &[])),
                ],
            ),
            ProblemKind::OutOfRange { min, max, found } => t(
                "config.problem.out_of_range",
                &[
                    ("key", key),
                    ("min", &min.to_string()),
                    ("max", &max.to_string()),
                    ("found", found),
                ],
            ),
            ProblemKind::NotOneOf {
                choices,
                found,
                suggestion,
            } => {
                let wrong = t(
                    "config.problem.not_one_of",
                    &[
                        ("key", key),
                        ("choices", &choices.join(", ")),
                        ("found", found),
                    ],
                );
                with_suggestion(t, wrong, suggestion.as_deref())
            }
            ProblemKind::BadAgentId { found, suggestion } => {
                let wrong = t("config.problem.bad_agent_id", &[("found", found)]);
                with_suggestion(t, wrong, suggestion.as_deref())
            }
            ProblemKind::UndefinedCustomAgent { found, name } => t(
                "config.problem.undefined_custom",
                &[("found", found), ("name", name)],
            ),
            ProblemKind::UnknownLanguage { found } => t(
                "config.problem.unknown_language",
                &[
                    ("found", found),
                    ("languages", &wta_i18n::LOCALES.join(", ")),
                ],
            ),
            ProblemKind::MissingKey { missing } => t(
                "config.problem.missing_key",
                &[("table", &self.key), ("missing", missing)],
            ),
            ProblemKind::EmptyProgram => t("config.problem.empty_program", &[("key", key)]),
            ProblemKind::BadCustomName { name } => {
                t("config.problem.bad_custom_name", &[("name", name)])
            }
        }
    }
}

fn with_suggestion(t: Lookup<'_>, problem: String, suggestion: Option<&str>) -> String {
    match suggestion {
        None => problem,
        Some(s) => {
            let hint = t("config.problem.did_you_mean", &[("suggestion", s)]);
            t(
                "config.problem.with_hint",
                &[("problem", &problem), ("hint", &hint)],
            )
        }
    }
}
