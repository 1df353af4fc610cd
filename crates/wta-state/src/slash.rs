//! Slash commands: the table, parsing of a submitted line, and completion
//! candidates for the popup. Pure functions; executing a command is
//! `commands.rs`'s job. Texts are `wta_i18n` keys, looked up when shown.

use wta_i18n::tr;

/// One command as the help and the popup show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlashSpec {
    pub name: &'static str,
    pub args: &'static str,
    /// The help text's key (`wta_i18n`); [`SlashSpec::help_text`] shows it.
    pub help: &'static str,
}

impl SlashSpec {
    /// The help text in the user's language.
    pub fn help_text(&self) -> String {
        tr(self.help, &[])
    }
}

pub const COMMANDS: &[SlashSpec] = &[
    SlashSpec {
        name: "help",
        args: "",
        help: "chat.slash.help.help",
    },
    SlashSpec {
        name: "clear",
        args: "",
        help: "chat.slash.help.clear",
    },
    SlashSpec {
        name: "new",
        args: "",
        help: "chat.slash.help.new",
    },
    SlashSpec {
        name: "restart",
        args: "",
        help: "chat.slash.help.restart",
    },
    SlashSpec {
        name: "stop",
        args: "",
        help: "chat.slash.help.stop",
    },
    SlashSpec {
        name: "agent",
        args: "[id]",
        help: "chat.slash.help.agent",
    },
    SlashSpec {
        name: "model",
        args: "[id]",
        help: "chat.slash.help.model",
    },
    SlashSpec {
        name: "config",
        args: "",
        help: "chat.slash.help.config",
    },
    SlashSpec {
        name: "sessions",
        args: "",
        help: "chat.slash.help.sessions",
    },
    SlashSpec {
        name: "history",
        args: "",
        help: "history.slash.history",
    },
    SlashSpec {
        name: "export",
        args: "[file]",
        help: "history.slash.export",
    },
    SlashSpec {
        name: "fix",
        args: "[hint]",
        help: "chat.slash.help.fix",
    },
    SlashSpec {
        name: "yolo",
        args: "[on|off]",
        help: "chat.slash.help.yolo",
    },
];

/// A recognised command with its argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    Help,
    Clear,
    New,
    Restart,
    Stop,
    Agent(Option<String>),
    Model(Option<String>),
    Config,
    Sessions,
    /// `None` toggles.
    Yolo(Option<bool>),
    /// `/fix [hint]`.
    Fix(Option<String>),
    /// `/history`: the action history's picker.
    History,
    /// `/export [FILE]`: the transcript as Markdown.
    Export(Option<String>),
}

/// What a submitted line means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// Send as a prompt (a leading `//` is unescaped to `/`).
    Prompt(String),
    Command(SlashCommand),
    /// `/name` that is not a command: warn, send nothing.
    Unknown(String),
    /// A command with an argument it does not take or understand.
    BadArgument {
        command: &'static str,
        message: String,
    },
    /// `?TASK`: hand the task to a delegate agent in a new tab.
    Delegate(String),
    /// Only whitespace: nothing to do.
    Empty,
}

