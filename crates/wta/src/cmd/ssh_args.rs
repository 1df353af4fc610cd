//! `wta ssh`'s command line, split as ssh would read it: ssh's own options
//! (kept as given, in order, for the user's `ssh`), the destination, and
//! an optional command after it (`-- command` or, as ssh takes it, the
//! words after the destination). Pure; the refusals are for options that
//! would leave no interactive terminal for the remote shell.

/// `wta`'s own options that may come before the command word, and whether
/// they take a value (as `crate::cli` defines them).
const WTA_GLOBALS: [(&str, bool); 5] = [
    ("--json", false),
    ("--language", true),
    ("--socket", true),
    ("-S", true),
    ("-L", true),
];

/// When `argv` (the whole command line, program first) runs `wta ssh`:
/// how many words belong to `wta` (up to and including `ssh`) and ssh's
/// words after it, untouched. clap would take an ssh option that is also
/// one of wta's (`-L` port forwarding, `-S` control path) as wta's; `None`
/// for any other command, and for `wta ssh --help`.
pub fn ssh_argv(argv: &[String]) -> Option<(usize, Vec<String>)> {
    let mut at = 1;
    while let Some(word) = argv.get(at) {
        if word == "ssh" {
            let rest = argv[at + 1..].to_vec();
            let help = matches!(rest.first().map(String::as_str), Some("-h" | "--help"));
            return (!help).then_some((at + 1, rest));
        }
        let global = WTA_GLOBALS.iter().find_map(|(name, takes)| {
            if word == name {
                Some(if *takes { 2 } else { 1 })
            } else if *takes
                && (word.starts_with(&format!("{name}="))
                    || (name.len() == 2 && word.starts_with(name) && word.len() > 2))
            {
                Some(1)
            } else {
                None
            }
        });
        at += global?;
    }
    None
}

/// ssh options that take an argument (OpenSSH 9: `ssh -?`).
const WITH_ARGUMENT: &str = "BbcDEeFIiJLlmOoPpQRSWw";
/// ssh options without one.
const FLAGS: &str = "46AaCfGgKkMNnqsTtVvXxYy";
/// Flags that leave no interactive shell (or no terminal) on the remote host.
const REFUSED: &str = "fGNnOQsTVW";

/// What `wta ssh` was given, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// ssh's options, as given.
    pub options: Vec<String>,
    /// Where to: `host`, `user@host`, `ssh://user@host:port`.
    pub destination: String,
    /// The command to run first in the remote shell (words joined by spaces).
    pub command: Option<String>,
}

/// Why the command line cannot be run as `wta ssh`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    NoDestination,
    /// An option whose argument is missing.
    MissingArgument(char),
    /// An option ssh does not have.
    UnknownOption(char),
    /// An option that leaves no interactive remote shell.
    NotInteractive(char),
    /// The command holds a control character (it is typed as one line).
    BadCommand,
}

