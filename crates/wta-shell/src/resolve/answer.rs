//! What a shell's answer means: each shell's `type`/`whence` output turned
//! into [`Found`] entries and candidate names.
//!
//! The words come from the shells themselves, run with `LC_ALL=C`:
//! - bash `type -at`: `alias keyword function builtin file`; `type -aP` the
//!   files; `type` says "NAME is aliased to `VALUE'"; `declare -F` (with
//!   `extdebug`) says "NAME LINE FILE".
//! - zsh `whence -wa`: "NAME: alias|reserved|function|builtin|command|hashed|
//!   none"; `whence -ap` the files; `whence` prints an alias's value as is;
//!   `whence -va` says "NAME is a shell function from FILE".
//! - fish `type -at`: `function builtin file` ("file" once however many);
//!   `type -aP` the files; `functions -Dv` prints the defining file, then
//!   four lines, the last the description, which `alias` sets to
//!   "alias NAME=VALUE" (fish's aliases are functions: reported as aliases).
//!
//! Every shell lists files last, so the order of `found` is the shell's own
//! order of precedence. Pure, and total: unknown words and odd lines are
//! skipped, never an error.

use super::probe::Sections;
use super::report::Found;
use crate::scripts::Shell;

/// A shell's answer about one name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellAnswer {
    /// What the name resolves to, in the shell's order of precedence.
    pub found: Vec<Found>,
    /// The aliases, functions, builtins and keywords the shell knows.
    pub names: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Alias,
    Keyword,
    Function,
    Builtin,
    File,
}

fn kind_word(shell: Shell, word: &str) -> Option<Kind> {
    match (shell, word) {
        (Shell::Bash | Shell::Zsh, "alias") => Some(Kind::Alias),
        (Shell::Bash, "keyword") | (Shell::Zsh, "reserved") => Some(Kind::Keyword),
        (_, "function") => Some(Kind::Function),
        (_, "builtin") => Some(Kind::Builtin),
        (Shell::Bash | Shell::Fish, "file") | (Shell::Zsh, "command" | "hashed") => {
            Some(Kind::File)
        }
        _ => None,
    }
}

fn kinds(shell: Shell, text: &str) -> Vec<Kind> {
    text.lines()
        .filter_map(|line| match shell {
            // "NAME: word"; the name itself may hold ": ".
            Shell::Zsh => line.rsplit_once(": ").map(|(_, word)| word),
            _ => Some(line),
        })
        .filter_map(|word| kind_word(shell, word.trim()))
        .collect()
}

fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.is_empty())
}

/// A path worth naming: the shells say `main`, `stdin`, `-` or `n/a` for
/// functions typed in or defined by `-c`.
fn real_path(text: &str) -> Option<String> {
    text.starts_with('/').then(|| text.to_owned())
}

fn alias_value(shell: Shell, name: &str, s: &Sections) -> Option<String> {
    match shell {
        Shell::Bash => {
            let rest = s.first.strip_prefix(&format!("{name} is aliased to `"))?;
            let rest = rest.strip_suffix('\n').unwrap_or(rest);
            rest.strip_suffix('\'').map(str::to_owned)
        }
        Shell::Zsh => Some(s.first.strip_suffix('\n').unwrap_or(&s.first).to_owned()),
        Shell::Fish => fish_alias(name, s),
        Shell::Pwsh => None,
    }
}

/// fish's `functions -Dv`: file, autoload state, line, scope, description.
fn fish_alias(name: &str, s: &Sections) -> Option<String> {
    let description = s.detail.lines().nth(4)?;
    description
        .strip_prefix(&format!("alias {name}="))
        .map(str::to_owned)
}

fn function_file(shell: Shell, name: &str, s: &Sections) -> Option<String> {
    match shell {
        Shell::Bash => {
            let rest = s.detail.lines().next()?.strip_prefix(&format!("{name} "))?;
            let (_line, file) = rest.split_once(' ')?;
            real_path(file)
        }
        Shell::Zsh => {
            let prefix = format!("{name} is a shell function from ");
            s.detail
                .lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .and_then(real_path)
        }
        Shell::Fish => s.detail.lines().next().and_then(real_path),
        Shell::Pwsh => None,
    }
}