/// Classifies a submitted line.
pub fn parse(line: &str) -> Submission {
    if line.trim().is_empty() {
        return Submission::Empty;
    }
    if let Some(rest) = line.strip_prefix("//") {
        return Submission::Prompt(format!("/{rest}"));
    }
    // `??…` is a literal question mark, as `//` is a literal slash.
    if let Some(rest) = line.strip_prefix("??") {
        return Submission::Prompt(format!("?{rest}"));
    }
    if let Some(task) = line.strip_prefix('?') {
        return match task.trim() {
            "" => Submission::BadArgument {
                command: "?",
                message: tr("chat.slash.delegate_empty", &[]),
            },
            task => Submission::Delegate(task.to_owned()),
        };
    }
    let Some(rest) = line.trim_end().strip_prefix('/') else {
        return Submission::Prompt(line.to_owned());
    };
    if rest.contains('\n') {
        return Submission::Prompt(line.to_owned());
    }
    let (name, arg) = match rest.split_once(char::is_whitespace) {
        Some((name, arg)) => (name, Some(arg.trim()).filter(|a| !a.is_empty())),
        None => (rest, None),
    };
    let no_arg = |cmd: SlashCommand, spec: &'static str| match arg {
        None => Submission::Command(cmd),
        Some(a) => Submission::BadArgument {
            command: spec,
            message: tr!("chat.slash.no_argument", command = spec, arg = a),
        },
    };
    match name {
        "help" => no_arg(SlashCommand::Help, "help"),
        "clear" => no_arg(SlashCommand::Clear, "clear"),
        "new" => no_arg(SlashCommand::New, "new"),
        "restart" => no_arg(SlashCommand::Restart, "restart"),
        "stop" => no_arg(SlashCommand::Stop, "stop"),
        "fix" => Submission::Command(SlashCommand::Fix(arg.map(str::to_owned))),
        "config" => no_arg(SlashCommand::Config, "config"),
        "sessions" => no_arg(SlashCommand::Sessions, "sessions"),
        "history" => no_arg(SlashCommand::History, "history"),
        "export" => Submission::Command(SlashCommand::Export(arg.map(str::to_owned))),
        "agent" => Submission::Command(SlashCommand::Agent(arg.map(str::to_owned))),
        "model" => Submission::Command(SlashCommand::Model(arg.map(str::to_owned))),
        "yolo" => match arg {
            None => Submission::Command(SlashCommand::Yolo(None)),
            Some("on") => Submission::Command(SlashCommand::Yolo(Some(true))),
            Some("off") => Submission::Command(SlashCommand::Yolo(Some(false))),
            Some(other) => Submission::BadArgument {
                command: "yolo",
                message: tr!("chat.slash.yolo_argument", arg = other),
            },
        },
        other => Submission::Unknown(other.to_owned()),
    }
}

/// One row of the completion popup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The full input line after accepting this row.
    pub replacement: String,
    pub label: String,
    pub detail: String,
}

/// Values offered after `/agent `, `/model ` and `/yolo `.
#[derive(Debug, Clone, Copy, Default)]
pub struct ArgSources<'a> {
    pub agents: &'a [super::domain::AgentChoice],
    pub models: &'a [super::domain::ModelChoice],
}

/// Candidates for the popup; empty when the input is not a slash command.
pub fn completions(input: &str, sources: ArgSources<'_>) -> Vec<Completion> {
    let Some(rest) = input.strip_prefix('/') else {
        return Vec::new();
    };
    if rest.starts_with('/') || rest.contains('\n') {
        return Vec::new();
    }
    match rest.split_once(' ') {
        None => command_completions(rest),
        Some((name, arg)) => arg_completions(name, arg.trim_start(), sources),
    }
}

fn command_completions(typed: &str) -> Vec<Completion> {
    let typed = typed.to_lowercase();
    let mut hits: Vec<(usize, &SlashSpec)> = COMMANDS
        .iter()
        .filter_map(|spec| spec.name.find(&typed).map(|pos| (pos, spec)))
        .collect();
    hits.sort_by_key(|(pos, _)| *pos);
    hits.into_iter()
        .map(|(_, spec)| Completion {
            replacement: if spec.args.is_empty() {
                format!("/{}", spec.name)
            } else {
                format!("/{} ", spec.name)
            },
            label: format!("/{}", spec.name),
            detail: if spec.args.is_empty() {
                spec.help_text()
            } else {
                format!("{} — {}", spec.args, spec.help_text())
            },
        })
        .collect()
}