/// Splits `args` (what follows `wta ssh`).
pub fn split(args: &[String]) -> Result<Plan, Refusal> {
    let mut options = Vec::new();
    let mut words = args.iter();
    let destination = loop {
        let Some(arg) = words.next() else {
            return Err(Refusal::NoDestination);
        };
        if arg == "--" {
            break words.next().ok_or(Refusal::NoDestination)?.clone();
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break arg.clone();
        };
        options.push(arg.clone());
        for (at, flag) in cluster.char_indices() {
            if REFUSED.contains(flag) {
                return Err(Refusal::NotInteractive(flag));
            }
            if WITH_ARGUMENT.contains(flag) {
                // The rest of the cluster is its argument, else the next word.
                if at + flag.len_utf8() == cluster.len() {
                    let value = words.next().ok_or(Refusal::MissingArgument(flag))?;
                    options.push(value.clone());
                }
                break;
            }
            if !FLAGS.contains(flag) {
                return Err(Refusal::UnknownOption(flag));
            }
        }
    };
    let mut rest: Vec<&String> = words.collect();
    if rest.first().is_some_and(|w| *w == "--") {
        rest.remove(0);
    }
    let command = match rest.is_empty() {
        true => None,
        false => {
            let line = rest
                .iter()
                .map(|w| w.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            if line.chars().any(char::is_control) {
                return Err(Refusal::BadCommand);
            }
            Some(line)
        }
    };
    Ok(Plan {
        options,
        destination,
        command,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn plan(options: &str, destination: &str, command: Option<&str>) -> Plan {
        Plan {
            options: words(options),
            destination: destination.to_owned(),
            command: command.map(str::to_owned),
        }
    }

    #[test]
    fn options_destination_and_command_split_as_ssh_reads_them() {
        let table = [
            ("host", plan("", "host", None)),
            ("-p 2222 me@host", plan("-p 2222", "me@host", None)),
            ("-p2222 -vvA me@host", plan("-p2222 -vvA", "me@host", None)),
            (
                "-o StrictHostKeyChecking=no -F /tmp/c host",
                plan("-o StrictHostKeyChecking=no -F /tmp/c", "host", None),
            ),
            (
                "-L 8080:localhost:80 -J jump host",
                plan("-L 8080:localhost:80 -J jump", "host", None),
            ),
            (
                "-4t host -- htop -d 5",
                plan("-4t", "host", Some("htop -d 5")),
            ),
            ("host make test", plan("", "host", Some("make test"))),
            ("-- -weird-host", plan("", "-weird-host", None)),
            ("ssh://me@host:2222", plan("", "ssh://me@host:2222", None)),
        ];
        for (line, want) in table {
            assert_eq!(split(&words(line)), Ok(want), "{line}");
        }
    }

    #[test]
    fn what_cannot_give_an_interactive_remote_shell_is_refused() {
        let table = [
            ("", Refusal::NoDestination),
            ("-p 22", Refusal::NoDestination),
            ("-p", Refusal::MissingArgument('p')),
            ("-N host", Refusal::NotInteractive('N')),
            ("-vT host", Refusal::NotInteractive('T')),
            ("-fN host", Refusal::NotInteractive('f')),
            ("-W h:22 host", Refusal::NotInteractive('W')),
            ("-Z host", Refusal::UnknownOption('Z')),
            ("--", Refusal::NoDestination),
        ];
        for (line, want) in table {
            assert_eq!(split(&words(line)), Err(want), "{line}");
        }
        let with_newline = vec!["host".to_owned(), "echo a\nrm -rf x".to_owned()];
        assert_eq!(split(&with_newline), Err(Refusal::BadCommand));
    }

    #[test]
    fn ssh_words_are_taken_before_clap_sees_them() {
        let table: [(&str, Option<(usize, &str)>); 8] = [
            (
                "wta ssh -L 8080:db:80 host",
                Some((2, "-L 8080:db:80 host")),
            ),
            (
                "wta -L srv ssh -S /tmp/ctl host",
                Some((4, "-S /tmp/ctl host")),
            ),
            ("wta --json --language=de -Lsrv ssh host", Some((5, "host"))),
            ("wta --socket /s ssh", Some((4, ""))),
            ("wta ssh --help", None),
            ("wta listen -t %1", None),
            ("wta --master /s", None),
            ("wta", None),
        ];
        for (line, want) in table {
            let got = ssh_argv(&words(line));
            assert_eq!(got, want.map(|(n, rest)| (n, words(rest))), "{line}");
        }
    }

    proptest! {
        /// Whatever the words, the options are given back exactly as they
        /// came (never reordered or rewritten), followed by the destination.
        #[test]
        fn options_are_kept_as_given(args in proptest::collection::vec("-?[a-zA-Z0-9=:./@-]{0,6}", 0..8)) {
            if let Ok(p) = split(&args) {
                let n = p.options.len();
                prop_assert_eq!(&args[..n], p.options.as_slice());
                let at = if args.get(n).map(String::as_str) == Some("--") { n + 1 } else { n };
                prop_assert_eq!(&args[at], &p.destination);
            }
        }
    }
}
