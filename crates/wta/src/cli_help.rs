//! `--help` (and `wta man`) in the user's language. The English help is the
//! doc comments of [`crate::cli`]; `crates/wta/locales/help/en.yml` holds the
//! same texts under keys named after the command path
//! (`help.sessions.close.about`, `help.up.args.agent.help`), and the other
//! locales translate them. They are this crate's own rust-i18n texts, loaded
//! only when clap prints something (help, a usage error), never by an agent
//! pane or the master.
//! [`command`] is the clap command with every text looked up; a test holds
//! `en.yml` to what the tree says in English.

use clap::{Command, CommandFactory};

/// The parts of a command or argument that people read in `--help`.
#[derive(Clone, Copy)]
enum Part {
    About,
    LongAbout,
    AfterHelp,
    Help,
    LongHelp,
}

impl Part {
    const fn key(self) -> &'static str {
        match self {
            Self::About => "about",
            Self::LongAbout => "long_about",
            Self::AfterHelp => "after_help",
            Self::Help => "help",
            Self::LongHelp => "long_help",
        }
    }
}

/// `help.<path>` for the command at `path` (`wta` at the root).
fn prefix(path: &[&str]) -> String {
    if path.is_empty() {
        "help.wta".to_owned()
    } else {
        format!("help.{}", path.join("."))
    }
}

/// Arguments people see: not hidden, not clap's own help and version.
fn shown_args(cmd: &Command) -> impl Iterator<Item = &clap::Arg> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set() && !matches!(a.get_id().as_str(), "help" | "version"))
}

/// Subcommands people see.
fn shown_subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|c| !c.is_hide_set())
}

/// Every help text of `cmd` and its shown subcommands and arguments, by
/// key, as the tree says it (English): what `en.yml` must hold.
#[cfg(test)]
fn texts(cmd: &Command) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    collect(cmd, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
fn collect<'a>(
    cmd: &'a Command,
    path: &mut Vec<&'a str>,
    out: &mut std::collections::BTreeMap<String, String>,
) {
    let at = prefix(path);
    let mut put = |key: String, text: Option<&clap::builder::StyledStr>| {
        if let Some(text) = text.map(ToString::to_string).filter(|t| !t.is_empty()) {
            out.insert(key, text);
        }
    };
    put(format!("{at}.{}", Part::About.key()), cmd.get_about());
    put(
        format!("{at}.{}", Part::LongAbout.key()),
        cmd.get_long_about(),
    );
    put(
        format!("{at}.{}", Part::AfterHelp.key()),
        cmd.get_after_help(),
    );
    for arg in shown_args(cmd) {
        let id = arg.get_id().as_str();
        put(
            format!("{at}.args.{id}.{}", Part::Help.key()),
            arg.get_help(),
        );
        put(
            format!("{at}.args.{id}.{}", Part::LongHelp.key()),
            arg.get_long_help(),
        );
    }
    for sub in shown_subcommands(cmd) {
        path.push(sub.get_name());
        collect(sub, path, out);
        path.pop();
    }
}

/// `key`'s text in the current language; `None` where no locale has it
/// (the English text of the tree stays).
fn look_up(key: &str) -> Option<String> {
    let text = rust_i18n::t!(key).into_owned();
    // rust-i18n answers an unknown key with the key itself.
    if text.ends_with(key) {
        return None;
    }
    Some(if wta_i18n::language() == wta_i18n::PSEUDO {
        wta_i18n::pseudo(&text)
    } else {
        text
    })
}