/// The values offered after `/name ` as (value, description).
fn arg_values(name: &str, sources: ArgSources<'_>) -> Vec<(String, String)> {
    match name {
        "yolo" => vec![
            ("on".into(), tr("chat.slash.yolo_on", &[])),
            ("off".into(), tr("chat.slash.yolo_off", &[])),
        ],
        "agent" => sources
            .agents
            .iter()
            .map(|a| {
                let detail = match &a.install {
                    None => a.name.clone(),
                    Some(install) => tr!("chat.agent.not_installed", install = install),
                };
                (a.id.clone(), detail)
            })
            .collect(),
        "model" => sources
            .models
            .iter()
            .map(|m| (m.id.clone(), m.name.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

fn arg_completions(name: &str, typed: &str, sources: ArgSources<'_>) -> Vec<Completion> {
    let typed_lower = typed.to_lowercase();
    arg_values(name, sources)
        .into_iter()
        .filter(|(value, _)| value.to_lowercase().contains(&typed_lower) && value != typed)
        .map(|(value, detail)| Completion {
            replacement: format!("/{name} {value}"),
            label: value,
            detail,
        })
        .collect()
}

/// Whether Enter runs `input` as typed rather than the highlighted popup
/// row: it names a command exactly, with no argument or with one of the
/// values offered for it.
pub fn runs_as_typed(input: &str, sources: ArgSources<'_>) -> bool {
    let Some(rest) = input.trim_end().strip_prefix('/') else {
        return false;
    };
    let (name, arg) = match rest.split_once(' ') {
        Some((name, arg)) => (name, arg.trim()),
        None => (rest, ""),
    };
    if !COMMANDS.iter().any(|spec| spec.name == name) {
        return false;
    }
    arg.is_empty()
        || arg_values(name, sources)
            .iter()
            .any(|(value, _)| value == arg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::AgentChoice;

    #[test]
    fn parses_commands_arguments_and_escapes() {
        assert_eq!(
            parse("?fix the build "),
            Submission::Delegate("fix the build".into())
        );
        assert_eq!(parse("??why"), Submission::Prompt("?why".into()));
        assert!(matches!(
            parse("?  "),
            Submission::BadArgument { command: "?", .. }
        ));
        assert_eq!(parse("/new"), Submission::Command(SlashCommand::New));
        assert_eq!(
            parse("/yolo on "),
            Submission::Command(SlashCommand::Yolo(Some(true)))
        );
        assert_eq!(
            parse("/agent  claude"),
            Submission::Command(SlashCommand::Agent(Some("claude".into())))
        );
        assert_eq!(
            parse("/model"),
            Submission::Command(SlashCommand::Model(None))
        );
        assert_eq!(
            parse("//etc/hosts is odd"),
            Submission::Prompt("/etc/hosts is odd".into())
        );
        assert_eq!(parse("/foo bar"), Submission::Unknown("foo".into()));
        assert_eq!(parse("   "), Submission::Empty);
        assert_eq!(parse("hello /new"), Submission::Prompt("hello /new".into()));
        assert!(matches!(
            parse("/yolo maybe"),
            Submission::BadArgument {
                command: "yolo",
                ..
            }
        ));
        assert!(matches!(
            parse("/clear all"),
            Submission::BadArgument {
                command: "clear",
                ..
            }
        ));
        assert_eq!(
            parse("/path/to\nmore"),
            Submission::Prompt("/path/to\nmore".into())
        );
    }

    #[test]
    fn completion_ranks_prefix_matches_first() {
        let labels: Vec<String> = completions("/e", ArgSources::default())
            .into_iter()
            .map(|c| c.label)
            .collect();
        // `/export` starts with it; the others only contain it.
        assert_eq!(labels.first().map(String::as_str), Some("/export"));
        assert!(labels.contains(&"/help".to_owned()));
        assert!(labels.contains(&"/new".to_owned()) && labels.contains(&"/restart".to_owned()));
        let labels: Vec<String> = completions("/s", ArgSources::default())
            .into_iter()
            .map(|c| c.label)
            .collect();
        assert_eq!(labels[..2], ["/stop".to_owned(), "/sessions".to_owned()]);
        assert!(completions("hello", ArgSources::default()).is_empty());
        assert!(completions("//x", ArgSources::default()).is_empty());
    }

    #[test]
    fn completion_offers_argument_values() {
        let agents = [AgentChoice {
            id: "claude".into(),
            name: "Claude Code".into(),
            install: None,
        }];
        let sources = ArgSources {
            agents: &agents,
            models: &[],
        };
        let got = completions("/agent cl", sources);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].replacement, "/agent claude");
        let yolo: Vec<String> = completions("/yolo ", sources)
            .into_iter()
            .map(|c| c.label)
            .collect();
        assert_eq!(yolo, ["on", "off"]);
        assert!(
            completions("/yolo on", sources).is_empty(),
            "an exact value needs no popup"
        );
    }

    #[test]
    fn an_exact_command_or_offered_value_runs_as_typed() {
        let agents = [AgentChoice {
            id: "claude".into(),
            name: "Claude Code".into(),
            install: Some("npm install -g @agentclientprotocol/claude-agent-acp".into()),
        }];
        let sources = ArgSources {
            agents: &agents,
            models: &[],
        };
        for typed in [
            "/yolo",
            "/yolo ",
            "/yolo on",
            "/model",
            "/agent claude",
            "/new",
        ] {
            assert!(runs_as_typed(typed, sources), "{typed}");
        }
        for typed in ["/yo", "/s", "/agent cl", "/yolo o", "hello", "//yolo"] {
            assert!(!runs_as_typed(typed, sources), "{typed}");
        }
        let got = completions("/agent ", sources);
        assert_eq!(
            got[0].detail,
            "not installed · npm install -g @agentclientprotocol/claude-agent-acp"
        );
    }
}