/// Reads the sections of `shell`'s answer about `name`.
pub fn interpret(shell: Shell, name: &str, s: &Sections) -> ShellAnswer {
    let kinds = kinds(shell, &s.kinds);
    let mut found = Vec::new();
    let mut has_file = false;
    for (i, kind) in kinds.iter().enumerate() {
        match kind {
            // An alias comes first; the plain answer describes only the first.
            Kind::Alias => found.push(Found::Alias {
                value: if i == 0 {
                    alias_value(shell, name, s)
                } else {
                    None
                },
            }),
            Kind::Function => match (shell, fish_alias(name, s)) {
                (Shell::Fish, Some(value)) => found.push(Found::Alias { value: Some(value) }),
                _ => found.push(Found::Function {
                    defined_in: function_file(shell, name, s),
                }),
            },
            Kind::Builtin => found.push(Found::Builtin),
            Kind::Keyword => found.push(Found::Keyword),
            Kind::File => has_file = true,
        }
    }
    let paths: Vec<&str> = lines(&s.paths).collect();
    found.extend(paths.iter().map(|p| Found::File {
        path: (*p).to_owned(),
    }));
    if has_file && paths.is_empty() {
        // Said to be a file but not where: it runs as typed.
        found.push(Found::File {
            path: name.to_owned(),
        });
    }
    ShellAnswer {
        found,
        names: lines(&s.names).map(str::to_owned).collect(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn file(p: &str) -> Found {
        Found::File { path: p.into() }
    }

    fn sections(kinds: &str, paths: &str, first: &str, detail: &str) -> Sections {
        Sections {
            kinds: kinds.into(),
            paths: paths.into(),
            first: first.into(),
            detail: detail.into(),
            names: "ll\ncd\n\nf\n".into(),
        }
    }

    /// Real answers, captured from bash 5.2, zsh 5.9 and fish 3.6.
    #[test]
    fn bash_answers() {
        let alias = sections(
            "alias\nfile\n",
            "/usr/bin/ll\n",
            "ll is aliased to `ls -l'\n",
            "",
        );
        let a = interpret(Shell::Bash, "ll", &alias);
        assert_eq!(
            a.found,
            [
                Found::Alias {
                    value: Some("ls -l".into())
                },
                file("/usr/bin/ll")
            ]
        );
        assert_eq!(a.names, ["ll", "cd", "f"]);
        let function = sections(
            "function\n",
            "",
            "f is a function\nf () \n{ \n    :\n}\n",
            "f 3 /home/u/.bashrc\n",
        );
        assert_eq!(
            interpret(Shell::Bash, "f", &function).found,
            [Found::Function {
                defined_in: Some("/home/u/.bashrc".into())
            }]
        );
        let typed_in = sections("function\n", "", "", "f 1 main\n");
        assert_eq!(
            interpret(Shell::Bash, "f", &typed_in).found,
            [Found::Function { defined_in: None }]
        );
        let echo = sections(
            "builtin\nfile\nfile\n",
            "/usr/bin/echo\n/bin/echo\n",
            "echo is a shell builtin\n",
            "",
        );
        assert_eq!(
            interpret(Shell::Bash, "echo", &echo).found,
            [Found::Builtin, file("/usr/bin/echo"), file("/bin/echo")]
        );
        let keyword = sections("keyword\n", "", "if is a shell keyword\n", "");
        assert_eq!(
            interpret(Shell::Bash, "if", &keyword).found,
            [Found::Keyword]
        );
        assert!(
            interpret(Shell::Bash, "nosuch", &sections("", "", "", ""))
                .found
                .is_empty()
        );
        // A value holding a quote and a line break.
        let odd = sections("alias\n", "", "x is aliased to `echo 'a\nb''\n", "");
        assert_eq!(
            interpret(Shell::Bash, "x", &odd).found,
            [Found::Alias {
                value: Some("echo 'a\nb'".into())
            }]
        );
    }

    #[test]
    fn zsh_answers() {
        let alias = sections("ll: alias\n", "", "ls -l\n", "ll is an alias for ls -l\n");
        assert_eq!(
            interpret(Shell::Zsh, "ll", &alias).found,
            [Found::Alias {
                value: Some("ls -l".into())
            }]
        );
        let function = sections(
            "f: function\n",
            "",
            "f\n",
            "f is a shell function from /home/u/.zshrc\n",
        );
        assert_eq!(
            interpret(Shell::Zsh, "f", &function).found,
            [Found::Function {
                defined_in: Some("/home/u/.zshrc".into())
            }]
        );
        let echo = sections(
            "echo: builtin\necho: command\necho: command\n",
            "/usr/bin/echo\n/bin/echo\n",
            "echo\n",
            "",
        );
        assert_eq!(
            interpret(Shell::Zsh, "echo", &echo).found,
            [Found::Builtin, file("/usr/bin/echo"), file("/bin/echo")]
        );
        let reserved = sections("if: reserved\n", "", "if\n", "");
        assert_eq!(
            interpret(Shell::Zsh, "if", &reserved).found,
            [Found::Keyword]
        );
        let none = sections("nosuch: none\n", "", "", "");
        assert!(interpret(Shell::Zsh, "nosuch", &none).found.is_empty());
        let colon = sections("a: b: function\n", "", "", "");
        assert_eq!(
            interpret(Shell::Zsh, "a: b", &colon).found,
            [Found::Function { defined_in: None }]
        );
    }

    #[test]
    fn fish_answers() {
        let alias = sections(
            "function\n",
            "",
            "",
            "-\nnot-autoloaded\n1\nscope-shadowing\nalias ll=ls -l\n",
        );
        assert_eq!(
            interpret(Shell::Fish, "ll", &alias).found,
            [Found::Alias {
                value: Some("ls -l".into())
            }]
        );
        let ls = sections(
            "function\nfile\n",
            "/usr/bin/ls\n/bin/ls\n",
            "",
            "/usr/share/fish/functions/ls.fish\nautoloaded\n20\nscope-shadowing\nList contents of directory\n",
        );
        assert_eq!(
            interpret(Shell::Fish, "ls", &ls).found,
            [
                Found::Function {
                    defined_in: Some("/usr/share/fish/functions/ls.fish".into())
                },
                file("/usr/bin/ls"),
                file("/bin/ls")
            ]
        );
        let typed_in = sections("function\n", "", "", "stdin\nn/a\n0\nscope-shadowing\n\n");
        assert_eq!(
            interpret(Shell::Fish, "f", &typed_in).found,
            [Found::Function { defined_in: None }]
        );
        let cd = sections(
            "function\nbuiltin\n",
            "",
            "",
            "/usr/share/fish/functions/cd.fish\n",
        );
        assert_eq!(interpret(Shell::Fish, "cd", &cd).found.len(), 2);
        // A word bash would use means nothing to fish.
        let odd = sections("keyword\nalias\n", "", "", "");
        assert!(interpret(Shell::Fish, "if", &odd).found.is_empty());
    }

    #[test]
    fn a_file_without_a_path_runs_as_typed() {
        let s = sections("file\n", "", "", "");
        assert_eq!(interpret(Shell::Bash, "./x", &s).found, [file("./x")]);
    }

    /// A shell's state: aliases, keywords, functions, builtins, files.
    #[derive(Debug, Clone)]
    struct Model {
        alias: Option<String>,
        keyword: bool,
        function: Option<String>,
        builtin: bool,
        files: Vec<String>,
    }

    fn model() -> impl Strategy<Value = Model> {
        (
            proptest::option::of("[a-z -]{1,10}"),
            any::<bool>(),
            proptest::option::of("(/[a-z]{1,5}){1,3}"),
            any::<bool>(),
            proptest::collection::vec("(/[a-z]{1,5}){1,3}", 0..3),
        )
            .prop_map(|(alias, keyword, function, builtin, files)| Model {
                alias,
                keyword,
                function,
                builtin,
                files,
            })
    }

    /// What bash prints for `m` (the formats of `bash_answers`).
    fn bash_says(name: &str, m: &Model) -> Sections {
        let mut kinds = String::new();
        let mut first = String::new();
        if let Some(v) = &m.alias {
            kinds.push_str("alias\n");
            first = format!("{name} is aliased to `{v}'\n");
        }
        if m.keyword {
            kinds.push_str("keyword\n");
        }
        if m.function.is_some() {
            kinds.push_str("function\n");
        }
        if m.builtin {
            kinds.push_str("builtin\n");
        }
        let mut paths = String::new();
        for f in &m.files {
            kinds.push_str("file\n");
            paths.push_str(&format!("{f}\n"));
        }
        let detail = m
            .function
            .as_ref()
            .map(|f| format!("{name} 12 {f}\n"))
            .unwrap_or_default();
        Sections {
            kinds,
            paths,
            first,
            detail,
            names: String::new(),
        }
    }

    fn expected(m: &Model) -> Vec<Found> {
        let mut found = Vec::new();
        if let Some(v) = &m.alias {
            found.push(Found::Alias {
                value: Some(v.clone()),
            });
        }
        if m.keyword {
            found.push(Found::Keyword);
        }
        if let Some(f) = &m.function {
            found.push(Found::Function {
                defined_in: Some(f.clone()),
            });
        }
        if m.builtin {
            found.push(Found::Builtin);
        }
        found.extend(m.files.iter().map(|f| file(f)));
        found
    }

    proptest! {
        #[test]
        fn bash_answers_read_back_as_the_state(name in "[a-z][a-z0-9]{0,6}", m in model()) {
            prop_assert_eq!(interpret(Shell::Bash, &name, &bash_says(&name, &m)).found, expected(&m));
        }

        #[test]
        fn any_text_reads_into_no_more_answers_than_its_lines(
            kinds in "(.{0,12}\n){0,4}",
            paths in "(.{0,12}\n){0,3}",
            first in ".{0,20}",
            detail in "(.{0,12}\n){0,6}",
            name in ".{0,6}",
        ) {
            let s = Sections { kinds, paths, first, detail, names: String::new() };
            for shell in Shell::ALL {
                let a = interpret(shell, &name, &s);
                prop_assert!(a.found.len() <= s.kinds.lines().count() + s.paths.lines().count() + 1);
            }
        }
    }
}
