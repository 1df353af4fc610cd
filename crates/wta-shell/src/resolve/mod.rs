//! Does a command exist here, and if not, what was meant? The answer to a
//! "command not found" (exit 127): `exists`, `not_found` or `indeterminate`,
//! with every source checked and near matches.
//!
//! Sources, in the order reported:
//! - the user's shell ([`ask`]): started interactively so that it loads the
//!   rc files, asked with its own `type`/`whence` ([`probe`], [`answer`]);
//! - the command's directory ([`lookup::check_cwd`]): `./NAME`, or a NAME
//!   with a `/` relative to it;
//! - `PATH` ([`lookup::check_path`]): every match, in order.
//!
//! The verdict ([`report::verdict`]) and near matches ([`near`], by
//! [`distance`]) are pure. [`resolve`] is the one entry point that does I/O.

pub mod answer;
pub mod ask;
pub mod distance;
pub mod lookup;
pub mod near;
pub mod probe;
pub mod report;

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

pub use ask::{ShellReply, ask_shell};
pub use distance::{damerau_levenshtein, max_distance};
pub use near::{MAX_NEAR_MATCHES, NearMatch, near_matches};
pub use report::{Found, Lookup, Resolution, Source, Status, Verdict, check_name, verdict};

/// How long the shell may take to load its rc files and answer, by default.
pub const DEFAULT_SHELL_TIMEOUT: Duration = Duration::from_secs(3);

/// What to resolve, and where.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The command name as typed (checked with [`check_name`] by callers).
    pub name: &'a str,
    /// The directory the command ran in.
    pub cwd: &'a Path,
    /// The `PATH` it ran with; `None` when unset.
    pub path_var: Option<&'a OsStr>,
    /// The shell to ask (the user's `$SHELL`); `None` when there is none.
    pub shell: Option<&'a str>,
    /// How long the shell may take ([`DEFAULT_SHELL_TIMEOUT`]).
    pub timeout: Duration,
}

/// Checks every source and decides. Blocks for up to `timeout` (the shell);
/// never fails: a source that cannot be consulted says why in its lookup.
pub fn resolve(req: &Request<'_>) -> Resolution {
    let reply = match req.shell.filter(|s| !s.is_empty()) {
        Some(program) => ask_shell(program, req.name, req.cwd, req.timeout),
        None => ShellReply {
            shell: None,
            lookup: Lookup::unavailable("SHELL is not set: there is no shell to ask"),
            names: Vec::new(),
        },
    };
    let executables = lookup::path_executables(req.path_var, req.cwd);
    let near_matches = near_matches(
        req.name,
        executables.iter().chain(&reply.names).map(String::as_str),
        MAX_NEAR_MATCHES,
    );
    let sources = vec![
        Source::Shell {
            shell: reply.shell.map(|s| s.name().to_owned()),
            program: req.shell.map(str::to_owned),
            lookup: reply.lookup,
        },
        Source::Cwd {
            dir: req.cwd.to_string_lossy().into_owned(),
            lookup: lookup::check_cwd(req.name, req.cwd),
        },
        Source::Path {
            lookup: lookup::check_path(req.name, req.path_var, req.cwd),
        },
    ];
    Resolution {
        name: req.name.to_owned(),
        verdict: verdict(&sources),
        sources,
        near_matches,
    }
}
