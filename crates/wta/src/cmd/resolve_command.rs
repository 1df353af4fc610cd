//! `wta resolve-command NAME`: does a command exist here (the user's shell,
//! the directory, `PATH`), and if not, what was probably meant. The logic is
//! `wta_shell::resolve`; this file parses arguments and prints. A pane whose
//! followed shell is remote (a `wta ssh` session, as its watcher records in
//! `@wta_remote_shell`) gets `indeterminate` with the reason: nothing on
//! this machine says what exists over there.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use wta_host::TerminalHost;
use wta_protocol::PaneId;
use wta_shell::resolve::{self, Found, Lookup, Resolution, Source, Status, Verdict};

use super::Ctx;
use crate::output;
use wta_i18n::tr;

const AFTER_HELP: &str = "\
Sources checked, in this order:
  shell  your shell ($SHELL, or --shell), started as an interactive shell so that it
         loads your rc files, and asked as you would ask it: bash `type -a`, zsh
         `whence -wa`, fish `type -a`. It finds aliases, functions, builtins,
         keywords and executables. It runs without a terminal, reads /dev/null and
         is stopped after --shell-timeout seconds.
  cwd    an executable NAME in the directory (run as ./NAME), or a NAME with a /
         taken relative to it.
  PATH   every executable NAME on $PATH, in order; the first one is what runs.

Verdicts and exit statuses:
  exists         0  at least one source found it
  not_found      1  the shell answered and no source found it: the command does not exist
  indeterminate  3  no source found it, but the shell could not be asked (it hung,
                    failed, or is not bash, zsh or fish): an alias or a function of
                    your rc files may still exist; or the pane's shell is remote
                    (`wta ssh`), where nothing on this machine can tell
  Bad usage (an empty NAME, one with a line break) exits 2, as in every wta command.

Near matches: up to 5 names on PATH or known to the shell, closest first
(edit distance, at most 1 for names of up to 4 characters, else 2).

Examples:
  $ wta resolve-command gti
  gti: not found
    shell  bash (/bin/bash): not found
    cwd    /home/me/src: no ./gti
    PATH   not found
  did you mean: git?
  $ wta resolve-command --json --cwd ~/src/app ./build.sh";

#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct ResolveCommandArgs {
    /// The command name as typed: `gti`, `ll`, `./build.sh`.
    // Its own id: `name` is the global `-L` (a server name), which clap would fill too.
    #[arg(id = "command_name", value_name = "NAME", value_parser = parse_name)]
    pub name: String,
    /// The directory the command ran in (default: the current one).
    #[arg(long, value_name = "DIR", value_parser = parse_dir)]
    pub cwd: Option<PathBuf>,
    /// The shell to ask (default: $SHELL, your login shell).
    #[arg(long, value_name = "PROGRAM")]
    pub shell: Option<String>,
    /// The pane whose shell would run NAME (default: the caller's pane, in
    /// tmux). When its shell is remote (`wta ssh`) the answer is
    /// `indeterminate`: names are looked up on this machine only.
    #[arg(short = 't', long = "target", value_name = "PANE", add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub target: Option<PaneId>,
    /// Seconds the shell may take to load its rc files and answer.
    #[arg(long, value_name = "S", default_value = "3", value_parser = parse_shell_timeout)]
    pub shell_timeout: Duration,
}

fn parse_name(text: &str) -> Result<String, String> {
    resolve::check_name(text)
        .map(|()| text.to_owned())
        .map_err(|e| e.to_string())
}

fn parse_dir(text: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(text);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!("{text} is not a directory"))
    }
}

/// More than zero and at most ten minutes: a shell that needs longer is hung.
fn parse_shell_timeout(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0 && *s <= 600.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{text:?}: give a number of seconds above 0, at most 600"))
}

pub fn run(ctx: &Ctx, args: &ResolveCommandArgs) -> anyhow::Result<ExitCode> {
    let remote_host = remote_host(ctx, args.target.as_ref())?;
    let resolution = match &remote_host {
        Some(host) => remote(&args.name, host),
        None => local(args),
    };
    if ctx.json {
        output::json(&resolution)?;
    } else {
        let text = match &remote_host {
            Some(host) => render_under(&resolution, tr!("ssh.resolve_remote", host = host)),
            None => render(&resolution),
        };
        output::line(text.trim_end())?;
    }
    Ok(ExitCode::from(resolution.verdict.exit_status()))
}

/// The host of the remote shell that pane `target` (else the caller's pane,
/// when there is one) follows, if it follows one. A pane named with `-t`
/// must exist; the caller's pane is looked at best effort.
fn remote_host(ctx: &Ctx, target: Option<&PaneId>) -> anyhow::Result<Option<String>> {
    let host = match (ctx.host(), target) {
        (Ok(host), _) => host,
        (Err(err), Some(_)) => return Err(err.into()),
        (Err(_), None) => return Ok(None),
    };
    let pane = match target {
        Some(pane) => {
            host.pane(pane)?;
            pane.clone()
        }
        None => match host.caller_pane() {
            Some(pane) => pane,
            None => return Ok(None),
        },
    };
    Ok(wta_shell::remote::read_remote_shell(&host, &pane).map(|place| place.host))
}

