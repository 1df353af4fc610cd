//! The validator: walks the spanned TOML of a config file against the
//! schema, puts every valid value into the [`Config`] through its setter,
//! and turns everything else into a [`Problem`] at its line and column
//! (the key's for an unknown key, the value's for a wrong one). A bad part
//! never takes a good one with it: a wrong key leaves its neighbours set,
//! a wrong list element leaves the other elements; only a table taken as
//! a whole (`[delegate]`, `[custom_agents.NAME]`) is dropped when its
//! program is unusable.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::near::nearest;
use super::problem::{Expected, Fallback, Found, Problem, ProblemKind, Suggestion};
use super::schema::{Key, Kind, Shape, TABLES, TOP, Table, Value};
use super::{Config, schema};
use crate::registry::{DEMO_ID, built_in_ids, valid_custom_name};

type Entries<'i> = DeTable<'i>;

/// The settings of `text` and its problems, in file order.
pub(crate) fn check(text: &str) -> (Config, Vec<Problem>) {
    let mut config = schema::defaults();
    let root = match DeTable::parse(text) {
        Ok(root) => root,
        Err(err) => {
            let (line, column) = position(text, err.span().map_or(0, |s| s.start));
            let message = err
                .message()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let problem = Problem {
                line,
                column,
                key: String::new(),
                kind: ProblemKind::Syntax { message },
                fallback: Fallback::Everything,
            };
            return (config, vec![problem]);
        }
    };
    let custom_names: Vec<String> = root
        .get_ref()
        .get("custom_agents")
        .and_then(|t| t.get_ref().as_table())
        .map(|t| t.keys().map(|k| k.get_ref().to_string()).collect())
        .unwrap_or_default();
    let mut checker = Checker {
        text,
        problems: Vec::new(),
        custom_names,
    };
    for (key, value) in root.get_ref() {
        let name: &str = key.get_ref();
        if let Some(k) = TOP.iter().find(|k| k.name == name) {
            if let Some(v) = checker.value(k, value, name, None) {
                (k.set)(&mut config, "", v);
            }
        } else if let Some(table) = TABLES.iter().find(|t| t.name == name) {
            checker.table(table, key.span(), value, &mut config);
        } else {
            let suggestion = top_suggestion(name);
            checker.unknown(key.span(), name.to_owned(), suggestion);
        }
    }
    let mut problems = checker.problems;
    problems.sort_by_key(|p| (p.line, p.column));
    (config, problems)
}

struct Checker<'t> {
    text: &'t str,
    problems: Vec<Problem>,
    /// The `[custom_agents.NAME]` names of the file.
    custom_names: Vec<String>,
}

/// 1-based line and column (in characters) of byte `offset`.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// A top-level key the user may have meant: a close top-level key or
/// table, else a key of that name (or close to it) in some table.
fn top_suggestion(name: &str) -> Option<Suggestion> {
    let top = TOP
        .iter()
        .map(|k| k.name)
        .chain(TABLES.iter().map(|t| t.name));
    if let Some(key) = nearest(name, top) {
        return Some(Suggestion::Key {
            key: key.to_owned(),
        });
    }
    TABLES
        .iter()
        .filter(|t| matches!(t.shape, Shape::Section | Shape::Whole { .. }))
        .find_map(|t| {
            nearest(name, t.keys.iter().map(|k| k.name)).map(|key| Suggestion::InTable {
                table: t.name.to_owned(),
                key: key.to_owned(),
            })
        })
}

/// A key of `table` the user may have meant, or a top-level key written
/// under the table's header.
fn table_suggestion(table: &Table, name: &str) -> Option<Suggestion> {
    if let Some(key) = nearest(name, table.keys.iter().map(|k| k.name)) {
        return Some(Suggestion::Key {
            key: key.to_owned(),
        });
    }
    TOP.iter()
        .find(|k| k.name == name)
        .map(|k| Suggestion::TopLevel {
            key: k.name.to_owned(),
        })
}

fn found(value: &DeValue<'_>) -> Found {
    match value {
        DeValue::String(_) => Found::String,
        DeValue::Integer(_) => Found::Integer,
        DeValue::Float(_) => Found::Float,
        DeValue::Boolean(_) => Found::Boolean,
        DeValue::Datetime(_) => Found::Datetime,
        DeValue::Array(_) => Found::Array,
        DeValue::Table(_) => Found::Table,
    }
}

fn expected(kind: Kind) -> Expected {
    match kind {
        Kind::Bool { .. } => Expected::Boolean,
        Kind::Int { .. } => Expected::Integer,
        Kind::Str | Kind::Choice { .. } | Kind::AgentId | Kind::Language => Expected::String,
        Kind::AgentList | Kind::Argv => Expected::Strings,
        Kind::StrMap => Expected::Table,
    }
}