fn localize(mut cmd: Command, path: &mut Vec<String>) -> Command {
    let refs: Vec<&str> = path.iter().map(String::as_str).collect();
    let at = prefix(&refs);
    let part = |p: Part| look_up(&format!("{at}.{}", p.key()));
    if cmd.get_about().is_some()
        && let Some(text) = part(Part::About)
    {
        cmd = cmd.about(text);
    }
    if cmd.get_long_about().is_some()
        && let Some(text) = part(Part::LongAbout)
    {
        cmd = cmd.long_about(text);
    }
    if cmd.get_after_help().is_some()
        && let Some(text) = part(Part::AfterHelp)
    {
        cmd = cmd.after_help(text);
    }
    let ids: Vec<String> = shown_args(&cmd)
        .map(|a| a.get_id().as_str().to_owned())
        .collect();
    for id in ids {
        let help = look_up(&format!("{at}.args.{id}.{}", Part::Help.key()));
        let long = look_up(&format!("{at}.args.{id}.{}", Part::LongHelp.key()));
        cmd = cmd.mut_arg(&id, |mut arg| {
            if arg.get_help().is_some()
                && let Some(text) = help
            {
                arg = arg.help(text);
            }
            if arg.get_long_help().is_some()
                && let Some(text) = long
            {
                arg = arg.long_help(text);
            }
            arg
        });
    }
    cmd = clap_words(cmd);
    let names: Vec<String> = shown_subcommands(&cmd)
        .map(|c| c.get_name().to_owned())
        .collect();
    for name in names {
        path.push(name.clone());
        cmd = cmd.mut_subcommand(&name, |sub| localize(sub, path));
        path.pop();
    }
    cmd
}

/// clap's own words in the current language: the usage line's heading, the
/// section headings, and the help and version flags (as our own flags).
fn clap_words(mut cmd: Command) -> Command {
    use clap::{Arg, ArgAction};
    let words = [
        "usage",
        "commands",
        "arguments",
        "options",
        "help",
        "version",
    ]
    .map(|w| look_up(&format!("clap.{w}")));
    let [
        Some(usage),
        Some(commands),
        Some(arguments),
        Some(options),
        Some(help),
        Some(version),
    ] = words
    else {
        return cmd;
    };
    cmd = cmd.help_template(format!(
        "{{before-help}}{{about-with-newline}}\n{usage} {{usage}}\n\n{{all-args}}{{after-help}}"
    ));
    if cmd.has_subcommands() {
        cmd = cmd.subcommand_help_heading(commands);
    }
    let plain: Vec<(String, bool)> = cmd
        .get_arguments()
        .filter(|a| a.get_help_heading().is_none())
        .map(|a| (a.get_id().as_str().to_owned(), a.is_positional()))
        .collect();
    for (id, positional) in plain {
        let heading = if positional { &arguments } else { &options };
        cmd = cmd.mut_arg(&id, |a| a.help_heading(heading.clone()));
    }
    cmd = cmd.disable_help_flag(true).arg(
        Arg::new("help")
            .short('h')
            .long("help")
            .action(ArgAction::Help)
            .help(help)
            .help_heading(options.clone()),
    );
    if cmd.get_version().is_some() {
        cmd = cmd.disable_version_flag(true).arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help(version)
                .help_heading(options),
        );
    }
    cmd
}

/// The `wta` command with its help in the current language (as it is in
/// English).
pub fn command() -> Command {
    let cmd = crate::cli::Cli::command();
    if wta_i18n::language() == "en" {
        return cmd;
    }
    localize(cmd, &mut Vec::new())
}

/// Parses `args`. What clap prints instead of running (`--help`, a usage
/// error) is in the current language: only then is the help translated.
pub fn parse(args: &[std::ffi::OsString]) -> crate::cli::Cli {
    use clap::FromArgMatches;
    let matches = match crate::cli::Cli::command().try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(err) if wta_i18n::language() == "en" => err.exit(),
        // The same arguments fail the same way, now in the user's language.
        Err(_) => command().get_matches_from(args),
    };
    crate::cli::Cli::from_arg_matches(&matches)
        .unwrap_or_else(|err| err.format(&mut command()).exit())
}