/// The answer for a shell on `host`: `indeterminate`, the shell source
/// skipped with the reason, nothing looked up here.
fn remote(name: &str, host: &str) -> Resolution {
    Resolution {
        name: name.to_owned(),
        verdict: Verdict::Indeterminate,
        sources: vec![Source::Shell {
            shell: None,
            program: None,
            lookup: Lookup::skipped(format!(
                "the pane's shell runs on {host} over wta ssh; WTA looks names up on this machine only"
            )),
        }],
        near_matches: Vec::new(),
    }
}

/// The answer of this machine's shell, directory and `PATH`.
fn local(args: &ResolveCommandArgs) -> Resolution {
    let cwd = match &args.cwd {
        Some(dir) => dir.clone(),
        // A directory that is gone makes the cwd source unavailable, not an error.
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let path_var = std::env::var_os("PATH");
    let shell = args.shell.clone().or_else(|| std::env::var("SHELL").ok());
    resolve::resolve(&resolve::Request {
        name: &args.name,
        cwd: &cwd,
        path_var: path_var.as_deref(),
        shell: shell.as_deref(),
        timeout: args.shell_timeout,
    })
}

/// The text for people: the verdict, one line a source, near matches.
fn render(r: &Resolution) -> String {
    render_under(r, headline(r))
}

/// [`render`] under the headline `headline`.
fn render_under(r: &Resolution, headline: String) -> String {
    let mut out = format!("{}: {headline}\n", r.name);
    for source in &r.sources {
        let (label, text) = match source {
            Source::Shell {
                shell,
                program,
                lookup,
            } => {
                let who = match (shell, program) {
                    (Some(shell), Some(program)) => format!("{shell} ({program})"),
                    (None, Some(program)) => program.clone(),
                    (_, None) => tr!("cli.resolve.none"),
                };
                let said = describe(lookup, &tr!("cli.resolve.not_found"));
                ("shell", format!("{who}: {said}"))
            }
            Source::Cwd { dir, lookup } => {
                let none = if r.name.contains('/') {
                    tr!("cli.resolve.no_file", name = r.name)
                } else {
                    tr!("cli.resolve.no_file", name = format!("./{}", r.name))
                };
                ("cwd", format!("{dir}: {}", describe(lookup, &none)))
            }
            Source::Path { lookup } => ("PATH", describe(lookup, &tr!("cli.resolve.not_found"))),
        };
        out.push_str(&format!("  {}  {text}\n", crate::output::pad(label, 5)));
    }
    if r.verdict != Verdict::Exists && !r.near_matches.is_empty() {
        let names: Vec<&str> = r.near_matches.iter().map(|m| m.name.as_str()).collect();
        out.push_str(&tr!("cli.resolve.did_you_mean", names = names.join(", ")));
        out.push('\n');
    }
    out
}

fn headline(r: &Resolution) -> String {
    match r.verdict {
        Verdict::NotFound => tr!("cli.resolve.not_found"),
        Verdict::Indeterminate => tr!("cli.resolve.indeterminate"),
        Verdict::Exists => {
            let only_cwd = r.sources.iter().all(|s| match s {
                Source::Cwd { .. } => true,
                other => other.lookup().found.is_empty(),
            });
            if only_cwd && !r.name.contains('/') {
                tr!("cli.resolve.only_cwd", name = r.name)
            } else {
                tr!("cli.resolve.exists")
            }
        }
    }
}

/// One source's answer: what it found, or why it could not tell.
fn describe(lookup: &Lookup, none: &str) -> String {
    match lookup.status {
        Status::Checked if lookup.found.is_empty() => none.to_owned(),
        Status::Checked => {
            let files = lookup
                .found
                .iter()
                .filter(|f| matches!(f, Found::File { .. }))
                .count();
            let mut parts: Vec<String> = Vec::new();
            let mut first_file = true;
            for found in &lookup.found {
                parts.push(match found {
                    Found::Alias { value: Some(v) } => tr!("cli.resolve.alias_for", value = v),
                    Found::Alias { value: None } => tr!("cli.resolve.alias"),
                    Found::Function {
                        defined_in: Some(file),
                    } => tr!("cli.resolve.function_from", file = file),
                    Found::Function { defined_in: None } => tr!("cli.resolve.function"),
                    Found::Builtin => tr!("cli.resolve.builtin"),
                    Found::Keyword => tr!("cli.resolve.keyword"),
                    Found::File { path } if first_file && files > 1 => {
                        first_file = false;
                        tr!("cli.resolve.first_of", path = path, count = files)
                    }
                    Found::File { path } => path.clone(),
                });
            }
            parts.join(", ")
        }
        Status::Unavailable => tr!(
            "cli.resolve.unavailable",
            reason = lookup
                .reason
                .clone()
                .unwrap_or_else(|| tr!("cli.resolve.no_reason"))
        ),
        Status::Skipped => tr!(
            "cli.resolve.skipped",
            reason = lookup
                .reason
                .clone()
                .unwrap_or_else(|| tr!("cli.resolve.does_not_apply"))
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wta_shell::resolve::NearMatch;

    use super::*;

    fn resolution(verdict: Verdict, shell: Lookup, cwd: Lookup, path: Lookup) -> Resolution {
        Resolution {
            name: "gti".into(),
            verdict,
            sources: vec![
                Source::Shell {
                    shell: Some("bash".into()),
                    program: Some("/bin/bash".into()),
                    lookup: shell,
                },
                Source::Cwd {
                    dir: "/src".into(),
                    lookup: cwd,
                },
                Source::Path { lookup: path },
            ],
            near_matches: vec![
                NearMatch {
                    name: "git".into(),
                    distance: 1,
                },
                NearMatch {
                    name: "gist".into(),
                    distance: 2,
                },
            ],
        }
    }

    fn file(path: &str) -> Found {
        Found::File { path: path.into() }
    }

    #[test]
    fn not_found_names_every_source_and_the_near_matches() {
        let r = resolution(
            Verdict::NotFound,
            Lookup::checked(vec![]),
            Lookup::checked(vec![]),
            Lookup::checked(vec![]),
        );
        assert_eq!(
            render(&r),
            "gti: not found\n\
             \x20 shell  bash (/bin/bash): not found\n\
             \x20 cwd    /src: no ./gti\n\
             \x20 PATH   not found\n\
             did you mean: git, gist?\n"
        );
    }

    #[test]
    fn exists_lists_what_each_source_found() {
        let r = resolution(
            Verdict::Exists,
            Lookup::checked(vec![
                Found::Alias {
                    value: Some("git status".into()),
                },
                Found::Function {
                    defined_in: Some("/home/u/.bashrc".into()),
                },
                Found::Builtin,
                file("/usr/bin/gti"),
                file("/bin/gti"),
            ]),
            Lookup::checked(vec![]),
            Lookup::checked(vec![file("/usr/bin/gti"), file("/bin/gti")]),
        );
        let text = render(&r);
        assert!(text.starts_with("gti: exists\n"), "{text}");
        assert!(
            text.contains(
                "shell  bash (/bin/bash): alias for `git status`, function from /home/u/.bashrc, \
                 builtin, /usr/bin/gti (first of 2), /bin/gti\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("PATH   /usr/bin/gti (first of 2), /bin/gti\n"),
            "{text}"
        );
        assert!(!text.contains("did you mean"), "{text}");
    }

    #[test]
    fn only_in_the_directory_says_how_to_run_it() {
        let r = resolution(
            Verdict::Exists,
            Lookup::checked(vec![]),
            Lookup::checked(vec![file("/src/gti")]),
            Lookup::checked(vec![]),
        );
        assert!(render(&r).starts_with("gti: exists in the directory only: run it as ./gti\n"));
    }

    #[test]
    fn a_shell_that_could_not_be_asked_says_why() {
        let r = resolution(
            Verdict::Indeterminate,
            Lookup::unavailable("bash did not answer within 3 s"),
            Lookup::checked(vec![]),
            Lookup::skipped("has a /"),
        );
        let text = render(&r);
        assert!(text.starts_with("gti: indeterminate: "), "{text}");
        assert!(
            text.contains(
                "shell  bash (/bin/bash): could not be asked: bash did not answer within 3 s\n"
            ),
            "{text}"
        );
        assert!(text.contains("PATH   skipped: has a /\n"), "{text}");
        assert!(text.ends_with("did you mean: git, gist?\n"), "{text}");
    }

    #[test]
    fn a_remote_shell_is_indeterminate_with_the_reason() {
        let r = remote("ehco", "me@lab");
        assert_eq!(r.verdict, Verdict::Indeterminate);
        assert!(r.near_matches.is_empty());
        let text = render_under(&r, tr!("ssh.resolve_remote", host = "me@lab"));
        assert!(
            text.starts_with(
                "ehco: indeterminate: the pane's shell runs on me@lab over wta ssh, and nothing \
                 on this machine says what exists there\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "skipped: the pane's shell runs on me@lab over wta ssh; \
                 WTA looks names up on this machine only\n"
            ),
            "{text}"
        );
        assert!(!text.contains("PATH"), "nothing here is looked at: {text}");
    }

    #[test]
    fn arguments_are_checked() {
        assert!(parse_name("gti").is_ok());
        assert!(parse_name("").unwrap_err().contains("empty"));
        assert!(parse_name("a\nb").unwrap_err().contains("line break"));
        assert_eq!(parse_shell_timeout("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["0", "-1", "NaN", "inf", "1e20", "x", "601"] {
            assert!(parse_shell_timeout(bad).is_err(), "{bad}");
        }
        assert!(parse_dir("/").is_ok());
        assert!(
            parse_dir("/no/such/dir")
                .unwrap_err()
                .contains("not a directory")
        );
    }
}
