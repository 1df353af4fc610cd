//! What resolving a command name reports: every source checked, what each
//! found, the verdict, and the rule from the first to the last.
//!
//! Pure data and one pure decision ([`verdict`]). The I/O that fills a
//! [`Lookup`] lives in `ask` (the shell) and `lookup` (the directory and
//! `PATH`). Serialised as the stable `--json` of `wta resolve-command`: snake
//! case, every field always present (`null` when unknown).

use serde::Serialize;

use super::near::NearMatch;
use crate::error::ShellError;

/// The answer to "does this command exist here?".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// At least one source found it.
    Exists,
    /// The shell answered and no source found it: running it fails.
    NotFound,
    /// No source found it, but the shell could not be asked: an alias or a
    /// function defined in the user's rc files may still exist.
    Indeterminate,
}

impl Verdict {
    /// The word used in text and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Exists => "exists",
            Verdict::NotFound => "not_found",
            Verdict::Indeterminate => "indeterminate",
        }
    }

    /// The exit status of `wta resolve-command`: 0, 1, or 3 (2 is every wta
    /// command's usage error).
    pub fn exit_status(self) -> u8 {
        match self {
            Verdict::Exists => 0,
            Verdict::NotFound => 1,
            Verdict::Indeterminate => 3,
        }
    }
}

/// Whether a source could be consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Consulted; `found` is its whole answer.
    Checked,
    /// Could not be consulted (`reason` says why); `found` is empty.
    Unavailable,
    /// Does not apply to this name (`reason` says why); `found` is empty.
    Skipped,
}

/// One thing a name resolves to, as the source reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Found {
    /// A shell alias; `value` is its expansion when the shell told it.
    Alias { value: Option<String> },
    /// A shell function; `defined_in` is the file it came from when known.
    Function { defined_in: Option<String> },
    /// A shell builtin (`cd`, `echo`).
    Builtin,
    /// A reserved word (`if`, `time`).
    Keyword,
    /// An executable file.
    File { path: String },
}

/// What one source answered. Invariant (kept by the constructors):
/// `reason` is `None` exactly when `status` is `Checked`, and `found` is
/// empty unless it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lookup {
    pub status: Status,
    pub reason: Option<String>,
    pub found: Vec<Found>,
}

impl Lookup {
    pub fn checked(found: Vec<Found>) -> Lookup {
        Lookup {
            status: Status::Checked,
            reason: None,
            found,
        }
    }

    pub fn unavailable(reason: impl Into<String>) -> Lookup {
        Lookup {
            status: Status::Unavailable,
            reason: Some(reason.into()),
            found: Vec::new(),
        }
    }

    pub fn skipped(reason: impl Into<String>) -> Lookup {
        Lookup {
            status: Status::Skipped,
            reason: Some(reason.into()),
            found: Vec::new(),
        }
    }
}

/// One source of truth about command names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum Source {
    /// The user's shell, started interactively so that it loads the rc files.
    Shell {
        /// `bash`, `zsh` or `fish`; `None` for a shell WTA cannot ask.
        shell: Option<String>,
        /// The program started (`$SHELL`); `None` when there is none.
        program: Option<String>,
        #[serde(flatten)]
        lookup: Lookup,
    },
    /// The directory the command ran in: `./NAME`, or a NAME with a `/`.
    Cwd {
        dir: String,
        #[serde(flatten)]
        lookup: Lookup,
    },
    /// Every directory of `PATH`, in order; the first match is what runs.
    Path {
        #[serde(flatten)]
        lookup: Lookup,
    },
}

impl Source {
    pub fn lookup(&self) -> &Lookup {
        match self {
            Source::Shell { lookup, .. } | Source::Cwd { lookup, .. } | Source::Path { lookup } => {
                lookup
            }
        }
    }
}

/// Everything `wta resolve-command` reports about one name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolution {
    pub name: String,
    pub verdict: Verdict,
    pub sources: Vec<Source>,
    pub near_matches: Vec<NearMatch>,
}

/// The rule: any source found it → `Exists`; else the shell answered →
/// `NotFound`; else (no shell, or it could not be asked) → `Indeterminate`.
pub fn verdict(sources: &[Source]) -> Verdict {
    if sources.iter().any(|s| !s.lookup().found.is_empty()) {
        return Verdict::Exists;
    }
    let shell_answered = sources
        .iter()
        .any(|s| matches!(s, Source::Shell { lookup, .. } if lookup.status == Status::Checked));
    if shell_answered {
        Verdict::NotFound
    } else {
        Verdict::Indeterminate
    }
}