/// Whether WTA speaks `tag`: it resolves to a shipped locale other than
/// the English fallback, or it is English (or `C`/`POSIX`) itself.
pub fn known_language(tag: &str) -> bool {
    if wta_i18n::resolve(Some(tag), None, |_| None) != "en" {
        return true;
    }
    let primary = tag
        .trim()
        .split(['.', '@', '_', '-'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    matches!(primary.as_str(), "en" | "c" | "posix")
}

impl Checker<'_> {
    fn push(&mut self, span: Range<usize>, key: String, kind: ProblemKind, fallback: Fallback) {
        let (line, column) = position(self.text, span.start);
        self.problems.push(Problem {
            line,
            column,
            key,
            kind,
            fallback,
        });
    }

    fn unknown(&mut self, span: Range<usize>, key: String, suggestion: Option<Suggestion>) {
        self.push(
            span,
            key,
            ProblemKind::UnknownKey { suggestion },
            Fallback::Ignored,
        );
    }

    /// `value` checked as `key` (at dotted `path`); `None` after reporting
    /// it. `whole`: the table that goes with the key when it is required.
    fn value(
        &mut self,
        key: &Key,
        value: &Spanned<DeValue<'_>>,
        path: &str,
        whole: Option<&str>,
    ) -> Option<Value> {
        let fallback = match (whole, key.kind.default_text()) {
            (Some(table), _) => Fallback::Table(table.to_owned()),
            (None, Some(default)) => Fallback::Default(default),
            (None, None) => Fallback::Ignored,
        };
        let span = value.span();
        let wrong = match (key.kind, value.get_ref()) {
            (Kind::Bool { .. }, DeValue::Boolean(b)) => return Some(Value::Bool(*b)),
            (Kind::Int { min, max, .. }, DeValue::Integer(int)) => {
                match i64::from_str_radix(int.as_str(), int.radix()) {
                    Ok(n) if (min..=max).contains(&n) => return Some(Value::Int(n)),
                    _ => ProblemKind::OutOfRange {
                        min,
                        max,
                        found: self.text.get(span.clone()).unwrap_or_default().to_owned(),
                    },
                }
            }
            (Kind::Str, DeValue::String(s)) => return Some(Value::Str(s.to_string())),
            (Kind::Choice { choices, .. }, DeValue::String(s)) => {
                if choices.contains(&s.as_ref()) {
                    return Some(Value::Str(s.to_string()));
                }
                ProblemKind::NotOneOf {
                    choices: choices.iter().map(|c| (*c).to_owned()).collect(),
                    found: s.to_string(),
                    suggestion: nearest(s, choices.iter().copied()).map(str::to_owned),
                }
            }
            (Kind::AgentId, DeValue::String(s)) => match self.agent_id(s, false) {
                Ok(()) => return Some(Value::Str(s.to_string())),
                Err(kind) => kind,
            },
            (Kind::Language, DeValue::String(s)) => {
                if known_language(s) {
                    return Some(Value::Str(s.to_string()));
                }
                ProblemKind::UnknownLanguage {
                    found: s.to_string(),
                }
            }
            (Kind::AgentList, DeValue::Array(items)) => {
                let mut ids = Vec::new();
                for item in items {
                    match item.get_ref() {
                        DeValue::String(s) => match self.agent_id(s, true) {
                            Ok(()) => ids.push(s.to_string()),
                            Err(kind) => {
                                self.push(item.span(), path.to_owned(), kind, Fallback::Ignored);
                            }
                        },
                        other => self.push(
                            item.span(),
                            path.to_owned(),
                            ProblemKind::WrongType {
                                expected: Expected::String,
                                found: found(other),
                            },
                            Fallback::Ignored,
                        ),
                    }
                }
                return Some(Value::List(ids));
            }
            (Kind::Argv, DeValue::Array(items)) => {
                let mut argv = Vec::new();
                for item in items {
                    match item.get_ref() {
                        DeValue::String(s) => argv.push(s.to_string()),
                        other => {
                            let kind = ProblemKind::WrongType {
                                expected: Expected::String,
                                found: found(other),
                            };
                            self.push(item.span(), path.to_owned(), kind, fallback);
                            return None;
                        }
                    }
                }
                if argv.first().is_some_and(|p| !p.is_empty()) {
                    return Some(Value::List(argv));
                }
                ProblemKind::EmptyProgram
            }
            (Kind::StrMap, DeValue::Table(entries)) => {
                let mut map = BTreeMap::new();
                for (name, item) in entries {
                    match item.get_ref() {
                        DeValue::String(s) => {
                            map.insert(name.get_ref().to_string(), s.to_string());
                        }
                        other => self.push(
                            item.span(),
                            format!("{path}.{}", name.get_ref()),
                            ProblemKind::WrongType {
                                expected: Expected::String,
                                found: found(other),
                            },
                            Fallback::Ignored,
                        ),
                    }
                }
                return Some(Value::Map(map));
            }
            (kind, other) => ProblemKind::WrongType {
                expected: expected(kind),
                found: found(other),
            },
        };
        self.push(span, path.to_owned(), wrong, fallback);
        None
    }

    /// `Ok` for an agent id (`custom:*` too in a list); a `custom:NAME`
    /// outside a list must have its table in the file.
    fn agent_id(&self, text: &str, in_list: bool) -> Result<(), ProblemKind> {
        if in_list && text == "custom:*" {
            return Ok(());
        }
        match crate::AgentId::parse(text) {
            Ok(id) => match id.custom_name() {
                Some(name) if !in_list && !self.custom_names.iter().any(|n| n == name) => {
                    Err(ProblemKind::UndefinedCustomAgent {
                        found: text.to_owned(),
                        name: name.to_owned(),
                    })
                }
                _ => Ok(()),
            },
            Err(_) => {
                let customs: Vec<String> = self
                    .custom_names
                    .iter()
                    .map(|n| format!("custom:{n}"))
                    .collect();
                let mut known: Vec<&str> = built_in_ids().collect();
                known.push(DEMO_ID);
                known.extend(customs.iter().map(String::as_str));
                Err(ProblemKind::BadAgentId {
                    found: text.to_owned(),
                    suggestion: nearest(text, known).map(str::to_owned),
                })
            }
        }
    }

    /// The table `table` (its name at `at`) with the file's `value`.
    fn table(
        &mut self,
        table: &Table,
        at: Range<usize>,
        value: &Spanned<DeValue<'_>>,
        config: &mut Config,
    ) {
        let Some(entries) = self.table_of(value, table.name) else {
            return;
        };
        match table.shape {
            Shape::Section => {
                for (k, v) in self.entries(table, entries, table.name, None) {
                    (k.set)(config, "", v);
                }
            }
            Shape::Whole { required } => {
                let values = self.entries(table, entries, table.name, Some(required));
                self.take_whole(values, required, table.name, at, "", config);
            }
            Shape::Named { required } => {
                for (name, entry) in entries {
                    let name_text: &str = name.get_ref();
                    let path = format!("{}.{name_text}", table.name);
                    if !valid_custom_name(name_text) {
                        self.push(
                            name.span(),
                            path.clone(),
                            ProblemKind::BadCustomName {
                                name: name_text.to_owned(),
                            },
                            Fallback::Table(path),
                        );
                        continue;
                    }
                    let Some(fields) = self.table_of(entry, &path) else {
                        continue;
                    };
                    let values = self.entries(table, fields, &path, Some(required));
                    self.take_whole(values, required, &path, name.span(), name_text, config);
                }
            }
        }
    }

    /// The entries of a value that must be a table (reported otherwise).
    fn table_of<'v, 'i>(
        &mut self,
        value: &'v Spanned<DeValue<'i>>,
        path: &str,
    ) -> Option<&'v Entries<'i>> {
        match value.get_ref() {
            DeValue::Table(entries) => Some(entries),
            other => {
                let kind = ProblemKind::WrongType {
                    expected: Expected::Table,
                    found: found(other),
                };
                self.push(
                    value.span(),
                    path.to_owned(),
                    kind,
                    Fallback::Table(path.to_owned()),
                );
                None
            }
        }
    }

    /// The checked values of a table's `entries` (at dotted `path`);
    /// unknown keys are reported. `required`: the key without which the
    /// table is dropped.
    fn entries<'s>(
        &mut self,
        table: &'s Table,
        entries: &Entries<'_>,
        path: &str,
        required: Option<&str>,
    ) -> Vec<(&'s Key, Value)> {
        let mut values = Vec::new();
        for (key, value) in entries {
            let name: &str = key.get_ref();
            let dotted = format!("{path}.{name}");
            match table.keys.iter().find(|k| k.name == name) {
                Some(k) => {
                    let whole = (required == Some(k.name)).then_some(path);
                    if let Some(v) = self.value(k, value, &dotted, whole) {
                        values.push((k, v));
                    }
                }
                None => {
                    let suggestion = table_suggestion(table, name);
                    self.unknown(key.span(), dotted, suggestion);
                }
            }
        }
        values
    }

    /// Sets a whole table's `values` when its `required` key is among them;
    /// reports it missing when the file has none (a bad one is reported).
    fn take_whole(
        &mut self,
        values: Vec<(&Key, Value)>,
        required: &str,
        path: &str,
        at: Range<usize>,
        name: &str,
        config: &mut Config,
    ) {
        if values.iter().any(|(k, _)| k.name == required) {
            for (k, v) in values {
                (k.set)(config, name, v);
            }
            return;
        }
        let reported = self
            .problems
            .iter()
            .any(|p| p.key == format!("{path}.{required}"));
        if !reported {
            self.push(
                at,
                path.to_owned(),
                ProblemKind::MissingKey {
                    missing: required.to_owned(),
                },
                Fallback::Table(path.to_owned()),
            );
        }
    }
}
