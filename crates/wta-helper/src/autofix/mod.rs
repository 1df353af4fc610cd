//! Autofix: a command that fails in a shell pane of the agent pane's tab
//! offers a fix turn, whose one `send` proposal waits on a card like any
//! other.
//!
//! - [`settings`]: `[autofix] mode` (suggest, auto, off) and `prewarm`.
//! - [`request`]: how `wta fix` reaches the helper of a tab.
//! - [`prompt`]: the fix turn's text and the failed command's record under
//!   the context's untrusted key (pure).
//!
//! Detection is the runtime's (`runtime/tab_watch.rs`: a watcher on every
//! shell pane of the tab, each finished command an input); deciding what a
//! failure means and when a fix turn runs is the machine's
//! (`machine/autofix.rs`).

pub mod prompt;
pub mod request;
pub mod settings;

pub use settings::{AutofixMode, AutofixSettings};

/// What `wta resolve-command NAME --json` answers for a command the shell
/// could not find, asked of `shell` (the failing pane's) in `cwd`: whether
/// the name exists anywhere that shell would look, and the names close to
/// it. Blocking (it may wait up to the shell timeout for the shell).
pub fn resolve(name: &str, cwd: Option<&str>, shell: Option<&str>) -> Option<serde_json::Value> {
    use wta_shell::resolve::{DEFAULT_SHELL_TIMEOUT, Request, check_name};
    check_name(name).ok()?;
    let here = std::env::current_dir().ok();
    let cwd = cwd
        .map(std::path::PathBuf::from)
        .filter(|dir| dir.is_dir())
        .or(here)?;
    let path_var = std::env::var_os("PATH");
    let resolution = wta_shell::resolve::resolve(&Request {
        name,
        cwd: &cwd,
        path_var: path_var.as_deref(),
        shell,
        timeout: DEFAULT_SHELL_TIMEOUT,
    });
    serde_json::to_value(resolution).ok()
}

/// [`resolve`] for a command that failed in a remote shell (over `wta
/// ssh`): nothing on this machine says whether it exists over there, so
/// the answer is `indeterminate`, with the reason.
pub fn resolve_remote(name: &str, host: &str) -> Option<serde_json::Value> {
    use wta_shell::resolve::{Lookup, Resolution, Source, Verdict, check_name};
    check_name(name).ok()?;
    let why =
        format!("the command ran on {host} over wta ssh; WTA looks names up on this machine only");
    serde_json::to_value(Resolution {
        name: name.to_owned(),
        verdict: Verdict::Indeterminate,
        sources: vec![Source::Shell {
            shell: None,
            program: None,
            lookup: Lookup::skipped(why),
        }],
        near_matches: Vec::new(),
    })
    .ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_remote_name_is_indeterminate_with_the_reason() {
        let answer = super::resolve_remote("ehco", "me@lab").unwrap();
        assert_eq!(answer["verdict"], "indeterminate");
        let reason = answer["sources"][0]["reason"].as_str().unwrap();
        assert!(
            reason.contains("me@lab") && reason.contains("wta ssh"),
            "{answer}"
        );
        assert_eq!(super::resolve_remote("a\nb", "lab"), None);
    }
}