/// A name a command line can start with: not empty, no NUL, no line break
/// (a shell would read a newline as the end of the command).
pub fn check_name(name: &str) -> Result<(), ShellError> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.contains('\0') {
        "it contains a NUL byte"
    } else if name.contains(['\n', '\r']) {
        "it contains a line break"
    } else {
        return Ok(());
    };
    Err(ShellError::BadCommandName {
        name: name.to_owned(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn file() -> Vec<Found> {
        vec![Found::File {
            path: "/bin/x".into(),
        }]
    }

    fn shell(lookup: Lookup) -> Source {
        Source::Shell {
            shell: Some("bash".into()),
            program: Some("/bin/bash".into()),
            lookup,
        }
    }

    fn cwd(found: bool) -> Source {
        Source::Cwd {
            dir: "/d".into(),
            lookup: Lookup::checked(if found { file() } else { vec![] }),
        }
    }

    fn path(lookup: Lookup) -> Source {
        Source::Path { lookup }
    }

    /// Every combination of the shell's state, cwd and PATH.
    #[test]
    fn verdict_over_every_combination() {
        #[derive(Clone, Copy, Debug)]
        enum Sh {
            Found,
            Nothing,
            Unavailable,
            Missing,
        }
        #[derive(Clone, Copy, Debug)]
        enum P {
            Found,
            Nothing,
            Skipped,
        }
        for sh in [Sh::Found, Sh::Nothing, Sh::Unavailable, Sh::Missing] {
            for in_cwd in [true, false] {
                for p in [P::Found, P::Nothing, P::Skipped] {
                    let mut sources = Vec::new();
                    match sh {
                        Sh::Found => sources.push(shell(Lookup::checked(vec![Found::Builtin]))),
                        Sh::Nothing => sources.push(shell(Lookup::checked(vec![]))),
                        Sh::Unavailable => sources.push(shell(Lookup::unavailable("hung"))),
                        Sh::Missing => {}
                    }
                    sources.push(cwd(in_cwd));
                    sources.push(path(match p {
                        P::Found => Lookup::checked(file()),
                        P::Nothing => Lookup::checked(vec![]),
                        P::Skipped => Lookup::skipped("has a /"),
                    }));
                    let found_anywhere = matches!(sh, Sh::Found) || in_cwd || matches!(p, P::Found);
                    let expected = match (found_anywhere, sh) {
                        (true, _) => Verdict::Exists,
                        (false, Sh::Nothing) => Verdict::NotFound,
                        (false, Sh::Found) => unreachable!(),
                        (false, Sh::Unavailable | Sh::Missing) => Verdict::Indeterminate,
                    };
                    assert_eq!(verdict(&sources), expected, "{sh:?} cwd={in_cwd} {p:?}");
                }
            }
        }
        assert_eq!(verdict(&[]), Verdict::Indeterminate);
    }

    #[test]
    fn exit_statuses_avoid_the_usage_status() {
        let all = [Verdict::Exists, Verdict::NotFound, Verdict::Indeterminate];
        let codes: Vec<u8> = all.iter().map(|v| v.exit_status()).collect();
        assert_eq!(codes, [0, 1, 3]);
        let words: Vec<&str> = all.iter().map(|v| v.as_str()).collect();
        assert_eq!(words, ["exists", "not_found", "indeterminate"]);
    }

    #[test]
    fn json_shape() {
        let value = serde_json::to_value(shell(Lookup::checked(vec![
            Found::Alias {
                value: Some("ls -l".into()),
            },
            Found::Function { defined_in: None },
            Found::Keyword,
            Found::File {
                path: "/bin/ll".into(),
            },
        ])))
        .unwrap();
        assert_eq!(
            value,
            serde_json::json!({
                "source": "shell", "shell": "bash", "program": "/bin/bash",
                "status": "checked", "reason": null,
                "found": [
                    {"kind": "alias", "value": "ls -l"},
                    {"kind": "function", "defined_in": null},
                    {"kind": "keyword"},
                    {"kind": "file", "path": "/bin/ll"},
                ],
            })
        );
        assert_eq!(
            serde_json::to_value(path(Lookup::skipped("why"))).unwrap(),
            serde_json::json!({"source": "path", "status": "skipped", "reason": "why", "found": []})
        );
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("git").is_ok());
        assert!(check_name("./build.sh").is_ok());
        assert!(check_name("-x").is_ok());
        for (bad, why) in [
            ("", "empty"),
            ("a\0b", "NUL"),
            ("a\nb", "line break"),
            ("a\r", "line break"),
        ] {
            let err = check_name(bad).unwrap_err().to_string();
            assert!(err.contains(why), "{bad:?}: {err}");
        }
    }
}