/// `--language TAG` or `--language=TAG` among `args`, before a `--`.
pub fn language_flag(args: &[std::ffi::OsString]) -> Option<String> {
    let mut args = args.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        if arg == "--" {
            return None;
        }
        if arg == "--language" {
            return args.next().map(|v| v.into_owned());
        }
        if let Some(tag) = arg.strip_prefix("--language=") {
            return Some(tag.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// `locale`'s help texts as compiled in (the build script rebuilds when
    /// a file changes).
    fn compiled(locale: &str) -> BTreeMap<String, String> {
        crate::_rust_i18n_backend()
            .messages_for_locale(locale)
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    /// The YAML of `texts`, nested by key (what `en.yml` must hold).
    fn yaml(texts: &BTreeMap<String, String>) -> String {
        let mut root = serde_yaml_ng::Mapping::new();
        for (key, text) in texts {
            let mut node = &mut root;
            let parts: Vec<&str> = key.split('.').collect();
            for part in &parts[..parts.len() - 1] {
                let entry = node
                    .entry((*part).into())
                    .or_insert_with(|| serde_yaml_ng::Value::Mapping(Default::default()));
                node = entry.as_mapping_mut().unwrap();
            }
            node.insert((*parts.last().unwrap()).into(), text.clone().into());
        }
        let body = serde_yaml_ng::to_string(&root).unwrap();
        format!(
            "# `wta --help` in en: the doc comments of crates/wta/src, as they are (the source).\n{body}"
        )
    }

    /// `en.yml` (as compiled in) says exactly what the command tree says.
    /// `WTA_BLESS=1` writes it anew after the help changed; the next run
    /// compiles it in.
    #[test]
    fn the_english_file_is_the_help_as_it_is() {
        let want = texts(&crate::cli::Cli::command());
        assert!(want.len() > 100, "{}", want.len());
        // clap's own words (`clap.*`) have no doc comment to follow.
        let compiled_help = |locale| {
            let mut texts = compiled(locale);
            texts.retain(|k: &String, _| k.starts_with("help."));
            texts
        };
        if std::env::var_os("WTA_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/locales/help/en.yml");
            std::fs::write(path, yaml(&want)).unwrap();
        }
        let have = compiled_help("en");
        let missing: Vec<&String> = want.keys().filter(|k| !have.contains_key(*k)).collect();
        let extra: Vec<&String> = have.keys().filter(|k| !want.contains_key(*k)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "help texts changed (WTA_BLESS=1 cargo test -p wta --bin wta cli_help, then run it again): missing {missing:?}, extra {extra:?}"
        );
        for (key, text) in &want {
            assert_eq!(&have[key], text, "{key} (WTA_BLESS=1 rewrites en.yml)");
        }
    }

    /// The `code` spans of `text`, in order.
    fn code_spans(text: &str) -> Vec<&str> {
        text.split('`').skip(1).step_by(2).collect()
    }

    /// Every locale translates every help text, keeping its `code` spans
    /// (commands, flags, paths) as they are.
    #[test]
    fn every_locale_translates_all_of_the_help() {
        let english = compiled("en");
        for locale in wta_i18n::LOCALES.iter().filter(|l| **l != "en") {
            let theirs = compiled(locale);
            let missing: Vec<&String> = english
                .keys()
                .filter(|k| !theirs.contains_key(*k))
                .collect();
            let extra: Vec<&String> = theirs
                .keys()
                .filter(|k| !english.contains_key(*k))
                .collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{locale}: missing {missing:?}, extra {extra:?}"
            );
            for (key, text) in &english {
                let theirs = &theirs[key];
                assert!(!theirs.trim().is_empty(), "{locale}: {key} is empty");
                let mut want = code_spans(text);
                let mut have = code_spans(theirs);
                want.sort_unstable();
                have.sort_unstable();
                assert_eq!(want, have, "{locale}: {key} keeps its `code` spans");
            }
        }
    }

    #[test]
    fn the_language_flag_is_found_before_a_double_dash() {
        let args = |a: &[&str]| {
            a.iter()
                .map(Into::into)
                .collect::<Vec<std::ffi::OsString>>()
        };
        assert_eq!(
            language_flag(&args(&["wta", "--language", "de", "up"])).as_deref(),
            Some("de")
        );
        assert_eq!(
            language_flag(&args(&["wta", "up", "--language=ja"])).as_deref(),
            Some("ja")
        );
        assert_eq!(
            language_flag(&args(&["wta", "delegate", "--", "--language", "de"])),
            None
        );
        assert_eq!(language_flag(&args(&["wta", "--language"])), None);
        assert_eq!(language_flag(&args(&["wta"])), None);
    }
}
